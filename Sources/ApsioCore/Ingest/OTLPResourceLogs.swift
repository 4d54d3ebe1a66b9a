/// One `ResourceLogs`: an app's Resource with one session, and that session's records.
package struct OTLPResourceLogs: Sendable, Equatable {
    package var resource: OTLPResource
    package var records: [IngestRecord]

    package init(resource: OTLPResource, records: [IngestRecord]) {
        self.resource = resource
        self.records = records
    }

    /// One group per session of `records` (LINUX-PROFILE §1), in the order each session first
    /// appears, records in their order; `app`'s own `sessionID` is replaced by each group's.
    /// Records of no session form a group whose Resource has no `session.id`.
    package static func grouped(app: OTLPResource, records: [IngestRecord]) -> [OTLPResourceLogs] {
        // Nearly every batch is one session's: handed over whole, not copied record by record.
        if let first = records.first, records.allSatisfy({ $0.record.sessionID == first.record.sessionID }) {
            var resource = app
            resource.sessionID = first.record.sessionID
            return [OTLPResourceLogs(resource: resource, records: records)]
        }
        var groups: [OTLPResourceLogs] = []
        var indexBySession: [String?: Int] = [:]
        for entry in records {
            let session = entry.record.sessionID
            if let index = indexBySession[session] {
                groups[index].records.append(entry)
            } else {
                var resource = app
                resource.sessionID = session
                indexBySession[session] = groups.count
                groups.append(OTLPResourceLogs(resource: resource, records: [entry]))
            }
        }
        return groups
    }
}
