import ApsioCore
@testable import ApsioIngest
import Testing

/// The records read ahead and not yet accepted: what it hands out to send, and the journal cursor
/// it gives back to save, which must never pass a record the backend has not accepted nor stop
/// short of entries that were never to be sent.
@Suite struct IngestWindowTests {
    static func chunk(_ bodies: [String], cursors: [String?]? = nil, held: Bool = false, bytes: Int = 100) -> IngestWindow.Chunk {
        var chunk = IngestWindow.Chunk()
        for (index, body) in bodies.enumerated() {
            let record = IngestRecord(LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: body), mark: .unsampled)
            let cursor = cursors.map { $0[index] } ?? "after-\(body)"
            chunk.append(record, .init(held: held, bytes: bytes, cursorAfter: cursor, queuedAt: .origin))
        }
        return chunk
    }

    static func bodies(_ runs: [ArraySlice<IngestRecord>]) -> [String] { runs.flatMap { $0.map(\.record.body) } }

    @Test func acceptedRecordsGiveTheCursorOfTheLastOneAcrossChunks() {
        var window = IngestWindow()
        window.append(Self.chunk(["a", "b"]))
        window.append(Self.chunk(["c", "d", "e"]))
        #expect(window.count == 5 && window.bytes == 500)
        #expect(Self.bodies(window.front(3)) == ["a", "b", "c"])
        #expect(window.front(3).count == 2, "one slice a chunk, nothing copied")
        #expect(window.removeFirst(3) == "after-c")
        #expect(window.count == 2 && window.bytes == 200)
        #expect(Self.bodies(window.front(10)) == ["d", "e"])
        #expect(window.removeFirst(10) == "after-e")
        #expect(window.isEmpty && window.bytes == 0)
    }

    /// A record without a cursor of its own (a record the daemon made, say) is accepted with the
    /// cursor of the last record before it that has one.
    @Test func aRecordWithoutACursorSavesTheLastOneBeforeIt() {
        var window = IngestWindow()
        window.append(Self.chunk(["a", "made", "b", "made too"], cursors: ["after-a", nil, "after-b", nil]))
        #expect(window.removeFirst(2) == "after-a")
        #expect(window.removeFirst(2) == "after-b")
        window.append(Self.chunk(["made"], cursors: [nil]))
        #expect(window.removeFirst(1) == nil, "nothing new to save")
    }

    /// Entries never to be sent after the last record move its cursor; with nothing in the
    /// window the caller saves the cursor itself.
    @Test func entriesNotSentAfterTheLastRecordMoveItsCursor() {
        var window = IngestWindow()
        #expect(window.extendLast(to: "after-skipped") == false)
        window.append(Self.chunk(["a", "b"]))
        let extended = window.extendLast(to: "after-skipped")
        #expect(extended)
        #expect(window.removeFirst(1) == "after-a")
        #expect(window.removeFirst(1) == "after-skipped")
    }

    @Test func aBatchFitsItsRecordsAndBytesAndOneRecordTooLargeStillGoes() {
        var window = IngestWindow()
        window.append(Self.chunk(["a", "b", "c"], bytes: 400))
        #expect(window.prefixCount(maxRecords: 10, maxBytes: 1_000) == 2)
        #expect(window.prefixCount(maxRecords: 1, maxBytes: 1_000) == 1)
        #expect(window.prefixCount(maxRecords: 10, maxBytes: 100) == 1, "the backend's 413 decides")
        #expect(window.prefixCount(maxRecords: 10, maxBytes: 100, atLeastOne: false) == 0)
        #expect(window.bytes(ofFirst: 2) == 800)
    }

    /// Before the first policy records wait: nothing is handed out past the first one held.
    @Test func nothingIsSentPastARecordStillHeld() {
        var window = IngestWindow()
        window.append(Self.chunk(["a"]))
        window.append(Self.chunk(["held", "held too"], held: true))
        window.append(Self.chunk(["b"]))
        #expect(Self.bodies(window.front(10)) == ["a"])
    }

    /// The first policy decides the held records: each is marked or leaves, and a record that
    /// leaves hands its cursor to the record kept before it, or to the caller when none is.
    @Test func theFirstPolicyMarksOrDropsTheHeldRecordsWithoutLosingTheirCursors() {
        var window = IngestWindow()
        window.append(Self.chunk(["drop-1", "drop-2", "keep-1", "drop-3", "keep-2", "drop-4"], held: true))
        let (cursor, removed) = window.admitHeld { record in
            record.body.hasPrefix("keep") ? .sessionRate(0.5) : nil
        }
        #expect(removed == 4)
        #expect(cursor == "after-drop-2", "the records before the first kept one all left: saved now")
        let sent = window.front(10).flatMap { $0 }
        #expect(sent.map(\.record.body) == ["keep-1", "keep-2"])
        #expect(sent.allSatisfy { $0.mark == .sessionRate(0.5) })
        #expect(window.bytes == 200)
        #expect(window.removeFirst(1) == "after-drop-3")
        #expect(window.removeFirst(1) == "after-drop-4")
    }
}
