package import ApsioCore

/// What a reload changes: the daemon starts the added apps, stops the removed ones, restarts the
/// changed ones, and leaves the rest running untouched.
package struct ConfigurationChanges: Sendable, Equatable {
    package var added: [AppName]
    package var removed: [AppName]
    /// In both, with any setting different (a new key in `AppKeyFile=` included).
    package var changed: [AppName]
    package var daemonChanged: Bool

    package init(added: [AppName] = [], removed: [AppName] = [], changed: [AppName] = [], daemonChanged: Bool = false) {
        self.added = added
        self.removed = removed
        self.changed = changed
        self.daemonChanged = daemonChanged
    }

    package init(from old: Configuration, to new: Configuration) {
        let oldApps = Dictionary(old.apps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newApps = Dictionary(new.apps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        added = newApps.keys.filter { oldApps[$0] == nil }.sorted()
        removed = oldApps.keys.filter { newApps[$0] == nil }.sorted()
        changed = newApps.compactMap { name, app in
            guard let before = oldApps[name], before != app else { return nil }
            return name
        }.sorted()
        daemonChanged = old.daemon != new.daemon
    }

    package var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && !daemonChanged }
}
