/// The answer to `status`: each app asked about, and the machine-wide Data Saver.
public struct ControlStatus: Sendable, Equatable {
    public var apps: [ControlAppStatus]
    public var dataSaver: Bool

    public init(apps: [ControlAppStatus], dataSaver: Bool) {
        self.apps = apps
        self.dataSaver = dataSaver
    }
}
