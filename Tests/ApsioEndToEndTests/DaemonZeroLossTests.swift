import ApsioAgent
import ApsioCore
import ApsioNet
import ApsioPlatform
import Foundation
import Glibc
import Synchronization
@testable import ApsioTestSupport
import Testing
import ApsioState
import ApsioWire

/// "From the moment an app is first served, every entry read must reach the backend at least
/// once, whatever moment the daemon is killed at": the built `apsiod`, a fresh state directory,
/// SIGKILL from inside the sink as a batch arrives, and a restart on the same state.
@Suite(.serialized) struct DaemonZeroLossTests {
    static let entries = 2_000

    /// Bodies of about 2 KB: ingest's 512 KiB bound makes about nine batches of 2,000 entries, so
    /// there are later batches to kill at.
    static func body(_ index: Int) -> String {
        "entry \(index) " + String(repeating: "lorem ipsum dolor sit amet ", count: 75)
    }

    @Test func killedAsTheFirstBatchAndLaterOnesArriveItLosesNothing() async throws {
        try await AgentHarness.with { h in
            try h.writeApp()
            h.backend.setPolicy(try h.policy(live: false))

            // The kills come from the sink itself, as the numbered request arrives and before it
            // is answered: run 1 dies on the very first batch (nothing was ever accepted), the
            // later runs on their second and third.
            let killAt: Set<Int> = [1, 3, 6]
            let pid = Atomic<Int32>(0)
            let run = Atomic<Int>(1)
            let runOfRequest = Mutex<[Int: Int]>([:])
            h.backend.onLogs { number in
                runOfRequest.withLock { $0[number] = run.load(ordering: .relaxed) }
                if killAt.contains(number) { Glibc.kill(pid.load(ordering: .relaxed), SIGKILL) }
            }

            try h.start()
            pid.store(try #require(h.daemon).process.processIdentifier, ordering: .relaxed)
            try await h.waitServing()
            // The newly served app's start is on disk before it reads anything.
            try await poll("the start position saved", seconds: 30, every: .milliseconds(100)) { h.stateFile("cursor") != nil }
            try await h.journal.write((0..<Self.entries).map {
                h.journal.entry(unit: AgentHarness.unit, message: Self.body($0))
            })

            for runNumber in 2...(killAt.count + 1) {
                let killed = try #require(h.daemon)
                try await poll("run \(runNumber - 1) killed", seconds: 120, every: .milliseconds(100)) { !killed.isRunning }
                run.store(runNumber, ordering: .relaxed)
                try h.start()
                pid.store(try #require(h.daemon).process.processIdentifier, ordering: .relaxed)
            }
            try await poll("every entry at the sink", seconds: 180, every: .milliseconds(100)) { h.backend.uniqueUIDs.count >= Self.entries }

            // Once everything was accepted, a kill repeats nothing: what comes after the restart
            // is only what was written after it. Accepted means the daemon took the answer in: its
            // saved position (the cursor the last entry's uid is made of) is the last entry's.
            let lastUID = try #require(h.backend.records.first { $0.body == Self.body(Self.entries - 1) }?.uid)
            let encoder = OTLPLogsEncoder(hashing: OpenSSLSHA256())
            let install = try h.installationID()
            try await poll("the last entry's position saved", seconds: 60, every: .milliseconds(100)) {
                guard let cursor = try? CursorStore(layout: StateLayout(root: h.state)).cursor(for: AppName(AgentHarness.app))?.cursor
                else { return false }
                let saved = LogRecord(
                    timeUnixNano: 0, severityNumber: 9, severityText: "INFO", family: .logs, body: "", journalCursor: cursor)
                return encoder.recordUID(saved, namespace: install) == lastUID
            }
            try await h.kill()
            run.store(killAt.count + 2, ordering: .relaxed)
            try h.start()
            try await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "after the last kill")])
            try await poll("the line written after the last restart", seconds: 60, every: .milliseconds(100)) {
                h.backend.records.contains { $0.body == "after the last kill" }
            }
            #expect(await h.stop() == 0)

            let sink = h.backend.sink
            let runs = runOfRequest.withLock { $0 }
            let bodies = Set(sink.requests.flatMap { $0 }.map(\.body))
            #expect(bodies.isSuperset(of: (0..<Self.entries).map(Self.body)), "an entry read was lost")
            #expect(h.backend.uniqueUIDs.count == Self.entries + 1)

            // Duplicates per kill: the uids a run sent that an earlier run had sent already; at
            // most the batch that was in flight when it died, nothing after the idle kill.
            let kills = killAt.sorted()
            var seen = Set<String>()
            var report: [String] = []
            for runNumber in 1...(kills.count + 2) {
                let uids = sink.requests.indices.filter { runs[$0 + 1] == runNumber }.flatMap { sink.requests[$0].compactMap(\.uid) }
                let repeated = uids.filter { seen.contains($0) }.count
                if runNumber > 1 {
                    let killIndex = runNumber - 2
                    let inFlight = killIndex < kills.count ? sink.requests[kills[killIndex] - 1].count : 0
                    let when = killIndex < kills.count ? "as batch \(kills[killIndex]) arrived" : "idle, everything accepted"
                    report.append("kill \(runNumber - 1) (\(when)): \(repeated) sent again, \(inFlight) were in flight")
                    #expect(repeated <= inFlight, "run \(runNumber) repeated \(repeated) records")
                }
                seen.formUnion(uids)
            }
            print("DaemonZeroLossTests: " + report.joined(separator: "; "))
        }
    }

    /// `StartAt=` chooses where a newly served app starts: `now` (the default) only what comes,
    /// `boot` the unit's entries since the current boot, `head` everything still there. Once an app
    /// has a saved position, it resumes there whatever `StartAt=` says.
    @Test func startAtChoosesWhereANewlyServedAppStartsAndOnlyThen() async throws {
        try await AgentHarness.with { h in
            let thisBoot = try #require(BootID.current(), "the machine's boot id")
            let apps = [("now", "now.service", ""), ("boot", "boot.service", "StartAt=boot"), ("head", "head.service", "StartAt=head")]
            for (name, unit, startAt) in apps {
                try h.root.write("etc/apps.d/\(name).conf", """
                    [App]
                    Unit=\(unit)
                    Name=com.example.\(name)
                    Backend=\(h.backend.origin)
                    AppKey=\(AgentHarness.appKey)
                    Consent=granted
                    \(startAt)
                    """)
            }
            h.backend.setPolicy(try h.policy(live: false))
            h.journal.boot("0badc0de0badc0de0badc0de0badc0de")
            try await h.journal.write(apps.map { h.journal.entry(unit: $0.1, message: "\($0.0): the boot before") })
            h.journal.boot(thisBoot)
            try await h.journal.write(apps.map { h.journal.entry(unit: $0.1, message: "\($0.0): earlier this boot") })

            @Sendable func bodies(of app: String) -> [String] {
                h.backend.records.filter { $0.resource["service.name"] == "com.example.\(app)" }.map(\.body)
            }
            func writeMarkers(_ text: String, sentBefore: [String: Int] = [:]) async throws {
                try await h.journal.write(apps.map { h.journal.entry(unit: $0.1, message: "\($0.0): \(text)") })
                try await poll("every app's \(text)", seconds: 60, every: .milliseconds(100)) {
                    apps.allSatisfy { app in bodies(of: app.0).contains("\(app.0): \(text)") }
                }
                // The daemon has the backend's answer too, so its position is past them: a stop
                // now cancels no request in flight (which would rightly send its records again).
                // `sent_records` counts this run's.
                for (name, _, _) in apps {
                    try await poll("\(name)'s records acknowledged", seconds: 60, every: .milliseconds(100)) {
                        let ingest = try? await h.ingestStatus(of: name)
                        return ingest?["sent_records"]?.numberValue == Double(bodies(of: name).count - (sentBefore[name] ?? 0))
                            && ingest?["queued_records"]?.numberValue == 0
                    }
                }
            }

            try h.start()
            for (name, _, _) in apps {
                try await poll("\(name)'s start saved", seconds: 60, every: .milliseconds(100)) {
                    FileManager.default.fileExists(atPath: h.state + "/apps/\(name)/cursor")
                }
            }
            try await writeMarkers("after the start")
            #expect(bodies(of: "now") == ["now: after the start"])
            #expect(bodies(of: "boot") == ["boot: earlier this boot", "boot: after the start"])
            #expect(bodies(of: "head") == ["head: the boot before", "head: earlier this boot", "head: after the start"])

            // `now` becomes `head`: the saved position holds, nothing is sent again.
            #expect(await h.stop() == 0)
            try h.root.write("etc/apps.d/now.conf", """
                [App]
                Unit=now.service
                Name=com.example.now
                Backend=\(h.backend.origin)
                AppKey=\(AgentHarness.appKey)
                Consent=granted
                StartAt=head
                """)
            let sentBefore = Dictionary(uniqueKeysWithValues: apps.map { ($0.0, bodies(of: $0.0).count) })
            try h.start()
            try await writeMarkers("after the restart", sentBefore: sentBefore)
            #expect(bodies(of: "now") == ["now: after the start", "now: after the restart"])
            #expect(await h.stop() == 0)
        }
    }
}
