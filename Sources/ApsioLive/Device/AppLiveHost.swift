import ApsioCore

/// The `LiveHost` of one app: events go out in order on a stream the app's runtime consumes;
/// commands are forwarded to the runtime, which reads the device.
final class AppLiveHost: LiveHost, @unchecked Sendable {
    let events: AsyncStream<LiveHostEvent>
    private let continuation: AsyncStream<LiveHostEvent>.Continuation
    /// Set once, right after the runtime exists; read-only afterwards.
    nonisolated(unsafe) weak var runtime: AppRuntime?

    init() {
        (events, continuation) = AsyncStream.makeStream(of: LiveHostEvent.self, bufferingPolicy: .unbounded)
    }

    func live(_ event: LiveHostEvent) { continuation.yield(event) }
    func finish() { continuation.finish() }

    func screenshot() async -> JSONValue? { await runtime?.screenshot() }
    func diagnostics(commandID: String) async -> JSONValue? { await runtime?.diagnostics(commandID: commandID) }
}
