/// The policy's `live` object (16.1, 16.4), present only when every part of it is usable: an
/// origin of the allowed forms and a well-formed testers list. No `live` means live inspection is off.
package struct LivePolicy: Sendable, Equatable {
    package var origin: LiveOrigin
    /// The hello interval until a hello answer says otherwise, within the same bounds (15–120 s).
    package var interval: Duration
    /// At most `Limits.maxTesters`, ids unique. Expired entries are kept: expiry is decided at
    /// match time against the wall clock, not when the policy is read.
    package var testers: [TesterEntry]

    package init(origin: LiveOrigin, interval: Duration, testers: [TesterEntry]) {
        self.origin = origin
        self.interval = interval
        self.testers = testers
    }
}

/// Why a policy's `live` object was ignored (and live inspection is therefore off): the rest of
/// the policy still applies. The caller logs it once per policy.
package enum LivePolicyProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notAnObject
    /// The origin is missing or not of a form 16.4 allows; the text is kept, cut, for the log line.
    case origin(String?)
    case testersNotAList
    case tooManyTesters(count: Int, limit: Int)
    case duplicateTesterID(String)
    /// Entry `index` (from 0) is not an object with a non-empty `id`, a 64-lowercase-hex `match`
    /// and a numeric `expires_at`.
    case badTester(index: Int, why: String)

    package var description: String {
        switch self {
        case .notAnObject: "live is not an object"
        case .origin(let text?): "live.origin \"\(UTF8Cut.cut(text, maxBytes: 128))\" is not an allowed origin"
        case .origin(nil): "live.origin is missing or not a string"
        case .testersNotAList: "live.testers is not a list"
        case .tooManyTesters(let count, let limit): "live.testers has \(count) entries, more than \(limit)"
        case .duplicateTesterID(let id): "live.testers names id \"\(UTF8Cut.cut(id, maxBytes: 64))\" twice"
        case .badTester(let index, let why): "live.testers[\(index)] \(why)"
        }
    }
}
