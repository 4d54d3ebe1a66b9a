/// What a hello says about the device (16.4): the install and its Resource.
public struct LiveIdentity: Sendable, Equatable {
    /// `app.installation.id`, in every body and in `next`'s query.
    public var install: String
    /// `session.id`; nil while the unit has no invocation.
    public var session: String?
    /// `device.model.identifier`.
    public var model: String
    /// `os.name`, a space, `os.version`.
    public var os: String
    /// `service.version`.
    public var release: String

    public init(install: String, session: String?, model: String, os: String, release: String) {
        self.install = install
        self.session = session
        self.model = model
        self.os = os
        self.release = release
    }
}
