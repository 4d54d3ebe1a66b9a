import ApsioJSON
/// A log line as `frames` carries it (16.5): a copy of a `logs` or `errors` record, after redaction,
/// its body cut to 4096 bytes.
package struct LiveLine: Sendable, Equatable {
    package var timeUnixMs: Int64
    package var severity: Int
    package var body: String
    package var attributes: [Attribute]

    package init(timeUnixMs: Int64, severity: Int, body: String, attributes: [Attribute]) {
        self.timeUnixMs = timeUnixMs
        self.severity = severity
        self.body = body
        self.attributes = attributes
    }

    package init(record: LogRecord, limits: Limits = .spec) {
        timeUnixMs = Int64(record.timeUnixNano / 1_000_000)
        severity = min(max(record.severityNumber, 1), 24)
        body = UTF8Cut.cut(record.body, maxBytes: limits.maxBodyBytes)
        attributes = record.attributes
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("t"); writer.int(timeUnixMs)
        writer.key("severity"); writer.int(Int64(severity))
        writer.key("body"); writer.string(body)
        writer.key("attributes")
        writer.beginObject()
        for attribute in attributes {
            writer.key(attribute.key)
            switch attribute.value {
            case .string(let text): writer.string(text)
            case .int(let number): writer.int(number)
            case .double(let number): writer.double(number)
            case .bool(let flag): writer.bool(flag)
            }
        }
        writer.endObject()
        writer.endObject()
    }
}
