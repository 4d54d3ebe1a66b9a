/// What the default route says about the network: its kind and whether it goes through a VPN.
package struct NetworkReading: Sendable, Equatable {
    /// `network.connection.type`: the kind of the link under any VPN.
    package var connectionType: ConnectionType
    /// `apsio.network.vpn`: the default route leaves through a `tun`/`tap`, WireGuard or PPP
    /// interface. `nil` when the route tables could not be read: never `false` for "could not tell".
    package var vpn: Bool?
    /// The interface the traffic leaves through (the VPN's when there is one), for messages.
    package var interface: String?

    package init(connectionType: ConnectionType, vpn: Bool?, interface: String? = nil) {
        self.connectionType = connectionType
        self.vpn = vpn
        self.interface = interface
    }
}
