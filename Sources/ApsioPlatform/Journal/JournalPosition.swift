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

    /// nil when `cursor` lacks one of the six parts or a number is not hex. Read as bytes: the
    /// cursor is ASCII, and reading it as characters cost tens of thousands of instructions a
    /// cursor, which a catch-up turn pays several times.
    package init?(cursor: String) {
        var seqnumID: Substring?, bootID: Substring?
        var seqnum: UInt64?, monotonic: UInt64?, realtime: UInt64?, xorHash: UInt64?
        let bytes = cursor.utf8
        var partStart = bytes.startIndex
        while partStart < bytes.endIndex {
            let partEnd = bytes[partStart...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            let part = bytes[partStart..<partEnd]
            guard part.count >= 2, part[part.index(after: part.startIndex)] == UInt8(ascii: "=") else { return nil }
            let value = part.dropFirst(2)
            switch part.first {
            case UInt8(ascii: "s"): seqnumID = Substring(value)
            case UInt8(ascii: "b"): bootID = Substring(value)
            case UInt8(ascii: "i"): seqnum = Self.hex(value)
            case UInt8(ascii: "m"): monotonic = Self.hex(value)
            case UInt8(ascii: "t"): realtime = Self.hex(value)
            case UInt8(ascii: "x"): xorHash = Self.hex(value)
            default: break
            }
            partStart = partEnd < bytes.endIndex ? bytes.index(after: partEnd) : partEnd
        }
        guard let seqnumID, let bootID, let seqnum, let monotonic, let realtime, let xorHash else { return nil }
        self.seqnumID = seqnumID
        self.seqnum = seqnum
        self.bootID = bootID
        self.monotonic = monotonic
        self.realtime = realtime
        self.xorHash = xorHash
    }

    /// 1 to 16 hex digits, either case; nil for anything else.
    private static func hex(_ digits: Substring.UTF8View) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Whether this entry comes after `other` in the order sd-journal reads them.
    package func isAfter(_ other: JournalPosition) -> Bool {
        if seqnumID == other.seqnumID, seqnum != other.seqnum { return seqnum > other.seqnum }
        if bootID == other.bootID, monotonic != other.monotonic { return monotonic > other.monotonic }
        if realtime != other.realtime { return realtime > other.realtime }
        return xorHash > other.xorHash
    }
}
