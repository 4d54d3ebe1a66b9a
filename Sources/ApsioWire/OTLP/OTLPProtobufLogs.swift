import ApsioCore
import ApsioJSON

/// An OTLP/HTTP `ExportLogsServiceRequest` in protobuf's binary wire format (`Content-Type:
/// application/x-protobuf`), read and written again as the same request in the protobuf JSON
/// mapping: what apsio-backend's sink keeps, whichever of OTLP/HTTP's two encodings a device sent.
///
/// The bytes are a peer's: every length is checked against what is left, a varint longer than ten
/// bytes, a field of a known number with the wrong wire type, a string that is not UTF-8 or values
/// nested deeper than `maxDepth` make the body unreadable (400), never a trap. Fields the schema
/// does not have are skipped, as proto3 readers do. The field numbers are those of
/// `opentelemetry-proto`'s `logs/v1/logs.proto`, `common/v1/common.proto` and
/// `resource/v1/resource.proto`.
package enum OTLPProtobufLogs {
    package typealias Unreadable = ProtobufWireError

    /// `AnyValue`s in arrays and lists in each other.
    package static let maxDepth = 32

    package static func json(from body: [UInt8]) throws(Unreadable) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: body.count * 2)
        let result: Result<Void, Unreadable> = body.withUnsafeBytes { bytes in
            Result { () throws(Unreadable) in
                let reader = Reader(bytes: bytes)
                writer.beginObject()
                writer.key("resourceLogs")
                writer.beginArray()
                for field in try reader.fields(in: 0..<bytes.count) where field.number == 1 {
                    try reader.resourceLogs(try field.message(), into: &writer)
                }
                writer.endArray()
                writer.endObject()
            }
        }
        try result.get()
        return writer.bytes
    }

    /// The messages of a request, each written as the JSON mapping names its fields.
    private struct Reader {
        let wire: ProtobufReader
        var bytes: UnsafeRawBufferPointer { wire.bytes }

        init(bytes: UnsafeRawBufferPointer) { wire = ProtobufReader(bytes: bytes) }

        func fields(in range: Range<Int>) throws(Unreadable) -> [ProtobufReader.Field] { try wire.fields(in: range) }
        func string(_ field: ProtobufReader.Field) throws(Unreadable) -> String { try wire.string(field) }

        func resourceLogs(_ range: Range<Int>, into writer: inout JSONWriter) throws(Unreadable) {
            let fields = try fields(in: range)
            writer.beginObject()
            if let resource = fields.last(where: { $0.number == 1 }) {
                writer.key("resource")
                writer.beginObject()
                let inner = try self.fields(in: try resource.message())
                try attributes(inner.filter { $0.number == 1 }, into: &writer)
                try count("droppedAttributesCount", inner.last { $0.number == 2 }, into: &writer)
                writer.endObject()
            }
            writer.key("scopeLogs")
            writer.beginArray()
            for scopeLogs in fields where scopeLogs.number == 2 { try self.scopeLogs(try scopeLogs.message(), into: &writer) }
            writer.endArray()
            try text("schemaUrl", fields.last { $0.number == 3 }, into: &writer)
            writer.endObject()
        }

        private func scopeLogs(_ range: Range<Int>, into writer: inout JSONWriter) throws(Unreadable) {
            let fields = try fields(in: range)
            writer.beginObject()
            if let scope = fields.last(where: { $0.number == 1 }) {
                writer.key("scope")
                writer.beginObject()
                let inner = try self.fields(in: try scope.message())
                try text("name", inner.last { $0.number == 1 }, into: &writer)
                try text("version", inner.last { $0.number == 2 }, into: &writer)
                // A scope's attributes only when it has some: apsiod's scope has none, and writes none.
                let scopeAttributes = inner.filter { $0.number == 3 }
                if !scopeAttributes.isEmpty { try attributes(scopeAttributes, into: &writer) }
                try count("droppedAttributesCount", inner.last { $0.number == 4 }, into: &writer)
                writer.endObject()
            }
            writer.key("logRecords")
            writer.beginArray()
            for record in fields where record.number == 2 { try logRecord(try record.message(), into: &writer) }
            writer.endArray()
            try text("schemaUrl", fields.last { $0.number == 3 }, into: &writer)
            writer.endObject()
        }

        private func logRecord(_ range: Range<Int>, into writer: inout JSONWriter) throws(Unreadable) {
            let fields = try fields(in: range)
            func last(_ number: UInt32) -> ProtobufReader.Field? { fields.last { $0.number == number } }
            writer.beginObject()
            // 64-bit integers are strings in the JSON mapping.
            writer.key("timeUnixNano")
            writer.string(String(try last(1)?.fixed64() ?? 0))
            writer.key("observedTimeUnixNano")
            writer.string(String(try last(11)?.fixed64() ?? 0))
            writer.key("severityNumber")
            writer.int(Int64(Int32(truncatingIfNeeded: try last(2)?.varint() ?? 0)))
            try text("severityText", last(3), into: &writer)
            if let body = last(5) {
                writer.key("body")
                try anyValue(try body.message(), depth: 0, into: &writer)
            }
            try attributes(fields.filter { $0.number == 6 }, into: &writer)
            try count("droppedAttributesCount", last(7), into: &writer)
            if let flags = last(8) {
                writer.key("flags")
                writer.uint(UInt64(try flags.fixed32()))
            }
            // Trace and span ids are hex in OTLP's JSON, not base64.
            for (number, name) in [(UInt32(9), "traceId"), (10, "spanId")] {
                guard let id = last(number) else { continue }
                writer.key(name)
                writer.string(Hex.lowercase(bytes[try id.message()]))
            }
            try text("eventName", last(12), into: &writer)
            writer.endObject()
        }

        private func attributes(_ pairs: [ProtobufReader.Field], into writer: inout JSONWriter) throws(Unreadable) {
            writer.key("attributes")
            writer.beginArray()
            for pair in pairs { try keyValue(try pair.message(), depth: 0, into: &writer) }
            writer.endArray()
        }

        private func keyValue(_ range: Range<Int>, depth: Int, into writer: inout JSONWriter) throws(Unreadable) {
            let fields = try fields(in: range)
            writer.beginObject()
            writer.key("key")
            writer.string(try fields.last { $0.number == 1 }.map { field throws(Unreadable) in try string(field) } ?? "")
            writer.key("value")
            if let value = fields.last(where: { $0.number == 2 }) {
                try anyValue(try value.message(), depth: depth, into: &writer)
            } else {
                writer.beginObject()
                writer.endObject()
            }
            writer.endObject()
        }

        private func anyValue(_ range: Range<Int>, depth: Int, into writer: inout JSONWriter) throws(Unreadable) {
            guard depth < OTLPProtobufLogs.maxDepth else {
                throw Unreadable(description: "values nested more than \(OTLPProtobufLogs.maxDepth) deep")
            }
            writer.beginObject()
            // A oneof: the last of its fields is the value.
            if let value = try fields(in: range).last(where: { (1...7).contains($0.number) }) {
                switch value.number {
                case 1:
                    writer.key("stringValue")
                    writer.string(try string(value))
                case 2:
                    writer.key("boolValue")
                    writer.bool(try value.varint() != 0)
                case 3:
                    writer.key("intValue")
                    writer.string(String(Int64(bitPattern: try value.varint())))
                case 4:
                    writer.key("doubleValue")
                    let number = Double(bitPattern: try value.fixed64())
                    if number.isFinite { writer.double(number) } else { writer.string(number.isNaN ? "NaN" : number > 0 ? "Infinity" : "-Infinity") }
                case 5, 6:
                    writer.key(value.number == 5 ? "arrayValue" : "kvlistValue")
                    writer.beginObject()
                    writer.key("values")
                    writer.beginArray()
                    for item in try fields(in: try value.message()) where item.number == 1 {
                        if value.number == 5 {
                            try anyValue(try item.message(), depth: depth + 1, into: &writer)
                        } else {
                            try keyValue(try item.message(), depth: depth + 1, into: &writer)
                        }
                    }
                    writer.endArray()
                    writer.endObject()
                default:
                    writer.key("bytesValue")
                    writer.string(Base64.encode(bytes[try value.message()]))
                }
            }
            writer.endObject()
        }

        private func text(_ name: String, _ field: ProtobufReader.Field?, into writer: inout JSONWriter) throws(Unreadable) {
            guard let field else { return }
            writer.key(name)
            writer.string(try string(field))
        }

        private func count(_ name: String, _ field: ProtobufReader.Field?, into writer: inout JSONWriter) throws(Unreadable) {
            guard let field else { return }
            writer.key(name)
            writer.uint(UInt64(UInt32(truncatingIfNeeded: try field.varint())))
        }
    }
}
