/// A message as the bus delivered it (a signal or a method reply), decoded.
package struct BusMessage: Sendable, Equatable {
    /// The order in which the connection delivered its messages. A property read answered at
    /// sequence N already holds every change signalled before N, so a watcher drops those.
    package let sequence: UInt64
    package let sender: String?
    package let path: String?
    package let interface: String?
    package let member: String?
    package let body: [BusValue]

    package init(
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

    package subscript(_ index: Int) -> BusValue? {
        body.indices.contains(index) ? body[index] : nil
    }
}
