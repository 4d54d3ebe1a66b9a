/// A family's capture mode in the policy (15.3 as LINUX-PROFILE §15 reads it): Linux has no
/// triggers, so a family is captured always or never.
package enum CaptureMode: String, Sendable, Equatable, CaseIterable {
    case always
    /// The family is off: nothing of it is captured, sent through ingest or copied to the live channel.
    case never
}

/// The policy's `capture` object.
package struct CapturePolicy: Sendable, Equatable {
    package var logs: CaptureMode
    package var errors: CaptureMode
    package var metrics: CaptureMode
    /// Process frames (LINUX-PROFILE §10), the Linux reading of replay.
    package var replay: CaptureMode
    /// Log records of the `logs` family below this severity number (1–24) are not captured; a
    /// raised log level (16.6) lowers it to DEBUG for its 30 minutes.
    package var logsMinSeverity: Int

    /// INFO: the spec's example, and what makes `raise_log_level` ("from DEBUG up") mean something.
    package static let defaultLogsMinSeverity = 9
    /// DEBUG, the floor while a raised log level lasts (16.6).
    package static let raisedLogsMinSeverity = 5
    package static let severityRange = 1...24

    package init(
        logs: CaptureMode = .always, errors: CaptureMode = .always, metrics: CaptureMode = .always,
        replay: CaptureMode = .always, logsMinSeverity: Int = CapturePolicy.defaultLogsMinSeverity
    ) {
        self.logs = logs
        self.errors = errors
        self.metrics = metrics
        self.replay = replay
        self.logsMinSeverity = logsMinSeverity
    }

    package func mode(of family: LogFamily) -> CaptureMode {
        switch family {
        case .logs: logs
        case .errors: errors
        }
    }
}
