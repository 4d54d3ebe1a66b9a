/// The kinds of event the daemon logs, each with its journal `MESSAGE_ID`, so an operator can ask
/// `journalctl MESSAGE_ID=…` for every event of one kind (and a catalog could explain it).
package enum LogKind: String, Sendable, CaseIterable {
    case started
    case stopping
    case reloaded
    case configuration
    case policy
    case ingest
    case live
    case indicator
    case control
    case journal
    case bus
    case state

    package var messageID: String {
        switch self {
        case .started: "65ada85955ef4a55bc3c5b124ab7a74f"
        case .stopping: "65e12071f26a4f12a68190f234b6fa48"
        case .reloaded: "8790161b59564a54871bcea91cccaea5"
        case .configuration: "698d6855582a4d92bb9d0d50581e16a4"
        case .policy: "52e1d4e2fa7c4f1987bf50d37722f87c"
        case .ingest: "cab5262719ca46289c4a9cd0873458cd"
        case .live: "a66641f0b05649d786f2d1210d1ec19c"
        case .indicator: "bb8cf4c827e74ed78f34bc633192844b"
        case .control: "4c5837326c9b412b9ffa466ea30e2af4"
        case .journal: "deb31b32b58d4fdfbb8b899419e0d0b1"
        case .bus: "54924f45db924754b41580684ccd34c3"
        case .state: "6290764834d3432f96c9e66a1d68549d"
        }
    }
}
