/// What `apsio-backend` (or `apsio-devbackend`) was asked to do.
package enum BackendCommand: Sendable {
    /// Serve: the flags, to be combined with the configuration directory's files.
    case run(BackendFlags)
    /// Adds or replaces a person in the accounts file; the password comes on standard input.
    case addUser(accountsPath: String, user: String, role: AccountRole, iterations: Int)
    case help
}
