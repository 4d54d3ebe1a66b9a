package import ApsioCore
package import ApsioPOSIX
import Synchronization

/// What the supervisor is doing with the bus, for the operator's status and for tests.
package enum BusConnectionEvent: Sendable, Equatable {
    /// Connected, and the bus answered.
    case connected(address: String)
    /// Could not connect; the next attempt is in `retryIn`.
    case connectFailed(BusError, retryIn: Duration)
    /// The connection broke; the next attempt is in `retryIn`.
    case lost(BusError, retryIn: Duration)
}

/// Keeps one connection to the system bus and the watchers on it: connects, hands the connection
/// to every watcher, and when the connection breaks tells them their state is unknown, waits
/// (exponential backoff) and connects again, after which each watcher reads everything afresh.
package final class SystemBusSupervisor: Sendable {
    package let address: BusAddress
    private let watchers: [any BusWatcher]
    private let initialBackoff: ReconnectBackoff
    /// The backoff's waits: the daemon's clock, a manual one in tests.
    private let clock: any AgentClock
    private let continuation: AsyncStream<BusConnectionEvent>.Continuation
    /// Connection events, newest kept when nobody reads them.
    package let events: AsyncStream<BusConnectionEvent>

    package init(
        address: BusAddress = .system, watchers: [any BusWatcher], backoff: ReconnectBackoff = ReconnectBackoff(),
        clock: any AgentClock = SystemAgentClock()
    ) {
        self.address = address
        self.watchers = watchers
        initialBackoff = backoff
        self.clock = clock
        (events, continuation) = AsyncStream.makeStream(of: BusConnectionEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Runs until the task is cancelled.
    package func run() async {
        // Local sources may end early (a file that does not exist); only the bus side ends the run.
        await withTaskGroup(of: Bool.self) { group in
            for watcher in watchers {
                group.addTask {
                    await watcher.followLocalSources()
                    return false
                }
            }
            group.addTask {
                await self.superviseConnections()
                return true
            }
            while let supervisorEnded = await group.next() {
                if supervisorEnded { group.cancelAll() }
            }
        }
        continuation.finish()
    }

    private func superviseConnections() async {
        var backoff = initialBackoff
        var everConnected = false
        while !Task.isCancelled {
            let bus: SystemBus
            do throws(BusError) {
                bus = try SystemBus(address: address)
            } catch {
                if !everConnected { watchers.forEach { $0.connectionLost() } }
                let delay = backoff.nextDelay()
                continuation.yield(.connectFailed(error, retryIn: delay))
                guard (try? await clock.sleep(for: delay)) != nil else { return }
                continue
            }
            everConnected = true
            let failure = await serve(bus, backoff: &backoff)
            watchers.forEach { $0.connectionLost() }
            guard let failure, !Task.isCancelled else { return }
            let delay = backoff.nextDelay()
            continuation.yield(.lost(failure, retryIn: delay))
            guard (try? await clock.sleep(for: delay)) != nil else { return }
        }
    }

    private enum Outcome: Sendable {
        case loopEnded(BusError?)
        case answered
        case watcherEnded
    }

    /// Runs the bus loop and the watchers on one connection; returns why the loop ended (`nil`
    /// when cancelled). The backoff starts over once the bus has answered a call, so a bus that
    /// accepts connections and drops them at once is retried ever more slowly, not in a tight loop.
    private func serve(_ bus: SystemBus, backoff: inout ReconnectBackoff) async -> BusError? {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do throws(BusError) {
                    try await bus.run()
                    return .loopEnded(nil)
                } catch {
                    return .loopEnded(error)
                }
            }
            group.addTask {
                let answered = try? await bus.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "GetId")
                return answered == nil ? .watcherEnded : .answered
            }
            for watcher in watchers {
                group.addTask {
                    await watcher.serve(bus)
                    return .watcherEnded
                }
            }
            var failure: BusError?
            while let outcome = await group.next() {
                switch outcome {
                case .loopEnded(let error):
                    failure = error
                    group.cancelAll()
                case .answered:
                    backoff.reset()
                    continuation.yield(.connected(address: bus.address))
                case .watcherEnded:
                    continue
                }
            }
            return failure
        }
    }
}
