package import ApsioCore
package import ApsioNet
package import ApsioState
package import ApsioWire

/// What the policy fetcher did, for one log line each. None carries the app key: the HTTP
/// client's errors hold no header value, and statuses and parser messages hold none either.
package enum PolicyFetchEvent: Sendable, Equatable, CustomStringConvertible {
    /// The policy kept on disk was delivered at start, before any request.
    case loadedFromDisk
    /// The policy kept on disk could not be used (damaged, unreadable): nothing is delivered until
    /// the backend answers, so records are held, not sent (15.3).
    case storedPolicyUnusable(String)
    /// A 200 whose body parsed. `changed`: the body differs from the one kept (log it then);
    /// `ignoredLive`: its `live` object was unusable, so live inspection is off.
    case fetched(changed: Bool, ignoredLive: LivePolicyProblem?)
    /// A 304: the policy in use is the backend's.
    case notModified
    /// A body that is not a policy: the previous policy stays. Reported once per body; the same
    /// body again is silent until a good one comes or the body changes.
    case malformed(PolicyError)
    /// No policy this time; asked again after `retryIn`.
    case failed(PolicyFetchFailure, retryIn: Duration)
    /// The new policy is in use but could not be kept on disk: a restart would begin from the
    /// previous one.
    case notSaved(StateStoreError)

    package var description: String {
        switch self {
        case .loadedFromDisk: "using the policy kept on disk until the backend answers"
        case .storedPolicyUnusable(let why): "the policy kept on disk cannot be used (\(why)); waiting for the backend"
        case .fetched(let changed, let ignoredLive):
            (changed ? "a new policy from the backend" : "the backend's policy is unchanged")
                + (ignoredLive.map { "; its live object is ignored, live inspection is off: \($0)" } ?? "")
        case .notModified: "the backend's policy is not modified"
        case .malformed(let error): "the backend's policy is refused (\(error)); the previous policy stays"
        case .failed(let failure, let retryIn): "the policy cannot be fetched: \(failure); asking again in \(retryIn)"
        case .notSaved(let error): "the policy is in use but not kept on disk: \(error)"
        }
    }
}

/// Why a policy request brought no policy.
package enum PolicyFetchFailure: Sendable, Equatable, CustomStringConvertible {
    /// The backend answered with a status other than 200 and 304. A 3xx is one: no redirect is
    /// followed, as no request carrying the app key may go to another host.
    case status(Int)
    case network(HTTPClientError)

    package var description: String {
        switch self {
        case .status(let status) where status == 401 || status == 403:
            "the backend answered \(status) (check the app's key)"
        case .status(let status) where (300..<400).contains(status):
            "the backend answered \(status), a redirect, which is not followed (check the app's Backend=)"
        case .status(let status): "the backend answered \(status)"
        case .network(let error): "\(error)"
        }
    }
}
