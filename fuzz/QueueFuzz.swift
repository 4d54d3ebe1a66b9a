// libFuzzer entry point for the on-disk record queue (see docs/fuzzing.md): the input is written as
// the segment files and read position a crash, a torn write or flipped bits could leave, and the
// queue is opened on them.
//
// Besides "no crash", it checks: opening recovers from anything; every entry read back is one the
// files held whole with a good checksum, in file order, and peeking twice gives the same entries;
// the counters agree with what is read (records and bytes, with every entry lost counted as
// dropped) and are zero once all is acknowledged; a record appended after recovery reads back
// unchanged after a reopen, and once acknowledged it is gone for good.
#if canImport(Glibc)
import Glibc
#endif
@testable import ApsioState
import ApsioPOSIX

/// Small bounds, so that a few entries fill a segment and reach the entry size limit.
let fuzzQueueBounds = QueueBounds(maxBytes: 4096, maxAge: .seconds(3600), segmentBytes: 512, maxEntryBytes: 256)

/// Segment numbers the files may have: the first few, and the ends of the range.
let fuzzSequences: [UInt64] = [1, 2, 3, 4, 0, 0x7fff_ffff_ffff_ffff, .max - 1, .max]

/// The time the queue is read at: either so early that nothing is too old, or a real day, when
/// entries older than an hour are dropped.
let noExpiry = Int64.min + fuzzQueueBounds.maxAgeMilliseconds
let aRealDay: Int64 = 1_700_000_000_000

/// Entries whose header and length fit get a correct checksum, so that the fuzzer, which cannot
/// compute a CRC, still makes files of valid entries with hostile lengths, times and positions.
func fixChecksums(_ segment: inout [UInt8]) {
    var offset = 0
    while offset + QueueEntryFormat.headerSize <= segment.count {
        guard segment[offset..<(offset + 3)].elementsEqual(QueueEntryFormat.magic),
            segment[offset + 3] == QueueEntryFormat.version
        else {
            offset += 1
            continue
        }
        let length = segment[(offset + 4)..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let end = offset + QueueEntryFormat.headerSize + length
        guard end <= segment.count else {
            offset += 1
            continue
        }
        let fields = CRC32C.checksum(segment[(offset + 4)..<(offset + 16)])
        let crc = CRC32C.checksum(segment[(offset + 20)..<end], continuing: fields)
        withUnsafeBytes(of: crc.littleEndian) { segment.replaceSubrange((offset + 16)..<(offset + 20), with: $0) }
        offset = end
    }
}

struct QueueFiles {
    var segments: [(name: String, bytes: [UInt8])] = []
    var readPosition: [UInt8]?
    var now = noExpiry
}

/// Flags (segment count, read position, checksums, time), then per segment its number and length,
/// then the read position's text, or its numbers to be written as the queue writes them.
func queueFiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> QueueFiles {
    var input = FuzzChoices(data, size)
    let flags = input.byte()
    var files = QueueFiles()
    files.now = flags & 0x10 != 0 ? aRealDay : noExpiry
    if flags & 0x04 != 0 {
        if flags & 0x20 != 0 {
            let segment = input.pick(fuzzSequences)
            let offset = Int(input.byte()) | Int(input.byte()) << 8
            files.readPosition = Array("1 \(segment) \(offset)\n".utf8)
        } else {
            files.readPosition = input.bytes(Int(input.byte()) * 2)
        }
    }
    let count = Int(flags & 0x03) + 1
    for index in 0..<count {
        let sequence = input.pick(fuzzSequences)
        let length = index == count - 1 ? Int.max : Int(input.byte()) | Int(input.byte()) << 8
        var bytes = input.bytes(length)
        if flags & 0x08 != 0 { fixChecksums(&bytes) }
        // Two segments of one number are one file: the later write is what the queue finds.
        files.segments.removeAll { $0.name == QueueSegment.fileName(sequence) }
        files.segments.append((QueueSegment.fileName(sequence), bytes))
    }
    return files
}

func openQueue(_ directory: String) -> RecordQueue {
    do {
        return try RecordQueue(directory: directory, bounds: fuzzQueueBounds)
    } catch {
        fatalError("the queue does not open: \(error)")
    }
}

/// Peeks and acknowledges until nothing is left; every peek is taken twice, which must agree.
func drain(_ queue: RecordQueue, now: Int64) -> [QueuedEntry] {
    var all: [QueuedEntry] = []
    for _ in 0..<10_000 {
        do {
            let entries = try queue.peek(maxBytes: 200, maxCount: 3, now: now)
            let again = try queue.peek(maxBytes: 200, maxCount: 3, now: now)
            check(again == entries, "peeking again gave other entries")
            guard let last = entries.last else { return all }
            all += entries
            try queue.acknowledge(through: last.position)
        } catch {
            fatalError("reading the queue failed: \(error)")
        }
    }
    fatalError("the queue never ran dry")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordQueue(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let files = queueFiles(data, size)
    let scratch = ScratchDirectory()
    for segment in files.segments { scratch.write(segment.name, segment.bytes) }
    if let position = files.readPosition { scratch.write("read-position", position) }

    let queue = openQueue(scratch.path)
    let before = queue.counters
    let entries = drain(queue, now: files.now)
    let after = queue.counters

    // Every entry came whole from the files, in their order: segment by segment, then by offset.
    let written = files.segments.sorted { $0.name < $1.name }
    var place = (segment: 0, offset: 0)
    for entry in entries {
        check(entry.payload.count <= QueueEntryFormat.maxPayloadBytes, "a payload past the hard cap")
        let bytes = QueueEntryFormat.encode(entry.payload, unixMs: entry.unixMs)
        while place.segment < written.count {
            if let found = firstOccurrence(of: bytes, in: written[place.segment].bytes, from: place.offset) {
                place.offset = found + bytes.count
                break
            }
            place = (place.segment + 1, 0)
        }
        check(place.segment < written.count, "an entry read back that no file held whole, in order")
    }
    check(before.records == entries.count + (after.dropped - before.dropped),
          "\(before.records) records counted, \(entries.count) read, \(after.dropped - before.dropped) dropped")
    if files.now == noExpiry {
        check(before.bytes == entries.reduce(0) { $0 + QueueEntryFormat.headerSize + $1.payload.count },
              "\(before.bytes) bytes counted for the entries read")
    }
    check(after.records == 0 && after.bytes == 0, "records left after everything was acknowledged")

    // A record appended after recovery survives a reopen unchanged, and is gone once acknowledged.
    let payload = Array(UnsafeBufferPointer(start: data, count: min(size, 64)))
    let unixMs = files.now == noExpiry ? 0 : files.now
    do {
        try queue.append(payload, at: unixMs)
        check(queue.counters.records == 1, "an append counted \(queue.counters.records) records")
    } catch {
        fatalError("appending after recovery failed: \(error)")
    }
    queue.close()
    let reopened = openQueue(scratch.path)
    let back = drain(reopened, now: files.now)
    check(back.map(\.payload) == [payload] && back.map(\.unixMs) == [unixMs],
          "the appended record came back as \(back)")
    reopened.close()
    let last = openQueue(scratch.path)
    check(last.counters.records == 0 && drain(last, now: files.now).isEmpty, "an acknowledged record came back")
    last.close()
    return 0
}
