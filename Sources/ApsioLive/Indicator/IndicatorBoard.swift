package import ApsioCore

/// Who is watching which app, from the live runtimes' notices (16.2). Pure: the daemon feeds it
/// events with the wall-clock time and carries its changes to `apsioctl`, `STATUS=`, the motd file
/// and the terminals.
package struct IndicatorBoard: Sendable, Equatable {
    package struct Watch: Sendable, Equatable {
        package var viewers: Int
        /// When viewing started (Unix ms), for "since 14:02".
        package var sinceUnixMs: Int64
    }

    package enum Change: Sendable, Equatable {
        case viewingStarted(app: AppName, viewers: Int)
        case viewersChanged(app: AppName, viewers: Int)
        case viewingEnded(app: AppName)
        case command(app: AppName, LiveCommandName)
    }

    package private(set) var watched: [AppName: Watch] = [:]

    package init() {}

    /// The apps being viewed, by name, for the motd file and `STATUS=`.
    package var watchedApps: [AppName] { watched.keys.sorted() }

    package mutating func apply(_ event: AppLiveEvent, nowUnixMs: Int64) -> [Change] {
        let app = event.app
        switch event.event {
        case .viewers(let count) where count > 0:
            if var watch = watched[app] {
                guard watch.viewers != count else { return [] }
                watch.viewers = count
                watched[app] = watch
                return [.viewersChanged(app: app, viewers: count)]
            }
            watched[app] = Watch(viewers: count, sinceUnixMs: nowUnixMs)
            return [.viewingStarted(app: app, viewers: count)]
        case .viewers, .sessionEnded:
            // No viewer left, or the session is over whatever the last count said: nobody watches.
            return watched.removeValue(forKey: app) == nil ? [] : [.viewingEnded(app: app)]
        case .notice(let command):
            return [.command(app: app, command)]
        case .sessionStarted, .logLevel, .held:
            return []
        }
    }

    /// An app removed from the configuration is no longer watched.
    package mutating func forget(_ app: AppName) -> [Change] {
        watched.removeValue(forKey: app) == nil ? [] : [.viewingEnded(app: app)]
    }
}
