package import ApsioCore
package import ApsioJSON
/// A policy as read from a body: the policy, and why its `live` object was ignored when it was.
package struct PolicyReading: Sendable, Equatable {
    package let policy: Policy
    /// Set when the body had a `live` object that could not be used; live inspection is then off
    /// and the rest of the policy applies.
    package let ignoredLive: LivePolicyProblem?
}

/// Reads the body of `GET {Backend}/v1/policy` (LINUX-PROFILE §12), the copy of it kept on
/// disk, and the canonical form `Policy.canonicalJSON()` writes.
///
/// - Unknown fields are ignored, at every level. A field that is `null` counts as absent.
/// - A known field of the wrong JSON type, or a capture mode other than `always`/`never`, makes
///   the whole body malformed (`PolicyError`): the caller keeps its previous policy. Guessing
///   would be worse: a kill switch spelled `"true"` must not read as off.
/// - Numbers are kept within their bounds rather than refused, as the spec says of `refresh_s`
///   and `interval_s`: `refresh_s` 60–3600, `session_rate` 0–1, `logs_min_severity` 1–24; a
///   fraction of a second or of a severity is dropped.
/// - Anything wrong with `live` ignores `live` alone, as 16.4 says of its origin: live
///   inspection is then off, and `PolicyReading.ignoredLive` says why.
package enum PolicyParser {
    package static func parse(_ body: [UInt8], limits: Limits = .spec) throws(PolicyError) -> PolicyReading {
        let value: JSONValue
        do {
            value = try JSONParser(maxBytes: limits.maxPolicyBytes, maxDepth: limits.maxJSONDepth).parse(body)
        } catch {
            throw .notJSON(error)
        }
        return try parse(value, limits: limits)
    }

    package static func parse(_ body: JSONValue, limits: Limits = .spec) throws(PolicyError) -> PolicyReading {
        guard case .object(let root) = body else { throw .notAnObject }
        var policy = Policy(refresh: limits.defaultPolicyRefresh)

        if let seconds = try number(root["refresh_s"], field: "refresh_s") {
            let low = Double(limits.minPolicyRefresh.components.seconds)
            let high = Double(limits.maxPolicyRefresh.components.seconds)
            policy.refresh = .seconds(Int64(min(max(seconds, low), high).rounded(.down)))
        }
        if let killSwitch = try bool(root["kill_switch"], field: "kill_switch") {
            policy.killSwitch = killSwitch
        }
        if let capture = try object(root["capture"], field: "capture") {
            policy.capture = try readCapture(capture)
        }
        if let sampling = try object(root["sampling"], field: "sampling"),
            let rate = try number(sampling["session_rate"], field: "sampling.session_rate")
        {
            policy.sessionRate = min(max(rate, 0), 1)
        }

        var ignoredLive: LivePolicyProblem?
        if let live = root["live"], live != .null {
            switch readLive(live, limits: limits) {
            case .success(let live): policy.live = live
            case .failure(let problem): ignoredLive = problem
            }
        }
        return PolicyReading(policy: policy, ignoredLive: ignoredLive)
    }

    private static func readCapture(_ capture: [String: JSONValue]) throws(PolicyError) -> CapturePolicy {
        var result = CapturePolicy()
        result.logs = try mode(capture["logs"], field: "capture.logs")
        result.errors = try mode(capture["errors"], field: "capture.errors")
        result.metrics = try mode(capture["metrics"], field: "capture.metrics")
        result.replay = try mode(capture["replay"], field: "capture.replay")
        if let severity = try number(capture["logs_min_severity"], field: "capture.logs_min_severity") {
            let range = CapturePolicy.severityRange
            let kept = min(max(severity, Double(range.lowerBound)), Double(range.upperBound)).rounded(.down)
            result.logsMinSeverity = Int(kept)
        }
        return result
    }

    /// A missing family is `always` (15.3).
    private static func mode(_ value: JSONValue?, field: String) throws(PolicyError) -> CaptureMode {
        switch value {
        case nil, .null?: return .always
        case .string(let text)?:
            guard let mode = CaptureMode(rawValue: text) else { throw .unknownCaptureMode(field: field, value: text) }
            return mode
        default: throw .wrongType(field: field, expected: "a string")
        }
    }

    private static func readLive(_ value: JSONValue, limits: Limits) -> Result<LivePolicy, LivePolicyProblem> {
        guard case .object(let live) = value else { return .failure(.notAnObject) }
        guard let originText = live["origin"]?.stringValue else { return .failure(.origin(nil)) }
        guard let origin = LiveOrigin(originText) else { return .failure(.origin(originText)) }

        let entries: [JSONValue]
        switch live["testers"] {
        case nil, .null?: entries = []
        case .array(let items)?: entries = items
        default: return .failure(.testersNotAList)
        }
        // 16.1 says "at most 100": a longer list is not one the backend may send, and which 100
        // to keep would be a guess, so the whole object is ignored.
        guard entries.count <= limits.maxTesters else {
            return .failure(.tooManyTesters(count: entries.count, limit: limits.maxTesters))
        }

        var testers: [TesterEntry] = []
        testers.reserveCapacity(entries.count)
        var ids = Set<String>()
        for (index, entry) in entries.enumerated() {
            switch readTester(entry, limits: limits) {
            case .success(let tester):
                guard ids.insert(tester.id).inserted else { return .failure(.duplicateTesterID(tester.id)) }
                testers.append(tester)
            case .failure(let why):
                return .failure(.badTester(index: index, why: why.text))
            }
        }
        return .success(
            LivePolicy(
                origin: origin, interval: HelloInterval.seconds(from: live["interval_s"]?.numberValue, limits: limits),
                testers: testers))
    }

    private struct Why: Error { let text: String }

    /// A bad entry ignores the whole `live` object rather than the entry alone: a backend that
    /// sends one has a bug its operator should see at once (the log line, and no tester at all
    /// matching), not a tester that silently never matches.
    private static func readTester(_ value: JSONValue, limits: Limits) -> Result<TesterEntry, Why> {
        guard case .object(let entry) = value else { return .failure(Why(text: "is not an object")) }
        guard let id = entry["id"]?.stringValue, !id.isEmpty else {
            return .failure(Why(text: "has no id (a non-empty string)"))
        }
        guard id.utf8.count <= limits.maxTesterIDBytes else {
            return .failure(Why(text: "has an id longer than \(limits.maxTesterIDBytes) bytes"))
        }
        guard let match = entry["match"]?.stringValue, Hex.isLowercase(match, length: 64) else {
            return .failure(Why(text: "has no match (64 lowercase hex characters)"))
        }
        guard let expires = entry["expires_at"]?.numberValue, expires.isFinite else {
            return .failure(Why(text: "has no expires_at (Unix seconds)"))
        }
        return .success(TesterEntry(id: id, match: match, expiresAt: wholeSeconds(expires)))
    }

    /// Unix seconds as a whole number, fraction dropped, held within Int64.
    private static func wholeSeconds(_ value: Double) -> Int64 {
        let floored = value.rounded(.down)
        if floored >= 9_223_372_036_854_775_807.0 { return .max }
        if floored <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(floored)
    }

    private static func number(_ value: JSONValue?, field: String) throws(PolicyError) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .number(let number)?: return number
        default: throw .wrongType(field: field, expected: "a number")
        }
    }

    private static func bool(_ value: JSONValue?, field: String) throws(PolicyError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw .wrongType(field: field, expected: "true or false")
        }
    }

    private static func object(_ value: JSONValue?, field: String) throws(PolicyError) -> [String: JSONValue]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?: return members
        default: throw .wrongType(field: field, expected: "an object")
        }
    }
}
