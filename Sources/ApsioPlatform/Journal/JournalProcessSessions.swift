/// The session each process of the followed units last wrote in, by `_PID`: systemd-coredump's
/// report of a crash is written by its own unit and names no invocation, so the crashed process's
/// session is the one its own entries carried (docs/decisions.md, "A crash's session").
///
/// Direct-mapped on the pid, as `JournalSessionCache` is on the id: a pid has one slot and a
/// newer process that lands there takes it. Forgetting a process only costs a crash of it its
/// session; a slot is written when its process's unit or session changes, not at every entry.
struct JournalProcessSessions {
    private struct Slot {
        let pid: Int64
        let unit: String
        let session: String?
        /// The first entry of this process and session seen: its boot is the process's (an
        /// invocation lives in one boot), and a pid of another boot is another process.
        let cursor: String
    }

    private var slots: [Slot?] = Array(repeating: nil, count: 1 << slotBits)
    /// 256 slots, as a unit's processes between its last line and its crash are few.
    private static let slotBits = 8

    /// `pid` of `unit` wrote an entry in `session` (nil: one without an invocation id).
    mutating func note(pid: Int64, unit: String, session: String?, cursor: String) {
        let index = Self.slot(pid)
        if let slot = slots[index], slot.pid == pid, slot.session == session, slot.unit == unit { return }
        slots[index] = Slot(pid: pid, unit: unit, session: session, cursor: cursor)
    }

    /// The session `pid` of `unit` last wrote in, when an entry of it of the same boot as
    /// `cursor` was seen and not forgotten; nil otherwise.
    func session(ofPID pid: Int64, unit: String, cursor: String) -> String? {
        guard let slot = slots[Self.slot(pid)], slot.pid == pid, slot.unit == unit,
            let seen = JournalPosition(cursor: slot.cursor), let now = JournalPosition(cursor: cursor),
            seen.bootID == now.bootID
        else { return nil }
        return slot.session
    }

    private static func slot(_ pid: Int64) -> Int {
        Int(truncatingIfNeeded: UInt64(bitPattern: pid) & ((1 << UInt64(slotBits)) - 1))
    }
}
