/// Whether a log record goes through ingest under a policy, and with which sampling mark.
///
/// Consent, the app file's families and `MinPriority=` are decided before a record is made;
/// this is the policy's part (12.2, 12.3, 15.3, LINUX-PROFILE §9) and the raised log level's (16.6).
public enum IngestGate {
    /// nil: the record is not sent.
    ///
    /// - `kill_switch` sends nothing.
    /// - A family whose mode is `never` is off, and a raised log level never releases it.
    /// - A `logs` record below `logs_min_severity` goes only while the level is raised (down to
    ///   DEBUG), marked `released=live`.
    /// - A record of a session sampling dropped goes only while the level is raised, marked
    ///   `released=live`; one of a kept session carries the session's rate; one of no session
    ///   (nothing to sample by) goes unmarked.
    public static func admit(
        family: LogFamily, severityNumber: Int, session: SessionSampler.Decision?, policy: Policy,
        logLevelRaised: Bool
    ) -> SamplingMark? {
        guard !policy.killSwitch, policy.capture.mode(of: family) == .always else { return nil }
        var released = false
        if family == .logs, severityNumber < policy.capture.logsMinSeverity {
            guard logLevelRaised, severityNumber >= policy.capture.logsFloor(raised: true) else { return nil }
            released = true
        }
        guard let session else { return released ? .releasedLive : .unsampled }
        if !session.keep {
            guard logLevelRaised else { return nil }
            released = true
        }
        return released ? .releasedLive : .sessionRate(session.rate)
    }

    /// The same decision for a record, deciding its session with `sampler` at the policy's rate.
    public static func admit(
        _ record: LogRecord, policy: Policy, sampler: inout SessionSampler, logLevelRaised: Bool
    ) -> SamplingMark? {
        guard !policy.killSwitch, policy.capture.mode(of: record.family) == .always else { return nil }
        let session = record.sessionID.map { sampler.decide(sessionID: $0, rate: policy.sessionRate) }
        return admit(
            family: record.family, severityNumber: record.severityNumber, session: session, policy: policy,
            logLevelRaised: logLevelRaised)
    }
}
