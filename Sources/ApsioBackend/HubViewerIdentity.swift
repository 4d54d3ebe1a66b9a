/// A signed-in person watching a device. Only people reach the hub as viewers: the HTTP layer
/// refuses app keys and other service credentials before they get here (16.7).
package struct HubViewerIdentity: Sendable, Hashable {
    /// The sign-in's public id (not its secret token): one viewer per sign-in and device.
    package let signIn: String
    package let user: String
    /// Whether this person may change the project's settings, and so send commands (16.7).
    package let mayChangeSettings: Bool

    package init(signIn: String, user: String, mayChangeSettings: Bool) {
        self.signIn = signIn
        self.user = user
        self.mayChangeSettings = mayChangeSettings
    }
}
