public import ApsioCore
public import ApsioPlatform
import Synchronization

/// The loops that carry the device layer's reports to the apps' runtimes.
public enum DeviceFeeds {
    /// One unit's state, from the bus, for as long as the stream runs.
    public static func unitStates(_ states: AsyncStream<UnitState?>, into app: AppRuntime) async {
        for await state in states { await app.unitChanged(state) }
    }

    /// Low Power and Low Data Mode from the bus; Data Saver is the operator's setting.
    public static func modes(
        lowPower: AsyncStream<Bool>, lowData: AsyncStream<Bool>, dataSaver: @escaping @Sendable () -> Bool,
        into apps: @escaping @Sendable () -> [AppRuntime]
    ) async {
        await withTaskGroup(of: Void.self) { group in
            let current = ModesBox()
            group.addTask {
                for await on in lowPower {
                    let modes = current.set(lowPower: on)
                    for app in apps() { await app.modesChanged(lowPower: modes.0, lowData: modes.1, dataSaver: dataSaver()) }
                }
            }
            group.addTask {
                for await on in lowData {
                    let modes = current.set(lowData: on)
                    for app in apps() { await app.modesChanged(lowPower: modes.0, lowData: modes.1, dataSaver: dataSaver()) }
                }
            }
        }
    }

    /// The journal, routed to each app, until cancelled or the journal fails.
    public static func journal(
        _ follower: JournalFollower, into apps: @escaping @Sendable (String) -> AppRuntime?
    ) async throws {
        while !Task.isCancelled {
            let batch = try await follower.next()
            var byApp: [String: [LogRecord]] = [:]
            for routed in batch.records { byApp[routed.appID, default: []].append(routed.record) }
            for (appID, records) in byApp.sorted(by: { $0.key < $1.key }) {
                await apps(appID)?.records(records)
            }
        }
    }
}

/// The last value of each bus-reported mode, shared by the two loops that follow them.
private final class ModesBox: Sendable {
    private let modes = Mutex<(Bool, Bool)>((false, false))
    func set(lowPower: Bool) -> (Bool, Bool) { modes.withLock { $0.0 = lowPower; return $0 } }
    func set(lowData: Bool) -> (Bool, Bool) { modes.withLock { $0.1 = lowData; return $0 } }
}
