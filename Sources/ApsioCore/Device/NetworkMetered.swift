/// NetworkManager's `Metered` property (the `NMMetered` enum), which gives Low Data Mode
/// (LINUX-PROFILE §0).
package enum NetworkMetered: UInt32, Sendable, Equatable, CaseIterable {
    case unknown = 0
    case yes = 1
    case no = 2
    case guessYes = 3
    case guessNo = 4

    /// Only an explicit `yes` is Low Data Mode. `guess-yes` is NetworkManager's own guess (a modem,
    /// a phone's hotspot announcing itself as metered); the spec's Low Data Mode is a choice the user
    /// made, and an operator makes it here with `nmcli connection modify ID connection.metered yes`
    /// (or with `apsioctl data-saver on`). A guess would pause ingest on links nobody chose to spare.
    package var isLowData: Bool { self == .yes }

    /// A value NetworkManager does not define (or no NetworkManager) is not Low Data Mode.
    package static func isLowData(_ raw: UInt32?) -> Bool {
        raw.flatMap(NetworkMetered.init(rawValue:))?.isLowData ?? false
    }
}
