/// A socket the unit listens on: a TCP socket in `LISTEN`, or a UDP socket bound and not connected
/// (what `ss -l` lists).
package struct ListeningSocket: Sendable, Equatable, Hashable, Codable, Comparable {
    package enum Transport: String, Sendable, Equatable, Hashable, Codable {
        case tcp
        case udp
    }

    package var transport: Transport
    /// The local address as `ss` prints it: `0.0.0.0`, `127.0.0.1`, `::`, `fe80::1`.
    package var address: String
    package var port: Int

    package init(transport: Transport, address: String, port: Int) {
        self.transport = transport
        self.address = address
        self.port = port
    }

    package static func < (lhs: ListeningSocket, rhs: ListeningSocket) -> Bool {
        (lhs.transport.rawValue, lhs.port, lhs.address) < (rhs.transport.rawValue, rhs.port, rhs.address)
    }
}
