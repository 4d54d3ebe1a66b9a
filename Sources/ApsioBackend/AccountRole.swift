/// What a signed-in person may do with live inspection.
package enum AccountRole: String, Sendable, Equatable, CaseIterable {
    /// May open a live view of a tester's device, renew it and leave it.
    case viewer
    /// May also change the project's settings, and so send commands (16.7).
    case admin

    package var mayChangeSettings: Bool { self == .admin }
}
