/// The app's place in the foreground (16.3), read on Linux from the unit's state
/// (LINUX-PROFILE §0): `active` and not frozen is active; reloading, activating, frozen or freezing
/// is interrupted; anything else is the background.
package enum Foreground: String, Sendable, Equatable, CaseIterable {
    case active
    case interrupted
    case background
}
