/// Everything `configDir` says: the daemon's settings, the apps that loaded, and what was wrong.
/// Apps with a problem are not in `apps`; their problems are.
public struct Configuration: Sendable, Equatable {
    public var daemon: DaemonConfiguration
    /// In name order, each name once.
    public var apps: [AppConfiguration]
    /// In the order the files were read; within a file, in line order as found.
    public var problems: [ConfigurationProblem]

    public init(daemon: DaemonConfiguration = DaemonConfiguration(), apps: [AppConfiguration] = [], problems: [ConfigurationProblem] = []) {
        self.daemon = daemon
        self.apps = apps
        self.problems = problems
    }

    public func app(named name: AppName) -> AppConfiguration? {
        apps.first { $0.name == name }
    }

    /// What a reload to `new` changes, compared with this configuration.
    public func changes(to new: Configuration) -> ConfigurationChanges {
        ConfigurationChanges(from: self, to: new)
    }
}
