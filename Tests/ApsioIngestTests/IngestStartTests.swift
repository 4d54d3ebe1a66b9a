import ApsioIngest
import ApsioPlatform
import ApsioState
import Testing

/// Where an app's ingest starts, from what its cursor file holds and the app file's `Unit=`.
@Suite struct IngestStartTests {
    static let cursor = "s=0f1e;i=2a;b=3c4d;m=5e;t=6f;x=70"

    func decide(_ saved: SavedCursor?, unit: String = "bar.service", owner: JournalCursorOwner = .unit) -> IngestStart {
        IngestStart.decide(saved: saved, unit: unit) { _ in owner }
    }

    @Test func aPositionResumesOnlyForTheUnitItWasSavedFor() {
        #expect(decide(nil) == .afresh(.firstServed))
        #expect(decide(SavedCursor(Self.cursor, unit: "bar.service")) == .resume(.after(cursor: Self.cursor)))
        #expect(decide(SavedCursor(CursorStore.fromHead, unit: "bar.service")) == .resume(.oldest))
        #expect(decide(SavedCursor(Self.cursor, unit: "foo.service")) == .afresh(.unitChanged(from: "foo.service")))
        #expect(decide(SavedCursor(CursorStore.fromHead, unit: "foo.service")) == .afresh(.unitChanged(from: "foo.service")))
    }

    /// Saved by an earlier apsiod, without its unit: the journal is asked whose the entry is, and
    /// only then; an entry no longer there was most likely the unit's own, as that apsiod took it.
    @Test func aPositionSavedWithoutItsUnitIsJudgedByItsEntry() {
        var asked: [String] = []
        let saved = SavedCursor(Self.cursor, unit: nil)
        #expect(IngestStart.decide(saved: saved, unit: "bar.service") { asked.append($0); return .anotherUnit } == .afresh(.entryOfAnotherUnit))
        #expect(asked == [Self.cursor])
        #expect(decide(saved, owner: .unit) == .resume(.after(cursor: Self.cursor)))
        #expect(decide(saved, owner: .unknown) == .resume(.after(cursor: Self.cursor)))
        // `head` names no entry: reading from the oldest sends more than asked, never less.
        #expect(decide(SavedCursor(CursorStore.fromHead, unit: nil), owner: .anotherUnit) == .resume(.oldest))
        var askedAgain = false
        _ = IngestStart.decide(saved: SavedCursor(Self.cursor, unit: "bar.service"), unit: "bar.service") { _ in askedAgain = true; return .unit }
        #expect(!askedAgain, "a position with its unit needs no look at the journal")
    }
}
