import ApsioCore
import Foundation
import Testing
import ApsioState
import ApsioTestSupport

@Suite struct CursorStoreTests {
    let nginx = try! AppName("nginx")
    let cron = try! AppName("cron")

    func at(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(.seconds(seconds)) }

    /// What a daemon starting now would resume after.
    func onDisk(_ layout: StateLayout, _ app: AppName) throws -> String? {
        try CursorStore(layout: layout).cursor(for: app)?.cursor
    }

    func bytes(_ layout: StateLayout, _ app: AppName) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: layout.cursorFile(app))))
    }

    func overwrite(_ layout: StateLayout, _ app: AppName, with bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: layout.cursorFile(app)))
    }

    /// What a daemon run that saves `cursor` for nginx and stops leaves behind.
    func saveInANewRun(_ layout: StateLayout, _ cursor: String, unit: String = "nginx.service", at second: Int) throws {
        let store = CursorStore(layout: layout)
        store.update(SavedCursor(cursor, unit: unit), for: nginx)
        try store.flush(now: at(second))
        store.close()
    }

    @Test func everyFlushWritesAtOnceAndSyncsAreBoundedByTheInterval() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout, syncInterval: .seconds(10))
        #expect(try store.cursor(for: nginx) == nil)
        #expect(try store.flushIfDue(now: at(0)) == false)  // nothing to write

        store.update(SavedCursor("s=1;i=1", unit: "nginx.service"), for: nginx)
        #expect(store.nextWriteDue == .origin)
        #expect(try store.flushIfDue(now: at(0)))
        #expect(try onDisk(layout, nginx) == "s=1;i=1")
        #expect(store.nextWriteDue == nil)  // written and synced

        // Within the interval: each flush writes (a crash right after finds the newest cursor),
        // and the sync waits for the interval.
        for index in 2...50 {
            store.update(SavedCursor("s=1;i=\(index)", unit: "nginx.service"), for: nginx)
            #expect(try store.flushIfDue(now: at(5)))
            #expect(try onDisk(layout, nginx) == "s=1;i=\(index)")
        }
        store.update(SavedCursor("s=9;i=1", unit: "cron.service"), for: cron)
        #expect(try store.flushIfDue(now: at(9)))
        #expect(try onDisk(layout, cron) == "s=9;i=1")
        #expect(store.nextWriteDue == at(10))
        #expect(store.hasPendingWrites)
        #expect(try store.flushIfDue(now: at(9)) == false)  // only the sync waits, and it is not due

        #expect(try store.flushIfDue(now: at(10)))
        #expect(store.hasPendingWrites == false)
        #expect(store.nextWriteDue == nil)
        #expect(try store.cursor(for: nginx)?.cursor == "s=1;i=50")
    }

    @Test func flushAtShutdownWritesWhateverIsPendingAndANewStoreReadsIt() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout, syncInterval: .seconds(10))
        store.update(SavedCursor("s=1;i=1", unit: "nginx.service"), for: nginx)
        try store.flushIfDue(now: at(100))
        store.update(SavedCursor("s=1;i=2", unit: "nginx.service"), for: nginx)
        try store.flush(now: at(101))
        store.close()
        #expect(try CursorStore(layout: layout).cursor(for: nginx)?.cursor == "s=1;i=2")
        #expect(try dir.mode(of: "apps/nginx/cursor") == 0o640)
    }

    @Test func aTornNewestSlotFallsBackToTheCursorBeforeIt() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", at: 0)
        try saveInANewRun(layout, "s=1;i=2", at: 1)

        // A power cut in the middle of the second write: its slot is half new, half old.
        var file = try bytes(layout, nginx)
        let slot = file.count / 2
        #expect(String(decoding: file[slot...], as: UTF8.self).contains("s=1;i=2"))
        file[slot + 4] ^= 0x01
        try overwrite(layout, nginx, with: file)
        #expect(try onDisk(layout, nginx) == "s=1;i=1")

        // The next write goes over the damaged slot, and wins.
        try saveInANewRun(layout, "s=1;i=3", at: 2)
        #expect(try onDisk(layout, nginx) == "s=1;i=3")
    }

    @Test func theNewestOfTheTwoSlotsWinsWhicheverSlotItIsIn() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout)
        for index in 1...5 {
            store.update(SavedCursor("s=1;i=\(index)", unit: "nginx.service"), for: nginx)
            try store.flush(now: at(index))
            #expect(try onDisk(layout, nginx) == "s=1;i=\(index)")
        }
        store.close()
        // A second daemon run goes on from the newest, not from the first slot.
        #expect(try CursorStore(layout: layout).cursor(for: nginx)?.cursor == "s=1;i=5")
        try saveInANewRun(layout, "s=1;i=6", at: 10)
        #expect(try onDisk(layout, nginx) == "s=1;i=6")
        #expect(try bytes(layout, nginx).count == 1024)
    }

    /// A slot as an earlier apsiod wrote it: `SEQUENCE CRC32C CURSOR`, padded with newlines to 512
    /// bytes, without the unit's line.
    func slot(_ sequence: UInt64, _ cursor: String) -> [UInt8] {
        let hex = String(CRC32C.checksum("\(sequence) \(cursor)".utf8), radix: 16)
        let line = Array("\(sequence) \(String(repeating: "0", count: 8 - hex.count))\(hex) \(cursor)\n".utf8)
        return line + [UInt8](repeating: 0x0A, count: 512 - line.count)
    }

    /// Found by fuzz/CursorFuzz.swift: a slot numbered with the last sequence there is (damage, or
    /// another program's file) made the next write's number wrap to 0, so the slot it wrote lost to
    /// the old one and every later start resumed from the old cursor, sending its entries again
    /// forever. The numbering starts again, and the cursor written is the one read.
    @Test(arguments: [UInt64.max, UInt64.max - 1])
    func aSequenceAtTheEndOfTheRangeStartsTheNumberingAgain(_ sequence: UInt64) throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", at: 0)
        try overwrite(layout, nginx, with: slot(sequence, "s=1;i=1"))
        #expect(try onDisk(layout, nginx) == "s=1;i=1")
        for index in 2...4 {
            try saveInANewRun(layout, "s=1;i=\(index)", at: index)
            #expect(try onDisk(layout, nginx) == "s=1;i=\(index)")
        }
    }

    @Test func aOneLineCursorFileFromEarlierVersionsIsReadAndThenReplaced() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try layout.makeAppDirectory(nginx)
        try overwrite(layout, nginx, with: Array("s=0f1e;i=2a;b=3c4d;m=5e;t=6f;x=70\n".utf8))
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=0f1e;i=2a;b=3c4d;m=5e;t=6f;x=70", unit: nil))
        try saveInANewRun(layout, "s=0f1e;i=2b;b=3c4d;m=5f;t=70;x=71", at: 0)
        #expect(try onDisk(layout, nginx) == "s=0f1e;i=2b;b=3c4d;m=5f;t=70;x=71")
    }

    @Test func aCursorFileThatIsNotACursorIsReportedNotUsed() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try layout.makeAppDirectory(nginx)
        try overwrite(layout, nginx, with: [0x73, 0x00, 0x0A])
        #expect(throws: StateStoreError.self) { try CursorStore(layout: layout).cursor(for: nginx) }
        try overwrite(layout, nginx, with: [UInt8](repeating: 0x61, count: 4096))
        #expect(throws: StateStoreError.self) { try CursorStore(layout: layout).cursor(for: nginx) }
    }

    @Test func aCursorTooLongForASlotIsRefusedAndTheOneOnDiskStays() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", at: 0)
        let store = CursorStore(layout: layout)
        store.update(SavedCursor("s=" + String(repeating: "f", count: 600), unit: "nginx.service"), for: nginx)
        #expect(throws: StateStoreError.self) { try store.flush(now: at(1)) }
        #expect(try onDisk(layout, nginx) == "s=1;i=1")
    }

    // MARK: The unit kept with the cursor

    /// The position names the unit it was read among, so that an app file whose `Unit=` changed
    /// is known to have no position for the new one; a new store reads both back.
    @Test func theUnitIsKeptWithTheCursor() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", unit: "foo.service", at: 0)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=1", unit: "foo.service"))
        try saveInANewRun(layout, "s=1;i=2", unit: "bar.service", at: 1)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=2", unit: "bar.service"))
        #expect(String(decoding: try bytes(layout, nginx), as: UTF8.self).contains("\nunit "))
    }

    /// Each slot's first line is the line an earlier apsiod writes and reads, with the unit's line
    /// after it where that apsiod reads nothing: going back to it, it still resumes after the cursor.
    @Test func eachSlotStartsWithTheLineAnEarlierApsiodReads() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", unit: "foo.service", at: 0)
        try saveInANewRun(layout, "s=1;i=2", unit: "foo.service", at: 1)
        let file = try bytes(layout, nginx)
        for (index, (sequence, cursor)) in [(UInt64(1), "s=1;i=1"), (2, "s=1;i=2")].enumerated() {
            let line = slot(sequence, cursor).prefix { $0 != 0x0A } + [0x0A]
            #expect(Array(file[(index * 512)...].prefix(line.count)) == Array(line))
        }
    }

    /// A slot an earlier apsiod wrote has no unit line: its cursor is read without a unit, and the
    /// next write keeps one again.
    @Test func aSlotWithoutAUnitIsReadWithoutOne() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", unit: "foo.service", at: 0)
        try overwrite(layout, nginx, with: Array(try bytes(layout, nginx).prefix(512)) + slot(7, "s=1;i=2"))
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=2", unit: nil))
        try saveInANewRun(layout, "s=1;i=3", unit: "foo.service", at: 1)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=3", unit: "foo.service"))
    }

    /// A unit line damaged, or left from another write of the slot, makes the slot damaged: the
    /// position before it is read, never the new cursor with a unit it was not saved with.
    @Test func aUnitLineThatDoesNotBelongToItsCursorMakesTheSlotDamaged() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        try saveInANewRun(layout, "s=1;i=1", unit: "foo.service", at: 0)
        try saveInANewRun(layout, "s=1;i=2", unit: "bar.service", at: 1)
        let file = try bytes(layout, nginx)
        let unitLine = try #require(firstOccurrence(Array("\nunit ".utf8), in: Array(file[512...]))) + 512 + 1

        var flipped = file
        flipped[unitLine + 16] ^= 0x01
        try overwrite(layout, nginx, with: flipped)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=1", unit: "foo.service"))

        // The first slot's unit line beside the second slot's cursor line.
        var mixed = file
        let firstUnitLine = try #require(firstOccurrence(Array("\nunit ".utf8), in: file)) + 1
        let firstLine = Array(file[firstUnitLine...].prefix { $0 != 0x0A })
        mixed.replaceSubrange(unitLine..<(unitLine + firstLine.count), with: firstLine)
        try overwrite(layout, nginx, with: mixed)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=1", unit: "foo.service"))
    }

    /// A position saved while ingest is withheld keeps the mark; the next position written without
    /// it clears it; a mark that does not belong to its slot makes the slot damaged.
    @Test func theWithheldMarkIsKeptWithItsPositionAndClearedByTheNext() throws {
        let dir = try TemporaryDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout)
        store.update(SavedCursor("s=1;i=1", unit: "foo.service", withheld: true), for: nginx)
        try store.flush(now: at(0))
        store.close()
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=1", unit: "foo.service", withheld: true))
        let marked = try bytes(layout, nginx)
        #expect(String(decoding: marked, as: UTF8.self).contains("\nwithheld "))

        try saveInANewRun(layout, "s=1;i=2", unit: "foo.service", at: 1)
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == SavedCursor("s=1;i=2", unit: "foo.service"))

        var flipped = marked
        let mark = try #require(firstOccurrence(Array("\nwithheld ".utf8), in: marked)) + 1
        flipped[mark + 10] ^= 0x01
        try overwrite(layout, nginx, with: flipped)
        #expect(throws: StateStoreError.self) { try CursorStore(layout: layout).cursor(for: nginx) }
    }

    func firstOccurrence(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
