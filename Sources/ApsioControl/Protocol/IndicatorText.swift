package import ApsioCore
/// The indicator's words (16.2), in one place, so that `apsioctl status` and `watch`, the motd
/// file, the terminal lines and the daemon's `STATUS=` say exactly the same thing. They name the
/// app's team, never a person: the machine does not know who views it.
package enum IndicatorText {
    /// "Your team is viewing nginx live, 2 viewers since 14:02".
    package static func viewing(app: String, viewers: Int, since: ClockTime?) -> String {
        var text = "Your team is viewing \(app) live"
        if viewers > 0 {
            text += ", \(viewers) viewer" + (viewers == 1 ? "" : "s")
        }
        if let since { text += " since \(since)" }
        return text
    }

    /// When the last viewer left or the session ended.
    package static func viewingEnded(app: String) -> String {
        "Your team stopped viewing \(app) live"
    }

    /// A live session ended (viewers may still be connected and see it end); `reason` as
    /// `ControlEvent.ended` spells it.
    package static func ended(app: String, reason: String) -> String {
        let why: String? = switch reason {
        case "until": "its 30 minutes ran out"
        case "paused": "it stayed paused for a minute"
        case "session_bytes": "it sent as much as one session may"
        case "day_bytes": "the app sent as much as it may today"
        case "stop": "the team stopped it"
        default: nil
        }
        return "Live viewing of \(app) ended" + (why.map { ": " + $0 } ?? "")
    }

    /// The notice of a command a viewer ran (16.2). `for` is how long a raised level lasts.
    package static func notice(_ command: LiveCommandName, app: String, raisedFor: Duration = Limits.spec.raisedLogLevelDuration)
        -> String
    {
        switch command {
        case .screenshot: "Your team took a screenshot of \(app)"
        case .diagnostics: "Your team ran diagnostics on \(app)"
        case .raiseLogLevel: "Your team raised the log level of \(app) to debug for \(minutes(raisedFor))"
        }
    }

    /// The raised log level ended, by its time or with the session's consent.
    package static func logLevelRestored(app: String) -> String {
        "The log level of \(app) is back to its usual floor"
    }

    /// One line per watched app, for `STATUS=` and the motd file; nil when nobody watches, when
    /// the motd file is removed and `STATUS=` says the daemon's ordinary state.
    package static func summary(_ apps: [IndicatorViewing]) -> String? {
        let watched = apps.filter { $0.viewers > 0 }.sorted { $0.app < $1.app }
        guard !watched.isEmpty else { return nil }
        return watched.map { viewing(app: $0.app, viewers: $0.viewers, since: $0.since) }.joined(separator: "\n")
    }

    private static func minutes(_ duration: Duration) -> String {
        let minutes = Int(duration.components.seconds / 60)
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}

/// One app being viewed, as the indicator summarises it.
package struct IndicatorViewing: Sendable, Equatable {
    package var app: String
    package var viewers: Int
    package var since: ClockTime?

    package init(app: String, viewers: Int, since: ClockTime?) {
        self.app = app
        self.viewers = viewers
        self.since = since
    }
}
