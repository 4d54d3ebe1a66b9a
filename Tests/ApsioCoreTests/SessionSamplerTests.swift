import ApsioCore
import Testing

@Suite struct SessionSamplerTests {
    static let sessions = (0..<2000).map { "0b5c2a8e-\(String($0, radix: 16))-4c1d-9f00-5e6d7c8b9a01" }

    /// The point a session falls on in [0, 1): its hash's first 8 bytes over 2^64, computed here
    /// independently of the sampler.
    func point(_ session: String) -> Double {
        let digest = sha256.sha256(Array(session.utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Double(value) / 18_446_744_073_709_551_616.0
    }

    @Test func rateOneKeepsEverySessionAndZeroNone() {
        for session in Self.sessions.prefix(200) {
            #expect(SessionSampler.keeps(sessionID: session, rate: 1, hashing: sha256))
            #expect(!SessionSampler.keeps(sessionID: session, rate: 0, hashing: sha256))
        }
    }

    @Test func aSessionIsKeptJustAboveItsPointAndDroppedJustBelow() {
        for session in Self.sessions.prefix(50) {
            let p = point(session)
            #expect(SessionSampler.keeps(sessionID: session, rate: min(1, p + 1e-9), hashing: sha256))
            if p > 1e-9 { #expect(!SessionSampler.keeps(sessionID: session, rate: p - 1e-9, hashing: sha256)) }
        }
    }

    /// The hash spreads sessions evenly: about a quarter is kept at 0.25 (deterministic, the
    /// same ids give the same count on every run).
    @Test func aboutTheRateIsKept() {
        let kept = Self.sessions.filter { SessionSampler.keeps(sessionID: $0, rate: 0.25, hashing: sha256) }.count
        #expect((400...600).contains(kept), "\(kept) of 2000")
    }

    @Test func aLowerRateKeepsASubsetOfAHigherOne() {
        let low = Set(Self.sessions.filter { SessionSampler.keeps(sessionID: $0, rate: 0.1, hashing: sha256) })
        let high = Set(Self.sessions.filter { SessionSampler.keeps(sessionID: $0, rate: 0.5, hashing: sha256) })
        #expect(!low.isEmpty && low.isSubset(of: high) && low.count < high.count)
    }

    @Test func aSessionIsDecidedOnceWithItsRate() {
        var sampler = SessionSampler(hashing: sha256)
        let first = sampler.decide(sessionID: "s1", rate: 1)
        #expect(first == SessionSampler.Decision(keep: true, rate: 1))
        // The policy drops the rate mid-session: the session is neither split nor relabelled.
        #expect(sampler.decide(sessionID: "s1", rate: 0) == first)
        #expect(sampler.decide(sessionID: "s2", rate: 0) == SessionSampler.Decision(keep: false, rate: 0))
    }

    @Test func onlyTheLatestSessionsAreRemembered() {
        var limits = Limits.spec
        limits.maxRememberedSessions = 2
        var sampler = SessionSampler(hashing: sha256, limits: limits)
        _ = sampler.decide(sessionID: "a", rate: 1)
        _ = sampler.decide(sessionID: "b", rate: 1)
        #expect(sampler.decide(sessionID: "a", rate: 0).keep)  // still remembered
        _ = sampler.decide(sessionID: "c", rate: 1)  // forgets a, the oldest
        #expect(!sampler.decide(sessionID: "a", rate: 0).keep)
        #expect(sampler.decide(sessionID: "c", rate: 0).keep)
        for index in 0..<50 { _ = sampler.decide(sessionID: "x\(index)", rate: 1) }
        #expect(!sampler.decide(sessionID: "c", rate: 0).keep)
    }

    @Test func theSessionAskedAboutLastIsForgottenLikeAnyOther() {
        var limits = Limits.spec
        limits.maxRememberedSessions = 1
        var sampler = SessionSampler(hashing: sha256, limits: limits)
        _ = sampler.decide(sessionID: "a", rate: 1)
        #expect(sampler.decide(sessionID: "a", rate: 0).keep)  // asked again in a row
        _ = sampler.decide(sessionID: "b", rate: 1)  // forgets a
        #expect(!sampler.decide(sessionID: "a", rate: 0).keep)
        #expect(!sampler.decide(sessionID: "b", rate: 0).keep)  // a, decided again, forgot b
    }
}

@Suite struct IngestGateTests {
    let kept = SessionSampler.Decision(keep: true, rate: 0.5)
    let dropped = SessionSampler.Decision(keep: false, rate: 0.5)

    func admit(
        _ family: LogFamily = .logs, severity: Int = 9, session: SessionSampler.Decision?, policy: Policy = Policy(),
        raised: Bool = false
    ) -> SamplingMark? {
        IngestGate.admit(family: family, severityNumber: severity, session: session, policy: policy, logLevelRaised: raised)
    }

    @Test func aKeptSessionsRecordsCarryItsRate() {
        #expect(admit(session: kept) == .sessionRate(0.5))
        #expect(admit(session: kept)?.attribute == .double("apsio.sampling.session.rate", 0.5))
    }

    @Test func aDroppedSessionGoesOnlyWhileTheLevelIsRaised() {
        #expect(admit(session: dropped) == nil)
        #expect(admit(session: dropped, raised: true) == .releasedLive)
        #expect(SamplingMark.releasedLive.attribute == .string("apsio.sampling.released", "live"))
    }

    @Test func recordsOfNoSessionAreNotSampled() {
        #expect(admit(session: nil) == .unsampled)
        #expect(SamplingMark.unsampled.attribute == nil)
    }

    @Test func theKillSwitchSendsNothing() {
        let killed = Policy(killSwitch: true)
        #expect(admit(session: kept, policy: killed) == nil)
        #expect(admit(.errors, severity: 17, session: nil, policy: killed, raised: true) == nil)
    }

    @Test func aFamilyThatIsOffIsNeverReleased() {
        let policy = Policy(capture: CapturePolicy(logs: .never))
        #expect(admit(session: kept, policy: policy) == nil)
        #expect(admit(session: kept, policy: policy, raised: true) == nil)
        #expect(admit(.errors, severity: 17, session: kept, policy: policy) == .sessionRate(0.5))
        let noErrors = Policy(capture: CapturePolicy(errors: .never))
        #expect(admit(.errors, severity: 21, session: kept, policy: noErrors, raised: true) == nil)
    }

    @Test func belowTheSeverityFloorOnlyARaisedLevelDownToDebugReleases() {
        #expect(admit(severity: 9, session: kept) == .sessionRate(0.5))
        #expect(admit(severity: 8, session: kept) == nil)
        #expect(admit(severity: 5, session: kept) == nil)
        #expect(admit(severity: 5, session: kept, raised: true) == .releasedLive)
        #expect(admit(severity: 4, session: kept, raised: true) == nil)
        #expect(admit(severity: 5, session: nil, raised: true) == .releasedLive)
        // A record that goes anyway is not "released by the command".
        #expect(admit(severity: 13, session: kept, raised: true) == .sessionRate(0.5))
    }

    @Test func aPolicyFloorBelowDebugStaysWhenRaised() {
        let policy = Policy(capture: CapturePolicy(logsMinSeverity: 1))
        #expect(admit(severity: 1, session: kept, policy: policy) == .sessionRate(0.5))
        #expect(CaptureScope(appFamilies: [.logs], policy: policy.capture).floor(raised: true) == 1)
        #expect(CaptureScope(appFamilies: [.logs], policy: CapturePolicy()).floor(raised: true) == 5)
    }

    @Test func theErrorsFamilyIgnoresTheLogsFloor() {
        let policy = Policy(capture: CapturePolicy(logsMinSeverity: 24))
        #expect(admit(.errors, severity: 17, session: kept, policy: policy) == .sessionRate(0.5))
    }

    /// 16.6: the diagnostics record "goes through ingest" because of a command: sampling and the
    /// severity floor do not hold it back, and it is marked `released=live`.
    @Test func aRecordACommandMadeGoesWhateverSamplingAndTheFloorSay() {
        var sampler = SessionSampler(hashing: sha256)
        var record = LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "apsio.diagnostics", sessionID: "s")
        record.releasedByCommand = true
        let strict = Policy(capture: CapturePolicy(logsMinSeverity: 13), sessionRate: 0)
        #expect(IngestGate.admit(record, policy: strict, sampler: &sampler, logLevelRaised: false) == .releasedLive)
        // Never past a family that is off, nor the kill switch.
        #expect(IngestGate.admit(record, policy: Policy(capture: CapturePolicy(logs: .never)), sampler: &sampler, logLevelRaised: false) == nil)
        #expect(IngestGate.admit(record, policy: Policy(killSwitch: true), sampler: &sampler, logLevelRaised: false) == nil)
        let noLogs = CaptureScope(appFamilies: [.errors], policy: CapturePolicy())
        #expect(IngestGate.admit(record, policy: Policy(), scope: noLogs, sampler: &sampler, logLevelRaised: false) == nil)
    }

    /// The app file's `Families=` holds for ingest as the policy's modes do.
    @Test func aFamilyTheAppFileLeavesOutIsNotSent() {
        let scope = CaptureScope(appFamilies: [.errors, .metrics], policy: CapturePolicy())
        #expect(IngestGate.admit(family: .logs, severityNumber: 13, session: kept, policy: Policy(), scope: scope, logLevelRaised: true) == nil)
        #expect(IngestGate.admit(family: .errors, severityNumber: 17, session: kept, policy: Policy(), scope: scope, logLevelRaised: false)
            == .sessionRate(0.5))
    }

    @Test func aRecordsSessionIsDecidedAtThePolicysRate() {
        var sampler = SessionSampler(hashing: sha256)
        let record = LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "x", sessionID: "s")
        #expect(IngestGate.admit(record, policy: Policy(sessionRate: 0), sampler: &sampler, logLevelRaised: false) == nil)
        // Decided once: the same session stays dropped when the rate rises.
        #expect(IngestGate.admit(record, policy: Policy(sessionRate: 1), sampler: &sampler, logLevelRaised: false) == nil)
        var other = record
        other.sessionID = "t"
        #expect(IngestGate.admit(other, policy: Policy(sessionRate: 1), sampler: &sampler, logLevelRaised: false)
            == .sessionRate(1))
    }
}
