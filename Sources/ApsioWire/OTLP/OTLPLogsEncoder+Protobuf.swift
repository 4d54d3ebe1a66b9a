package import ApsioCore

/// The request `encode(app:runs:reusing:)` writes as JSON, in protobuf's binary wire format:
/// OTLP/HTTP with `Content-Type: application/x-protobuf`, the specification's default and what
/// several receivers ask for. The same groups (one `ResourceLogs` a session), fields, attributes,
/// uid, sampling mark and cuts; the field numbers are those of `opentelemetry-proto`'s
/// `logs/v1/logs.proto`, `common/v1/common.proto` and `resource/v1/resource.proto`.
extension OTLPLogsEncoder {
    package func encodeProtobuf(_ groups: [OTLPResourceLogs]) -> [UInt8] {
        var writer = ProtobufWriter(reservingCapacity: Self.estimate(groups.lazy.map { $0.records[...] }))
        hashing.withDigester { digester in
            for group in groups where !group.records.isEmpty {
                writeGroup(group.resource, digester: digester, into: &writer) { write in
                    group.records.withUnsafeBufferPointer { records in
                        guard let base = records.baseAddress else { return }
                        for index in records.indices { write(base + index) }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// As `encode(app:runs:reusing:)`: one group a session, the records read in place.
    package func encodeProtobuf(app: OTLPResource, runs: [ArraySlice<IngestRecord>], reusing buffer: consuming [UInt8] = []) -> [UInt8] {
        let sessions = Self.sessions(in: runs)
        var writer = ProtobufWriter(reusing: buffer, reservingCapacity: Self.estimate(runs))
        hashing.withDigester { digester in
            for session in sessions {
                var resource = app
                resource.sessionID = session
                writeGroup(resource, digester: digester, into: &writer) { write in
                    for run in runs {
                        run.withUnsafeBufferPointer { records in
                            guard let base = records.baseAddress else { return }
                            for index in records.indices where sessions.count == 1 || (base + index).pointee.record.sessionID == session {
                                write(base + index)
                            }
                        }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// One `ResourceLogs`: the Resource, the scope, and the records `records` hands to `write`.
    private func writeGroup(
        _ resource: OTLPResource, digester: borrowing SHA256Digester, into writer: inout ProtobufWriter,
        _ records: (_ write: (UnsafePointer<IngestRecord>) -> Void) -> Void
    ) {
        let group = writer.begin(Field.resourceLogs)
        let resourceField = writer.begin(Field.resource)
        for attribute in resource.attributes { writer.raw(keyValue(attribute, field: Field.resourceAttributes)) }
        writer.end(resourceField)
        let scopeLogs = writer.begin(Field.scopeLogs)
        let scope = writer.begin(Field.scope)
        writer.stringField(Field.scopeName, Self.scopeName)
        writer.stringField(Field.scopeVersion, scopeVersion)
        writer.end(scope)
        var pieces = ProtobufPieces(namespace: resource.recordUIDNamespace)
        records { entry in
            write(entry, resourceSession: resource.sessionID, pieces: &pieces, digester: digester, into: &writer)
        }
        writer.end(scopeLogs)
        writer.end(group)
    }

    /// Field numbers, named as in the `.proto` files.
    private enum Field {
        /// ExportLogsServiceRequest
        static let resourceLogs: UInt32 = 1
        /// ResourceLogs
        static let resource: UInt32 = 1
        static let scopeLogs: UInt32 = 2
        /// Resource, LogRecord
        static let resourceAttributes: UInt32 = 1
        /// ScopeLogs
        static let scope: UInt32 = 1
        static let logRecords: UInt32 = 2
        /// InstrumentationScope
        static let scopeName: UInt32 = 1
        static let scopeVersion: UInt32 = 2
        /// LogRecord
        static let timeUnixNano: UInt32 = 1
        static let severityNumber: UInt32 = 2
        static let severityText: UInt32 = 3
        static let body: UInt32 = 5
        static let attributes: UInt32 = 6
        static let observedTimeUnixNano: UInt32 = 11
        /// KeyValue
        static let key: UInt32 = 1
        static let value: UInt32 = 2
        /// AnyValue
        static let stringValue: UInt32 = 1
        static let boolValue: UInt32 = 2
        static let intValue: UInt32 = 3
        static let doubleValue: UInt32 = 4
    }

    /// What the records of one group have in common, as `RecordPieces` for JSON: their attributes'
    /// fields, their sampling mark's, the start of their uid's input.
    private struct ProtobufPieces {
        var uid: UIDInput
        var attributesSeen = AttributeMemo()
        var attributes: (fields: [UInt8], hasSessionAttribute: Bool) = ([], false)
        var mark: (mark: SamplingMark, fields: [UInt8])?

        init(namespace: String) {
            uid = UIDInput(namespace: namespace)
        }
    }

    /// `log.record.uid`'s attribute up to its 32 hex digits, which are always 32: its lengths are
    /// fixed.
    private static let uidFieldPrefix: [UInt8] = {
        var writer = ProtobufWriter()
        writer.tag(Field.attributes, .lengthDelimited)
        writer.varint(2 + UInt64(recordUIDKey.utf8.count) + 2 + 2 + 32)
        writer.stringField(Field.key, recordUIDKey)
        writer.tag(Field.value, .lengthDelimited)
        writer.varint(2 + 32)
        writer.tag(Field.stringValue, .lengthDelimited)
        writer.varint(32)
        return writer.bytes
    }()

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private func write(
        _ entry: UnsafePointer<IngestRecord>, resourceSession: String?, pieces: inout ProtobufPieces,
        digester: borrowing SHA256Digester, into writer: inout ProtobufWriter
    ) {
        if let mark = entry.pointee.mark.attribute, pieces.mark?.mark != entry.pointee.mark {
            pieces.mark = (entry.pointee.mark, keyValue(mark))
        }
        // The cursor alone when there is one: passing the record would copy it, four retains.
        if let cursor = entry.pointee.record.journalCursor {
            pieces.uid.fill(cursor: cursor)
        } else {
            pieces.uid.fill(for: entry.pointee.record)
        }
        let record = writer.begin(Field.logRecords)
        writer.fixed64Field(Field.timeUnixNano, entry.pointee.record.timeUnixNano)
        writer.fixed64Field(Field.observedTimeUnixNano, entry.pointee.observedTimeUnixNano ?? entry.pointee.record.timeUnixNano)
        let severity = entry.pointee.record.severityNumber
        if CapturePolicy.severityRange.contains(severity) { writer.varintField(Field.severityNumber, UInt64(severity)) }
        if !entry.pointee.record.severityText.isEmpty { writer.stringField(Field.severityText, entry.pointee.record.severityText) }
        let body = writer.begin(Field.body)
        writer.stringField(Field.stringValue, UTF8Cut.cutBody(entry.pointee.record.body, limits: limits))
        writer.end(body)
        if !pieces.attributesSeen.isRemembered(entry.pointee.record.attributes) {
            pieces.attributes = encodeFields(attributes: entry.pointee.record.attributes)
        }
        writer.raw(pieces.attributes.fields)
        // `session.id` on the record only where it differs from its Resource's (§2.4).
        if let session = entry.pointee.record.sessionID, session != resourceSession, !pieces.attributes.hasSessionAttribute {
            writer.raw(keyValue(.string(Self.sessionIDKey, session)))
        }
        writer.raw(Self.uidFieldPrefix)
        let uid = pieces.uid.bytes
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            uid.withUnsafeBytes { digester.digest($0, into: digest) }
            for byte in digest.prefix(16) {
                writer.byte(Self.hexDigits[Int(byte >> 4)])
                writer.byte(Self.hexDigits[Int(byte & 0x0f)])
            }
        }
        if entry.pointee.mark.attribute != nil, let mark = pieces.mark { writer.raw(mark.fields) }
        writer.end(record)
    }

    /// A record's own attributes as `attributes` fields, without the keys the encoder sets itself.
    private func encodeFields(attributes: [Attribute]) -> (fields: [UInt8], hasSessionAttribute: Bool) {
        var fields: [UInt8] = []
        var hasSessionAttribute = false
        for attribute in attributes where !Self.isEncoderKey(attribute.key) {
            if attribute.key == Self.sessionIDKey { hasSessionAttribute = true }
            fields += keyValue(attribute)
        }
        return (fields, hasSessionAttribute)
    }

    /// One attribute as a `KeyValue` field: a record's (`attributes`, 6) or a Resource's (1).
    private func keyValue(_ attribute: Attribute, field: UInt32 = Field.attributes) -> [UInt8] {
        var writer = ProtobufWriter()
        let pair = writer.begin(field)
        writer.stringField(Field.key, attribute.key)
        let value = writer.begin(Field.value)
        switch attribute.value {
        case .string(let text): writer.stringField(Field.stringValue, UTF8Cut.cutAttribute(text, limits: limits))
        case .int(let number): writer.varintField(Field.intValue, UInt64(bitPattern: number))
        case .double(let number): writer.doubleField(Field.doubleValue, number)
        case .bool(let flag): writer.varintField(Field.boolValue, flag ? 1 : 0)
        }
        writer.end(value)
        writer.end(pair)
        return writer.bytes
    }
}
