import ApsioCore
import ApsioIngest
import ApsioPlatform
import Testing

/// The shared reader's decisions alone (`JournalPlacement`): who is served from the tail, who from
/// the catch-up reader, and that no entry is handed over twice or skipped when an app moves.
struct JournalPlacementTests {
    /// `join` outside `#expect`, which cannot call a mutating method.
    func joins(_ placement: inout JournalPlacement, _ id: String) -> Bool { placement.join(id) }

    /// A cursor as sd-journal writes it, the `n`th entry of one sequence.
    static func cursor(_ n: UInt64) -> String {
        "s=0a1b2c3d4e5f60718293a4b5c6d7e8f9;i=\(String(n, radix: 16));b=6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80;"
            + "m=\(String(n * 10, radix: 16));t=\(String(1_700_000_000_000_000 + n, radix: 16));x=\(String(n, radix: 16))"
    }

    static func records(_ range: ClosedRange<UInt64>) -> [LogRecord] {
        range.map {
            LogRecord(
                timeUnixNano: 0, severityNumber: 9, severityText: "INFO", family: .logs, body: "line \($0)",
                journalCursor: cursor($0))
        }
    }

    @Test func anAppStartsParkedAndReachesTheTailOnlyThroughTheCatchUpReader() {
        var placement = JournalPlacement()
        placement.add("web", at: .head)
        #expect(placement.place(of: "web") == .parked)
        let read = placement.tailRead("web", records: Self.records(1...2), through: Self.cursor(2))
        #expect(read == nil)
        placement.fallBehind("web")
        #expect(placement.behind == ["web"])
        // The tail read entries 1–2 the catch-up reader has not handed over: it reads on.
        let refused = placement.join("web")
        #expect(!refused)
        placement.handedOver("web", through: Self.cursor(2))
        #expect(joins(&placement, "web"))
        #expect(placement.place(of: "web") == .tail)
        let next = placement.tailRead("web", records: Self.records(3...3), through: Self.cursor(3))
        #expect(next?.records["web"]?.map(\.body) == ["line 3"])
        #expect(next?.cursors == ["web": Self.cursor(3)])
    }

    @Test func whatTheCatchUpReaderHandedOverAheadOfTheTailIsNotHandedOverAgain() {
        var placement = JournalPlacement()
        placement.add("web", at: .after(cursor: Self.cursor(1)))
        placement.fallBehind("web")
        placement.handedOver("web", through: Self.cursor(5))
        #expect(joins(&placement, "web"))
        // The tail had not read 2–5 yet when the app joined.
        let read = placement.tailRead("web", records: Self.records(2...4), through: Self.cursor(4))
        #expect(read == nil)
        let part = placement.tailRead("web", records: Self.records(5...7), through: Self.cursor(7))
        #expect(part?.records["web"]?.map(\.body) == ["line 6", "line 7"])
        // Past the catch-up reader's end, nothing is filtered any more.
        let later = placement.tailRead("web", records: Self.records(8...8), through: Self.cursor(8))
        #expect(later?.records["web"]?.count == 1)
    }

    @Test func aParkedAppKeepsItsPositionAndIsServedAgainFromThere() {
        var placement = JournalPlacement()
        placement.add("web", at: .head)
        placement.fallBehind("web")
        placement.handedOver("web", through: Self.cursor(3))
        #expect(joins(&placement, "web"))
        _ = placement.tailRead("web", records: Self.records(4...4), through: Self.cursor(4))
        placement.handedOver("web", through: Self.cursor(4))
        // It could not take entries 5–9: parked where it stood, and the tail goes on without it.
        let read = placement.tailRead("web", records: Self.records(5...9), through: Self.cursor(9))
        #expect(read != nil)
        placement.park("web")
        #expect(placement.apps["web"]?.position == .after(cursor: Self.cursor(4)))
        let readParked = placement.tailRead("web", records: Self.records(10...10), through: Self.cursor(10))
        #expect(readParked == nil)
        placement.fallBehind("web")
        placement.handedOver("web", through: Self.cursor(9))
        let refused = placement.join("web")
        #expect(!refused, "the tail has read entry 10")
        placement.handedOver("web", through: Self.cursor(10))
        #expect(joins(&placement, "web"))
    }

    @Test func appsMoveOnTheirOwn() {
        var placement = JournalPlacement()
        placement.add("web", at: .head)
        placement.add("worker", at: .head)
        placement.fallBehind("web")
        placement.fallBehind("worker")
        placement.handedOver("web", through: Self.cursor(2))
        #expect(joins(&placement, "web"))
        placement.park("worker")
        #expect(placement.place(of: "web") == .tail)
        #expect(placement.parked == ["worker"])
        placement.remove("worker")
        #expect(placement.place(of: "worker") == nil)
        let read = placement.tailRead("worker", records: [], through: Self.cursor(3))
        #expect(read == nil)
    }
}
