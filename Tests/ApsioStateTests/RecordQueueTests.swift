import Foundation
import Testing
import ApsioState
import ApsioTestSupport

@Suite struct RecordQueueTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_767_225_600_000  // 2026-01-01

    func payload(_ index: Int, size: Int = 24) -> [UInt8] {
        let text = "record-\(index)-"
        return Array((text + String(repeating: "x", count: max(0, size - text.utf8.count))).utf8)
    }

    func all(_ queue: RecordQueue, now: Int64 = t0) throws -> [QueuedEntry] {
        try queue.peek(maxBytes: .max, maxCount: .max, now: now)
    }

    func segmentFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".seg") }.sorted()
    }

    @Test func entriesComeBackInOrderAndAgainUntilAcknowledged() throws {
        let dir = try TemporaryDirectory()
        let queue = try RecordQueue(directory: dir.path + "/q")
        for index in 0..<5 { try queue.append(payload(index), at: Self.t0 + Int64(index)) }
        #expect(queue.counters == QueueCounters(records: 5, bytes: 5 * (20 + 24), dropped: 0))

        let batch = try queue.peek(maxBytes: .max, maxCount: 3, now: Self.t0)
        #expect(batch.map(\.payload) == (0..<3).map { payload($0) })
        #expect(batch.map(\.unixMs) == [Self.t0, Self.t0 + 1, Self.t0 + 2])
        // Not acknowledged: the same batch again.
        #expect(try queue.peek(maxBytes: .max, maxCount: 3, now: Self.t0) == batch)

        try queue.acknowledge(through: batch[2].position)
        #expect(try all(queue).map(\.payload) == [payload(3), payload(4)])
        #expect(queue.counters.records == 2)
        // Acknowledging an older position again changes nothing.
        try queue.acknowledge(through: batch[0].position)
        #expect(queue.counters.records == 2)
    }

    @Test func peekKeepsToItsLimitsButAlwaysGivesOneEntry() throws {
        let dir = try TemporaryDirectory()
        let queue = try RecordQueue(directory: dir.path + "/q")
        try queue.append(payload(0, size: 500), at: Self.t0)
        try queue.append(payload(1, size: 40), at: Self.t0)
        try queue.append(payload(2, size: 40), at: Self.t0)
        #expect(try queue.peek(maxBytes: 100, maxCount: 10, now: Self.t0).map(\.payload) == [payload(0, size: 500)])
        try queue.acknowledge(through: try queue.peek(maxBytes: 1, maxCount: 1, now: Self.t0)[0].position)
        #expect(try queue.peek(maxBytes: 80, maxCount: 10, now: Self.t0).count == 2)
        #expect(try queue.peek(maxBytes: 79, maxCount: 10, now: Self.t0).count == 1)
        #expect(try queue.peek(maxBytes: 80, maxCount: 0, now: Self.t0).isEmpty)
    }

    @Test func anAcknowledgementSurvivesAReopenAndWhatWasNotAcknowledgedIsSentAgain() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        // Small segments, so positions cross files.
        let bounds = QueueBounds(maxBytes: 1 << 20, maxAge: .seconds(7 * 86_400), segmentBytes: 100)
        do {
            let queue = try RecordQueue(directory: path, bounds: bounds)
            for index in 0..<6 { try queue.append(payload(index), at: Self.t0) }
            let batch = try queue.peek(maxBytes: .max, maxCount: 3, now: Self.t0)
            try queue.acknowledge(through: batch[2].position)
            // Peeked and not acknowledged when the process "crashes".
            _ = try queue.peek(maxBytes: .max, maxCount: 2, now: Self.t0)
        }
        let reopened = try RecordQueue(directory: path, bounds: bounds)
        #expect(try all(reopened).map(\.payload) == (3..<6).map { payload($0) })
        #expect(reopened.counters.records == 3)
        // Fully read segments are gone from the disk.
        #expect(try segmentFiles(path).count == 2)
    }

    @Test func aSecondQueueOnTheSameDirectoryIsRefused() throws {
        let dir = try TemporaryDirectory()
        let queue = try RecordQueue(directory: dir.path + "/q")
        #expect(throws: RecordQueueError.busy(directory: dir.path + "/q")) { try RecordQueue(directory: dir.path + "/q") }
        queue.close()
        _ = try RecordQueue(directory: dir.path + "/q")
    }

    @Test func underTheStateDirectorysLockAQueueKeepsNoLockOfItsOwn() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let held = try StateDirectoryLock.acquire(layout)
        #expect(throws: StateStoreError.inUse(path: dir.path + "/apsiod.lock")) {
            try StateDirectoryLock.acquire(layout, timeout: .zero)
        }
        let queue = try RecordQueue(directory: dir.path + "/q", coveredBy: held)
        try queue.append(payload(0), at: Self.t0)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/q/lock"))
        queue.close()
        held.release()
        let again = try StateDirectoryLock.acquire(layout, timeout: .zero)
        #expect(try all(try RecordQueue(directory: dir.path + "/q", coveredBy: again)).count == 1)
    }

    @Test func anEntryLargerThanTheLimitIsRefusedAndNothingOfTheBatchWritten() throws {
        let dir = try TemporaryDirectory()
        let bounds = QueueBounds(maxBytes: 1 << 20, maxAge: .seconds(60), maxEntryBytes: 64)
        let queue = try RecordQueue(directory: dir.path + "/q", bounds: bounds)
        #expect(throws: RecordQueueError.entryTooLarge(bytes: 65, limit: 64)) {
            try queue.append(contentsOf: [(payload(0), Self.t0), (payload(1, size: 65), Self.t0)])
        }
        #expect(queue.counters.records == 0)
    }

    @Test func filesAreTheDaemonsOnly() throws {
        let dir = try TemporaryDirectory()
        let queue = try RecordQueue(directory: dir.path + "/q")
        try queue.append(payload(0), at: Self.t0)
        try queue.acknowledge(through: try all(queue)[0].position)
        try queue.append(payload(1), at: Self.t0)
        #expect(try dir.mode(of: "q") == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path + "/q") {
            #expect(try dir.mode(of: "q/" + file) == 0o600, "\(file)")
        }
    }

    // MARK: Crashes and damage

    /// Writes `count` entries, closes the queue and returns the bytes of its only segment and
    /// where its last entry starts.
    func sealedSegment(count: Int) throws -> (bytes: Data, lastEntryStart: Int) {
        let dir = try TemporaryDirectory()
        let queue = try RecordQueue(directory: dir.path + "/q")
        for index in 0..<count { try queue.append(payload(index), at: Self.t0 + Int64(index)) }
        queue.close()
        let files = try segmentFiles(dir.path + "/q")
        #expect(files.count == 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/q/" + files[0]))
        return (bytes, bytes.count - (20 + 24))
    }

    func queueDirectory(holding segment: Data, in dir: TemporaryDirectory, name: String) throws -> String {
        let path = dir.path + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try segment.write(to: URL(fileURLWithPath: path + "/0000000000000001.seg"))
        return path
    }

    @Test func aTornLastEntryCostsThatEntryOnlyAtEveryByte() throws {
        let (bytes, lastStart) = try sealedSegment(count: 4)
        let dir = try TemporaryDirectory()
        for cut in lastStart..<bytes.count {
            let path = try queueDirectory(holding: bytes.prefix(cut), in: dir, name: "cut-\(cut)")
            let queue = try RecordQueue(directory: path)
            #expect(try all(queue).map(\.payload) == (0..<3).map { payload($0) }, "cut at \(cut)")
            // The stretch a crash tore counts as one lost record; a cut on the boundary lost none.
            #expect(queue.counters.dropped == (cut == lastStart ? 0 : 1), "cut at \(cut)")
            #expect(queue.counters.records == 3)
            // The queue goes on: the tail was cut, so a new entry follows the good ones.
            try queue.append(payload(9), at: Self.t0)
            #expect(try all(queue).map(\.payload) == (0..<3).map { payload($0) } + [payload(9)], "cut at \(cut)")
            queue.close()
            let reopened = try RecordQueue(directory: path)
            #expect(reopened.counters == QueueCounters(records: 4, bytes: 4 * 44, dropped: 0), "cut at \(cut)")
        }
    }

    @Test func aFlippedByteAnywhereInAnEntryCostsThatEntryOnly() throws {
        let (bytes, _) = try sealedSegment(count: 4)
        let dir = try TemporaryDirectory()
        let secondEntry = 44..<88
        for index in secondEntry {
            var damaged = bytes
            damaged[index] ^= 0x10
            let path = try queueDirectory(holding: damaged, in: dir, name: "flip-\(index)")
            let queue = try RecordQueue(directory: path)
            #expect(try all(queue).map(\.payload) == [payload(0), payload(2), payload(3)], "flip at \(index)")
            #expect(queue.counters.dropped == 1, "flip at \(index)")
            queue.close()
            // The damage was cut out of the file, not just skipped: a reopen finds none.
            let reopened = try RecordQueue(directory: path)
            #expect(reopened.counters == QueueCounters(records: 3, bytes: 3 * 44, dropped: 0))
        }
    }

    @Test func damageBeforeTheReadPositionIsNotCountedAndThePositionHolds() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        do {
            let queue = try RecordQueue(directory: path)
            for index in 0..<4 { try queue.append(payload(index), at: Self.t0) }
            try queue.acknowledge(through: try all(queue)[1].position)
        }
        let segment = path + "/" + (try segmentFiles(path))[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[30] ^= 0xFF  // inside the first entry, already acknowledged
        try bytes.write(to: URL(fileURLWithPath: segment))
        let queue = try RecordQueue(directory: path)
        #expect(queue.counters.dropped == 0)
        #expect(try all(queue).map(\.payload) == [payload(2), payload(3)])
    }

    @Test func damageFoundWhileReadingIsCutOutAndCounted() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        let queue = try RecordQueue(directory: path)
        for index in 0..<3 { try queue.append(payload(index), at: Self.t0) }
        let before = try all(queue)
        let segment = path + "/" + (try segmentFiles(path))[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[50] ^= 0x01  // the second entry's payload
        try bytes.write(to: URL(fileURLWithPath: segment))

        #expect(try all(queue).map(\.payload) == [payload(0), payload(2)])
        #expect(queue.counters.dropped == 1)
        // A position taken before the cut no longer names the same place: it acknowledges nothing.
        try queue.acknowledge(through: before[2].position)
        #expect(queue.counters.records == 2)
        // And appending still works after the segment was rewritten.
        try queue.append(payload(3), at: Self.t0)
        #expect(try all(queue).map(\.payload) == [payload(0), payload(2), payload(3)])
    }

    @Test func aDamagedReadPositionSendsEverythingAgainRatherThanLosingIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        do {
            let queue = try RecordQueue(directory: path)
            for index in 0..<3 { try queue.append(payload(index), at: Self.t0) }
            try queue.acknowledge(through: try all(queue)[0].position)
        }
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path + "/read-position"))
        let queue = try RecordQueue(directory: path)
        #expect(try all(queue).map(\.payload) == (0..<3).map { payload($0) })
    }

    /// Found by fuzz/QueueFuzz.swift: a read position longer than any the queue writes (a file
    /// overwritten by something else) failed the open as "File too large", so the app's records
    /// could not be queued at all until someone removed it. It is not a position this queue wrote.
    @Test func anOversizedReadPositionSendsEverythingAgain() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        do {
            let queue = try RecordQueue(directory: path)
            for index in 0..<3 { try queue.append(payload(index), at: Self.t0) }
            try queue.acknowledge(through: try all(queue)[0].position)
        }
        try Data(repeating: UInt8(ascii: "1"), count: 300).write(to: URL(fileURLWithPath: path + "/read-position"))
        let queue = try RecordQueue(directory: path)
        #expect(try all(queue).map(\.payload) == (0..<3).map { payload($0) })
    }

    /// Found by fuzz/QueueFuzz.swift: a segment file named with the last number there is (from
    /// damage or another program) made the number of the next new segment overflow, and the daemon
    /// trapped at the first append after every start. A name past the queue's range is not one of
    /// its segments: it is left alone, and the queue goes on.
    @Test(arguments: ["ffffffffffffffff.seg", "4000000000000001.seg"])
    func aSegmentNamedPastTheRangeIsLeftAloneAndAppendsGoOn(_ name: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        try RecordQueue(directory: path).close()
        try Data("not an entry".utf8).write(to: URL(fileURLWithPath: path + "/" + name))
        let queue = try RecordQueue(directory: path)
        try queue.append(payload(0), at: Self.t0)
        #expect(try all(queue).map(\.payload) == [payload(0)])
        #expect(try queue.dropAll() == 1)
        try queue.append(payload(1), at: Self.t0)
        #expect(try all(queue).map(\.payload) == [payload(1)])
        #expect(try segmentFiles(path).contains(name))
    }

    /// The same number in the read position: every segment before it was taken as acknowledged and
    /// removed, then the first append trapped. It is not a position this queue wrote.
    @Test func aReadPositionPastTheRangeSendsEverythingAgain() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        do {
            let queue = try RecordQueue(directory: path)
            for index in 0..<3 { try queue.append(payload(index), at: Self.t0) }
            try queue.acknowledge(through: try all(queue)[0].position)
        }
        try Data("1 18446744073709551615 0\n".utf8).write(to: URL(fileURLWithPath: path + "/read-position"))
        let queue = try RecordQueue(directory: path)
        #expect(try all(queue).map(\.payload) == (0..<3).map { payload($0) })
        try queue.append(payload(3), at: Self.t0)
        #expect(try all(queue).count == 4)
    }

    // MARK: Bounds

    @Test func theByteBoundDropsTheOldestAndCountsThem() throws {
        let dir = try TemporaryDirectory()
        let bounds = QueueBounds(maxBytes: 4096, maxAge: .seconds(7 * 86_400), segmentBytes: 1024)
        let queue = try RecordQueue(directory: dir.path + "/q", bounds: bounds)
        for index in 0..<200 { try queue.append(payload(index, size: 100), at: Self.t0) }
        let counters = queue.counters
        let onDisk = try segmentFiles(dir.path + "/q").reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: dir.path + "/q/" + name)[.size] as? Int) ?? 0)
        }
        #expect(onDisk <= 4096)
        #expect(counters.bytes == onDisk)
        #expect(counters.records + counters.dropped == 200)
        #expect(counters.dropped > 0)
        // What is left is the newest, without a gap.
        let left = try all(queue).map(\.payload)
        #expect(left == ((200 - counters.records)..<200).map { payload($0, size: 100) })
    }

    @Test func theByteBoundCountsOnlyWhatWasNotAcknowledged() throws {
        let dir = try TemporaryDirectory()
        // Room for four segments of eight 120-byte entries.
        let bounds = QueueBounds(maxBytes: 3840, maxAge: .seconds(60), segmentBytes: 960)
        let queue = try RecordQueue(directory: dir.path + "/q", bounds: bounds)
        for index in 0..<32 { try queue.append(payload(index, size: 100), at: Self.t0) }
        // Three of the first segment's eight are accepted; the next append pushes that segment out.
        try queue.acknowledge(through: try queue.peek(maxBytes: .max, maxCount: 3, now: Self.t0)[2].position)
        try queue.append(payload(32, size: 100), at: Self.t0)
        #expect(queue.counters.dropped == 5)
        #expect(try all(queue).first?.payload == payload(8, size: 100))
    }

    @Test func entriesOlderThanTheAgeBoundAreDroppedAndCounted() throws {
        let dir = try TemporaryDirectory()
        let bounds = QueueBounds(maxBytes: 1 << 20, maxAge: .seconds(7 * 86_400), segmentBytes: 200)
        let queue = try RecordQueue(directory: dir.path + "/q", bounds: bounds)
        // One entry a day for ten days; four to a segment.
        for day in 0..<10 { try queue.append(payload(day), at: Self.t0 + Int64(day) * Self.day) }
        let now = Self.t0 + 10 * Self.day
        // Days 0, 1 and 2 are more than seven days old at day 10; day 3 is exactly seven.
        #expect(try all(queue, now: now).map(\.payload) == (3..<10).map { payload($0) })
        #expect(queue.counters == QueueCounters(records: 7, bytes: 7 * 44, dropped: 3))
        // Counted once, however often peeked.
        _ = try all(queue, now: now)
        #expect(queue.counters.dropped == 3)
        // The expiry is kept: a reopen does not bring them back.
        queue.close()
        let reopened = try RecordQueue(directory: dir.path + "/q", bounds: bounds)
        #expect(try all(reopened, now: Self.t0).map(\.payload) == (3..<10).map { payload($0) })
    }

    // MARK: Dropping everything

    @Test func dropAllEmptiesTheQueueForGood() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/q"
        let bounds = QueueBounds(maxBytes: 1 << 20, maxAge: .seconds(60), segmentBytes: 100)
        let queue = try RecordQueue(directory: path, bounds: bounds)
        for index in 0..<5 { try queue.append(payload(index), at: Self.t0) }
        let stale = try all(queue)
        #expect(try queue.dropAll() == 5)
        #expect(queue.counters == QueueCounters(records: 0, bytes: 0, dropped: 0))
        #expect(try all(queue).isEmpty)
        #expect(try segmentFiles(path).isEmpty)
        // A position from before names nothing that is left.
        try queue.acknowledge(through: stale[4].position)
        try queue.append(payload(7), at: Self.t0)
        #expect(try all(queue).map(\.payload) == [payload(7)])
        queue.close()
        let reopened = try RecordQueue(directory: path, bounds: bounds)
        #expect(try all(reopened).map(\.payload) == [payload(7)])
    }
}
