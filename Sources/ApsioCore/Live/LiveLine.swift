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
        // The session the line belongs to is its unit's invocation (docs/otlp.md): a viewer tells
        // a restart's lines from the ones before by it, as the records' `session.id` does.
        if let session = record.sessionID, attributes["session.id"] == nil {
            attributes.append(.string("session.id", session))
        }
    }
}
