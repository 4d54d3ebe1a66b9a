@testable import ApsioPlatform
import Foundation
import Glibc
@testable import ApsioTestSupport
import Testing

/// Journal files libsystemd cannot read are reported once; a file a writer is still creating is
/// not one of them. journald and systemd-journal-remote write a new file's header, then allocate
/// its first arena: the soak (bench/soak) caught the check in between at a rotation and reported
/// the new system.journal as truncated, though every entry written to it was then read.
@Suite struct JournalFileCheckTests {
    /// A new journal file as a writer leaves it between writing the header and allocating the
    /// arena: the header of a file of no entry, and nothing after it. Its bytes in full (as the
    /// writer finishes it), and its mtime.
    static func beingCreated(_ journal: JournalFixture, _ name: String) async throws -> (full: Data, mtime: Int64) {
        try await journal.write([], to: name)
        let url = URL(fileURLWithPath: journal.path + "/" + name)
        let full = try Data(contentsOf: url)
        // `header_size`, little-endian, at byte 88 of the header (sd-journal's journal-def.h).
        let headerSize = full[88..<96].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(headerSize >= 160 && headerSize <= JournalFileCheck.maxHeaderBytes)
        try full.prefix(headerSize).write(to: url)
        return (full, try mtime(url.path))
    }

    static func mtime(_ path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FixtureError("stat \(path)") }
        return Int64(info.st_mtim.tv_sec)
    }

    @Test func aFileBeingCreatedIsLookedAtAgainAndNeverReported() async throws {
        let journal = try JournalFixture()
        let (full, mtime) = try await Self.beingCreated(journal, "system.journal")
        var check = JournalFileCheck(source: .directory(journal.path))
        #expect(check.newlyUnreadable(nowUnixSeconds: mtime + 1).isEmpty)
        #expect(check.hasUnsettled, "too young to judge: looked at again at the next change")

        // The writer allocates its arena (and would write entries next).
        try full.write(to: URL(fileURLWithPath: journal.path + "/system.journal"))
        let later = try Self.mtime(journal.path + "/system.journal")
        #expect(check.newlyUnreadable(nowUnixSeconds: later + 1).isEmpty)
        #expect(!check.hasUnsettled)
        #expect(check.newlyUnreadable(nowUnixSeconds: later + 3600).isEmpty)
    }

    @Test func aFileLeftAtItsHeaderIsReportedOnceItIsOld() async throws {
        let journal = try JournalFixture()
        let (_, mtime) = try await Self.beingCreated(journal, "system.journal")
        var check = JournalFileCheck(source: .directory(journal.path))
        #expect(check.newlyUnreadable(nowUnixSeconds: mtime + 2).isEmpty)
        let found = check.newlyUnreadable(nowUnixSeconds: mtime + JournalFileCheck.settlingSeconds)
        #expect(found.map(\.reason) == ["it is truncated"])
        #expect(!check.hasUnsettled)
        #expect(check.newlyUnreadable(nowUnixSeconds: mtime + 3600).isEmpty, "reported once")
    }

    /// Before the header, the file is empty: the same.
    @Test func anEmptyFileIsLookedAtAgainAndReportedOnlyOnceItIsOld() async throws {
        let journal = try JournalFixture()
        let path = journal.path + "/system.journal"
        try Data().write(to: URL(fileURLWithPath: path))
        let mtime = try Self.mtime(path)
        var check = JournalFileCheck(source: .directory(journal.path))
        #expect(check.newlyUnreadable(nowUnixSeconds: mtime).isEmpty)
        #expect(check.hasUnsettled)
        #expect(check.newlyUnreadable(nowUnixSeconds: mtime + 60).map(\.reason) == ["it is truncated"])
    }

    /// A file torn after entries were written (a crash, a full disk) is reported at the first
    /// look, however young: no writer leaves a file with entries in that state on the way.
    @Test func aTornFileIsReportedAtOnce() async throws {
        let journal = try JournalFixture()
        try await journal.write((0..<200).map { journal.entry(unit: "a.service", message: "line \($0)") }, to: "torn.journal")
        let url = URL(fileURLWithPath: journal.path + "/torn.journal")
        let bytes = try Data(contentsOf: url)
        try bytes.prefix((bytes.lastIndex { $0 != 0 } ?? bytes.count) / 2).write(to: url)
        var check = JournalFileCheck(source: .directory(journal.path))
        let found = check.newlyUnreadable(nowUnixSeconds: try Self.mtime(url.path))
        #expect(found.map(\.reason) == ["it is truncated"])
        #expect(!check.hasUnsettled)
    }

    /// The same, cut back to its header: its header counts the entries it held.
    @Test func aFileCutBackToItsHeaderAfterEntriesIsReportedAtOnce() async throws {
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: "a.service", message: "line")], to: "cut.journal")
        let url = URL(fileURLWithPath: journal.path + "/cut.journal")
        let bytes = try Data(contentsOf: url)
        let headerSize = bytes[88..<96].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        try bytes.prefix(headerSize).write(to: url)
        var check = JournalFileCheck(source: .directory(journal.path))
        #expect(check.newlyUnreadable(nowUnixSeconds: try Self.mtime(url.path)).map(\.reason) == ["it is truncated"])
    }
}
