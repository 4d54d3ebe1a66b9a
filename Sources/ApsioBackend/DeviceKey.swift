/// A device on the live channel: an app's install. Installation ids are per app, so the app's
/// name is part of the key.
package struct DeviceKey: Sendable, Hashable, CustomStringConvertible {
    package let app: String
    package let install: String

    package init(app: String, install: String) {
        self.app = app
        self.install = install
    }

    package var description: String { "\(app)/\(install)" }
}
