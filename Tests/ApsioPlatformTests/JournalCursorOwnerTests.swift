import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// Whose entry a cursor saved without its unit names, on real journal files: what tells a position
/// in another unit's entries (the app file's `Unit=` changed) from a vacuumed one, which a reader
/// with the unit's matches cannot.
@Suite struct JournalCursorOwnerTests {
    @Test func tellsTheUnitsOwnEntryFromAnotherUnitsAndFromOneNoLongerThere() async throws {
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: "foo.service", message: "foo old")], to: "system@old.journal")
        try await journal.write([
            journal.entry(unit: "foo.service", message: "foo"),
            journal.entry(unit: "bar.service", message: "bar"),
            journal.coredump(unit: "bar.service"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [
            JournalApp(id: "foo", unit: "foo.service", start: .oldest), JournalApp(id: "bar", unit: "bar.service", start: .oldest),
        ])
        let records = try await drain(follower).records
        func cursor(_ body: String) throws -> String {
            try #require(records.first { $0.record.body == body }?.record.journalCursor)
        }
        let source = JournalSource.directory(journal.path)
        let foo = try cursor("foo"), bar = try cursor("bar"), old = try cursor("foo old")
        let crash = try #require(records.last { $0.appID == "bar" }?.record.journalCursor)

        #expect(try JournalCursorOwner.of(foo, unit: "foo.service", in: source) == .unit)
        #expect(try JournalCursorOwner.of(foo, unit: "bar.service", in: source) == .anotherUnit)
        #expect(try JournalCursorOwner.of(bar, unit: "foo.service", in: source) == .anotherUnit)
        // A coredump report is written by systemd-coredump's unit, and is still the crashed unit's.
        #expect(try JournalCursorOwner.of(crash, unit: "bar.service", in: source) == .unit)
        #expect(try JournalCursorOwner.of(crash, unit: "foo.service", in: source) == .anotherUnit)

        try journal.removeFile("system@old.journal")
        #expect(try JournalCursorOwner.of(old, unit: "foo.service", in: source) == .unknown)
        #expect(try JournalCursorOwner.of(old, unit: "bar.service", in: source) == .unknown)
        #expect(try JournalCursorOwner.of("not a cursor", unit: "foo.service", in: source) == .unknown)
    }
}
