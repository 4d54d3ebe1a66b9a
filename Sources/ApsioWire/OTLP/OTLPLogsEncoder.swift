package import ApsioCore
import ApsioJSON
/// Writes an OTLP `ExportLogsServiceRequest` in the protobuf JSON mapping (OTLP/HTTP with
/// `Content-Type: application/json`, LINUX-PROFILE §1) straight into bytes, field by field.
///
/// The shape, exactly (docs/otlp.md):
/// `{"resourceLogs":[{"resource":{"attributes":[…]},"scopeLogs":[{"scope":{"name":"apsiod",
/// "version":…},"logRecords":[{"timeUnixNano":"…","observedTimeUnixNano":"…","severityNumber":n,
/// "severityText":"…","body":{"stringValue":"…"},"attributes":[…]}]}]}]}`
/// with each attribute `{"key":k,"value":{"stringValue"|"intValue"|"doubleValue"|"boolValue":v}}`.
/// 64-bit integers (`intValue`, the times) are JSON strings, as the mapping writes int64 and
/// fixed64; a double that JSON cannot spell is `"NaN"`, `"Infinity"` or `"-Infinity"`.
///
/// Each record carries `log.record.uid` (see `recordUID`), `session.id` when it differs from its
/// Resource's, and its sampling mark. Bodies are cut to 4096 bytes and string attributes to
/// 1024, at a UTF-8 boundary.
package struct OTLPLogsEncoder: Sendable {
    package static let scopeName = "apsiod"
    package static let recordUIDKey = "log.record.uid"
    package static let sessionIDKey = "session.id"
    /// Keys the encoder sets itself; a record attribute of the same key is left out rather than
    /// sent twice with two values. Three comparisons, most of them settled by length, rather than a
    /// set, which would hash every key of every record's attributes.
    static func isEncoderKey(_ key: String) -> Bool {
        key == recordUIDKey || key == SamplingMark.sessionRateKey || key == SamplingMark.releasedKey
    }

    let hashing: any SHA256Hashing
    package let limits: Limits
    package let scopeVersion: String

    package init(hashing: some SHA256Hashing, limits: Limits = .spec, scopeVersion: String = ApsioVersion.current) {
        self.hashing = hashing
        self.limits = limits
        self.scopeVersion = scopeVersion
    }

    package func encode(_ groups: [OTLPResourceLogs]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: Self.estimate(groups.lazy.map { $0.records[...] }))
        writer.beginObject()
        writer.key("resourceLogs")
        writer.beginArray()
        var scratch = JSONScratch()
        hashing.withDigester { digester in
            for group in groups where !group.records.isEmpty {
                beginGroup(group.resource, into: &writer)
                var pieces = RecordPieces(namespace: group.resource.recordUIDNamespace)
                group.records.withUnsafeBufferPointer { records in
                    guard let base = records.baseAddress else { return }
                    for index in records.indices {
                        write(
                            base + index, resourceSession: group.resource.sessionID, pieces: &pieces,
                            digester: digester, scratch: &scratch, into: &writer)
                    }
                }
                endGroup(into: &writer)
            }
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// The records of `runs`, in order, one `ResourceLogs` per session as `OTLPResourceLogs.grouped`
    /// would make them, without copying a record into groups: the exporter hands over slices of
    /// the records it keeps until the backend accepts them.
    ///
    /// The JSON is written into `buffer`'s storage when it is given (and not shared): see
    /// `JSONWriter.init(reusing:reservingCapacity:)`.
    package func encode(app: OTLPResource, runs: [ArraySlice<IngestRecord>], reusing buffer: consuming [UInt8] = []) -> [UInt8] {
        let sessions = Self.sessions(in: runs)
        var writer = JSONWriter(reusing: buffer, reservingCapacity: Self.estimate(runs))
        writer.beginObject()
        writer.key("resourceLogs")
        writer.beginArray()
        var scratch = JSONScratch()
        hashing.withDigester { digester in
            for session in sessions {
                var resource = app
                resource.sessionID = session
                beginGroup(resource, into: &writer)
                var pieces = RecordPieces(namespace: resource.recordUIDNamespace)
                for run in runs {
                    run.withUnsafeBufferPointer { records in
                        // A pointer, as `pointee` read field by field lends the record where the
                        // buffer's subscript (or `pointee` passed on whole) returns a copy.
                        guard let base = records.baseAddress else { return }
                        for index in records.indices where sessions.count == 1 || (base + index).pointee.record.sessionID == session {
                            write(
                                base + index, resourceSession: session, pieces: &pieces, digester: digester,
                                scratch: &scratch, into: &writer)
                        }
                    }
                }
                endGroup(into: &writer)
            }
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// The sessions of `runs`' records in the order they first come: one `ResourceLogs` each.
    static func sessions(in runs: [ArraySlice<IngestRecord>]) -> [String?] {
        // Records are read in place through buffer pointers: a subscript of the slice would copy
        // each record out (four retains) and destroy the copy again.
        var sessions: [String?] = []
        for run in runs {
            run.withUnsafeBufferPointer { records in
                guard let base = records.baseAddress else { return }
                for index in records.indices {
                    let session = (base + index).pointee.record.sessionID
                    if sessions.last != session, !sessions.contains(session) { sessions.append(session) }
                }
            }
        }
        return sessions
    }

    /// Each record's envelope, uid and mark take about 350 bytes; its attributes are counted once
    /// per group in practice (shared), but reserving for them too costs only address space.
    static func estimate(_ runs: some Sequence<ArraySlice<IngestRecord>>) -> Int {
        var estimate = 1024
        for run in runs {
            run.withUnsafeBufferPointer { records in
                guard let base = records.baseAddress else { return }
                for index in records.indices {
                    // Through `pointee`, without binding the record: a bound copy costs four retains.
                    estimate += 350 + (base + index).pointee.record.body.utf8.count
                        + (base + index).pointee.record.attributes.count * 64
                }
            }
        }
        return estimate
    }

    /// `log.record.uid`: lowercase hex of the first 16 bytes of SHA-256 of the namespace (the
    /// installation id), a colon and the journal cursor, so a backend can drop a record sent
    /// twice. A record that is no journal entry (diagnostics, a coredump summary) has no cursor;
    /// its uid hashes the namespace, `:apsio-record:` and the record's content (time,
    /// severity, body and attributes), which is the same each time the same record is sent
    /// again and never equals a cursor's input (cursors start with `s=`).
    package func recordUID(_ record: LogRecord, namespace: String) -> String {
        var input = UIDInput(namespace: namespace)
        return Hex.lowercase(uidDigest(record, input: &input).prefix(16))
    }

    /// The bytes a uid hashes, for a run of records of one namespace: the namespace and its colon
    /// are written once, and each record's part replaces the previous one's in the same storage.
    struct UIDInput {
        var bytes: [UInt8]
        let namespaceCount: Int

        init(namespace: String) {
            bytes = Array(namespace.utf8)
            bytes.append(UInt8(ascii: ":"))
            namespaceCount = bytes.count
            bytes.reserveCapacity(namespaceCount + 128)
        }

        /// The namespace and colon stay; the record's part replaces the previous record's.
        mutating func fill(for record: LogRecord) {
            if let cursor = record.journalCursor {
                fill(cursor: cursor)
            } else {
                bytes.removeLast(bytes.count - namespaceCount)
                bytes.append(contentsOf: "apsio-record:".utf8)
                bytes.append(contentsOf: OTLPLogsEncoder.contentKey(record))
            }
        }

        /// A journal entry's part: its cursor.
        mutating func fill(cursor: String) {
            bytes.removeLast(bytes.count - namespaceCount)
            bytes.append(contentsOf: cursor.utf8)
        }
    }

    private func uidDigest(_ record: LogRecord, input: inout UIDInput) -> [UInt8] {
        input.fill(for: record)
        return hashing.sha256(input.bytes)
    }

    fileprivate static func contentKey(_ record: LogRecord) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginArray()
        writer.uint(record.timeUnixNano)
        writer.int(Int64(record.severityNumber))
        writer.string(record.body)
        writer.beginArray()
        for attribute in record.attributes {
            writer.string(attribute.key)
            switch attribute.value {
            case .string(let text): writer.string(text)
            case .int(let number): writer.string("i\(number)")
            case .double(let number): writer.string("d\(number)")
            case .bool(let flag): writer.bool(flag)
            }
        }
        writer.endArray()
        writer.endArray()
        return writer.bytes
    }

    // MARK: Writing

    /// A `ResourceLogs` up to its first record.
    private func beginGroup(_ resource: OTLPResource, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("resource")
        writer.beginObject()
        writer.key("attributes")
        writeAttributes(resource.attributes, into: &writer)
        writer.endObject()
        writer.key("scopeLogs")
        writer.beginArray()
        writer.beginObject()
        writer.key("scope")
        writer.beginObject()
        writer.key("name")
        writer.string(Self.scopeName)
        writer.key("version")
        writer.string(scopeVersion)
        writer.endObject()
        writer.key("logRecords")
        writer.beginArray()
    }

    private func endGroup(into writer: inout JSONWriter) {
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.endObject()
    }

    /// What records of one group have in common, each worked out once: the JSON of their
    /// attribute array (the follower shares one array between a unit's records whose attributes
    /// are the same), of their sampling mark, and the start of their uid's input.
    private struct RecordPieces {
        var uid: UIDInput
        var attributesSeen = AttributeMemo()
        var attributes = EncodedAttributes(json: [], hasSessionAttribute: false)
        var mark: (mark: SamplingMark, json: [UInt8])?

        init(namespace: String) {
            uid = UIDInput(namespace: namespace)
        }
    }

    /// A record's own attributes as JSON array elements (comma-separated, no brackets), without
    /// the keys the encoder sets itself.
    private struct EncodedAttributes {
        var json: [UInt8]
        var hasSessionAttribute: Bool
    }

    private static let timeKey = Array(#""timeUnixNano":""#.utf8)
    private static let observedTimeKey = Array(#"","observedTimeUnixNano":""#.utf8)
    private static let severityNumberKey = Array(#"","severityNumber":"#.utf8)
    private static let severityTextKey = Array(#","severityText":"#.utf8)
    private static let bodyKey = Array(#","body":{"stringValue":"#.utf8)
    private static let attributesKey = Array(#"},"attributes":["#.utf8)
    private static let uidStart = Array(#"{"key":"log.record.uid","value":{"stringValue":""#.utf8)
    private static let uidEnd = Array(#""}}"#.utf8)

    /// The record object, written piece by piece into `scratch` and then into the request; the same
    /// bytes `writeAttribute` and the writer's own methods would make, in the shape the type's
    /// comment gives. The attributes' JSON, most of a record, goes from the memo straight into the
    /// request rather than through `scratch` too.
    private func write(
        _ entry: UnsafePointer<IngestRecord>, resourceSession: String?, pieces: inout RecordPieces,
        digester: borrowing SHA256Digester, scratch: inout JSONScratch, into writer: inout JSONWriter
    ) {
        let body = UTF8Cut.cutBody(entry.pointee.record.body, limits: limits)
        if let mark = entry.pointee.mark.attribute, pieces.mark?.mark != entry.pointee.mark { pieces.mark = (entry.pointee.mark, json(of: mark)) }
        let markJSON = entry.pointee.mark.attribute == nil ? nil : pieces.mark?.json
        // The cursor alone when there is one: passing the record would copy it, four retains.
        if let cursor = entry.pointee.record.journalCursor {
            pieces.uid.fill(cursor: cursor)
        } else {
            pieces.uid.fill(for: entry.pointee.record)
        }
        if !pieces.attributesSeen.isRemembered(entry.pointee.record.attributes) {
            pieces.attributes = encode(attributes: entry.pointee.record.attributes, scratch: &scratch)
        }
        // `session.id` on the record only where it differs from its Resource's (§2.4).
        let session = entry.pointee.record.sessionID.flatMap {
            $0 != resourceSession && !pieces.attributes.hasSessionAttribute ? $0 : nil
        }
        let sessionJSON = session.map { json(of: .string(Self.sessionIDKey, $0)) } ?? []
        scratch.reset(
            reserving: Self.fixedRecordBytes + JSONEscaping.quotedBound(utf8Count: entry.pointee.record.severityText.utf8.count)
                + JSONEscaping.quotedBound(utf8Count: body.utf8.count) + sessionJSON.count + (markJSON?.count ?? 0))
        scratch.put(UInt8(ascii: "{"))
        scratch.put(Self.timeKey)
        scratch.putDecimal(entry.pointee.record.timeUnixNano)
        scratch.put(Self.observedTimeKey)
        scratch.putDecimal(entry.pointee.observedTimeUnixNano ?? entry.pointee.record.timeUnixNano)
        scratch.put(Self.severityNumberKey)
        let severity = CapturePolicy.severityRange.contains(entry.pointee.record.severityNumber) ? entry.pointee.record.severityNumber : 0
        scratch.putDecimal(UInt64(severity))
        if !entry.pointee.record.severityText.isEmpty {
            scratch.put(Self.severityTextKey)
            scratch.putQuoted(entry.pointee.record.severityText)
        }
        scratch.put(Self.bodyKey)
        scratch.putQuoted(body)
        scratch.put(Self.attributesKey)
        writer.raw(scratch.bytes)
        let attributes = pieces.attributes.json
        writer.append(attributes)
        scratch.reset(reserving: 0)
        if !sessionJSON.isEmpty {
            if !attributes.isEmpty { scratch.put(UInt8(ascii: ",")) }
            scratch.put(sessionJSON)
        }
        if !attributes.isEmpty || !sessionJSON.isEmpty { scratch.put(UInt8(ascii: ",")) }
        scratch.put(Self.uidStart)
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            pieces.uid.bytes.withUnsafeBytes { digester.digest($0, into: digest) }
            scratch.putHex(UnsafeRawBufferPointer(digest), count: 16)
        }
        scratch.put(Self.uidEnd)
        if let markJSON {
            scratch.put(UInt8(ascii: ","))
            scratch.put(markJSON)
        }
        scratch.put(UInt8(ascii: "]"))
        scratch.put(UInt8(ascii: "}"))
        writer.append(scratch.bytes)
    }

    /// The envelope's keys and punctuation, three numbers of at most 20 digits, and the uid: what a
    /// record takes besides its strings and attributes (about 260 bytes), with room to spare.
    private static let fixedRecordBytes = 512

    private static let attributeKeyStart = Array(#"{"key":"#.utf8)
    private static let stringValueStart = Array(#","value":{"stringValue":"#.utf8)
    private static let attributeEnd = Array(#"}}"#.utf8)
    private static let intValueStart = Array(#","value":{"intValue":""#.utf8)
    private static let intValueEnd = Array(#""}}"#.utf8)

    /// A record's attributes as JSON array elements, written with plain stores into `scratch` (a
    /// memo miss is every record of a unit whose entries carry a field of their own, such as a
    /// request id) and copied out once; the bytes `writeAttribute` makes.
    private func encode(attributes: [Attribute], scratch: inout JSONScratch) -> EncodedAttributes {
        var bound = 0
        for attribute in attributes {
            let value = if case .string(let text) = attribute.value { text.utf8.count } else { 64 }
            bound += 40 + JSONEscaping.quotedBound(utf8Count: attribute.key.utf8.count) + JSONEscaping.quotedBound(utf8Count: value)
        }
        scratch.reset(reserving: bound)
        var hasSessionAttribute = false
        var first = true
        for attribute in attributes where !Self.isEncoderKey(attribute.key) {
            if attribute.key == Self.sessionIDKey { hasSessionAttribute = true }
            if !first { scratch.put(UInt8(ascii: ",")) }
            first = false
            switch attribute.value {
            case .string(let text):
                scratch.put(Self.attributeKeyStart)
                scratch.putQuoted(attribute.key)
                scratch.put(Self.stringValueStart)
                scratch.putQuoted(UTF8Cut.cutAttribute(text, limits: limits))
                scratch.put(Self.attributeEnd)
            case .int(let number):
                // An int64 is a JSON string in the mapping: `"intValue":"-12"`.
                scratch.put(Self.attributeKeyStart)
                scratch.putQuoted(attribute.key)
                scratch.put(Self.intValueStart)
                if number < 0 { scratch.put(UInt8(ascii: "-")) }
                scratch.putDecimal(number.magnitude)
                scratch.put(Self.intValueEnd)
            case .double, .bool:
                scratch.put(json(of: attribute))
            }
        }
        return EncodedAttributes(json: Array(scratch.bytes), hasSessionAttribute: hasSessionAttribute)
    }

    private func json(of attribute: Attribute) -> [UInt8] {
        var writer = JSONWriter()
        writeAttribute(attribute, into: &writer)
        return writer.bytes
    }

    private func writeAttributes(_ attributes: [Attribute], into writer: inout JSONWriter) {
        writer.beginArray()
        for attribute in attributes { writeAttribute(attribute, into: &writer) }
        writer.endArray()
    }

    private func writeAttribute(_ attribute: Attribute, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("key")
        writer.string(attribute.key)
        writer.key("value")
        writer.beginObject()
        switch attribute.value {
        case .string(let text):
            writer.key("stringValue")
            writer.string(UTF8Cut.cutAttribute(text, limits: limits))
        case .int(let number):
            writer.key("intValue")
            writer.string(String(number))
        case .double(let number):
            writer.key("doubleValue")
            if number.isFinite {
                writer.double(number)
            } else {
                writer.string(number.isNaN ? "NaN" : number > 0 ? "Infinity" : "-Infinity")
            }
        case .bool(let flag):
            writer.key("boolValue")
            writer.bool(flag)
        }
        writer.endObject()
        writer.endObject()
    }
}
