import ApsioAgent
import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioLive

/// One journal reader for every app, shown on the built `apsiod` against real journal files: an
/// app whose backend refuses, far behind, holds back neither another app's ingest nor its live
/// lines, and catches up with nothing lost once its backend takes again, across a SIGKILL too.
///
/// Two apps: the harness's `demo` (healthy backend, live session) and `stuck`, whose own backend
/// answers 503 for a minute of demo's lines, then recovers.
@Suite(.serialized) struct DaemonSharedReaderTests {
    static let stuckUnit = "stuck.service"
    /// More than the stuck app's window holds (two batches of 1,000): it is far behind, not just
    /// holding a batch.
    static let backlog = 4500

    final class Stuck: Sendable {
        let backend: ScriptedBackendServer

        init() async throws {
            backend = try await ScriptedBackendServer()
            // Refusing until told otherwise: far more answers than the test can use up.
            backend.answerLogs(Array(repeating: 503, count: 1_000_000))
        }

        /// Bodies of the records of requests answered 200 (every request after `from`).
        func acceptedBodies(from first: Int) -> Set<String> {
            Set(backend.sink.requests.dropFirst(first).flatMap { $0.map(\.body) })
        }
    }

    private func addStuckApp(_ harness: AgentHarness, _ stuck: Stuck) async throws {
        try await SystemdMock.addUnit(harness.bus, Self.stuckUnit)
        stuck.backend.setPolicy(try harness.policy(live: false))
        try harness.root.write("etc/apps.d/stuck.conf", """
            [App]
            Unit=\(Self.stuckUnit)
            Name=com.example.stuck
            Backend=\(stuck.backend.origin)
            AppKey=apsio_app_stuck_8a1d
            Consent=granted
            """)
    }

    private func waitServingBoth(_ harness: AgentHarness) async throws {
        try await harness.waitServing()
        try await poll("apsiod serving stuck", seconds: 60, every: .milliseconds(100)) {
            guard let run = try? await harness.ctl(["--json", "apps"]), run.status == 0,
                let value = JSONValueEncoding.decode(Array(run.stdout.utf8))
            else { return false }
            return value["apps"]?.arrayValue?.contains { $0["name"]?.stringValue == "stuck" } ?? false
        }
    }

    /// apsiod serving demo and stuck (whose backend refuses), with demo's live policy or none.
    private func withBothServed(live: Bool, _ body: (AgentHarness, Stuck) async throws -> Void) async throws {
        try await AgentHarness.with { harness in
            let stuck = try await Stuck()
            defer { Task { await stuck.backend.stop() } }
            try await addStuckApp(harness, stuck)
            try await harness.serve(try harness.policy(live: live))
            try await waitServingBoth(harness)
            try await body(harness, stuck)
        }
    }

    private func writeBacklog(_ harness: AgentHarness) async throws -> Set<String> {
        let bodies = (0..<Self.backlog).map { "stuck line \($0)" }
        try await harness.journal.write(bodies.map { harness.journal.entry(unit: Self.stuckUnit, message: $0) })
        return Set(bodies)
    }

    @Test func aRefusingBackendFarBehindHoldsBackNeitherTheOtherAppNorItsLiveLinesAndCatchesUp() async throws {
        try await withBothServed(live: true) { harness, stuck in

            let backlog = try await writeBacklog(harness)
            try await poll("the stuck app's backend refusing its batches", seconds: 60, every: .milliseconds(100)) { stuck.backend.sink.requests.count >= 2 }
            let refusingSince = ContinuousClock.now
            try await harness.startLiveSession()

            // For a minute of refusals (the scenario's length, not a bound on anything), demo's
            // lines keep reaching its sink and its live stream, one round after another.
            var round = 0
            repeat {
                let lines = (0..<20).map { "demo line \($0) of round \(round) while stuck refuses" }
                try await harness.journal.write(lines.map { harness.journal.entry(unit: AgentHarness.unit, message: $0) })
                try await poll("demo's records of round \(round) at its sink", seconds: 60, every: .milliseconds(100)) {
                    Set(harness.backend.records.map(\.body)).isSuperset(of: lines)
                }
                try await poll("demo's lines of round \(round) in its live stream", seconds: 60, every: .milliseconds(100)) {
                    Set(harness.streamedLines).isSuperset(of: lines)
                }
                round += 1
                try await Task.sleep(for: .seconds(5))
            } while ContinuousClock.now - refusingSince < .seconds(60)
            // All of it while the stuck app's backend still refuses: it accepted nothing yet.
            #expect(stuck.backend.sink.script.count > 0)
            #expect(stuck.acceptedBodies(from: stuck.backend.sink.requests.count).isEmpty)

            // The backend takes again: the stuck app sends every entry of its backlog.
            stuck.backend.clearLogsScript()
            let refused = stuck.backend.sink.requests.count
            try await poll("the stuck app's backlog accepted", seconds: 120, every: .milliseconds(100)) {
                stuck.acceptedBodies(from: refused).isSuperset(of: backlog)
            }
            let accepted = stuck.backend.sink.requests.dropFirst(refused).flatMap { $0 }
            #expect(Set(accepted.compactMap(\.uid)).count == accepted.count, "no record accepted twice")
            // It was far behind: the tail went on without it, and it came back through the catch-up
            // reader, which closed once no app was behind.
            #expect(harness.log.contains("ingest of stuck cannot take more: the tail reader goes on without it"))
            try await poll("the stuck app back at the tail", seconds: 30, every: .milliseconds(100)) {
                harness.log.components(separatedBy: "ingest of stuck caught up: back at the tail reader").count > 2
            }
            #expect(harness.log.contains("the catch-up reader closed: no app is behind"))
        }
    }

    /// Backlogs past what one opening of the journal reads (`JournalReadLimits.entriesPerOpening`,
    /// 16,384 entries): the catch-up reader opens the journal afresh as it goes (at a turn, or
    /// while it reads for one app alone, as the apps' backends let them fall behind), and each
    /// app's backlog is accepted whole, no record twice.
    @Test func backlogsPastSeveralOpeningsOfTheJournalAreAcceptedWholeAndOnce() async throws {
        try await withBothServed(live: false) { harness, stuck in
            harness.backend.answerLogs(Array(repeating: 503, count: 1_000_000))

            let demoLines = (0..<10_000).map { "demo backlog line \($0)" }
            let stuckLines = (0..<30_000).map { "stuck backlog line \($0)" }
            try await harness.journal.write(
                demoLines.map { harness.journal.entry(unit: AgentHarness.unit, message: $0) }
                    + stuckLines.map { harness.journal.entry(unit: Self.stuckUnit, message: $0) })
            try await poll("both backends refusing", seconds: 60, every: .milliseconds(100)) {
                harness.backend.sink.requests.count >= 2 && stuck.backend.sink.requests.count >= 2
            }
            let demoRefused = harness.backend.clearLogsScript()
            let stuckRefused = stuck.backend.clearLogsScript()

            try await poll("both backlogs accepted", seconds: 180, every: .milliseconds(100)) {
                stuck.acceptedBodies(from: stuckRefused).isSuperset(of: stuckLines)
                    && Set(harness.backend.sink.requests.dropFirst(demoRefused).flatMap { $0.map(\.body) })
                        .isSuperset(of: demoLines)
            }
            for (name, accepted) in [
                ("demo", harness.backend.sink.requests.dropFirst(demoRefused).flatMap { $0 }),
                ("stuck", stuck.backend.sink.requests.dropFirst(stuckRefused).flatMap { $0 }),
            ] {
                #expect(Set(accepted.compactMap(\.uid)).count == accepted.count, "no record of \(name) accepted twice")
            }
            // The reading went through more than two openings' worth: it was opened afresh.
            #expect(harness.log.components(separatedBy: "the journal was opened afresh after").count > 2)
        }
    }

    @Test func killedWhileOneAppIsFarBehindAndTheOtherAtTheTailItLosesNothing() async throws {
        try await withBothServed(live: false) { harness, stuck in

            let backlog = try await writeBacklog(harness)
            try await poll("the stuck app's backend refusing its batches", seconds: 60, every: .milliseconds(100)) { stuck.backend.sink.requests.count >= 2 }
            let before = (0..<20).map { "demo line \($0) before the kill" }
            try await harness.journal.write(before.map { harness.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("demo at the tail, its records accepted", seconds: 60, every: .milliseconds(100)) {
                Set(harness.backend.records.map(\.body)).isSuperset(of: before)
            }
            try await harness.kill()

            // Written while apsiod is down; the stuck backend takes again from the next run.
            let after = (0..<20).map { "demo line \($0) after the kill" }
            try await harness.journal.write(after.map { harness.journal.entry(unit: AgentHarness.unit, message: $0) })
            stuck.backend.clearLogsScript()
            let refused = stuck.backend.sink.requests.count
            try harness.start()
            try await waitServingBoth(harness)
            try await poll("the stuck app's backlog accepted after the restart", seconds: 120, every: .milliseconds(100)) {
                stuck.acceptedBodies(from: refused).isSuperset(of: backlog)
            }
            try await poll("demo's lines written while apsiod was down", seconds: 60, every: .milliseconds(100)) {
                Set(harness.backend.records.map(\.body)).isSuperset(of: after)
            }
            // demo's cursor had moved past what was accepted before the kill: at most the batch in
            // flight is sent again, not its whole past.
            let demoBefore = harness.backend.records.filter { before.contains($0.body) }
            #expect(demoBefore.count <= 2 * before.count)
        }
    }
}
