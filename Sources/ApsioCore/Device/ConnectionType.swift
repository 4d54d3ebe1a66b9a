/// `network.connection.type` (7.10), from the interface the default route leaves through.
package enum ConnectionType: String, Sendable, Equatable, Codable, CaseIterable {
    case wifi
    case wired
    case cell
    /// No default route: the machine cannot reach beyond its own links.
    case unavailable
    /// The route tables or the interface could not be read, or the link is of another kind.
    case unknown
}
