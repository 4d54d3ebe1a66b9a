import ApsioCore
import ApsioLive
import Glibc
import Foundation
@testable import ApsioTestSupport
import Testing

/// 16.3: "once the day's bytes reach the cap, the device MUST NOT start a live session until the
/// UTC day ends … It MUST keep the day's count across launches, on disk". A count the built
/// apsiod cannot read, or cannot write, is not a count of 0: it fails closed, and says so.
@Suite(.serialized) struct DaemonDayCountTests {
    static let cap = 50_000_000

    static var today: Int64 { Int64(Date().timeIntervalSince1970) / 86_400 }

    static func dayCountFile(_ h: AgentHarness) -> String { h.appStateDirectory + "/day-bytes.json" }

    /// The count on disk, when the file holds one.
    /// Today's UTC day, as the daemon counts days (16.3). A count compared with bytes sent holds
    /// within one day: past midnight the daemon starts the new day's count from nothing.
    static func utcDay() -> Int64 { Int64(time(nil) / 86_400) }

    static func savedCount(_ h: AgentHarness) -> (day: Int64, bytes: Int)? {
        guard let saved = h.stateFile("day-bytes.json").flatMap({ JSONValueEncoding.decode(Array($0.utf8)) }),
            let day = saved["day"]?.numberValue, let bytes = saved["bytes"]?.numberValue
        else { return nil }
        return (Int64(day), Int(bytes))
    }

    /// Allow-live on and the unit active, with the backend offering a viewer to every hello: a
    /// device that may start a session starts one.
    static func offerASession(_ h: AgentHarness) async throws {
        h.live.answerHellos(AgentHarness.hello(viewers: 1))
        let allow = try await h.ctl(["allow-live", "on", AgentHarness.app])
        #expect(allow.status == 0, "\(allow.stderr)")
        try await h.activateUnit()
    }

    /// A day-bytes.json that holds no count (damaged by hand or by the disk): nobody knows what
    /// the day spent, so the day counts as spent. Hellos say `capped` though a viewer waits, no
    /// session starts, the log says why, and the file then holds the cap, so a restart does not
    /// forget it either.
    @Test func aDamagedDayCountSpendsTheDay() async throws {
        try await AgentHarness.with { h in
            let policy = try h.policy()  // makes the app's directory, as an earlier run would have
            try "{\"bytes\":12,\"da".write(toFile: Self.dayCountFile(h), atomically: false, encoding: .utf8)
            try await h.serve(policy)
            try await Self.offerASession(h)
            // The second hello comes an interval after the first was answered with a viewer: by
            // then a session that was going to start has sent its first `frames`.
            try await poll("two hellos", seconds: 60, every: .milliseconds(100)) { h.hellos.count >= 2 }
            #expect(h.hellos.allSatisfy { $0.body?["reason"] == .string("capped") }, "\(h.hellos.map(\.body))")
            #expect(h.framesBodies.count == 0, "a session started on a day whose count is unknown")
            #expect(h.log.contains(Self.dayCountFile(h)), "\(h.log)")
            #expect(h.log.contains("capped until the UTC day ends"), "\(h.log)")
            let saved = try #require(Self.savedCount(h), "the damaged file was left as it was")
            #expect(saved.day == Self.today)
            #expect(saved.bytes >= Self.cap)
        }
    }

    /// A day-bytes.json apsiod can neither read nor replace (here a directory in its place): the
    /// day counts as spent, and apsiod keeps trying to write it; once it can, the file holds the
    /// cap for the rest of the day.
    @Test func aDayCountThatCannotBeReadOrWrittenSpendsTheDayUntilItIsWritten() async throws {
        try await AgentHarness.with { h in
            let policy = try h.policy()
            try FileManager.default.createDirectory(atPath: Self.dayCountFile(h), withIntermediateDirectories: false)
            try await h.serve(policy)
            try await Self.offerASession(h)
            try await poll("two hellos", seconds: 60, every: .milliseconds(100)) { h.hellos.count >= 2 }
            #expect(h.hellos.allSatisfy { $0.body?["reason"] == .string("capped") }, "\(h.hellos.map(\.body))")
            #expect(h.framesBodies.count == 0, "a session started on a day whose count cannot be kept")
            #expect(h.log.contains(Self.dayCountFile(h)), "\(h.log)")

            try FileManager.default.removeItem(atPath: Self.dayCountFile(h))
            try await poll("the count written once it can be", seconds: 60, every: .milliseconds(100)) { Self.savedCount(h) != nil }
            let saved = try #require(Self.savedCount(h))
            #expect(saved.day == Self.today)
            #expect(saved.bytes >= Self.cap)
            #expect(h.framesBodies.count == 0)
        }
    }

    /// The count stops being writable during a session: the body whose count could not be kept
    /// does not go, the session ends, hellos say `capped`, and the log says what to do, once.
    /// Nothing the backend received is missing from the count last kept on disk. Once the file
    /// can be written again, a new session starts.
    @Test func aDayCountThatCannotBeKeptEndsTheSessionUntilItCanBe() async throws {
        try await AgentHarness.with { h in
            let startDay = Self.utcDay()
            try await h.serve(try h.policy())
            try await h.startLiveSession()
            let file = Self.dayCountFile(h)
            let kept = h.appStateDirectory + "/day-bytes.kept"
            // Moved aside, and a directory put in its place: a write between the two makes the
            // file again, and the next turn moves that one aside, so `kept` ends up holding the
            // last count apsiod wrote.
            try await poll("a directory in place of the count", seconds: 30, every: .milliseconds(100)) {
                _ = rename(file, kept)
                return mkdir(file, 0o755) == 0
            }
            let keptBytes = try #require(
                (try? String(contentsOfFile: kept, encoding: .utf8)).flatMap { JSONValueEncoding.decode(Array($0.utf8)) }?["bytes"]?
                    .numberValue)
            @Sendable func sent() -> Int {
                h.backend.liveBodyBytes.filter { $0.path == "/v1/live/frames" || $0.path == "/v1/live/results" }
                    .reduce(0) { $0 + $1.bytes }
            }
            let hellosBefore = h.hellos.count
            try await poll("a capped hello", seconds: 90, every: .milliseconds(100)) {
                try? await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "busy \(h.framesBodies.count)")])
                return h.hellos.dropFirst(hellosBefore).contains { $0.body?["reason"] == .string("capped") }
            }
            #expect(Self.utcDay() != startDay || sent() <= Int(keptBytes), "the backend received \(sent()) bytes, the disk counts \(keptBytes)")
            #expect(h.log.components(separatedBy: "cannot be kept").count - 1 == 1, "\(h.log)")
            #expect(h.log.contains(file), "\(h.log)")
            let framesWhileCapped = h.framesBodies.count
            let cappedHellos = h.hellos.count
            try await poll("another capped hello", seconds: 60, every: .milliseconds(100)) {
                try? await h.journal.write([h.journal.entry(unit: AgentHarness.unit, message: "still busy")])
                return h.hellos.count > cappedHellos
            }
            #expect(h.hellos.last?.body?["reason"] == .string("capped"))
            #expect(h.framesBodies.count == framesWhileCapped, "frames went while the count could not be kept")
            #expect(Self.utcDay() != startDay || sent() <= Int(keptBytes))

            // The file can be written again: the count is kept, the next hello is free to start a session.
            _ = rmdir(file)
            try await poll("a new session", seconds: 90, every: .milliseconds(100)) {
                h.framesBodies.dropFirst(framesWhileCapped).contains { $0["state"] == .string("live") }
            }
            let saved = try #require(Self.savedCount(h))
            #expect(saved.day != startDay || saved.bytes >= sent(), "\(saved), \(sent()) bytes sent since day \(startDay)")
        }
    }
}
