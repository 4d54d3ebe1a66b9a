package import ApsioConfiguration

/// What the configuration directory says: `backend.conf`'s settings, the apps of `apps.d` that
/// loaded, and every problem found, each as `FILE:LINE: message`.
package struct BackendFiles: Sendable, Equatable {
    package var settings = BackendSettings()
    /// Whether `backend.conf` had a problem: on a reload its settings are then not taken at all.
    package var settingsBroken = false
    /// In file name order, each name and each app key once.
    package var apps: [HubApp] = []
    package var problems: [ConfigurationProblem] = []
    /// The app name each file of `apps.d` would give, loaded or not; nil when `apps.d` could not
    /// be listed. An app whose file is still there but broken keeps its last good version on a
    /// reload; an app goes only when its file goes.
    package var appFileNames: Set<String>? = []

    package init() {}

    /// These files as a reload applies them over `previous`, the last good configuration: a broken
    /// `backend.conf` keeps the previous settings, a broken app file keeps that app's previous
    /// version, an app directory that cannot be listed keeps every app.
    package func keepingLastGood(of previous: BackendFiles) -> BackendFiles {
        var result = self
        if settingsBroken { result.settings = previous.settings }
        guard let present = appFileNames else {
            result.apps = previous.apps
            return result
        }
        for app in previous.apps where present.contains(app.name) && !result.apps.contains(where: { $0.name == app.name }) {
            // Its file is there but did not load: the app stays as it was, unless its key now
            // belongs to another app.
            guard !result.apps.contains(where: { $0.appKey == app.appKey }) else { continue }
            result.apps.append(app)
        }
        return result
    }
}
