/// Why a record goes through ingest, as the attribute it carries (LINUX-PROFILE §9, 9.3, 16.6).
package enum SamplingMark: Sendable, Equatable {
    /// Its session was kept by sampling at this rate: `apsio.sampling.session.rate`.
    case sessionRate(Double)
    /// A command released it (a raised log level) where sampling or the severity floor would
    /// have held it back: `apsio.sampling.released=live`. Never counted in estimates.
    case releasedLive
    /// No sampling applied: the record belongs to no session.
    case unsampled

    package static let sessionRateKey = "apsio.sampling.session.rate"
    package static let releasedKey = "apsio.sampling.released"
    package static let releasedLiveValue = "live"

    /// The attribute a record carries for this mark, if any.
    package var attribute: Attribute? {
        switch self {
        case .sessionRate(let rate): .double(Self.sessionRateKey, rate)
        case .releasedLive: .string(Self.releasedKey, Self.releasedLiveValue)
        case .unsampled: nil
        }
    }
}
