package import ApsioCore
import ApsioJSON
/// What `status` and `watch` say of one configured app: the indicator (16.2) and what decides it.
package struct ControlAppStatus: Sendable, Equatable {
    /// The app file's name, without `.conf`.
    package var name: String
    package var unit: String
    /// nil while the unit's state is not known (the bus is not up yet).
    package var foreground: Foreground?
    /// `apsioctl allow-live`: off until the operator turns it on.
    package var allowLive: Bool
    /// The consent in force: the operator's override, else the app file's `Consent=`; nil when
    /// neither says (not asked: nothing leaves).
    package var consentGranted: Bool?
    /// Viewers watching now; zero when nobody is.
    package var viewers: Int
    /// When the current viewing began, Unix ms; nil when nobody is viewing.
    package var viewingSinceUnixMs: Int64?
    /// When a raised log level (16.6 `raise_log_level`) ends, Unix ms; nil when none is raised.
    package var logLevelRaisedUntilUnixMs: Int64?
    /// Until when, Unix ms, the live backend asked for nothing (a `Retry-After`, a 402 or 403):
    /// why a box allowed to go live says nothing. nil when no such moment is ahead.
    package var liveHeldUntilUnixMs: Int64?
    /// The app's ingest, in `status` answers; nil in `watch` events (what the indicator shows) and
    /// for an app that is not served.
    package var ingest: ControlIngestStatus?
    /// Why the last policy fetch failed, or the answer was refused, until one is good again: the
    /// app's records wait for a policy. In `status` answers only, like `ingest`.
    package var policyProblem: String?

    package init(
        name: String, unit: String, foreground: Foreground? = nil, allowLive: Bool = false,
        consentGranted: Bool? = nil, viewers: Int = 0, viewingSinceUnixMs: Int64? = nil,
        logLevelRaisedUntilUnixMs: Int64? = nil, liveHeldUntilUnixMs: Int64? = nil, ingest: ControlIngestStatus? = nil,
        policyProblem: String? = nil
    ) {
        self.name = name
        self.unit = unit
        self.foreground = foreground
        self.allowLive = allowLive
        self.consentGranted = consentGranted
        self.viewers = viewers
        self.viewingSinceUnixMs = viewingSinceUnixMs
        self.logLevelRaisedUntilUnixMs = logLevelRaisedUntilUnixMs
        self.liveHeldUntilUnixMs = liveHeldUntilUnixMs
        self.ingest = ingest
        self.policyProblem = policyProblem
    }

    package var isViewed: Bool { viewers > 0 }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name),
            "unit": .string(unit),
            "foreground": foreground.map { .string($0.rawValue) } ?? .null,
            "allow_live": .bool(allowLive),
            "consent": consentGranted.map { .string($0 ? "granted" : "denied") } ?? .string("not_asked"),
            "viewers": .number(Double(viewers)),
            "viewing_since": viewingSinceUnixMs.map { .number(Double($0)) } ?? .null,
            "log_level_raised_until": logLevelRaisedUntilUnixMs.map { .number(Double($0)) } ?? .null,
            "live_held_until": liveHeldUntilUnixMs.map { .number(Double($0)) } ?? .null,
        ]
        if let ingest { members["ingest"] = ingest.json }
        if let policyProblem { members["policy_problem"] = .string(policyProblem) }
        return .object(members)
    }

    init(json value: JSONValue) throws(ControlError) {
        let reader = try ControlFieldReader(value, what: "an app's status")
        name = try reader.string("name")
        unit = try reader.string("unit")
        foreground = try reader.optionalString("foreground").flatMap(Foreground.init(rawValue:))
        allowLive = try reader.bool("allow_live")
        switch try reader.string("consent") {
        case "granted": consentGranted = true
        case "denied": consentGranted = false
        default: consentGranted = nil
        }
        viewers = try reader.int("viewers")
        viewingSinceUnixMs = try reader.optionalInt("viewing_since").map(Int64.init)
        logLevelRaisedUntilUnixMs = try reader.optionalInt("log_level_raised_until").map(Int64.init)
        // Absent from a daemon older than the field: nothing held, as far as it says.
        liveHeldUntilUnixMs = try reader.optionalInt("live_held_until").map(Int64.init)
        ingest = try reader.optionalValue("ingest").map { value throws(ControlError) in try ControlIngestStatus(json: value) }
        policyProblem = try reader.optionalString("policy_problem")
    }
}
