/// Whether a log record goes through ingest under a policy, and with which sampling mark.
///
/// Consent and the app file's `MinPriority=` are decided before a record is made; this is the
/// families' part (the app file's and the policy's, `CaptureScope`), the policy's (12.3, 15.3,
/// LINUX-PROFILE §9) and the commands' (16.6).
package enum IngestGate {
    /// nil: the record is not sent.
    ///
    /// - `kill_switch` sends nothing.
    /// - A family that is off (the app file's `Families=`, or the policy's mode `never`) stays
    ///   off: neither a raised log level nor a command releases it.
    /// - A record a command made (`diagnostics`) goes whatever the severity floor and sampling
    ///   say, marked `released=live` (16.6: "records that go through ingest because of a command").
    /// - A `logs` record below `logs_min_severity` goes only while the level is raised (down to
    ///   DEBUG), marked `released=live`.
    /// - A record of a session sampling dropped goes only while the level is raised, marked
    ///   `released=live`; one of a kept session carries the session's rate; one of no session
    ///   (nothing to sample by) goes unmarked.
    ///
    /// `scope`: the families on and the floor; by default, what the policy alone leaves on.
    package static func admit(
        family: LogFamily, severityNumber: Int, releasedByCommand: Bool = false, session: SessionSampler.Decision?,
        policy: Policy, scope: CaptureScope? = nil, logLevelRaised: Bool
    ) -> SamplingMark? {
        let scope = scope ?? CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: policy.capture)
        guard !policy.killSwitch, scope.isOn(family) else { return nil }
        if releasedByCommand { return .releasedLive }
        guard scope.writes(family: family, severityNumber: severityNumber, logLevelRaised: logLevelRaised) else {
            return nil
        }
        var released = scope.isBelowFloor(family: family, severityNumber: severityNumber)
        guard let session else { return released ? .releasedLive : .unsampled }
        if !session.keep {
            guard logLevelRaised else { return nil }
            released = true
        }
        return released ? .releasedLive : .sessionRate(session.rate)
    }

    /// The same decision for a record, deciding its session with `sampler` at the policy's rate.
    /// A record released by a command is not sampled at all.
    package static func admit(
        _ record: LogRecord, policy: Policy, scope: CaptureScope? = nil, sampler: inout SessionSampler,
        logLevelRaised: Bool
    ) -> SamplingMark? {
        let scope = scope ?? CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: policy.capture)
        guard !policy.killSwitch, scope.isOn(record.family) else { return nil }
        let session = record.releasedByCommand
            ? nil : record.sessionID.map { sampler.decide(sessionID: $0, rate: policy.sessionRate) }
        return admit(
            family: record.family, severityNumber: record.severityNumber, releasedByCommand: record.releasedByCommand,
            session: session, policy: policy, scope: scope, logLevelRaised: logLevelRaised)
    }
}
