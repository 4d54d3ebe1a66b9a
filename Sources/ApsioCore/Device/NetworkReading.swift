/// What the default route says about the network: its kind and whether it goes through a VPN.
public struct NetworkReading: Sendable, Equatable {
    /// `network.connection.type`: the kind of the link under any VPN.
    public var connectionType: ConnectionType
    /// `apsio.network.vpn`: the default route leaves through a `tun`/`tap`, WireGuard or PPP
    /// interface. `nil` when the route tables could not be read: never `false` for "could not tell".
    public var vpn: Bool?
    /// The interface the traffic leaves through (the VPN's when there is one), for messages.
    public var interface: String?

    public init(connectionType: ConnectionType, vpn: Bool?, interface: String? = nil) {
        self.connectionType = connectionType
        self.vpn = vpn
        self.interface = interface
    }
}
