/// The record families an app can leave on or turn off (the app file's `Families=`, the policy's
/// `capture`): two kinds of log record, metrics, and process frames (replay on a phone).
package enum CaptureFamily: String, Sendable, Hashable, CaseIterable, Comparable {
    case logs
    case errors
    case metrics
    case replay

    /// The journal family this is, for the two that are log records.
    package var logFamily: LogFamily? {
        switch self {
        case .logs: .logs
        case .errors: .errors
        case .metrics, .replay: nil
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
