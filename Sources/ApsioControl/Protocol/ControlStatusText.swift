package import ApsioCore
/// How `apsioctl status` and `watch` put an app's status into words; the indicator's own
/// sentences come from `IndicatorText`. `localTime` turns a Unix ms into the machine's time of day.
package enum ControlStatusText {
    package static func lines(_ status: ControlAppStatus, localTime: (Int64) -> ClockTime) -> [String] {
        var lines = ["\(status.name) (\(status.unit)): \(foreground(status.foreground)), live inspection \(status.allowLive ? "allowed" : "off"), consent \(consent(status.consentGranted))"]
        if status.isViewed {
            lines.append("  " + IndicatorText.viewing(
                app: status.name, viewers: status.viewers, since: status.viewingSinceUnixMs.map(localTime)))
        } else {
            lines.append("  Nobody is viewing \(status.name) live")
        }
        if let until = status.logLevelRaisedUntilUnixMs {
            lines.append("  Log level raised to debug until \(localTime(until))")
        }
        if let until = status.liveHeldUntilUnixMs {
            lines.append("  The live backend asked for nothing until \(localTime(until))")
        }
        if let problem = status.policyProblem { lines.append("  Policy: \(problem)") }
        if let ingest = status.ingest {
            lines.append("  Ingest: \(ingest.sentRecords) sent, \(ingest.queuedRecords) waiting (\(ingest.queuedBytes) bytes), \(ingest.droppedRecords) lost, \(ingest.filteredRecords) kept out by the policy")
            if ingest.journalGaps > 0 {
                // No figure: one would be a guess, and a wrong count reads as a true one.
                let gaps = ingest.journalGaps == 1 ? "1 gap" : "\(ingest.journalGaps) gaps"
                lines.append("  Lost to the journal: an unknown number of entries in \(gaps), vacuumed before they were sent")
            }
            if ingest.journaldDropNotes > 0 {
                // journald's own count: the lines never reached the journal, so apsiod never had them.
                let dropped = ingest.journaldDroppedLines == 1 ? "1 line" : "\(ingest.journaldDroppedLines) lines"
                let notes = ingest.journaldDropNotes == 1 ? "1 note" : "\(ingest.journaldDropNotes) notes"
                lines.append("  Dropped by journald's rate limit: \(dropped) (\(notes), each sent as a record)")
            }
            if ingest.rateLimitedRecords > 0 {
                let dropped = ingest.rateLimitedRecords == 1 ? "1 entry" : "\(ingest.rateLimitedRecords) entries"
                lines.append("  Dropped by RateLimit=: \(dropped) (each run of them sent as a record)")
            }
            if ingest.rejectedRecords > 0 {
                lines.append("  Not kept by the backend: \(ingest.rejectedRecords) of the records it accepted (its partial success)")
            }
            if let sentAs = ingest.sentAs { lines.append("  Sent as: \(sentAs)") }
            if let failure = ingest.lastFailure { lines.append("  Last failure: \(failure)") }
        }
        return lines
    }

    package static func foreground(_ foreground: Foreground?) -> String {
        switch foreground {
        case .active: "active"
        case .interrupted: "interrupted"
        case .background: "in the background"
        case nil: "state not known yet"
        }
    }

    package static func consent(_ granted: Bool?) -> String {
        switch granted {
        case true: "granted"
        case false: "denied"
        case nil: "not asked"
        }
    }
}

/// Turns a `watch` stream into the lines a person reads: the whole status the first time an app
/// is seen, then only what changed.
package struct WatchNarrator: Sendable {
    private var known: [String: ControlAppStatus] = [:]

    package init() {}

    package mutating func lines(for event: ControlEvent, localTime: (Int64) -> ClockTime) -> [String] {
        switch event {
        case .status(let status):
            defer { known[status.name] = status }
            guard let before = known[status.name] else { return ControlStatusText.lines(status, localTime: localTime) }
            return changes(from: before, to: status, localTime: localTime)
        case .notice(let app, let command, _, _):
            return [IndicatorText.notice(command, app: app)]
        case .ended(let app, let reason):
            return [IndicatorText.ended(app: app, reason: reason)]
        case .dataSaver(let on):
            return ["Data Saver is now \(on ? "on" : "off")"]
        }
    }

    private func changes(from before: ControlAppStatus, to after: ControlAppStatus, localTime: (Int64) -> ClockTime) -> [String] {
        var lines: [String] = []
        let app = after.name
        if before.foreground != after.foreground {
            lines.append("\(app) is now \(ControlStatusText.foreground(after.foreground))")
        }
        if before.allowLive != after.allowLive {
            lines.append("Live inspection of \(app) is now \(after.allowLive ? "allowed" : "off")")
        }
        if before.consentGranted != after.consentGranted {
            lines.append("Consent for \(app) is now \(ControlStatusText.consent(after.consentGranted))")
        }
        if after.viewers != before.viewers || (after.isViewed && after.viewingSinceUnixMs != before.viewingSinceUnixMs) {
            lines.append(after.isViewed
                ? IndicatorText.viewing(app: app, viewers: after.viewers, since: after.viewingSinceUnixMs.map(localTime))
                : IndicatorText.viewingEnded(app: app))
        }
        if before.logLevelRaisedUntilUnixMs != nil, after.logLevelRaisedUntilUnixMs == nil {
            lines.append(IndicatorText.logLevelRestored(app: app))
        }
        if let until = after.liveHeldUntilUnixMs, until != before.liveHeldUntilUnixMs {
            lines.append("The live backend asked for nothing from \(app) until \(localTime(until))")
        }
        return lines
    }
}
