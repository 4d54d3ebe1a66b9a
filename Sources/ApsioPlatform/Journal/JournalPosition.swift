/// Where an entry sits in the journal's order, read from its cursor, and compared the way
/// sd-journal interleaves its files: by sequence number within one sequence-number source, else by
/// monotonic time within one boot, else by wall-clock time, and last by the entry's content hash.
///
/// The follower reads one journal for every app but each app resumes at its own cursor; this is
/// how it tells, for an entry, whether an app has already had it. Cursors are
/// `s=SEQNUM_ID;i=SEQNUM;b=BOOT_ID;m=MONOTONIC;t=REALTIME;x=XOR_HASH` (hex), the form
/// `sd_journal_get_cursor` has written since its first version.
package struct JournalPosition: Equatable, Sendable {
    var seqnumID: Substring
    var seqnum: UInt64
    var bootID: Substring
    var monotonic: UInt64
    var realtime: UInt64
    var xorHash: UInt64

    /// nil when `cursor` lacks one of the six parts or a number is not hex.
    package init?(cursor: String) {
        var seqnumID: Substring?, bootID: Substring?
        var seqnum: UInt64?, monotonic: UInt64?, realtime: UInt64?, xorHash: UInt64?
        for part in cursor.split(separator: ";") {
            guard part.count >= 2, part.dropFirst().first == "=" else { return nil }
            let value = part.dropFirst(2)
            switch part.first {
            case "s": seqnumID = value
            case "b": bootID = value
            case "i": seqnum = UInt64(value, radix: 16)
            case "m": monotonic = UInt64(value, radix: 16)
            case "t": realtime = UInt64(value, radix: 16)
            case "x": xorHash = UInt64(value, radix: 16)
            default: continue
            }
        }
        guard let seqnumID, let bootID, let seqnum, let monotonic, let realtime, let xorHash else { return nil }
        self.seqnumID = seqnumID
        self.seqnum = seqnum
        self.bootID = bootID
        self.monotonic = monotonic
        self.realtime = realtime
        self.xorHash = xorHash
    }

    /// Whether this entry comes after `other` in the order sd-journal reads them.
    package func isAfter(_ other: JournalPosition) -> Bool {
        if seqnumID == other.seqnumID, seqnum != other.seqnum { return seqnum > other.seqnum }
        if bootID == other.bootID, monotonic != other.monotonic { return monotonic > other.monotonic }
        if realtime != other.realtime { return realtime > other.realtime }
        return xorHash > other.xorHash
    }
}
