// libFuzzer entry point for an app's cursor file (see docs/fuzzing.md): two checksummed slots,
// rewritten in place after every accepted batch. The input is the file as found on disk.
//
// Besides "no crash", it checks: any content either opens to a cursor (printable, without spaces,
// short enough for a slot, and one the file holds) or is refused as unreadable; after a write,
// reopening reads exactly what was written; and a later write torn part-way through its slot (a
// power cut) leaves the cursor written before it, or the new one once its line is whole.
#if canImport(Glibc)
import Glibc
#endif
@testable import ApsioState
import ApsioPOSIX

let firstCursor = "s=7b2f1d0e9c8a4b3f;i=1f2e;b=0a1b2c3d4e5f;m=5d2c;t=6123456789abc;x=1f2e3d4c5b6a7988"
let secondCursor = "s=7b2f1d0e9c8a4b3f;i=1f2f;b=0a1b2c3d4e5f;m=5d3c;t=6123456789abd;x=8f2e3d4c5b6a7989"

/// Lines of the slots that read as `SEQUENCE CHECKSUM CURSOR` get the checksum their sequence and
/// cursor need, so that the fuzzer, which cannot compute a CRC, still makes valid slots with
/// hostile sequences and cursors.
func fixSlotChecksums(_ bytes: inout [UInt8]) {
    for start in stride(from: 0, to: min(bytes.count, 2 * CursorFile.slotBytes), by: CursorFile.slotBytes) {
        let slot = bytes[start..<min(bytes.count, start + CursorFile.slotBytes)]
        guard let end = slot.firstIndex(of: 0x0A) else { continue }
        let fields = slot[start..<end].split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[1].count == 8, let sequence = UInt64(String(decoding: fields[0], as: UTF8.self))
        else { continue }
        let checksum = CRC32C.checksum("\(sequence) \(String(decoding: fields[2], as: UTF8.self))".utf8)
        let hex = String(checksum, radix: 16)
        let digits = Array((String(repeating: "0", count: 8 - hex.count) + hex).utf8)
        bytes.replaceSubrange(fields[1].startIndex..<fields[1].endIndex, with: digits)
    }
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
    if let cursor = file.newest {
        check(isPrintableCursor(cursor), "opened to a cursor no journal writes: \(cursor)")
        check(firstOccurrence(of: Array(cursor.utf8), in: content, from: 0) != nil, "a cursor the file does not hold")
    } else {
        check(content.isEmpty, "\(content.count) bytes opened to no cursor")
    }

    do {
        try file.write(firstCursor)
    } catch {
        fatalError("writing a cursor failed: \(error)")
    }
    file.close()
    guard let reopened = openCursor(path) else { fatalError("the file written is unreadable") }
    check(reopened.newest == firstCursor, "wrote \(firstCursor), read back \(reopened.newest ?? "nothing")")

    // The next write, whole and torn: torn, the first bytes of its slot are new and the rest
    // still the old ones. (A write that starts the numbering again writes both slots in turn; a
    // power cut in its first write is like this one, in its second like no cut at all.)
    let before = scratch.read("cursor")!
    do {
        try reopened.write(secondCursor)
    } catch {
        fatalError("writing a cursor failed: \(error)")
    }
    reopened.close()
    let after = scratch.read("cursor")!
    guard let whole = openCursor(path) else { fatalError("the file written is unreadable") }
    check(whole.newest == secondCursor, "wrote \(secondCursor), read back \(whole.newest ?? "nothing")")
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
    // The new line is whole once every byte of it is on disk, which is sooner than `lineBytes`
    // when the old slot already held the same last bytes (the same newline at the same place).
    let lineOnDisk = torn.count >= slot + lineBytes && torn[slot..<(slot + lineBytes)] == after[slot..<(slot + lineBytes)]
    let expected = lineOnDisk ? secondCursor : firstCursor
    check(survivor.newest == expected,
          "\(tornBytes) of \(lineBytes) bytes of the line written, read back \(survivor.newest ?? "nothing")")
    survivor.close()
    return 0
}
