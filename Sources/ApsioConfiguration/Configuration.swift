package import ApsioCore

/// Everything `configDir` says: the daemon's settings, the apps that loaded, and what was wrong.
/// Apps with a problem are not in `apps`; their problems are.
package struct Configuration: Sendable, Equatable {
    package var daemon: DaemonConfiguration
    /// In name order, each name once.
    package var apps: [AppConfiguration]
    /// In the order the files were read; within a file, in line order as found.
    package var problems: [ConfigurationProblem]
    /// Every app that has a file in `apps.d`, loaded or not; nil when `apps.d` is missing or could
    /// not be listed. An app is removed only when its file is gone: one whose file is broken for a
    /// while keeps its state, and nothing is removed when the directory cannot be read.
    package var appFiles: Set<AppName>?

    package init(
        daemon: DaemonConfiguration = DaemonConfiguration(), apps: [AppConfiguration] = [],
        problems: [ConfigurationProblem] = [], appFiles: Set<AppName>? = nil
    ) {
        self.daemon = daemon
        self.apps = apps
        self.problems = problems
        self.appFiles = appFiles
    }

    package func app(named name: AppName) -> AppConfiguration? {
        apps.first { $0.name == name }
    }

    /// What a reload to `new` changes, compared with this configuration.
    package func changes(to new: Configuration) -> ConfigurationChanges {
        ConfigurationChanges(from: self, to: new)
    }
}
