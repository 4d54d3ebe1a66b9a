import ApsioCore
import Synchronization
import ApsioControl

/// A `ControlHandler` that keeps what it was asked and answers from a few configured apps, so the
/// server can be tested without a daemon behind it.
final class FakeControlHandler: ControlHandler {
    struct State {
        var allowLive: [String: Bool] = [:]
        var consent: [String: ConsentOverride] = [:]
        var dataSaver = false
        var reloads = 0
        var watchers: [AsyncStream<ControlEvent>.Continuation] = []
        var watchersEnded = 0
    }

    let configured: [String]
    let state = Mutex(State())
    /// Closed, `reload` waits until it opens: a request in progress for as long as a test needs.
    let reloadGate = Gate()

    init(apps: [String] = ["nginx", "api"]) {
        configured = apps
    }

    var snapshot: State { state.withLock { $0 } }

    private func check(_ apps: [AppName]) throws(ControlError) -> [String] {
        for app in apps where !configured.contains(app.rawValue) {
            throw ControlError(.unknownApp, "no app \(app) is configured")
        }
        return apps.isEmpty ? configured : apps.map(\.rawValue)
    }

    func appStatus(_ name: String) -> ControlAppStatus {
        state.withLock { state in
            ControlAppStatus(
                name: name, unit: name + ".service", foreground: .active, allowLive: state.allowLive[name] ?? false,
                consentGranted: state.consent[name].map { $0 == .granted })
        }
    }

    func status(apps: [AppName]) async throws(ControlError) -> ControlStatus {
        let names = try check(apps)
        return ControlStatus(apps: names.map(appStatus), dataSaver: snapshot.dataSaver)
    }

    func apps() async throws(ControlError) -> [ControlAppInfo] {
        configured.map {
            ControlAppInfo(name: $0, unit: $0 + ".service", serviceName: "com.example." + $0, serviceVersion: "1.0",
                           buildID: "ab12", installationID: "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69")
        }
    }

    func setAllowLive(_ allowed: Bool, apps: [AppName]) async throws(ControlError) -> [AppName] {
        let names = try check(apps)
        state.withLock { state in for name in names { state.allowLive[name] = allowed } }
        return names.compactMap { try? AppName($0) }
    }

    func setConsent(_ consent: ConsentOverride, apps: [AppName]) async throws(ControlError) -> [AppName] {
        let names = try check(apps)
        state.withLock { state in for name in names { state.consent[name] = consent } }
        return names.compactMap { try? AppName($0) }
    }

    func setDataSaver(_ on: Bool) async throws(ControlError) {
        state.withLock { $0.dataSaver = on }
        emit(.dataSaver(on))
    }

    func reload() async throws(ControlError) -> [String] {
        await reloadGate.pass()
        state.withLock { $0.reloads += 1 }
        return ["apps.d/broken.conf:3: unknown key `Famlies` in [App]"]
    }

    func watch(apps: [AppName]) async throws(ControlError) -> AsyncStream<ControlEvent> {
        let names = try check(apps)
        let (stream, continuation) = AsyncStream.makeStream(of: ControlEvent.self)
        continuation.onTermination = { [self] _ in state.withLock { $0.watchersEnded += 1 } }
        for name in names { continuation.yield(.status(appStatus(name))) }
        state.withLock { $0.watchers.append(continuation) }
        return stream
    }

    /// What the daemon does when the indicator changes: yield to every watcher, never wait.
    func emit(_ event: ControlEvent) {
        for watcher in snapshot.watchers { watcher.yield(event) }
    }

    var watcherCount: Int { snapshot.watchers.count }
}

/// Open, or closed with everyone who came to it waiting until it opens.
final class Gate: Sendable {
    private struct State {
        var closed = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func close() { state.withLock { $0.closed = true } }

    func open() {
        let waiting = state.withLock { state in
            state.closed = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func pass() async {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                if state.closed { state.waiting.append(continuation) }
                return state.closed
            }
            if !wait { continuation.resume() }
        }
    }
}
