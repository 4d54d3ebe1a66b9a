/// What the backend's `GET /v1/policy` says an app may capture and send (LINUX-PROFILE §12).
///
/// There is no default policy to send with: until the first one ever arrives, records are held
/// (15.3). The initialiser's defaults are those of a body that leaves every field out.
package struct Policy: Sendable, Equatable {
    /// `refresh_s`, within 60–3600 s.
    package var refresh: Duration
    /// `kill_switch` (12.3): capture and send nothing, drop the queue, close the live channel.
    package var killSwitch: Bool
    package var capture: CapturePolicy
    /// `sampling.session_rate`, 0–1: the share of sessions ingest keeps (LINUX-PROFILE §9).
    package var sessionRate: Double
    /// nil: live inspection is off.
    package var live: LivePolicy?

    package init(
        refresh: Duration = Limits.spec.defaultPolicyRefresh, killSwitch: Bool = false,
        capture: CapturePolicy = CapturePolicy(), sessionRate: Double = 1, live: LivePolicy? = nil
    ) {
        self.refresh = refresh
        self.killSwitch = killSwitch
        self.capture = capture
        self.sessionRate = sessionRate
        self.live = live
    }
}
