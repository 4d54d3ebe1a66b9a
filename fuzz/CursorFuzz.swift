// libFuzzer entry point for an app's cursor file (see docs/fuzzing.md): two checksummed slots,
// rewritten in place after every accepted batch. The input is the file as found on disk.
//
// Besides "no crash", it checks: any content either opens to a cursor (printable, without spaces,
// short enough for a slot, and one the file holds, as its unit is) or is refused as unreadable;
// after a write, reopening reads exactly what was written, unit included; and a later write torn
// part-way through its slot (a power cut) leaves the position written before it, or the new one
// once its lines are whole, or the new cursor without a unit when its line is whole and the unit's
// place still holds the padding of a slot written without one.
#if canImport(Glibc)
import Glibc
#endif
@testable import ApsioState
import ApsioPOSIX

let firstCursor = "s=7b2f1d0e9c8a4b3f;i=1f2e;b=0a1b2c3d4e5f;m=5d2c;t=6123456789abc;x=1f2e3d4c5b6a7988"
let secondCursor = "s=7b2f1d0e9c8a4b3f;i=1f2f;b=0a1b2c3d4e5f;m=5d3c;t=6123456789abd;x=8f2e3d4c5b6a7989"

let firstUnit = "foo.service"
let secondUnit = "bar.service"

/// Lines of the slots that read as `SEQUENCE CHECKSUM CURSOR` get the checksum their sequence and
/// cursor need, and a line after it that reads as `TAG CHECKSUM UNIT` the one its unit needs beside
/// them, so that the fuzzer, which cannot compute a CRC, still makes valid slots with hostile
/// sequences, cursors and units.
func fixSlotChecksums(_ bytes: inout [UInt8]) {
    for start in stride(from: 0, to: min(bytes.count, 2 * CursorFile.slotBytes), by: CursorFile.slotBytes) {
        let slot = bytes[start..<min(bytes.count, start + CursorFile.slotBytes)]
        guard let end = slot.firstIndex(of: 0x0A) else { continue }
        let fields = slot[start..<end].split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[1].count == 8, let sequence = UInt64(String(decoding: fields[0], as: UTF8.self))
        else { continue }
        let cursor = String(decoding: fields[2], as: UTF8.self)
        bytes.replaceSubrange(fields[1].startIndex..<fields[1].endIndex, with: hexDigits(CRC32C.checksum("\(sequence) \(cursor)".utf8)))
        let rest = slot[(end + 1)...]
        guard let unitEnd = rest.firstIndex(of: 0x0A) else { continue }
        let unitFields = rest[..<unitEnd].split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard unitFields.count == 3, unitFields[1].count == 8 else { continue }
        let unit = String(decoding: unitFields[2], as: UTF8.self)
        bytes.replaceSubrange(
            unitFields[1].startIndex..<unitFields[1].endIndex, with: hexDigits(CRC32C.checksum("\(sequence) \(cursor) \(unit)".utf8)))
    }
}

func hexDigits(_ checksum: UInt32) -> [UInt8] {
    let hex = String(checksum, radix: 16)
    return Array((String(repeating: "0", count: 8 - hex.count) + hex).utf8)
}

func describe(_ saved: SavedCursor?) -> String {
    saved.map { "\($0.cursor) of \($0.unit ?? "no unit")" } ?? "nothing"
}

func openCursor(_ path: String) -> CursorFile? {
    do {
        guard let file = try CursorFile(path: path, mode: 0o640, creating: false) else {
            fatalError("a file that exists opened as missing")
        }
        return file
    } catch {
        guard case .unreadable = error else { fatalError("a cursor file failed as \(error)") }
        return nil
    }
}

func isPrintableCursor(_ cursor: String) -> Bool {
    let bytes = Array(cursor.utf8)
    return (1...CursorFile.maxCursorBytes).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCursorFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The first byte: whether to fix the slots' checksums, and how much of the torn slot is
    // written (0 to 511 bytes, with the low bits from the next byte).
    var input = FuzzChoices(data, size)
    let flags = input.byte()
    var content = Array(input.rest)
    if flags & 0x01 != 0 { fixSlotChecksums(&content) }
    let tornBytes = Int(flags >> 1) * 4 + Int(input.rest.first ?? 0) % 4

    let scratch = ScratchDirectory()
    let path = scratch.path + "/cursor"
    scratch.write("cursor", content)

    guard let file = openCursor(path) else { return 0 }
    if let saved = file.newest {
        check(isPrintableCursor(saved.cursor), "opened to a cursor no journal writes: \(saved.cursor)")
        check(firstOccurrence(of: Array(saved.cursor.utf8), in: content, from: 0) != nil, "a cursor the file does not hold")
        if let unit = saved.unit {
            check(!unit.isEmpty && unit.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "opened to a unit no app file names: \(unit)")
            check(firstOccurrence(of: Array(unit.utf8), in: content, from: 0) != nil, "a unit the file does not hold")
        }
    } else {
        check(content.isEmpty, "\(content.count) bytes opened to no cursor")
    }

    let first = SavedCursor(firstCursor, unit: firstUnit)
    do {
        try file.write(first)
    } catch {
        fatalError("writing a cursor failed: \(error)")
    }
    file.close()
    guard let reopened = openCursor(path) else { fatalError("the file written is unreadable") }
    check(reopened.newest == first, "wrote \(describe(first)), read back \(describe(reopened.newest))")

    // The next write, whole and torn: torn, the first bytes of its slot are new and the rest
    // still the old ones. (A write that starts the numbering again writes both slots in turn; a
    // power cut in its first write is like this one, in its second like no cut at all.)
    let before = scratch.read("cursor")!
    let second = SavedCursor(secondCursor, unit: secondUnit)
    do {
        try reopened.write(second)
    } catch {
        fatalError("writing a cursor failed: \(error)")
    }
    reopened.close()
    let after = scratch.read("cursor")!
    guard let whole = openCursor(path) else { fatalError("the file written is unreadable") }
    check(whole.newest == second, "wrote \(describe(second)), read back \(describe(whole.newest))")
    whole.close()

    let changed = after.indices.filter { $0 >= before.count || after[$0] != before[$0] }
    let slots = Set(changed.map { $0 / CursorFile.slotBytes })
    guard slots.count == 1, let slot = slots.first.map({ $0 * CursorFile.slotBytes }) else { return 0 }
    var torn = before
    for index in slot..<(slot + tornBytes) {
        if index < torn.count { torn[index] = after[index] } else { torn.append(after[index]) }
    }
    scratch.write("cursor", torn)
    guard let survivor = openCursor(path) else { fatalError("a torn write lost both cursors") }
    let lineBytes = after[slot...].firstIndex(of: 0x0A)! - slot + 1
    let linesBytes = after[(slot + lineBytes)...].firstIndex(of: 0x0A)! - slot + 1
    // A line is whole once every byte of it is on disk, which is sooner than its length when the
    // old slot already held the same last bytes (the same newline at the same place).
    func onDisk(_ count: Int) -> Bool {
        torn.count >= slot + count && torn[slot..<(slot + count)] == after[slot..<(slot + count)]
    }
    let expected: SavedCursor
    if onDisk(linesBytes) {
        expected = second
    } else if onDisk(lineBytes), torn.count <= slot + lineBytes || torn[slot + lineBytes] == 0x0A {
        // Where the unit's line goes, the padding of a slot written without one: an earlier
        // apsiod's slot, which this reads as the cursor without its unit.
        expected = SavedCursor(secondCursor, unit: nil)
    } else {
        expected = first
    }
    check(survivor.newest == expected,
          "\(tornBytes) of \(linesBytes) bytes of the lines written, read back \(describe(survivor.newest))")
    survivor.close()
    return 0
}
