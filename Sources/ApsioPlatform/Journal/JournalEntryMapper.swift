import ApsioCore

/// Turns a journal entry's fields into the log record an app sends: OpenTelemetry attribute names
/// for journald's well-known and trusted fields, the app's own fields under their journald names,
/// and nothing that identifies the machine or carries a command line (docs/journal.md).
/// Bodies and attributes come out of `JournalEntryFields` already cut to the limits it was made with.
///
/// Not copyable, as the attribute memo it owns is not.
struct JournalEntryMapper: ~Copyable {
    /// The session ids made so far: a reader turned to other apps keeps them (the attribute memo
    /// it does not, as it is kept by the reader's unit index).
    private(set) var sessions: JournalSessionCache
    private var attributeMemo = JournalAttributeMemo()

    init(sessions: JournalSessionCache = JournalSessionCache()) {
        self.sessions = sessions
    }

    /// systemd-coredump's `MESSAGE_ID` (SD_MESSAGE_COREDUMP).
    static let coredumpMessageID = Array("fc2e22bc6ee647b6b90729ab34a250b1".utf8)

    /// The entry's priority as the floor compares it: journald's default (info) when absent or not
    /// one digit 0–7, as the severity map treats it.
    static func priority(of fields: borrowing JournalEntryFields) -> Int {
        fields.priority ?? JournalSeverity.defaultPriority
    }

    /// An entry the unit's processes wrote. `unitIndex` names the unit among the reader's, for
    /// sharing the attributes of the unit's previous record when they come out the same.
    mutating func logRecord(
        _ fields: borrowing JournalEntryFields, unit: String, unitIndex: Int, realtimeMicroseconds: UInt64,
        cursor: String
    ) -> LogRecord {
        let attributes = attributeMemo.attributes(
            unit: unitIndex, fields: fields, sources: Self.fieldAttributeSources
        ) { Self.logAttributes(fields, unit: unit) }
        let session = noteWriter(fields, unit: unit, cursor: cursor)
        return LogRecord(
            timeUnixNano: Self.nanoseconds(realtimeMicroseconds), severity: JournalSeverity(priority: fields.priority),
            body: fields.body ?? "", attributes: attributes, sessionID: session, journalCursor: cursor)
    }

    /// The session of an entry the unit's processes wrote, noted as its process's: a crash report
    /// of that process takes it (`coredumpRecord`). The reader calls this for the unit's entries no
    /// app takes as well, as the process's last session is the one to know.
    @discardableResult
    mutating func noteWriter(_ fields: borrowing JournalEntryFields, unit: String, cursor: String) -> String? {
        let session = fields.withBytes(.invocationID) { sessions.session(forInvocationID: $0) } ?? nil
        if let pid = fields.integer(.pid) { sessions.processes.note(pid: pid, unit: unit, session: session, cursor: cursor) }
        return session
    }

    private enum ValueType {
        case integer, string
    }

    /// The attributes a log record takes from its entry's known fields, in record order;
    /// `systemd.unit` and the app's own fields follow. A record's attributes depend on these
    /// fields, the app's own fields and the unit alone, which is what lets `attributeMemo` share them.
    private static let fieldAttributes: [(field: JournalField, key: String, type: ValueType)] = [
        (.pid, "process.pid", .integer),
        (.comm, "process.executable.name", .string),
        (.exe, "process.executable.path", .string),
        (.uid, "process.user.id", .integer),
        (.threadID, "thread.id", .integer),
        (.codeFile, "code.filepath", .string),
        (.codeLine, "code.lineno", .integer),
        (.codeFunc, "code.function", .string),
        (.syslogIdentifier, "syslog.identifier", .string),
        (.syslogFacility, "syslog.facility", .integer),
        // Read by name for journald's note of dropped entries (`JournaldSuppression`), but in the
        // app's own entry they are its own fields, forwarded as any other.
        (.objectSystemdUnit, "OBJECT_SYSTEMD_UNIT", .string),
        (.dropped, "N_DROPPED", .string),
    ]
    private static let fieldAttributeSources = fieldAttributes.map(\.field)

    private static func logAttributes(_ fields: borrowing JournalEntryFields, unit: String) -> [Attribute] {
        var attributes: [Attribute] = []
        attributes.reserveCapacity(fieldAttributes.count + 1 + fields.userCount)
        for (field, key, type) in fieldAttributes {
            switch type {
            case .integer: if let value = fields.integer(field) { attributes.append(.int(key, value)) }
            case .string: if let value = fields.string(field) { attributes.append(.string(key, value)) }
            }
        }
        attributes.append(.string("systemd.unit", unit))
        fields.forEachUserField { name, value in attributes.append(.string(name, value)) }
        return attributes
    }

    /// systemd-coredump's entry about a crash of the unit: an `errors` record about the crashed
    /// process, never about systemd-coredump itself (whose `_PID`, `_COMM` and `CODE_*` the entry
    /// also carries). Its session is the one the crashed process last wrote in, as the reader saw
    /// it; none when the reader saw no entry of that process (docs/decisions.md).
    func coredumpRecord(
        _ fields: borrowing JournalEntryFields, unit: String, realtimeMicroseconds: UInt64, cursor: String
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
        if let truncated = fields.string(.coredumpTruncated) {
            attributes.append(.bool("coredump.truncated", ["1", "yes", "y", "true", "on"].contains(truncated.lowercased())))
        }
        appendString(&attributes, "coredump.package.name", fields.string(.coredumpPackageName))
        appendString(&attributes, "coredump.package.version", fields.string(.coredumpPackageVersion))
        appendString(&attributes, "MESSAGE_ID", fields.string(.messageID))

        // systemd-coredump logs at crit; an entry that says otherwise is still a crash.
        let severity = JournalSeverity(priority: fields.contains(.priority) ? min(Self.priority(of: fields), 3) : 2)
        var text = fields.body ?? ""
        if !fields.contains(.message) {
            let pid = fields.integer(.coredumpPID).map(String.init) ?? "?"
            let comm = fields.string(.coredumpComm) ?? "?"
            text = "Process \(pid) (\(comm)) of \(unit) dumped core" + (signalName.map { " (\($0))" } ?? "") + "."
        }
        return LogRecord(
            timeUnixNano: Self.nanoseconds(realtimeMicroseconds), severityNumber: severity.severityNumber,
            severityText: severity.severityText, family: .errors, body: text, attributes: attributes,
            sessionID: crashSession(fields, unit: unit, cursor: cursor), journalCursor: cursor)
    }

    // MARK: Parts

    /// The entry's own `_SYSTEMD_INVOCATION_ID` is systemd-coredump's: the crashed process's session
    /// is the one its own last entry carried.
    private func crashSession(_ fields: borrowing JournalEntryFields, unit: String, cursor: String) -> String? {
        guard let pid = fields.integer(.coredumpPID) else { return nil }
        return sessions.processes.session(ofPID: pid, unit: unit, cursor: cursor)
    }

    private func appendString(_ attributes: inout [Attribute], _ key: String, _ value: String?) {
        if let value { attributes.append(.string(key, value)) }
    }

    private func appendInteger(_ attributes: inout [Attribute], _ key: String, _ value: Int64?) {
        if let value { attributes.append(.int(key, value)) }
    }

    /// journald's microseconds as OpenTelemetry's nanoseconds; a time no clock can reach (a
    /// damaged file) is held at the largest one rather than wrapping.
    static func nanoseconds(_ microseconds: UInt64) -> UInt64 {
        let (product, overflow) = microseconds.multipliedReportingOverflow(by: 1000)
        return overflow ? UInt64.max : product
    }
}
