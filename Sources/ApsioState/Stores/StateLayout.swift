package import ApsioPOSIX
package import ApsioCore

/// Where each piece of state lives under the state directory (docs/state.md lists them all).
package struct StateLayout: Sendable, Equatable {
    package let root: String

    package init(root: String) {
        self.root = root
    }

    /// The operator's choices, shared with `apsioctl`.
    package var settingsFile: String { root + "/settings.json" }
    /// flock'd around every read-modify-write of `settingsFile`.
    package var settingsLockFile: String { root + "/settings.lock" }
    /// flock'd by the daemon for its whole life (`StateDirectoryLock`).
    package var daemonLockFile: String { root + "/apsiod.lock" }
    package var appsDirectory: String { root + "/apps" }

    package func appDirectory(_ app: AppName) -> String { appsDirectory + "/" + app.rawValue }
    package func installationIDFile(_ app: AppName) -> String { appDirectory(app) + "/installation-id" }
    package func dayBytesFile(_ app: AppName) -> String { appDirectory(app) + "/day-bytes.json" }
    package func policyFile(_ app: AppName) -> String { appDirectory(app) + "/policy.json" }
    /// The `ETag` the backend sent with `policyFile`'s body, for `If-None-Match` after a restart.
    package func policyETagFile(_ app: AppName) -> String { appDirectory(app) + "/policy.etag" }
    package func cursorFile(_ app: AppName) -> String { appDirectory(app) + "/cursor" }
    /// The app's `RecordQueue`.
    package func queueDirectory(_ app: AppName) -> String { appDirectory(app) + "/queue" }

    /// Creates `apps/` and `apps/NAME/` when missing: the daemon's own, readable by the group
    /// `apsio` so `apsioctl apps` can show the installation id.
    package func makeAppDirectory(_ app: AppName) throws(SystemError) {
        try FileSystem.makeDirectory(appsDirectory, mode: 0o750)
        try FileSystem.makeDirectory(appDirectory(app), mode: 0o750)
    }
}
