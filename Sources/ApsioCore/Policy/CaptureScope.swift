/// What an app captures: the families that are on, and the `logs` family's severity floor.
///
/// 16.5: "A family is off when the app turned it off in code, when the policy does not collect
/// it (12.2 `capture`), or when its mode is `never` (15.3)". On Linux the app's code is its app
/// file (`Families=`), so a family is on only when both the app file and the policy leave it on.
///
/// This is the one rule of which records the daemon writes: ingest applies it before sampling,
/// and the live channel copies exactly the records it lets through (16.5: live lines "are copies
/// of the log records the SDK writes"), so the two can never disagree about a line. The app
/// file's `MinPriority=` (the log bridge's own floor, 13.7) is applied before a record is made
/// and is not part of it.
package struct CaptureScope: Sendable, Equatable {
    package private(set) var families: Set<CaptureFamily>
    /// The policy's `capture.logs_min_severity`.
    package private(set) var logsMinSeverity: Int
    /// `families` a bit each, as `isOn` reads them for every record: a set's lookup hashes.
    private var bits: UInt8

    /// `policy`: nil before the first policy ever arrived, when only the app file decides (records
    /// are held until a policy comes, 15.3, and the live channel is closed without one).
    package init(appFamilies: Set<CaptureFamily>, policy: CapturePolicy?) {
        var families = appFamilies
        if let policy {
            if policy.logs == .never { families.remove(.logs) }
            if policy.errors == .never { families.remove(.errors) }
            if policy.metrics == .never { families.remove(.metrics) }
            if policy.replay == .never { families.remove(.replay) }
        }
        self.families = families
        bits = families.reduce(0) { $0 | Self.bit($1) }
        logsMinSeverity = policy?.logsMinSeverity ?? CapturePolicy.defaultLogsMinSeverity
    }

    private static func bit(_ family: CaptureFamily) -> UInt8 {
        switch family {
        case .logs: 1
        case .errors: 2
        case .metrics: 4
        case .replay: 8
        }
    }

    /// Every family on, at the default floor: what nothing has turned off.
    package static let everything = CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: nil)

    package func isOn(_ family: CaptureFamily) -> Bool { bits & Self.bit(family) != 0 }

    package func isOn(_ family: LogFamily) -> Bool {
        switch family {
        case .logs: isOn(CaptureFamily.logs)
        case .errors: isOn(CaptureFamily.errors)
        }
    }

    /// Whether the daemon writes a record of this family and severity. A raised log level (16.6)
    /// lowers the `logs` floor to DEBUG and never turns a family on.
    package func writes(family: LogFamily, severityNumber: Int, logLevelRaised: Bool) -> Bool {
        guard isOn(family) else { return false }
        guard family == .logs else { return true }
        return severityNumber >= floor(raised: logLevelRaised)
    }

    /// Whether a record is written only because the level is raised: ingest marks it
    /// `apsio.sampling.released=live`.
    package func isBelowFloor(family: LogFamily, severityNumber: Int) -> Bool {
        family == .logs && severityNumber < logsMinSeverity
    }

    /// The `logs` floor, with or without a raised log level. Raising never lifts a floor the policy
    /// already set lower.
    package func floor(raised: Bool) -> Int {
        raised ? min(logsMinSeverity, CapturePolicy.raisedLogsMinSeverity) : logsMinSeverity
    }
}
