/// What a hello says about the device (16.4): the install and its Resource.
package struct LiveIdentity: Sendable, Equatable {
    /// `app.installation.id`, in every body and in `next`'s query.
    package var install: String
    /// `session.id`; nil while the unit has no invocation.
    package var session: String?
    /// `device.model.identifier`.
    package var model: String
    /// `os.name`, a space, `os.version`.
    package var os: String
    /// `service.version`.
    package var release: String

    package init(install: String, session: String?, model: String, os: String, release: String) {
        self.install = install
        self.session = session
        self.model = model
        self.os = os
        self.release = release
    }
}
