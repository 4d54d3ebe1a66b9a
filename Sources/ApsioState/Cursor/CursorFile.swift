#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// One app's `cursor` file: the journal cursor its ingest resumes after, and the unit it was read
/// among (`SavedCursor`), rewritten in place after every accepted batch, cheaply enough to do so
/// many times a second.
///
/// The file holds two slots of `slotBytes` each, written in turn; each slot is a text line
/// `SEQUENCE CRC32C CURSOR`, then a line `unit CRC32C UNIT`, padded with newlines. A reader takes
/// the valid slot with the highest sequence. So:
/// - a write is one `pwrite` of one slot, no temporary file, no rename: it is in the kernel's page
///   cache, and survives any crash of apsiod, as soon as the call returns;
/// - `sync()` (`fdatasync`) makes the writes so far survive a power cut; the caller bounds how
///   often it runs;
/// - a write torn by a power cut damages only the slot being written (each slot is one 512-byte
///   sector, and its checksum tells), and the other still holds the cursor before it: the entries
///   in between are sent again, never skipped.
///
/// The unit has a line of its own, after the cursor's, so that an earlier apsiod (which reads a
/// slot's first line and nothing after it) still reads the file, and one it writes reads here as
/// a cursor without its unit. A position saved while ingest is withheld (`SavedCursor.withheld`)
/// has a third line, `withheld CRC32C yes`, after the unit's, checked the same way. Its checksum covers the slot's sequence and cursor too, so a unit
/// line left from an earlier write of the slot never passes for this one's.
///
/// A file of one line holding just a cursor (what earlier versions wrote) is read as that cursor,
/// without its unit; the first write goes to the second slot, which that line does not reach.
final class CursorFile {
    static let slotBytes = 512
    /// What a slot's line leaves for the cursor: a journal cursor is about 150 bytes.
    static let maxCursorBytes = slotBytes - 40

    let path: String
    private let fd: OwnedFileDescriptor
    private var sequence: UInt64 = 0
    /// The slot the next write goes to: the one not holding the newest cursor.
    private var nextSlot = 0
    private(set) var hasUnsyncedWrites = false

    /// The newest valid position in the file: read when it was opened (nil for a new or empty
    /// file), then the last one written.
    private(set) var newest: SavedCursor?

    /// Opens the file at `path` and reads it; with `creating`, makes it (mode `mode`) when missing,
    /// else nil when missing. Throws `.unreadable` when it exists but holds no valid cursor: it is
    /// not ours, or both slots were damaged.
    init?(path: String, mode: UInt32, creating: Bool) throws(StateStoreError) {
        self.path = path
        let opened: OwnedFileDescriptor
        do throws(SystemError) {
            opened = try FileSystem.open(path, O_RDWR | O_NOFOLLOW | (creating ? O_CREAT : 0), mode: mode)
        } catch where error.errno == ENOENT && !creating {
            return nil
        } catch {
            throw .system(error)
        }
        fd = opened
        // Both slots and one byte more, which tells a longer file: that is not a cursor file.
        let bytes = try StateStoreError.io { () throws(SystemError) in
            try FileSystem.read(opened, path: path, at: 0, count: 2 * Self.slotBytes + 1)
        }
        guard bytes.count <= 2 * Self.slotBytes else {
            throw .unreadable(path: path, reason: "longer than a cursor file")
        }
        if bytes.isEmpty {
            newest = nil
            // A file just made: the directory entry is made durable once, here, so that later
            // `sync()`s need only the file's data.
            Self.syncDirectory(of: path)
            return
        }
        let slots = [0, 1].compactMap { index in Self.parseSlot(bytes, index: index).map { (index, $0) } }
        if let latest = slots.max(by: { $0.1.sequence < $1.1.sequence }) {
            newest = latest.1.saved
            sequence = latest.1.sequence
            nextSlot = 1 - latest.0
        } else if let legacy = Self.parseLegacy(bytes) {
            newest = SavedCursor(legacy, unit: nil)
            nextSlot = 1
        } else {
            throw .unreadable(path: path, reason: "not a journal cursor")
        }
    }

    func close() { fd.close() }

    /// Writes `saved` into the slot after the newest. Throws when it is not a position this file
    /// can hold, or the write failed (the newest position on disk is then still the previous one).
    func write(_ saved: SavedCursor) throws(StateStoreError) {
        guard Self.isCursor(Array(saved.cursor.utf8)) else {
            throw .unreadable(path: path, reason: "not a journal cursor: \(saved.cursor.utf8.count) bytes")
        }
        if saved.withheld, saved.unit == nil {
            throw .unreadable(path: path, reason: "a withheld position is kept with its unit")
        }
        if let unit = saved.unit {
            // The longest sequence a slot can hold, so that no later write finds it too small.
            guard Self.isField(Array(unit.utf8)),
                Self.lines(sequence: .max, saved: saved).utf8.count <= Self.slotBytes
            else {
                throw .unreadable(path: path, reason: "a unit and cursor too long for a slot: \(unit.utf8.count) and \(saved.cursor.utf8.count) bytes")
            }
        }
        if sequence == .max {
            // No number follows the newest slot's (a file damaged, or not written by us): the
            // numbering starts again, in the slot after the newest and then over the newest, so
            // that until the second write lands the newest on disk is still the cursor before.
            try writeSlot(sequence: 1, saved: saved, at: nextSlot)
            try writeSlot(sequence: 2, saved: saved, at: 1 - nextSlot)
            sequence = 2
        } else {
            try writeSlot(sequence: sequence + 1, saved: saved, at: nextSlot)
            sequence += 1
            nextSlot = 1 - nextSlot
        }
        newest = saved
        hasUnsyncedWrites = true
    }

    private func writeSlot(sequence: UInt64, saved: SavedCursor, at index: Int) throws(StateStoreError) {
        var slot = Array(Self.lines(sequence: sequence, saved: saved).utf8)
        slot += [UInt8](repeating: 0x0A, count: Self.slotBytes - slot.count)
        // A write torn part way (a power cut) leaves a slot whose checksum rejects it, and the other
        // slot still counts.
        try StateStoreError.io { () throws(SystemError) in
            try FileSystem.writeAll(fd, path: path, slot, at: index * Self.slotBytes)
        }
    }

    /// Makes every write so far survive a power cut.
    func sync() throws(StateStoreError) {
        guard hasUnsyncedWrites else { return }
        try StateStoreError.io { () throws(SystemError) in try FileSystem.sync(fd, path: path) }
        hasUnsyncedWrites = false
    }

    // MARK: The format

    /// What a slot holds before its padding: the cursor's line, then the unit's when there is one.
    static func lines(sequence: UInt64, saved: SavedCursor) -> String {
        let cursorLine = "\(sequence) \(hex(CRC32C.checksum("\(sequence) \(saved.cursor)".utf8))) \(saved.cursor)\n"
        guard let unit = saved.unit else { return cursorLine }
        let unitLine = "\(unitTag) \(hex(unitChecksum(sequence: sequence, saved: saved))) \(unit)\n"
        guard saved.withheld else { return cursorLine + unitLine }
        return cursorLine + unitLine + "\(withheldTag) \(hex(withheldChecksum(sequence: sequence, saved: saved))) yes\n"
    }

    private static let unitTag = "unit"
    private static let withheldTag = "withheld"

    /// Over everything before it in the slot: the line is valid only beside the cursor and unit
    /// it was written with.
    private static func withheldChecksum(sequence: UInt64, saved: SavedCursor) -> UInt32 {
        CRC32C.checksum("\(sequence) \(saved.cursor) \(saved.unit ?? "") withheld".utf8)
    }

    /// Over the slot's sequence and cursor as well as the unit: the unit line is valid only beside
    /// the cursor line it was written with.
    private static func unitChecksum(sequence: UInt64, saved: SavedCursor) -> UInt32 {
        CRC32C.checksum("\(sequence) \(saved.cursor) \(saved.unit ?? "")".utf8)
    }

    private static func hex(_ checksum: UInt32) -> String {
        let digits = String(checksum, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func parseSlot(_ bytes: [UInt8], index: Int) -> (sequence: UInt64, saved: SavedCursor)? {
        let start = index * slotBytes
        guard bytes.count > start else { return nil }
        let slot = bytes[start..<min(bytes.count, start + slotBytes)]
        guard let end = slot.firstIndex(of: 0x0A),
            let (sequence, cursor) = parseLine(slot[start..<end], isValue: isCursor, checksum: { (sequence: UInt64, cursor: String) in
                CRC32C.checksum("\(sequence) \(cursor)".utf8)
            })
        else { return nil }
        // A newline right after the cursor's line (or the slot's end): a slot without a unit, as
        // an earlier apsiod writes it.
        let rest = slot[(end + 1)...]
        guard let first = rest.first, first != 0x0A else { return (sequence, SavedCursor(cursor, unit: nil)) }
        // Anything else must be the unit's line, whole and matching: else the slot is damaged.
        guard let unitEnd = rest.firstIndex(of: 0x0A),
            let (tag, unit) = parseLine(rest[..<unitEnd], isValue: isField, checksum: { (_: String, unit: String) in
                unitChecksum(sequence: sequence, saved: SavedCursor(cursor, unit: unit))
            }),
            tag == unitTag
        else { return nil }
        let afterUnit = rest[(unitEnd + 1)...]
        guard let next = afterUnit.first, next != 0x0A else { return (sequence, SavedCursor(cursor, unit: unit)) }
        // A third line must be `withheld`, whole and matching: else the slot is damaged.
        let withheld = SavedCursor(cursor, unit: unit, withheld: true)
        guard let withheldEnd = afterUnit.firstIndex(of: 0x0A),
            let (mark, _) = parseLine(afterUnit[..<withheldEnd], isValue: { $0 == Array("yes".utf8) }, checksum: { (_: String, _: String) in
                withheldChecksum(sequence: sequence, saved: withheld)
            }),
            mark == withheldTag
        else { return nil }
        return (sequence, withheld)
    }

    /// `FIRST CRC32C VALUE`, its checksum as `checksum(FIRST, VALUE)` computes it; for the cursor's
    /// line FIRST is the sequence.
    private static func parseLine<First>(
        _ line: ArraySlice<UInt8>, isValue: ([UInt8]) -> Bool, checksum: (First, String) -> UInt32
    ) -> (First, String)? where First: LosslessStringConvertible {
        let fields = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let first = First(String(decoding: fields[0], as: UTF8.self)),
            fields[1].count == 8, let expected = UInt32(String(decoding: fields[1], as: UTF8.self), radix: 16),
            isValue(Array(fields[2]))
        else { return nil }
        let value = String(decoding: fields[2], as: UTF8.self)
        guard checksum(first, value) == expected else { return nil }
        return (first, value)
    }

    private static func parseLegacy(_ bytes: [UInt8]) -> String? {
        guard bytes.last == 0x0A, bytes.count <= 1024 else { return nil }
        let line = Array(bytes.dropLast())
        return isCursor(line) ? String(decoding: line, as: UTF8.self) : nil
    }

    /// Printable ASCII without spaces, as sd-journal formats a cursor, and short enough for a slot.
    private static func isCursor(_ bytes: [UInt8]) -> Bool {
        bytes.count <= maxCursorBytes && isField(bytes)
    }

    /// Printable ASCII without spaces, as a cursor and a unit name are.
    private static func isField(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.count <= slotBytes && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    // MARK: I/O

    /// Best effort: a directory that cannot be synced leaves the file there, durable at the next
    /// sync of the file system.
    private static func syncDirectory(of path: String) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        try? FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
    }
}
