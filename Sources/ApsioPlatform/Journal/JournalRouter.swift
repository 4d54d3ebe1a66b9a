/// Which configured unit a journal entry belongs to, and whether it is the unit's own line,
/// systemd-coredump's report of its crash, or journald's note that it dropped the unit's lines.
struct JournalRouter {
    enum Route: Equatable {
        /// Written by the unit's processes (`_SYSTEMD_UNIT`).
        case unit(Int)
        /// systemd-coredump's entry about a crash in the unit (`COREDUMP_UNIT`).
        case coredump(Int)
        /// journald's note that its rate limit dropped lines of the unit (`OBJECT_SYSTEMD_UNIT`).
        case suppression(Int)
    }

    /// The distinct configured units, in the order first configured.
    let units: [String]
    private let unitBytes: [[UInt8]]

    init(units: [String]) {
        var distinct: [String] = []
        for unit in units where !distinct.contains(unit) { distinct.append(unit) }
        self.units = distinct
        unitBytes = distinct.map { Array($0.utf8) }
    }

    /// The matches that make sd-journal visit only these units' entries: one group of
    /// `_SYSTEMD_UNIT=` (same field: OR), OR one group of the coredump `MESSAGE_ID` AND any of the
    /// units' `COREDUMP_UNIT=`. Coredump entries are written by systemd-coredump's own unit, so
    /// they are matched without `_SYSTEMD_UNIT`; and not by `_UID`, which has been root, the
    /// crashed process's user or systemd-coredump's own user depending on the systemd version.
    ///
    /// The coredump group names `MESSAGE_ID` last on purpose: sd-journal evaluates the fields of a
    /// group in the reverse order they were added and stops at the first that has no entry after
    /// the current one. Most files hold no coredump report, so one lookup of `MESSAGE_ID` then ends
    /// the group at every step, where the `COREDUMP_UNIT=` values first cost one lookup each: with
    /// four units, 3,800 of the 40,000 or so instructions sd-journal spends on each entry.
    ///
    /// A third group, ordered the same way for the same reason, lets through journald's note that
    /// it dropped lines of one of the units: its `MESSAGE_ID` AND any of the units as
    /// `OBJECT_SYSTEMD_UNIT=` (journald writes it from its own unit, naming the other in that
    /// field and in the text). Notes about other units are never visited.
    var matchGroups: [[String]] {
        [
            units.map { "_SYSTEMD_UNIT=\($0)" },
            units.map { "COREDUMP_UNIT=\($0)" }
                + ["MESSAGE_ID=" + String(decoding: JournalEntryMapper.coredumpMessageID, as: UTF8.self)],
            units.map { "OBJECT_SYSTEMD_UNIT=\($0)" }
                + ["MESSAGE_ID=" + String(decoding: JournaldSuppression.messageID, as: UTF8.self)],
        ]
    }

    func route(_ fields: borrowing JournalEntryFields) -> Route? {
        if let index = fields.withBytes(.systemdUnit, index(of:)), let index { return .unit(index) }
        if JournaldSuppression.isNote(fields) {
            guard let index = fields.withBytes(.objectSystemdUnit, index(of:)), let index else { return nil }
            return .suppression(index)
        }
        guard fields.has(.messageID, equalTo: JournalEntryMapper.coredumpMessageID),
            let index = fields.withBytes(.coredumpUnit, index(of:)), let index,
            fields.withBytes(.systemdUnit, Self.isCoredumpWriter) ?? true
        else { return nil }
        return .coredump(index)
    }

    private func index(of unit: UnsafeRawBufferPointer) -> Int? {
        unitBytes.firstIndex { JournalEntryFields.equal(unit, $0) }
    }

    private static let coredumpInstancePrefix = Array("systemd-coredump@".utf8)
    private static let coredumpService = Array("systemd-coredump.service".utf8)

    /// Whether the entry's `_SYSTEMD_UNIT` is systemd-coredump's: its socket-activated instances or
    /// its service. An entry without a unit is too (the kernel starts it in the root cgroup when
    /// the socket is unavailable). Any other service could write a `COREDUMP_UNIT=` field naming
    /// someone else's unit; such an entry is not routed to that unit's app.
    static func isCoredumpWriter(_ unit: UnsafeRawBufferPointer) -> Bool {
        unit.starts(with: coredumpInstancePrefix) || JournalEntryFields.equal(unit, coredumpService)
    }
}
