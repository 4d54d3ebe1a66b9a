package import ApsioCore

/// The state directory as a whole: the operator's settings (shared with `apsioctl`) and each app's
/// own state. The one place that knows removing an app touches both.
package struct AgentState: Sendable {
    package let layout: StateLayout
    package let settings: SettingsStore
    package let apps: AppStateStore

    package init(root: String, settingsLockTimeout: Duration = .seconds(5)) {
        layout = StateLayout(root: root)
        settings = SettingsStore(layout: layout, lockTimeout: settingsLockTimeout)
        apps = AppStateStore(layout: layout)
    }

    /// Opens the app's record queue (`apps/NAME/queue`), making its directories when missing.
    package func openQueue(for app: AppName, bounds: QueueBounds = .standard) throws(RecordQueueError) -> RecordQueue {
        let layout = layout
        do {
            try layout.makeAppDirectory(app)
        } catch {
            throw .system(error)
        }
        return try RecordQueue(directory: layout.queueDirectory(app), bounds: bounds)
    }

    /// An app no longer configured: the daemon calls this for each app that has state here but no
    /// app file, at start and at every reload. Its installation id, cursor, queue, day bytes,
    /// policy and operator settings all go, so if it is configured again it is a new install with
    /// live inspection off, as a reinstalled app starts.
    ///
    /// The caller closes the app's `RecordQueue` first and calls `CursorStore.forget`.
    package func forget(_ app: AppName) throws(StateStoreError) {
        try settings.update { $0.forget(app) }
        try apps.removeState(of: app)
    }

    /// Forgets every app with state here that is not in `configured`; returns those forgotten.
    @discardableResult
    package func forgetApps(notIn configured: Set<AppName>) throws(StateStoreError) -> [AppName] {
        let removed = try apps.knownApps().filter { !configured.contains($0) }
        for app in removed { try forget(app) }
        return removed
    }
}
