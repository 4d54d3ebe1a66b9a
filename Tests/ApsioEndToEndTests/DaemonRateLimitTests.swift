import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `RateLimit=` on the built `apsiod`: a burst of the unit's entries reaches the backend as the
/// ones the limit keeps and records saying how many were dropped and over which entry times;
/// `apsioctl status` counts them; and a backlog read after a restart is limited by the entries'
/// own times, so what was written at the rate while apsiod was stopped all goes.
@Suite(.serialized) struct DaemonRateLimitTests {
    static func int(_ record: SentRecord, _ key: String) -> Int? {
        record.attributes[key]?["intValue"]?.stringValue.flatMap(Int.init)
    }

    /// The drop records among `records`: every one for `cause`, with its count and range.
    static func drops(_ records: [SentRecord]) -> [(count: Int, start: Int, end: Int)] {
        records.compactMap { record in
            guard let count = int(record, JournalDropRecord.countKey) else { return nil }
            #expect(record.attributes[JournalDropRecord.causeKey]?["stringValue"] == .string("apsiod_rate_limit"))
            #expect(record.severityNumber == 13, "WARN")
            return (count, int(record, JournalDropRecord.startKey) ?? -1, int(record, JournalDropRecord.endKey) ?? -1)
        }
    }

    static func nanoseconds(_ entry: JournalFixture.Entry) -> Int { Int(entry.realtime) * 1000 }

    @Test func aBurstKeepsTheLimitAndCountsTheRestThenABacklogIsLimitedByEntryTime() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "RateLimit=10/s\nRateLimitBurst=5")
            // 30 lines within 30 ms of entry time: the burst of 5 goes, the rest are dropped.
            let burst = (0..<30).map { h.journal.entry(unit: AgentHarness.unit, message: "burst \($0)") }
            try await h.journal.write(burst)
            try await poll("the kept lines and the drop record at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Self.drops(h.backend.records).reduce(0) { $0 + $1.count } == 25
            }
            let kept = h.backend.records.map(\.body).filter { $0.hasPrefix("burst ") }
            #expect(kept == (0..<5).map { "burst \($0)" })
            // However the drops were cut into records, together they cover the dropped entries' times.
            let ranges = Self.drops(h.backend.records).sorted { $0.start < $1.start }
            #expect(ranges.first?.start == Self.nanoseconds(burst[5]))
            #expect(ranges.last?.end == Self.nanoseconds(burst[29]))
            for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(earlier.end < later.start) }
            let dropRecord = try #require(h.backend.records.first { Self.int($0, JournalDropRecord.countKey) != nil })
            #expect(dropRecord.body.contains("of \(AgentHarness.unit) over RateLimit=10/s (RateLimitBurst=5)"), "\(dropRecord.body)")
            try await poll("the count in apsioctl status", seconds: 30, every: .milliseconds(200)) {
                (try? await h.ctl(["--json", "status"]))?.stdout.contains(#""rate_limited_records":25"#) ?? false
            }
            let text = try await h.ctl(["status"])
            #expect(text.stdout.contains("Dropped by RateLimit=: 25 entries"), "\(text.stdout)")
            #expect(text.stdout.contains(" 0 lost,"), "\(text.stdout)")

            // Stopped, the unit writes 40 lines 200 ms apart (5/s, within the limit) and then a
            // burst of 12 within 12 ms. Read again in well under a second, they are limited by
            // their own times: all 40 go, then 4 of the burst (the last paced line took one of the
            // 5 tokens), and the other 8 are counted.
            #expect(await h.stop() == 0)
            let before = h.backend.records.count
            h.journal.setClock(by: .seconds(10))
            var backlog: [JournalFixture.Entry] = []
            for index in 0..<40 {
                h.journal.setClock(by: .milliseconds(200))
                backlog.append(h.journal.entry(unit: AgentHarness.unit, message: "paced \(index)"))
            }
            let late = (0..<12).map { h.journal.entry(unit: AgentHarness.unit, message: "late \($0)") }
            try await h.journal.write(backlog + late)
            try h.start()
            try await h.waitServing()
            try await poll("the backlog and its drop record at /v1/logs", seconds: 60, every: .milliseconds(100)) {
                Self.drops(Array(h.backend.records.dropFirst(before))).reduce(0) { $0 + $1.count } == 8
            }
            let after = Array(h.backend.records.dropFirst(before))
            #expect(after.map(\.body).filter { $0.hasPrefix("paced ") } == (0..<40).map { "paced \($0)" })
            #expect(after.map(\.body).filter { $0.hasPrefix("late ") } == (0..<4).map { "late \($0)" })
            let lateRanges = Self.drops(after).sorted { $0.start < $1.start }
            #expect(lateRanges.first?.start == Self.nanoseconds(late[4]))
            #expect(lateRanges.last?.end == Self.nanoseconds(late[11]))
            try await poll("the count of this run in apsioctl status", seconds: 30, every: .milliseconds(200)) {
                (try? await h.ctl(["--json", "status"]))?.stdout.contains(#""rate_limited_records":8"#) ?? false
            }
            // Nothing of the first run was sent again.
            #expect(!after.contains { $0.body.hasPrefix("burst ") })
        }
    }
}
