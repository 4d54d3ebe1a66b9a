import ApsioCore
import ApsioTestSupport
import Testing

/// `RateLimit=`'s bucket and limiter: decided by the entries' own times, the same for the same
/// entries, never more than the limit lets through, and every drop accounted for by a record.
@Suite struct RateLimiterTests {
    static let second: UInt64 = 1_000_000_000
    static let t0: UInt64 = 1_700_000_000 * second

    static func limit(_ rate: Int, _ interval: IngestRateLimit.Interval = .second, burst: Int? = nil) -> IngestRateLimit {
        IngestRateLimit(rate: rate, per: interval, burst: burst)!
    }

    // Mutating calls made outside `#expect`, which cannot take them.
    static func admit(_ bucket: inout RateLimitBucket, _ time: UInt64) -> Bool { bucket.admit(atUnixNano: time) }
    static func decide(_ limiter: inout RateLimiter, _ time: UInt64, _ cursor: String) -> RateLimiter.Decision {
        limiter.decide(timeUnixNano: time, cursor: cursor)
    }
    static func take(_ limiter: inout RateLimiter) -> RateLimitDrops? { limiter.takeDrops() }

    @Test func limitsAreBoundedAndTheBurstIsOneIntervalByDefault() {
        #expect(IngestRateLimit(rate: 0, per: .second) == nil)
        #expect(IngestRateLimit(rate: 1_000_001, per: .second) == nil)
        #expect(IngestRateLimit(rate: 10, per: .second, burst: 0) == nil)
        #expect(IngestRateLimit(rate: 10, per: .minute)?.burst == 10)
        #expect(Self.limit(600, .minute, burst: 5).description == "600/min")
    }

    @Test func aFullBucketLetsTheBurstThroughThenRefillsAtTheRate() {
        var bucket = RateLimitBucket(Self.limit(10, burst: 3))
        #expect((0..<5).map { _ in bucket.admit(atUnixNano: Self.t0) } == [true, true, true, false, false])
        // One token every 100 ms of entry time.
        #expect(!Self.admit(&bucket, Self.t0 + 99_999_999))
        #expect(Self.admit(&bucket, Self.t0 + 100_000_000))
        #expect(!Self.admit(&bucket, Self.t0 + 100_000_000))
        // A long quiet spell fills it to the burst, not beyond.
        let later = Self.t0 + 3600 * Self.second
        #expect((0..<4).map { _ in bucket.admit(atUnixNano: later) } == [true, true, true, false])
    }

    @Test func perMinute() {
        var bucket = RateLimitBucket(Self.limit(2, .minute))
        #expect([0, 1, 2].map { bucket.admit(atUnixNano: Self.t0 + $0) } == [true, true, false])
        #expect(!Self.admit(&bucket, Self.t0 + 29 * Self.second))
        #expect(Self.admit(&bucket, Self.t0 + 30 * Self.second))
    }

    /// An entry older than the newest seen earns nothing, and the bucket's time stays the newest.
    @Test func timeGoingBackwardsEarnsNothing() {
        var bucket = RateLimitBucket(Self.limit(1, burst: 1))
        #expect(Self.admit(&bucket, Self.t0 + 10 * Self.second))
        #expect(!Self.admit(&bucket, Self.t0))
        #expect(!Self.admit(&bucket, Self.t0 + 10 * Self.second + 999_999_999))
        #expect(Self.admit(&bucket, Self.t0 + 11 * Self.second))
    }

    @Test func extremeTimesAndRatesDoNotOverflow() {
        var bucket = RateLimitBucket(Self.limit(1_000_000, .minute, burst: 1_000_000))
        #expect(Self.admit(&bucket, 0))
        #expect(Self.admit(&bucket, .max))
        #expect(Self.admit(&bucket, .max))
    }

    /// Random histories, in journal order with now and then an older time: within any stretch of
    /// entry time the kept entries never exceed the burst and what the rate earns over it, entries
    /// spaced at the rate are all kept, and the same history always gets the same decisions.
    @Test(arguments: 0..<40) func randomHistoriesKeepWithinTheLimit(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let interval: IngestRateLimit.Interval = Bool.random(using: &random) ? .second : .minute
        let limit = Self.limit(Int.random(in: 1...50, using: &random), interval, burst: Int.random(in: 1...80, using: &random))
        var times: [UInt64] = []
        var time = Self.t0
        for _ in 0..<600 {
            // Bursts of equal times, quiet spells, and the odd entry from the past.
            switch Int.random(in: 0..<10, using: &random) {
            case 0: time += UInt64.random(in: 0...(5 * interval.nanoseconds), using: &random)
            case 1: times.append(time - UInt64.random(in: 0...interval.nanoseconds, using: &random)); continue
            default: time += UInt64.random(in: 0...(interval.nanoseconds / 20), using: &random)
            }
            times.append(time)
        }
        var bucket = RateLimitBucket(limit)
        let decisions = times.map { bucket.admit(atUnixNano: $0) }
        var again = RateLimitBucket(limit)
        #expect(times.map { again.admit(atUnixNano: $0) } == decisions, "seed \(seed)")

        // The bound holds over every stretch of the clock the bucket keeps (the newest time seen).
        var clock: [UInt64] = []
        for time in times { clock.append(max(clock.last ?? time, time)) }
        let kept = clock.indices.filter { decisions[$0] }
        for (startIndex, start) in kept.enumerated() {
            for endIndex in startIndex..<kept.count {
                let span = clock[kept[endIndex]] - clock[start]
                let earned = span * UInt64(limit.rate) / interval.nanoseconds
                #expect(UInt64(endIndex - startIndex + 1) <= UInt64(limit.burst) + earned, "seed \(seed)")
            }
        }

        var spaced = RateLimitBucket(limit)
        let step = interval.nanoseconds / UInt64(limit.rate) + 1
        #expect((0..<200).allSatisfy { spaced.admit(atUnixNano: Self.t0 + UInt64($0) * step) }, "seed \(seed)")
    }

    @Test func dropsGatherIntoOneReportWithTheirRangeAndLastPosition() {
        var limiter = RateLimiter(Self.limit(1, burst: 1))
        #expect(Self.decide(&limiter, Self.t0, "c0") == .keep(report: nil))
        #expect(!limiter.holds)
        #expect(Self.decide(&limiter, Self.t0 + 1, "c1") == .drop)
        #expect(Self.decide(&limiter, Self.t0 + 500_000_000, "c2") == .drop)
        #expect(limiter.holds)
        // A position passed while drops gather is the report's to carry.
        limiter.hold("c3")
        // Kept a second after the first drop, less than one interval after it: no report yet.
        #expect(Self.decide(&limiter, Self.t0 + Self.second, "c4") == .keep(report: nil))
        limiter.hold("c4")
        #expect(Self.decide(&limiter, Self.t0 + Self.second + 2, "c5") == .drop)
        // The next kept entry, an interval after the first drop: the report goes before it.
        let report = RateLimitDrops(count: 3, firstUnixNano: Self.t0 + 1, lastUnixNano: Self.t0 + Self.second + 2, cursorAfter: "c5")
        #expect(Self.decide(&limiter, Self.t0 + 2 * Self.second + 1, "c6") == .keep(report: report))
        #expect(!limiter.holds)
        #expect(Self.take(&limiter) == nil)

        #expect(Self.decide(&limiter, Self.t0 + 2 * Self.second + 2, "c7") == .drop)
        #expect(Self.take(&limiter) == RateLimitDrops(
            count: 1, firstUnixNano: Self.t0 + 2 * Self.second + 2, lastUnixNano: Self.t0 + 2 * Self.second + 2, cursorAfter: "c7"))
        #expect(!limiter.holds)
    }

    @Test func theReportIsAWarnRecordWithTheDropAttributes() {
        let drops = RateLimitDrops(count: 42, firstUnixNano: Self.t0, lastUnixNano: Self.t0 + 5, cursorAfter: "c")
        let record = drops.record(unit: "web.service", limit: Self.limit(10, burst: 20))
        #expect(record.severityText == "WARN")
        #expect(record.timeUnixNano == Self.t0 + 5)
        #expect(record.journalCursor == nil)
        #expect(JournalDropRecord.droppedCount(of: record) == 42)
        #expect(record.attributes[JournalDropRecord.causeKey] == .string("apsiod_rate_limit"))
        #expect(record.attributes[JournalDropRecord.startKey] == .int(Int64(Self.t0)))
        #expect(record.attributes[JournalDropRecord.endKey] == .int(Int64(Self.t0 + 5)))
        #expect(record.attributes["systemd.unit"] == .string("web.service"))
        #expect(record.body == "apsiod dropped 42 entries of web.service over RateLimit=10/s (RateLimitBurst=20)")
    }

    /// Random histories through the limiter, reports placed at random batch ends: every drop is in
    /// exactly one report, reports never overlap, and a kept entry never goes while a report due
    /// before it waits.
    @Test(arguments: 0..<20) func everyDropIsInExactlyOneReport(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var limiter = RateLimiter(Self.limit(Int.random(in: 1...20, using: &random), burst: Int.random(in: 1...30, using: &random)))
        var time = Self.t0
        var dropped = 0
        var reported = 0
        var lastReportEnd: UInt64 = 0
        for index in 0..<2000 {
            time += UInt64.random(in: 0...(Self.second / 10), using: &random)
            switch limiter.decide(timeUnixNano: time, cursor: "c\(index)") {
            case .drop: dropped += 1
            case .keep(let report):
                if let report {
                    #expect(report.firstUnixNano >= lastReportEnd && report.lastUnixNano <= time, "seed \(seed)")
                    #expect(time - report.firstUnixNano >= Self.second, "seed \(seed)")
                    reported += report.count
                    lastReportEnd = report.lastUnixNano
                }
            }
            if Int.random(in: 0..<50, using: &random) == 0, let report = limiter.takeDrops() {
                #expect(report.cursorAfter == "c\(index)" || report.lastUnixNano <= time, "seed \(seed)")
                reported += report.count
                lastReportEnd = report.lastUnixNano
            }
        }
        reported += limiter.takeDrops()?.count ?? 0
        #expect(dropped > 0, "seed \(seed)")
        #expect(reported == dropped, "seed \(seed)")
    }
}
