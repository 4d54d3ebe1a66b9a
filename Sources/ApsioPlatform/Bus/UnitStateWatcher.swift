package import ApsioCore
import Synchronization

/// Follows the state of a set of systemd units on the bus (LINUX-PROFILE §0, §3, R).
///
/// Each unit's object is found with `GetUnit`, falling back to `LoadUnit` (never by computing a
/// path), after `Subscribe` asks systemd to send its signals. Its `org.freedesktop.systemd1.Unit`
/// and `.Service` properties are read with `GetAll` and followed with `PropertiesChanged`; a
/// property invalidated without a value is read again. `UnitNew` finds a unit that appears later,
/// `UnitRemoved` marks one systemd unloaded, the end of `Reloading` and a new owner of
/// `org.freedesktop.systemd1` (systemd re-executed) read everything again.
///
/// A unit's state is `nil` while unknown: before the first read, while systemd is not on the bus,
/// and while the bus connection is down. Unknown is the background (`Foreground(unitState:)`),
/// which closes the live channel: the safe side. A new watcher says so too when its first
/// connection fails: whoever it replaces may have told its consumers of a state that no one can
/// vouch for any more.
package final class UnitStateWatcher: BusWatcher {
    static let systemd = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"
    static let unitInterface = "org.freedesktop.systemd1.Unit"
    static let serviceInterface = "org.freedesktop.systemd1.Service"

    package let units: [String]
    private let streams: [String: AsyncStream<UnitState?>]
    private let continuations: [String: AsyncStream<UnitState?>.Continuation]
    /// What each unit's stream last said; a unit absent has said nothing yet, so its first
    /// state goes out even when it is "unknown".
    private let published: Mutex<[String: UnitState?]>

    package init(units: [String]) {
        var unique: [String] = []
        for unit in units where !unique.contains(unit) { unique.append(unit) }
        self.units = unique
        var streams: [String: AsyncStream<UnitState?>] = [:]
        var continuations: [String: AsyncStream<UnitState?>.Continuation] = [:]
        for unit in unique {
            // The newest state is all a consumer needs; a slow one never makes this grow.
            (streams[unit], continuations[unit]) = AsyncStream.makeStream(of: UnitState?.self, bufferingPolicy: .bufferingNewest(1))
        }
        self.streams = streams
        self.continuations = continuations
        published = Mutex([:])
    }

    deinit {
        continuations.values.forEach { $0.finish() }
    }

    /// Each change of `unit`'s state, newest first kept; `nil` for a unit not watched. One consumer
    /// a unit.
    package func updates(for unit: String) -> AsyncStream<UnitState?>? {
        streams[unit]
    }

    /// The last state read; `nil` while unknown.
    package func current(_ unit: String) -> UnitState? {
        published.withLock { $0[unit] ?? nil }
    }

    package func connectionLost() {
        for unit in units { publish(unit, nil) }
    }

    private func publish(_ unit: String, _ state: UnitState?) {
        guard continuations[unit] != nil else { return }
        let changed = published.withLock { states -> Bool in
            guard states[unit] != .some(state) else { return false }
            states[unit] = .some(state)
            return true
        }
        if changed { continuations[unit]?.yield(state) }
    }

    package func serve(_ bus: SystemBus) async {
        await Connection(bus: bus, watcher: self).serve()
    }

    /// What one connection knows: the units' objects and properties, and which reads are newer
    /// than which signals. Thrown away with the connection.
    private final class Connection {
        struct Tracked {
            var path: String?
            var unit: [String: BusValue] = [:]
            var service: [String: BusValue] = [:]
            var unitReadAt: UInt64 = 0
            var serviceReadAt: UInt64 = 0
        }

        let bus: SystemBus
        let watcher: UnitStateWatcher
        let inbox = BusInbox()
        var tracked: [String: Tracked] = [:]
        var matchedPaths: Set<String> = []

        init(bus: SystemBus, watcher: UnitStateWatcher) {
            self.bus = bus
            self.watcher = watcher
        }

        func serve() async {
            defer { inbox.finish() }
            do throws(BusError) {
                try bus.addMatch(.nameOwnerChanged(UnitStateWatcher.systemd), inbox.deliver)
                // One rule a member: with Subscribe on, systemd also signals every job on the machine.
                for member in ["UnitNew", "UnitRemoved", "Reloading"] {
                    try bus.addMatch(
                        .signal(sender: UnitStateWatcher.systemd, path: UnitStateWatcher.managerPath,
                                interface: UnitStateWatcher.managerInterface, member: member),
                        inbox.deliver)
                }
                try await readAll()
                for await message in inbox.messages {
                    if inbox.takeOverflow() {
                        try await readAll()
                    } else {
                        try await handle(message)
                    }
                }
            } catch {
                return
            }
        }

        private func handle(_ message: BusMessage) async throws(BusError) {
            switch (message.interface, message.member) {
            case ("org.freedesktop.DBus", "NameOwnerChanged"):
                if message[2]?.string?.isEmpty ?? true {
                    tracked = [:]
                    for unit in watcher.units { watcher.publish(unit, nil) }
                } else {
                    try await readAll()
                }
            case (UnitStateWatcher.managerInterface, "UnitNew"):
                guard let name = message[0]?.string, watcher.units.contains(name),
                      tracked[name]?.path != message[1]?.string
                else { return }
                try await read(name)
            case (UnitStateWatcher.managerInterface, "UnitRemoved"):
                // Unloaded (garbage-collected while inactive). Not loaded again here: LoadUnit
                // would bring it back only for systemd to collect it again, over and over.
                guard let name = message[0]?.string, watcher.units.contains(name),
                      let path = tracked[name]?.path, path == message[1]?.string
                else { return }
                tracked[name] = Tracked(path: nil)
                watcher.publish(name, UnitState(loadState: "unloaded", activeState: "inactive", subState: "dead"))
            case (UnitStateWatcher.managerInterface, "Reloading"):
                if message[0]?.bool == false { try await readAll() }
            case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                try await propertiesChanged(message)
            default:
                return
            }
        }

        private func propertiesChanged(_ message: BusMessage) async throws(BusError) {
            guard let path = message.path, let interface = message[0]?.string else { return }
            let changed = message[1]?.stringDictionary ?? [:]
            let invalidated = message[2]?.strings ?? []
            // Aliases of one unit share its object, so more than one name may follow this path.
            for name in watcher.units where tracked[name]?.path == path {
                guard var unit = tracked[name] else { continue }
                switch interface {
                case UnitStateWatcher.unitInterface:
                    guard message.sequence > unit.unitReadAt else { continue }
                    unit.unit.merge(changed) { $1 }
                case UnitStateWatcher.serviceInterface:
                    guard message.sequence > unit.serviceReadAt else { continue }
                    unit.service.merge(changed) { $1 }
                default:
                    continue
                }
                tracked[name] = unit
                if !invalidated.isEmpty {
                    try await readProperties(name, path: path)
                } else {
                    watcher.publish(name, Self.state(unit))
                }
            }
        }

        /// `Subscribe`, then every unit. A systemd without `Subscribe` (or already subscribed)
        /// still answers reads; one that is not on the bus leaves every unit unknown.
        private func readAll() async throws(BusError) {
            do {
                _ = try await managerCall("Subscribe")
            } catch where Self.meansAbsent(error) {
                tracked = [:]
                for unit in watcher.units { watcher.publish(unit, nil) }
                return
            } catch where error.isMethodError {
                // Read on: PropertiesChanged may still come (and the reads are right regardless).
            }
            for unit in watcher.units { try await read(unit) }
        }

        private func read(_ name: String) async throws(BusError) {
            guard let path = try await resolve(name) else {
                tracked[name] = Tracked(path: nil)
                watcher.publish(name, .notFound)
                return
            }
            if !matchedPaths.contains(path) {
                try bus.addMatch(.propertiesChanged(sender: UnitStateWatcher.systemd, path: path), inbox.deliver)
                matchedPaths.insert(path)
            }
            try await readProperties(name, path: path)
        }

        private func readProperties(_ name: String, path: String) async throws(BusError) {
            var unit = Tracked(path: path)
            let unitReply = try await getAll(path: path, interface: UnitStateWatcher.unitInterface)
            unit.unit = unitReply?.properties ?? [:]
            unit.unitReadAt = unitReply?.sequence ?? 0
            // Sockets, timers and targets have no Service interface; their service properties stay empty.
            let serviceReply = try await getAll(path: path, interface: UnitStateWatcher.serviceInterface)
            unit.service = serviceReply?.properties ?? [:]
            unit.serviceReadAt = serviceReply?.sequence ?? 0
            tracked[name] = unit
            watcher.publish(name, unitReply == nil ? .notFound : Self.state(unit))
        }

        /// `GetUnit` finds a loaded unit; `LoadUnit` loads one that is not (real systemd answers a
        /// unit without a file with an object whose `LoadState` is `not-found`). `nil` when neither
        /// gives an object.
        private func resolve(_ name: String) async throws(BusError) -> String? {
            do {
                return try await managerCall("GetUnit", name)[0]?.string
            } catch where error.isMethodError && !Self.meansAbsent(error) {
                do {
                    return try await managerCall("LoadUnit", name)[0]?.string
                } catch where error.isMethodError && !Self.meansAbsent(error) {
                    return nil
                }
            }
        }

        private func managerCall(_ member: String, _ name: String? = nil) async throws(BusError) -> BusMessage {
            try await bus.call(
                destination: UnitStateWatcher.systemd, path: UnitStateWatcher.managerPath,
                interface: UnitStateWatcher.managerInterface, member: member,
                arguments: name.map { [.string($0)] } ?? [])
        }

        /// The properties and the sequence of the reply; `nil` when the object lacks the interface.
        private func getAll(path: String, interface: String) async throws(BusError) -> (properties: [String: BusValue], sequence: UInt64)? {
            do {
                let reply = try await bus.call(
                    destination: UnitStateWatcher.systemd, path: path, interface: "org.freedesktop.DBus.Properties",
                    member: "GetAll", arguments: [.string(interface)])
                return (reply[0]?.stringDictionary ?? [:], reply.sequence)
            } catch where error.isMethodError && !Self.meansAbsent(error) {
                return nil
            }
        }

        private static func meansAbsent(_ error: BusError) -> Bool {
            [
                "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            ].contains(error.methodErrorName ?? "")
        }

        static func state(_ unit: Tracked) -> UnitState {
            UnitStateReading.state(unit: unit.unit, service: unit.service)
        }
    }
}
