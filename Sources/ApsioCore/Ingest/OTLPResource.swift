/// The Resource of one app's `ResourceLogs` (spec 2, LINUX-PROFILE §2): who wrote the records.
package struct OTLPResource: Sendable, Equatable {
    /// `service.name`: the app file's `Name=`, else the unit name without its suffix.
    package var serviceName: String
    /// `service.version`: `Version=`, else the owning package's version, else `unknown`.
    package var serviceVersion: String
    /// `app.build_id`: the main executable's GNU build-id, else `NAME@VERSION`.
    package var appBuildID: String
    /// `os.*`, `device.*` and `host.name`.
    package var facts: ResourceFacts
    /// `app.installation.id`; nil when the app file says `InstallationId=no`.
    package var installationID: String?
    /// `session.id` of the group; nil for records of no session.
    package var sessionID: String?

    package init(
        serviceName: String, serviceVersion: String, appBuildID: String, facts: ResourceFacts = ResourceFacts(),
        installationID: String? = nil, sessionID: String? = nil
    ) {
        self.serviceName = serviceName
        self.serviceVersion = serviceVersion
        self.appBuildID = appBuildID
        self.facts = facts
        self.installationID = installationID
        self.sessionID = sessionID
    }

    /// In LINUX-PROFILE §2's order, absent ones left out. Never `device.id`.
    package var attributes: [Attribute] {
        var out: [Attribute] = [
            .string("service.name", serviceName), .string("service.version", serviceVersion),
            .string("app.build_id", appBuildID),
        ]
        let optional: [(String, String?)] = [
            ("os.name", facts.osName), ("os.version", facts.osVersion), ("os.build_id", facts.osBuildID),
            ("device.manufacturer", facts.deviceManufacturer),
            ("device.model.identifier", facts.deviceModelIdentifier), ("app.installation.id", installationID),
            ("host.name", facts.hostName), ("session.id", sessionID),
        ]
        for case let (key, value?) in optional { out.append(.string(key, value)) }
        return out
    }

    /// What `log.record.uid` is derived from: the installation id, or `service.name` when the
    /// app turned the installation id off. The journal cursor hashed with it already differs
    /// from machine to machine (it names the journal file's random sequence id), so the uid
    /// stays unique without an identifier of the machine.
    package var recordUIDNamespace: String { installationID ?? serviceName }
}
