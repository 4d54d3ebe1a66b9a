/// A message as the bus delivered it (a signal or a method reply), decoded.
public struct BusMessage: Sendable, Equatable {
    /// The order in which the connection delivered its messages. A property read answered at
    /// sequence N already holds every change signalled before N, so a watcher drops those.
    public let sequence: UInt64
    public let sender: String?
    public let path: String?
    public let interface: String?
    public let member: String?
    public let body: [BusValue]

    public init(
        sequence: UInt64, sender: String? = nil, path: String? = nil, interface: String? = nil,
        member: String? = nil, body: [BusValue] = []
    ) {
        self.sequence = sequence
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.body = body
    }

    public subscript(_ index: Int) -> BusValue? {
        body.indices.contains(index) ? body[index] : nil
    }
}
