/// `apsioctl consent grant|deny`: overrides the app file's `Consent=` until changed again.
package enum ConsentOverride: String, Sendable, Equatable, Codable {
    case granted
    case denied
}
