import ApsioCore
import ApsioNet
import Foundation
import Synchronization
@testable import ApsioTestSupport
import Testing

/// The pipeline in a child process (`apsio-bench-ingest run`, the exporter itself) on 100,000
/// journal entries, killed with SIGKILL at several points and started again on the same state
/// directory: every entry's `log.record.uid` reaches the sink at least once, and what arrives twice
/// is at most one batch per kill (the batch in flight when it died).
@Suite(.serialized) struct IngestCrashTests {
    static let entries = 100_000
    static let unit = "bench0.service"
    static let uidMarker = Array(#""key":"log.record.uid","value":{"stringValue":""#.utf8)

    /// A loopback /v1/logs that counts every uid it receives and the largest batch.
    final class Sink: Sendable {
        struct Counts {
            var seen: [String: Int] = [:]
            var received = 0
            var largestBatch = 0
        }

        final class Tally: Sendable {
            let counts = Mutex(Counts())
        }

        let tally = Tally()
        let server: HTTPServer
        var counts: Counts { tally.counts.withLock { $0 } }

        init() {
            var router = HTTPRouter()
            let tally = tally
            router.add("POST", "/v1/logs") { request in
                let uids = Sink.uids(in: request.body)
                tally.counts.withLock { counts in
                    for uid in uids { counts.seen[uid, default: 0] += 1 }
                    counts.received += uids.count
                    counts.largestBatch = max(counts.largestBatch, uids.count)
                }
                return HTTPServerResponse(status: 200)
            }
            server = HTTPServer(limits: HTTPServerLimits(http: HTTPLimits(maxBodyBytes: 16 << 20)), router: router)
        }

        var unique: Int { tally.counts.withLock { $0.seen.count } }

        static func uids(in body: [UInt8]) -> [String] {
            var out: [String] = []
            let marker = IngestCrashTests.uidMarker
            var index = 0
            while index + marker.count + 32 <= body.count {
                if body[index] == marker[0], body[index..<(index + marker.count)].elementsEqual(marker) {
                    let start = index + marker.count
                    out.append(String(decoding: body[start..<(start + 32)], as: UTF8.self))
                    index = start + 32
                } else {
                    index += 1
                }
            }
            return out
        }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var benchBinary: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("apsio-bench-ingest").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/apsio-bench-ingest").path
    }

    /// Writes `count` entries of `unit` as the journal benchmark shapes them.
    static func writeJournal(_ directory: String, count: Int) throws {
        let script = packageRoot.appendingPathComponent("bench/journal/generate.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "/usr/bin/python3 \"$0\" \"$1\" 1 | \(JournalFixture.journalRemote) --output=\"$2/bench.journal\" -",
            script, String(count), directory,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("writing the journal failed") }
    }

    @Test func killedAtSeveralPointsItLosesNothingAndRepeatsAtMostABatchPerKill() async throws {
        let binary = Self.benchBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build apsio-bench-ingest first (swift build)")
        let directory = try TemporaryDirectory("apsio-ingest-crash")
        let journalDir = directory.path + "/journal"
        try FileManager.default.createDirectory(atPath: journalDir, withIntermediateDirectories: true)
        try Self.writeJournal(journalDir, count: Self.entries)

        let sink = Sink()
        let port = try await sink.server.start()
        let children = Mutex<[Process]>([])
        defer {
            // However the test ends, no child outlives it.
            for child in children.withLock({ $0 }) { killAndRelease(child) }
        }
        func launch() throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [
                "run", "--journal-dir", journalDir, "--unit", Self.unit, "--backend", "http://127.0.0.1:\(port)",
                "--state-dir", directory.path + "/state",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            children.withLock { $0.append(process) }
            return process
        }
        func waitForExit(_ process: Process) async throws {
            try await poll("pid \(process.processIdentifier) gone", seconds: 60) { !process.isRunning }
        }

        let killPoints = [15_000, 40_000, 65_000]
        for point in killPoints {
            let child = try launch()
            try await poll("\(point) uids at the sink", seconds: 300) { sink.unique >= point }
            kill(child.processIdentifier, SIGKILL)
            try await waitForExit(child)
        }
        let last = try launch()
        try await poll("every uid at the sink", seconds: 300) { sink.unique >= Self.entries }
        kill(last.processIdentifier, SIGTERM)
        try await waitForExit(last)
        await sink.server.stop()

        let counts = sink.counts
        #expect(counts.seen.count == Self.entries)
        let duplicates = counts.received - counts.seen.count
        #expect(duplicates <= killPoints.count * counts.largestBatch, "\(duplicates) records arrived twice")
        #expect(counts.largestBatch <= Limits.spec.ingestBatchRecords)
    }
}
