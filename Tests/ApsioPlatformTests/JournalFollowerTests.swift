import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Synchronization
import Testing

/// The follower against real journal files that systemd-journal-remote writes while it follows.
@Suite struct JournalFollowerTests {
    static let nginx = JournalApp(id: "nginx", unit: "nginx.service", start: .oldest)
    static let worker = JournalApp(id: "worker", unit: "worker.service", start: .oldest)

    @Test func routesEachUnitsEntriesToItsAppWhileFollowing() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "nginx 1"),
            journal.entry(unit: "worker.service", message: "worker 1"),
            journal.entry(unit: "cron.service", message: "cron 1"),
            journal.entry(unit: "nginx.service", message: "nginx 2"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx, Self.worker])
        let first = try await collect(3, from: follower)
        #expect(first.records.bodies(of: "nginx") == ["nginx 1", "nginx 2"])
        #expect(first.records.bodies(of: "worker") == ["worker 1"])

        // Written while the follower waits: it wakes on the journal's descriptor.
        async let more = collect(3, from: follower)
        try await journal.write([
            journal.entry(unit: "worker.service", message: "worker 2"),
            journal.entry(unit: "cron.service", message: "cron 2"),
            journal.entry(unit: "nginx.service", message: "nginx 3"),
        ])
        try await journal.write([journal.entry(unit: "worker.service", message: "worker 3")])
        let second = try await more
        #expect(second.records.bodies(of: "nginx") == ["nginx 3"])
        #expect(second.records.bodies(of: "worker") == ["worker 2", "worker 3"])
        #expect(try await drain(follower).records.isEmpty)
        #expect(second.records.allSatisfy { $0.record.attributes["systemd.unit"] == .string($0.appID + ".service") })
    }

    /// The catch-up reader's turns: one journal read for one app, then turned to another from
    /// that app's own cursor, then back; each gets its own entries after its cursor, once, and
    /// no other app's. With the journal kept for every turn, and opened afresh at each.
    @Test(arguments: [JournalReadLimits.standard.entriesPerOpening, 1])
    func turnedFromAppToAppEachReadsOnFromItsOwnCursor(entriesPerOpening: Int) async throws {
        let journal = try JournalFixture()
        try await Self.writeInterleaved(journal)
        var limits = JournalReadLimits.standard
        limits.maxRecordsPerBatch = 2
        limits.entriesPerOpening = entriesPerOpening
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx], limits: limits)
        let nginxFirst = try #require(try await follower.nextAvailable())
        #expect(nginxFirst.flattened.map(\.record.body) == ["nginx 1", "nginx 2"])
        let nginxCursor = try #require(nginxFirst.cursors["nginx"])

        // Turned to worker, which had its first three already.
        let workerThird = try await Self.cursor(of: "worker 3", unit: "worker.service", in: journal)
        var worker = Self.worker
        worker.start = .after(cursor: workerThird)
        #expect(try await follower.retarget(to: [worker]).isEmpty)
        let workerRest = try await drain(follower)
        #expect(workerRest.records.map(\.record.body) == ["worker 4", "worker 5", "worker 6"])
        #expect(workerRest.records.allSatisfy { $0.appID == "worker" })

        // Back to nginx from where it stood: nothing twice, nothing skipped.
        var nginx = Self.nginx
        nginx.start = .after(cursor: nginxCursor)
        #expect(try await follower.retarget(to: [nginx]).isEmpty)
        let nginxRest = try await drain(follower)
        #expect(nginxRest.records.map(\.record.body) == ["nginx 3", "nginx 4", "nginx 5", "nginx 6"])
        // Opened afresh as it went, or never.
        let openings = await follower.openings
        #expect(entriesPerOpening == 1 ? openings > 2 : openings == 1)
    }

    /// Opened afresh every three entries (the daemon's readers: every 16,384), across a wait on
    /// the latest opening's descriptor and a rotation: each app gets its entries once, in order.
    @Test func readsOnAcrossFreshOpeningsWithNothingTwiceAndNothingSkipped() async throws {
        let journal = try JournalFixture()
        try await Self.writeInterleaved(journal)
        var limits = JournalReadLimits.standard
        limits.maxRecordsPerBatch = 2
        limits.entriesPerOpening = 3
        let follower = try JournalFollower(
            source: .directory(journal.path), apps: [Self.nginx, Self.worker], limits: limits)
        let first = try await collect(12, from: follower).records
        #expect(first.bodies(of: "nginx") == (1...6).map { "nginx \($0)" })
        #expect(first.bodies(of: "worker") == (1...6).map { "worker \($0)" })
        let openedWhileReading = await follower.openings
        #expect(openedWhileReading >= 4)

        async let more = collect(6, from: follower)
        try await journal.write((7...9).map { journal.entry(unit: "nginx.service", message: "nginx \($0)") })
        try journal.renameFile("system.journal", to: "system@archived-0001.journal")
        try await journal.write((7...9).map { journal.entry(unit: "worker.service", message: "worker \($0)") })
        let after = try await more.records
        #expect(after.bodies(of: "nginx") == (7...9).map { "nginx \($0)" })
        #expect(after.bodies(of: "worker") == (7...9).map { "worker \($0)" })
        #expect(try await drain(follower).records.isEmpty)
        #expect(await follower.openings > openedWhileReading)
    }

    /// Entries the matches let through that no app wants (another service's report of a coredump
    /// of the unit) carry no cursor: the reader is opened afresh only where it stands on an entry
    /// an app took, or each new opening would go back over the same run and never get past it.
    @Test func aLongRunOfEntriesNoAppWantsIsReadOnceAcrossOpenings() async throws {
        let journal = try JournalFixture()
        try await journal.write(
            [journal.entry(unit: "nginx.service", message: "before")]
                + (1...9).map { journal.coredump(unit: "nginx.service", pid: $0, writer: "mallory.service") }
                + [journal.entry(unit: "nginx.service", message: "after")])
        var limits = JournalReadLimits.standard
        limits.maxEntriesPerBatch = 2
        limits.entriesPerOpening = 2
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx], limits: limits)
        // Going back over the run would never end: the deadline says so.
        let read = try await collect(2, from: follower, deadline: .seconds(30))
        #expect(read.records.bodies(of: "nginx") == ["before", "after"])
        #expect(try await drain(follower).records.isEmpty)
    }

    /// "nginx 1", "worker 1", … "nginx 6", "worker 6", one after the other.
    private static func writeInterleaved(_ journal: JournalFixture) async throws {
        var entries: [JournalFixture.Entry] = []
        for number in 1...6 {
            entries.append(journal.entry(unit: "nginx.service", message: "nginx \(number)"))
            entries.append(journal.entry(unit: "worker.service", message: "worker \(number)"))
        }
        try await journal.write(entries)
    }

    /// The cursor of the entry of `unit` whose message is `message`, read by a follower of its own.
    private static func cursor(of message: String, unit: String, in journal: JournalFixture) async throws -> String {
        let follower = try JournalFollower(
            source: .directory(journal.path), apps: [JournalApp(id: "look", unit: unit, start: .oldest)])
        let all = try await drain(follower)
        let record = try #require(all.records.first { $0.record.body == message })
        return try #require(record.record.journalCursor)
    }

    @Test func coredumpOfTheUnitBecomesAnErrorsRecordAboutTheCrashedProcess() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "about to crash"),
            journal.coredump(unit: "nginx.service", pid: 4242),
            journal.coredump(unit: "cron.service", pid: 77),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, cursors) = try await collect(2, from: follower)
        #expect(records.count == 2)
        let crash = try #require(records.last?.record)
        #expect(crash.family == .errors)
        #expect(crash.severityNumber == 21)
        #expect(crash.severityText == "FATAL")
        #expect(crash.body.hasPrefix("Process 4242 (demo) of user 998 dumped core."))
        #expect(crash.attributes["exception.type"] == .string("SIGSEGV"))
        #expect(crash.attributes["process.pid"] == .int(4242))
        #expect(crash.attributes["process.executable.path"] == .string("/usr/bin/demo"))
        #expect(crash.attributes["process.executable.name"] == .string("demo"))
        #expect(crash.attributes["systemd.unit"] == .string("nginx.service"))
        #expect(crash.attributes["coredump.signal"] == .int(11))
        #expect(crash.attributes["coredump.timestamp"] == .int(1_700_000_000_123_456))
        #expect(crash.attributes["coredump.filename"] != nil)
        // Never the crashed process's command line or environment, nor systemd-coredump's own facts.
        let text = crash.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("API_TOKEN"))
        #expect(!text.contains("coredump.c"))
        #expect(crash.attributes["process.pid"] != .int(900))
        #expect(crash.journalCursor == cursors["nginx"])
    }

    @Test func coredumpFieldsWrittenByAnotherServiceAreNotRoutedToTheNamedUnit() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.coredump(unit: "nginx.service", writer: "mallory.service"),
            journal.entry(unit: "nginx.service", message: "after"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(1, from: follower)
        #expect(records.bodies(of: "nginx") == ["after"])
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func binaryMessageIsDecodedLossilyNotDropped() async throws {
        let journal = try JournalFixture()
        let bytes: [UInt8] = Array("bad ".utf8) + [0xFF, 0xFE, 0x00] + Array(" utf8\nsecond line".utf8)
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "placeholder").replacing("MESSAGE", with: .binary(bytes))
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(1, from: follower)
        #expect(records.first?.record.body == String(decoding: bytes, as: UTF8.self))
        #expect(records.first?.record.body.contains("\u{FFFD}") == true)
    }

    @Test func hundredKibibyteMessageIsReadAndCutAtACharacterBoundary() async throws {
        let journal = try JournalFixture()
        // Two-byte characters after one ASCII byte: byte 4096 falls inside a character.
        let message = "x" + String(repeating: "é", count: 51_200)
        let field = String(repeating: "ü", count: 51_200)
        try await journal.write([
            journal.entry(unit: "nginx.service", message: message, extra: [("PAYLOAD", .text(field))]),
            journal.entry(unit: "nginx.service", message: "next"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let (records, _) = try await collect(2, from: follower)
        let big = try #require(records.first?.record)
        #expect(big.body == UTF8Cut.cutBody(message))
        #expect(big.body.utf8.count == 4095)
        #expect(big.attributes["PAYLOAD"] == .string(UTF8Cut.cutAttribute(field)))
        #expect(records.last?.record.body == "next")
    }

    @Test func resumingFromASavedCursorGivesExactlyTheRest() async throws {
        let journal = try JournalFixture()
        try await journal.write((1...10).map { journal.entry(unit: "nginx.service", message: "line \($0)") })
        var limits = JournalReadLimits()
        limits.maxRecordsPerBatch = 4
        var saved: String
        do {
            let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx], limits: limits)
            let batch = try #require(try await follower.nextAvailable())
            #expect(batch.records["nginx"]?.map(\.body) == ["line 1", "line 2", "line 3", "line 4"])
            saved = try #require(batch.cursors["nginx"])
            #expect(saved == batch.records["nginx"]?.last?.journalCursor)
        }
        try await journal.write((11...13).map { journal.entry(unit: "nginx.service", message: "line \($0)") })

        var app = Self.nginx
        app.start = .after(cursor: saved)
        let resumed = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(resumed.gaps.isEmpty)
        let rest = try await drain(resumed)
        #expect(rest.records.bodies(of: "nginx") == (5...13).map { "line \($0)" })
    }

    @Test func eachAppResumesAtItsOwnCursorFromOneReader() async throws {
        let journal = try JournalFixture()
        try await Self.writeInterleaved(journal)
        let first = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx, Self.worker])
        let all = try await drain(first).records
        let nginxAt5 = try #require(all.first { $0.record.body == "nginx 5" }?.record.journalCursor)
        let workerAt2 = try #require(all.first { $0.record.body == "worker 2" }?.record.journalCursor)

        // The worker is far behind the nginx app; a third app joins now and wants only what comes.
        let apps = [
            JournalApp(id: "nginx", unit: "nginx.service", start: .after(cursor: nginxAt5)),
            JournalApp(id: "worker", unit: "worker.service", start: .after(cursor: workerAt2)),
            JournalApp(id: "late", unit: "nginx.service", start: .now),
        ]
        let follower = try JournalFollower(source: .directory(journal.path), apps: apps)
        let caughtUp = try await drain(follower).records
        #expect(caughtUp.bodies(of: "nginx") == ["nginx 6"])
        #expect(caughtUp.bodies(of: "worker") == (3...6).map { "worker \($0)" })
        #expect(caughtUp.bodies(of: "late").isEmpty)

        async let more = collect(3, from: follower)
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "nginx 7"),
            journal.entry(unit: "worker.service", message: "worker 7"),
        ])
        let new = try await more.records
        #expect(new.bodies(of: "nginx") == ["nginx 7"])
        #expect(new.bodies(of: "late") == ["nginx 7"])
        #expect(new.bodies(of: "worker") == ["worker 7"])
    }

    @Test func rotationWhileFollowingLosesAndRepeatsNothing() async throws {
        let journal = try JournalFixture()
        try await journal.write((1...5).map { journal.entry(unit: "nginx.service", message: "line \($0)") })
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        #expect(try await collect(5, from: follower).records.bodies(of: "nginx") == (1...5).map { "line \($0)" })

        // As journald rotates: the active file is archived under a new name, a new one starts.
        async let more = collect(5, from: follower)
        try journal.renameFile("system.journal", to: "system@archived-0001.journal")
        try await journal.write((6...8).map { journal.entry(unit: "nginx.service", message: "line \($0)") })
        // And a file appears that the follower never saw before, with entries of its own.
        try await journal.write(
            (9...10).map { journal.entry(unit: "nginx.service", message: "line \($0)") }, to: "other.journal")
        let after = try await more.records
        #expect(after.bodies(of: "nginx") == (6...10).map { "line \($0)" })
        #expect(try await drain(follower).records.isEmpty)
    }

    @Test func cursorOfAVacuumedEntryResumesAtTheOldestStillThereAndReportsTheGap() async throws {
        let journal = try JournalFixture()
        try await journal.write(
            (1...5).map { journal.entry(unit: "nginx.service", message: "line \($0)") }, to: "system@old.journal")
        try await journal.write((6...8).map { journal.entry(unit: "nginx.service", message: "line \($0)") })
        let first = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let records = try await drain(first).records
        let atThree = try #require(records.first { $0.record.body == "line 3" }?.record.journalCursor)

        try journal.removeFile("system@old.journal")
        var app = Self.nginx
        app.start = .after(cursor: atThree)
        let resumed = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(resumed.gaps == [JournalGap(appID: "nginx", cursor: atThree, reason: .entryGone)])
        #expect(try await drain(resumed).records.bodies(of: "nginx") == ["line 6", "line 7", "line 8"])
    }

    @Test func unreadableCursorStartsAtTheOldestEntryAndIsReported() async throws {
        let journal = try JournalFixture()
        try await journal.write((1...2).map { journal.entry(unit: "nginx.service", message: "line \($0)") })
        var app = Self.nginx
        app.start = .after(cursor: "not a cursor")
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(follower.gaps.map(\.reason) == [.unreadableCursor])
        #expect(try await drain(follower).records.bodies(of: "nginx") == ["line 1", "line 2"])
    }

    @Test func startingNowSkipsWhatIsAlreadyThere() async throws {
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: "nginx.service", message: "old")])
        var app = Self.nginx
        app.start = .now
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(try await drain(follower).records.isEmpty)
        async let more = collect(1, from: follower)
        try await journal.write([journal.entry(unit: "nginx.service", message: "new")])
        #expect(try await more.records.bodies(of: "nginx") == ["new"])
    }

    /// What an app served for the first time saves: where its reading starts, so that a restart
    /// before anything was accepted resumes there and not at the journal's end again.
    @Test func theStartPointIsWhereTheReadingStarts() async throws {
        let journal = try JournalFixture()
        var now = Self.nginx
        now.start = .now
        var oldest = Self.worker
        oldest.start = .oldest
        // An empty journal: `.now` wants everything that comes, which is the head.
        let empty = try JournalFollower(source: .directory(journal.path), apps: [now])
        #expect(empty.startPoints == ["nginx": .head])

        try await journal.write([
            journal.entry(unit: "nginx.service", message: "old"), journal.entry(unit: "worker.service", message: "old"),
        ])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [now, oldest])
        #expect(follower.startPoints["worker"] == .head)
        guard case .after(let tail)? = follower.startPoints["nginx"] else {
            Issue.record("no cursor for .now: \(follower.startPoints)")
            return
        }
        // Resuming after that cursor gives exactly what came after it.
        try await journal.write([journal.entry(unit: "nginx.service", message: "new")])
        var resumed = Self.nginx
        resumed.start = .after(cursor: tail)
        let again = try JournalFollower(source: .directory(journal.path), apps: [resumed])
        #expect(try await drain(again).records.bodies(of: "nginx") == ["new"])
    }

    /// `.boot`: the unit's entries since the boot named, found among journal files of several boots.
    @Test func startingAtABootSkipsTheBootsBefore() async throws {
        let journal = try JournalFixture()
        let earlier = "0badc0de0badc0de0badc0de0badc0de", current = "5eed5eed5eed5eed5eed5eed5eed5eed"
        journal.boot(earlier)
        try await journal.write([journal.entry(unit: "nginx.service", message: "before"), journal.entry(unit: "cron.service", message: "cron")])
        journal.boot(current)
        try await journal.write([journal.entry(unit: "nginx.service", message: "this boot 1")])
        try await journal.write([journal.entry(unit: "nginx.service", message: "this boot 2")])
        var app = Self.nginx
        app.start = .boot(bootID: current)
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(try await drain(follower).records.bodies(of: "nginx") == ["this boot 1", "this boot 2"])

        // A boot with no entry yet is `.now`: only what comes.
        app.start = .boot(bootID: "1234567890abcdef1234567890abcdef")
        let later = try JournalFollower(source: .directory(journal.path), apps: [app])
        #expect(try await drain(later).records.isEmpty)
        // The boot's first entry the oldest there is: from the head.
        let fresh = try JournalFixture()
        fresh.boot(current)
        try await fresh.write([fresh.entry(unit: "nginx.service", message: "first ever")])
        app.start = .boot(bootID: current)
        let first = try JournalFollower(source: .directory(fresh.path), apps: [app])
        #expect(first.startPoints == ["nginx": .head])
        #expect(try await drain(first).records.bodies(of: "nginx") == ["first ever"])
    }

    /// libsystemd skips a file it cannot read without a word; the follower that asks says which,
    /// once a file, at open and when a new one appears, and reads the others on.
    @Test func unreadableFilesAreToldOnceAndTheOthersAreRead() async throws {
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: "nginx.service", message: "good")])
        try Data("not a journal".utf8).write(to: URL(fileURLWithPath: journal.path + "/garbage.journal"))
        let told = Mutex<[UnreadableJournalFile]>([])
        let follower = try JournalFollower(
            source: .directory(journal.path), apps: [Self.nginx], unreadableFile: { file in told.withLock { $0.append(file) } })
        #expect(told.withLock { $0.map(\.path) } == [journal.path + "/garbage.journal"])
        #expect(try await drain(follower).records.bodies(of: "nginx") == ["good"])

        // A second broken file appears (with an entry in a good one, so the reader wakes).
        async let more = collect(1, from: follower)
        try Data([UInt8](repeating: 0, count: 64)).write(to: URL(fileURLWithPath: journal.path + "/zeros.journal"))
        try await journal.write([journal.entry(unit: "nginx.service", message: "good again")], to: "next.journal")
        #expect(try await more.records.bodies(of: "nginx") == ["good again"])
        #expect(told.withLock { $0.map(\.path) } == [journal.path + "/garbage.journal", journal.path + "/zeros.journal"])
        #expect(told.withLock { $0.allSatisfy { $0.description.contains("is skipped and the other files are read") } })
    }

    @Test func entriesBelowTheFloorAreLeftOutButTheCursorMovesPastThem() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "warning", priority: 4),
            journal.entry(unit: "nginx.service", message: "debug", priority: 7),
            journal.entry(unit: "nginx.service", message: "no priority", priority: nil),
            journal.entry(unit: "nginx.service", message: "error", priority: 3),
            journal.entry(unit: "nginx.service", message: "info", priority: 6),
        ])
        var app = Self.nginx
        app.minPriority = 4
        let follower = try JournalFollower(source: .directory(journal.path), apps: [app])
        let (records, cursors) = try await drain(follower)
        #expect(records.bodies(of: "nginx") == ["warning", "error"])
        #expect(records.map(\.record.family) == [.logs, .errors])

        // The saved cursor is past the last (info) entry: resuming from it gives nothing again,
        // also with `MinPriority=` lowered meanwhile: the floor is no journal match, so the entry
        // below it that the cursor names is found, not taken for a vacuumed one.
        var resumedApp = Self.nginx
        resumedApp.start = .after(cursor: try #require(cursors["nginx"]))
        let resumed = try JournalFollower(source: .directory(journal.path), apps: [resumedApp])
        #expect(resumed.gaps.isEmpty)
        #expect(try await drain(resumed).records.isEmpty)
    }

    @Test func cancellingTheReaderEndsItsWaitAndTheFollowerReadsOnAfterwards() async throws {
        let journal = try JournalFixture()
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.nginx])
        let waiting = Task { try await follower.next() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }

        async let more = collect(1, from: follower)
        try await journal.write([journal.entry(unit: "nginx.service", message: "after cancel")])
        #expect(try await more.records.bodies(of: "nginx") == ["after cancel"])
    }
}

extension JournalFixture.Entry {
    func replacing(_ name: String, with value: JournalFixture.Value) -> Self {
        var copy = self
        copy.fields = fields.map { $0.0 == name ? (name, value) : $0 }
        return copy
    }
}
