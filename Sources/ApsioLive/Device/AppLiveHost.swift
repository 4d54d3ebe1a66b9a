import ApsioCore
import ApsioJSON
import ApsioPOSIX
import Synchronization

/// The `LiveHost` of one app: events go out in order on a stream the app's runtime consumes;
/// commands are forwarded to the runtime, which reads the device.
///
/// The day's bytes are the exception: they are written here, before `keep` returns, because the
/// channel asks for a count to be kept just before it starts the request that carries the body.
/// Queued for the runtime, the write could come after the body was on the wire, and a SIGKILL
/// between the two would let a restart spend those bytes again (16.3: the day's count survives
/// launches); and the runtime sends the body only if the write succeeded.
final class AppLiveHost: LiveHost, Sendable {
    let events: AsyncStream<LiveHostEvent>
    private let continuation: AsyncStream<LiveHostEvent>.Continuation
    /// Weak: the runtime owns this host. Set once, right after the runtime exists (`attach`).
    private struct RuntimeReference {
        weak var runtime: AppRuntime?
    }
    private let runtimeReference = Mutex(RuntimeReference())
    private let clock: any AgentClock
    private let saveDayBytes: @Sendable (DayBytes, _ durable: Bool) -> Bool
    private let lastDurableDayBytesSave = Mutex<MonotonicInstant?>(nil)

    init(clock: any AgentClock, saveDayBytes: @escaping @Sendable (DayBytes, _ durable: Bool) -> Bool) {
        self.clock = clock
        self.saveDayBytes = saveDayBytes
        (events, continuation) = AsyncStream.makeStream(of: LiveHostEvent.self, bufferingPolicy: .unbounded)
    }

    /// The runtime that answers the commands, once it exists.
    func attach(_ runtime: AppRuntime) {
        runtimeReference.withLock { $0.runtime = runtime }
    }

    private var runtime: AppRuntime? { runtimeReference.withLock { $0.runtime } }

    func live(_ event: LiveHostEvent) {
        continuation.yield(event)
    }

    func finish() { continuation.finish() }

    func screenshot() async -> JSONValue? { await runtime?.screenshot() }
    func diagnostics(commandID: String) async -> JSONValue? { await runtime?.diagnostics(commandID: commandID) }

    /// Every count is written as it is counted (a body goes out at most once a second), so a crash
    /// of apsiod, SIGKILL included, loses none of it; it is synced to disk at most every 5 seconds,
    /// so a power cut loses at most those seconds of it.
    func keep(_ bytes: DayBytes) -> Bool {
        let now = clock.now().mono
        let durable = lastDurableDayBytesSave.withLock { last in
            guard last.map({ now - $0 >= .seconds(5) }) ?? true else { return false }
            last = now
            return true
        }
        return saveDayBytes(bytes, durable)
    }
}
