public import ApsioCore

/// One app the backend serves: its name, its app key (the project's credential that devices
/// send in `Apsio-App-Key`), and its policy's tester entries, which hold matches only.
public struct HubApp: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    /// A secret of the project: it never appears in a description, a log or an answer.
    public let appKey: String
    public var testers: [TesterEntry]

    public init(name: String, appKey: String, testers: [TesterEntry] = []) {
        self.name = name
        self.appKey = appKey
        self.testers = testers
    }

    public var description: String { "HubApp(\(name), \(testers.count) testers)" }

    /// The listed, unexpired entry named `id`, if any.
    func entry(_ id: String, nowUnixSeconds: Int64) -> TesterEntry? {
        testers.first { $0.id == id && !$0.isExpired(atUnixSeconds: nowUnixSeconds) }
    }
}

/// What the hub serves: the live origin it publishes, the hello interval it asks for, and the apps.
public struct HubConfiguration: Sendable, Equatable {
    public var origin: LiveOrigin
    /// `interval_s` in every hello answer and in the policy; 15 to 120 seconds.
    public var interval: Duration
    public var apps: [HubApp]

    public init(origin: LiveOrigin, interval: Duration = .seconds(30), apps: [HubApp]) {
        self.origin = origin
        self.interval = interval
        self.apps = apps
    }
}
