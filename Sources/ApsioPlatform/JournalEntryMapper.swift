import ApsioCore

/// Turns a journal entry's fields into the log record an app sends: OpenTelemetry attribute names
/// for journald's well-known and trusted fields, the app's own fields under their journald names,
/// and nothing that identifies the machine or carries a command line (docs/journal.md).
struct JournalEntryMapper {
    let limits: Limits

    init(limits: Limits = .spec) {
        self.limits = limits
    }

    /// systemd-coredump's `MESSAGE_ID` (SD_MESSAGE_COREDUMP).
    static let coredumpMessageID = Array("fc2e22bc6ee647b6b90729ab34a250b1".utf8)

    /// The entry's priority as the floor compares it: journald's default (info) when absent or not
    /// one digit 0–7, as the severity map treats it.
    static func priority(of fields: JournalEntryFields) -> Int {
        if let field = fields.bytes(.priority), field.count == 1, let digit = field.first,
            digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7")
        {
            return Int(digit - UInt8(ascii: "0"))
        }
        return JournalSeverity.defaultPriority
    }

    /// An entry the unit's processes wrote.
    func logRecord(
        _ fields: JournalEntryFields, unit: String, realtimeMicroseconds: UInt64, cursor: String
    ) -> LogRecord {
        var attributes: [Attribute] = []
        attributes.reserveCapacity(12 + fields.user.count)
        appendInteger(&attributes, "process.pid", fields.integer(.pid))
        appendString(&attributes, "process.executable.name", fields.string(.comm))
        appendString(&attributes, "process.executable.path", fields.string(.exe))
        appendInteger(&attributes, "process.user.id", fields.integer(.uid))
        appendInteger(&attributes, "thread.id", fields.integer(.threadID))
        appendString(&attributes, "code.filepath", fields.string(.codeFile))
        appendInteger(&attributes, "code.lineno", fields.integer(.codeLine))
        appendString(&attributes, "code.function", fields.string(.codeFunc))
        appendString(&attributes, "syslog.identifier", fields.string(.syslogIdentifier))
        appendInteger(&attributes, "syslog.facility", fields.integer(.syslogFacility))
        attributes.append(.string("systemd.unit", unit))
        appendUserFields(&attributes, fields)

        let session = fields.bytes(.invocationID).flatMap {
            SessionID.fromInvocationID(String(decoding: $0, as: UTF8.self))
        }
        return LogRecord(
            timeUnixNano: Self.nanoseconds(realtimeMicroseconds),
            severity: JournalSeverity(priorityField: fields.bytes(.priority) ?? []),
            body: body(fields), attributes: attributes, sessionID: session, journalCursor: cursor)
    }

    /// systemd-coredump's entry about a crash of the unit: an `errors` record about the crashed
    /// process, never about systemd-coredump itself (whose `_PID`, `_COMM` and `CODE_*` the entry
    /// also carries).
    func coredumpRecord(
        _ fields: JournalEntryFields, unit: String, realtimeMicroseconds: UInt64, cursor: String
    ) -> LogRecord {
        var attributes: [Attribute] = []
        let signalName = fields.string(.coredumpSignalName)
        let signal = fields.integer(.coredumpSignal)
        if let type = signalName ?? signal.map({ "signal \($0)" }) {
            attributes.append(.string("exception.type", type))
        }
        appendInteger(&attributes, "process.pid", fields.integer(.coredumpPID))
        appendString(&attributes, "process.executable.name", fields.string(.coredumpComm))
        appendString(&attributes, "process.executable.path", fields.string(.coredumpExe))
        appendInteger(&attributes, "process.user.id", fields.integer(.coredumpUID))
        attributes.append(.string("systemd.unit", unit))
        appendInteger(&attributes, "coredump.signal", signal)
        appendInteger(&attributes, "coredump.timestamp", fields.integer(.coredumpTimestamp))
        appendInteger(&attributes, "coredump.rlimit", fields.integer(.coredumpRlimit))
        appendString(&attributes, "coredump.filename", fields.string(.coredumpFilename))
        if let truncated = fields.bytes(.coredumpTruncated) {
            attributes.append(.bool("coredump.truncated", Self.isYes(truncated)))
        }
        appendString(&attributes, "coredump.package.name", fields.string(.coredumpPackageName))
        appendString(&attributes, "coredump.package.version", fields.string(.coredumpPackageVersion))
        appendString(&attributes, "MESSAGE_ID", fields.string(.messageID))

        // systemd-coredump logs at crit; an entry that says otherwise is still a crash.
        let priority = fields.bytes(.priority) == nil ? 2 : min(Self.priority(of: fields), 3)
        let severity = JournalSeverity(priority: priority)
        var text = body(fields)
        if fields.bytes(.message) == nil {
            let pid = fields.integer(.coredumpPID).map(String.init) ?? "?"
            let comm = fields.string(.coredumpComm) ?? "?"
            text = "Process \(pid) (\(comm)) of \(unit) dumped core" + (signalName.map { " (\($0))" } ?? "") + "."
        }
        return LogRecord(
            timeUnixNano: Self.nanoseconds(realtimeMicroseconds), severityNumber: severity.severityNumber,
            severityText: severity.severityText, family: .errors, body: text, attributes: attributes,
            sessionID: nil, journalCursor: cursor)
    }

    // MARK: Parts

    private func body(_ fields: JournalEntryFields) -> String {
        fields.bytes(.message).map { JournalEntryFields.text($0, maxBytes: limits.maxBodyBytes) } ?? ""
    }

    private func appendUserFields(_ attributes: inout [Attribute], _ fields: JournalEntryFields) {
        for (name, value) in fields.user {
            // Names were checked to be A–Z, 0–9 and `_`: ASCII, so decoding cannot alter them.
            let key = String(decoding: fields.storage[name], as: UTF8.self)
            let text = JournalEntryFields.text(fields.storage[value], maxBytes: limits.maxAttributeStringBytes)
            attributes.append(.string(key, text))
        }
    }

    private func appendString(_ attributes: inout [Attribute], _ key: String, _ value: String?) {
        if let value { attributes.append(.string(key, value)) }
    }

    private func appendInteger(_ attributes: inout [Attribute], _ key: String, _ value: Int64?) {
        if let value { attributes.append(.int(key, value)) }
    }

    private static func isYes(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        return ["1", "yes", "y", "true", "on"].contains(text)
    }

    /// journald's microseconds as OpenTelemetry's nanoseconds; a time no clock can reach (a
    /// damaged file) is held at the largest one rather than wrapping.
    static func nanoseconds(_ microseconds: UInt64) -> UInt64 {
        let (product, overflow) = microseconds.multipliedReportingOverflow(by: 1000)
        return overflow ? UInt64.max : product
    }
}
