public import ApsioPOSIX
public import ApsioCore

/// Where each piece of state lives under the state directory (docs/state.md lists them all).
public struct StateLayout: Sendable, Equatable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The operator's choices, shared with `apsioctl`.
    public var settingsFile: String { root + "/settings.json" }
    /// flock'd around every read-modify-write of `settingsFile`.
    public var settingsLockFile: String { root + "/settings.lock" }
    public var appsDirectory: String { root + "/apps" }

    public func appDirectory(_ app: AppName) -> String { appsDirectory + "/" + app.rawValue }
    public func installationIDFile(_ app: AppName) -> String { appDirectory(app) + "/installation-id" }
    public func dayBytesFile(_ app: AppName) -> String { appDirectory(app) + "/day-bytes.json" }
    public func policyFile(_ app: AppName) -> String { appDirectory(app) + "/policy.json" }
    /// The `ETag` the backend sent with `policyFile`'s body, for `If-None-Match` after a restart.
    public func policyETagFile(_ app: AppName) -> String { appDirectory(app) + "/policy.etag" }
    public func cursorFile(_ app: AppName) -> String { appDirectory(app) + "/cursor" }
    /// The app's `RecordQueue`.
    public func queueDirectory(_ app: AppName) -> String { appDirectory(app) + "/queue" }

    /// Creates `apps/` and `apps/NAME/` when missing: the daemon's own, readable by the group
    /// `apsio` so `apsioctl apps` can show the installation id.
    public func makeAppDirectory(_ app: AppName) throws(SystemError) {
        try FileSystem.makeDirectory(appsDirectory, mode: 0o750)
        try FileSystem.makeDirectory(appDirectory(app), mode: 0o750)
    }
}
