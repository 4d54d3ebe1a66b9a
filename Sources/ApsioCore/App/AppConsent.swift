/// The app file's `Consent=` (13.5): what the app's own code would have asked its user. Absent
/// means not asked, and then nothing leaves the machine; `apsioctl consent` overrides it.
package enum AppConsent: String, Sendable, Equatable, CaseIterable {
    case granted
    case denied

    /// What holds once the operator's override, if any, is applied over the app file's answer.
    package static func effective(file: AppConsent?, override: ConsentOverride?) -> AppConsent? {
        switch override {
        case .granted: .granted
        case .denied: .denied
        case nil: file
        }
    }
}
