/// The answer to `status`: each app asked about, and the machine-wide Data Saver.
package struct ControlStatus: Sendable, Equatable {
    package var apps: [ControlAppStatus]
    package var dataSaver: Bool

    package init(apps: [ControlAppStatus], dataSaver: Bool) {
        self.apps = apps
        self.dataSaver = dataSaver
    }
}
