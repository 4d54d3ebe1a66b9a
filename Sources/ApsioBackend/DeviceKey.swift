/// A device on the live channel: an app's install. Installation ids are per app, so the app's
/// name is part of the key.
public struct DeviceKey: Sendable, Hashable, CustomStringConvertible {
    public let app: String
    public let install: String

    public init(app: String, install: String) {
        self.app = app
        self.install = install
    }

    public var description: String { "\(app)/\(install)" }
}
