/// One log record of an app, whatever made it: a journal entry, a coredump, the `diagnostics`
/// command. Ingest encodes it as OTLP; the live channel copies it into `lines`.
package struct LogRecord: Sendable, Equatable {
    /// When the entry was written (`__REALTIME_TIMESTAMP`), in Unix nanoseconds.
    package var timeUnixNano: UInt64
    package var severityNumber: Int
    package var severityText: String
    package var family: LogFamily
    /// A command made it (`diagnostics`, 16.6): ingest sends it whatever sampling and the severity
    /// floor say, marked `apsio.sampling.released=live`, though never past a family that is off.
    package var releasedByCommand: Bool
    /// Already cut to `Limits.maxBodyBytes` by whoever made the record.
    package var body: String
    package var attributes: [Attribute]
    /// The session of the invocation that wrote it (`_SYSTEMD_INVOCATION_ID` as a UUID), when known:
    /// a line read late keeps its own session (2.5).
    package var sessionID: String?
    /// Where the record sits in the journal, for resuming and for `log.record.uid`; nil for records
    /// that are not journal entries.
    package var journalCursor: String?
}

/// The initializers delegate to the memberwise one, which is why they live in an extension and why
/// `releasedByCommand` is declared before `body` (so that the memberwise initializer's labels differ
/// from theirs): an initializer that sets the fields one by one builds the record aside and copies
/// it out, a retain and a release of each string and of the attributes, and the journal reader makes
/// a record for every entry.
extension LogRecord {
    package init(
        timeUnixNano: UInt64, severityNumber: Int, severityText: String, family: LogFamily, body: String,
        attributes: [Attribute] = [], sessionID: String? = nil, journalCursor: String? = nil,
        releasedByCommand: Bool = false
    ) {
        self.init(
            timeUnixNano: timeUnixNano, severityNumber: severityNumber, severityText: severityText, family: family,
            releasedByCommand: releasedByCommand, body: body, attributes: attributes, sessionID: sessionID,
            journalCursor: journalCursor)
    }

    package init(
        timeUnixNano: UInt64, severity: JournalSeverity, body: String, attributes: [Attribute] = [],
        sessionID: String? = nil, journalCursor: String? = nil
    ) {
        self.init(
            timeUnixNano: timeUnixNano, severityNumber: severity.severityNumber, severityText: severity.severityText,
            family: severity.family, releasedByCommand: false, body: body, attributes: attributes,
            sessionID: sessionID, journalCursor: journalCursor)
    }
}
