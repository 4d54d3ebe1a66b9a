/// Follows the properties of one object of one service on the bus, through the service coming,
/// going and coming back: `NameOwnerChanged` says when, `GetAll` reads, `PropertiesChanged`
/// follows. Power-profiles-daemon and NetworkManager are read this way.
struct PropertyFollower: Sendable {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    let service: String
    let path: String
    let interface: String

    /// Serves one connection until its task is cancelled. `update` gets the properties whenever they
    /// change, and `nil` whenever the service is not on the bus.
    func serve(_ bus: SystemBus, update: @Sendable ([String: BusValue]?) -> Void) async {
        let inbox = BusInbox()
        defer { inbox.finish() }
        do throws(BusError) {
            try bus.addMatch(.nameOwnerChanged(service), inbox.deliver)
            try bus.addMatch(.propertiesChanged(sender: service, path: path), inbox.deliver)
        } catch {
            return
        }
        var properties: [String: BusValue]?
        var readAt: UInt64 = 0

        func read() async -> Bool {
            do throws(BusError) {
                let reply = try await bus.call(
                    destination: service, path: path, interface: Self.propertiesInterface, member: "GetAll",
                    arguments: [.string(interface)])
                properties = reply[0]?.stringDictionary ?? [:]
                readAt = reply.sequence
            } catch {
                guard error.isMethodError else { return false }
                // No owner, no such object or interface, or access denied: nothing to read is absent.
                properties = nil
            }
            update(properties)
            return true
        }

        guard await read() else { return }
        for await message in inbox.messages {
            if inbox.takeOverflow() {
                guard await read() else { return }
                continue
            }
            guard message.sequence > readAt else { continue }
            switch message.member {
            case "NameOwnerChanged":
                if message[2]?.string?.isEmpty ?? true {
                    properties = nil
                    update(nil)
                } else {
                    guard await read() else { return }
                }
            case "PropertiesChanged":
                guard message[0]?.string == interface else { continue }
                guard var current = properties else {
                    // A change from a service we thought absent: it came before we could see it come.
                    guard await read() else { return }
                    continue
                }
                for (name, value) in message[1]?.stringDictionary ?? [:] { current[name] = value }
                properties = current
                if !(message[2]?.strings ?? []).isEmpty {
                    // Invalidated without a value: only a fresh read says what it is now.
                    guard await read() else { return }
                } else {
                    update(current)
                }
            default:
                continue
            }
        }
    }
}
