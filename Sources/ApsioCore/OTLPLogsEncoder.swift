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
public struct OTLPLogsEncoder: Sendable {
    public static let scopeName = "apsiod"
    public static let recordUIDKey = "log.record.uid"
    public static let sessionIDKey = "session.id"
    /// Keys the encoder sets itself; a record attribute of the same key is left out rather than
    /// sent twice with two values.
    static let encoderKeys: Set<String> = [recordUIDKey, SamplingMark.sessionRateKey, SamplingMark.releasedKey]

    private let hashing: any SHA256Hashing
    public let limits: Limits
    public let scopeVersion: String

    public init(hashing: some SHA256Hashing, limits: Limits = .spec, scopeVersion: String = ApsioVersion.current) {
        self.hashing = hashing
        self.limits = limits
        self.scopeVersion = scopeVersion
    }

    public func encode(_ groups: [OTLPResourceLogs]) -> [UInt8] {
        let recordCount = groups.reduce(0) { $0 + $1.records.count }
        var writer = JSONWriter(reservingCapacity: 512 + recordCount * 512)
        writer.beginObject()
        writer.key("resourceLogs")
        writer.beginArray()
        for group in groups where !group.records.isEmpty {
            write(group, into: &writer)
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `log.record.uid`: lowercase hex of the first 16 bytes of SHA-256 of the namespace (the
    /// installation id), a colon and the journal cursor, so a backend can drop a record sent
    /// twice. A record that is no journal entry (diagnostics, a coredump summary) has no cursor;
    /// its uid hashes the namespace, `:apsio-record:` and the record's content (time,
    /// severity, body and attributes), which is the same each time the same record is sent
    /// again and never equals a cursor's input (cursors start with `s=`).
    public func recordUID(_ record: LogRecord, namespace: String) -> String {
        var input = Array(namespace.utf8)
        input.append(UInt8(ascii: ":"))
        if let cursor = record.journalCursor {
            input.append(contentsOf: cursor.utf8)
        } else {
            input.append(contentsOf: "apsio-record:".utf8)
            input.append(contentsOf: Self.contentKey(record))
        }
        return Hex.lowercase(hashing.sha256(input).prefix(16))
    }

    private static func contentKey(_ record: LogRecord) -> [UInt8] {
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

    private func write(_ group: OTLPResourceLogs, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("resource")
        writer.beginObject()
        writer.key("attributes")
        writeAttributes(group.resource.attributes, into: &writer)
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
        let namespace = group.resource.recordUIDNamespace
        for entry in group.records {
            write(entry, resourceSession: group.resource.sessionID, namespace: namespace, into: &writer)
        }
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.endObject()
    }

    private func write(
        _ entry: IngestRecord, resourceSession: String?, namespace: String, into writer: inout JSONWriter
    ) {
        let record = entry.record
        writer.beginObject()
        writer.key("timeUnixNano")
        writer.string(String(record.timeUnixNano))
        writer.key("observedTimeUnixNano")
        writer.string(String(entry.observedTimeUnixNano ?? record.timeUnixNano))
        writer.key("severityNumber")
        writer.int(Int64(CapturePolicy.severityRange.contains(record.severityNumber) ? record.severityNumber : 0))
        if !record.severityText.isEmpty {
            writer.key("severityText")
            writer.string(record.severityText)
        }
        writer.key("body")
        writer.beginObject()
        writer.key("stringValue")
        writer.string(UTF8Cut.cutBody(record.body, limits: limits))
        writer.endObject()

        writer.key("attributes")
        writer.beginArray()
        var hasSessionAttribute = false
        for attribute in record.attributes where !Self.encoderKeys.contains(attribute.key) {
            if attribute.key == Self.sessionIDKey { hasSessionAttribute = true }
            writeAttribute(attribute, into: &writer)
        }
        if let session = record.sessionID, session != resourceSession, !hasSessionAttribute {
            writeAttribute(.string(Self.sessionIDKey, session), into: &writer)
        }
        writeAttribute(.string(Self.recordUIDKey, recordUID(record, namespace: namespace)), into: &writer)
        if let mark = entry.mark.attribute { writeAttribute(mark, into: &writer) }
        writer.endArray()
        writer.endObject()
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
