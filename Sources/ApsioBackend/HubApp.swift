package import ApsioCore

/// One app the backend serves: its name, its app key (the project's credential that devices
/// send in `Apsio-App-Key`), and its policy's tester entries, which hold matches only.
package struct HubApp: Sendable, Equatable, CustomStringConvertible {
    package let name: String
    /// A secret of the project: it never appears in a description, a log or an answer.
    package let appKey: String
    package var testers: [TesterEntry]

    package init(name: String, appKey: String, testers: [TesterEntry] = []) {
        self.name = name
        self.appKey = appKey
        self.testers = testers
    }

    package var description: String { "HubApp(\(name), \(testers.count) testers)" }

    /// The listed, unexpired entry named `id`, if any.
    func entry(_ id: String, nowUnixSeconds: Int64) -> TesterEntry? {
        testers.first { $0.id == id && !$0.isExpired(atUnixSeconds: nowUnixSeconds) }
    }
}

/// What the hub serves: the live origin it publishes, the hello interval it asks for, and the apps.
package struct HubConfiguration: Sendable, Equatable {
    package var origin: LiveOrigin
    /// `interval_s` in every hello answer and in the policy; 15 to 120 seconds.
    package var interval: Duration
    package var apps: [HubApp]

    package init(origin: LiveOrigin, interval: Duration = .seconds(30), apps: [HubApp]) {
        self.origin = origin
        self.interval = interval
        self.apps = apps
    }
}
