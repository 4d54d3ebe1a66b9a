internal import CSystemd
import ApsioPOSIX
import Glibc
import Synchronization

/// One connection to a D-Bus bus: it owns the `sd_bus`, drives it from its own wait loop (`run`),
/// and offers asynchronous method calls and signal matches on top.
///
/// sd-bus is not thread-safe, so every touch of the `sd_bus` happens under one lock, and its
/// callbacks run inside `sd_bus_process` under that same lock. Handlers given to `addMatch` are
/// called there too: they must only hand the message on (yield it to a stream), never call back
/// into this bus, or they would wait on the lock they hold.
///
/// Calls never block the loop: each is sent with `sd_bus_call_async`, and its reply resumes the
/// caller from the loop. A call made from another task wakes the loop through a socket pair, so
/// the loop asks `sd_bus_get_events` and `sd_bus_get_timeout` again before it next sleeps.
package final class SystemBus: Sendable {
    /// No single turn of the loop holds the lock for more than this many messages, so callers are
    /// not starved by a peer that floods us.
    static let maxMessagesPerTurn = 64

    package let address: String
    private let state: Mutex<State>
    private let counter = MessageCounter()
    private let wakeReader: OwnedFileDescriptor
    private let wakeWriter: OwnedFileDescriptor

    private struct State {
        var bus: OpaquePointer?
        /// `run` is waiting on the bus fd, so only `run` may close it (see `close`).
        var looping = false
        var closeRequested = false
    }

    /// Connects; the authentication and `Hello` finish in `run`, which must be running for any
    /// call to be answered.
    package init(address: BusAddress = .system, description: String = "apsiod") throws(BusError) {
        let text = address.resolved
        self.address = text
        var bus: OpaquePointer?
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { throw .libsystemd(call: "sd_bus_new", errno: -result) }
        result = sd_bus_set_address(bus, text)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        // A peer could otherwise fill our descriptor table by passing fds in signals.
        if result >= 0 { result = sd_bus_negotiate_fds(bus, 0) }
        if result >= 0 { result = sd_bus_set_description(bus, description) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_close_unref(bus)
            throw .connectFailed(address: text, errno: -result)
        }
        do throws(SystemError) {
            (wakeReader, wakeWriter) = try OwnedFileDescriptor.socketPair(type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        } catch {
            sd_bus_close_unref(bus)
            throw .libsystemd(call: "socketpair", errno: error.errno)
        }
        state = Mutex(State(bus: bus))
    }

    deinit {
        state.withLock { Self.closeNow(&$0) }
    }

    package var isClosed: Bool { state.withLock { $0.bus == nil } }

    /// Closes the connection once. Pending calls fail with `.closed`; matches are dropped. While
    /// `run` is waiting on the bus socket the close is left to it, once the wait is torn down, so the
    /// descriptor is never closed under a waiter.
    package func close() {
        state.withLock { state in
            if state.looping {
                state.closeRequested = true
            } else {
                Self.closeNow(&state)
            }
        }
        wake()
    }

    /// Without a flush: sd-bus would wait for the peer to read without any time limit, and nothing
    /// this daemon sends needs to outlive the connection.
    private static func closeNow(_ state: inout State) {
        guard let bus = state.bus else { return }
        state.bus = nil
        sd_bus_close_unref(bus)
    }

    // MARK: - The loop

    /// Drives the connection until it breaks (throws `.disconnected`), `close` is called (throws
    /// `.closed`) or the task is cancelled (returns). The connection is closed when this returns.
    /// One loop a connection: a second `run` throws `.closed`.
    package func run() async throws(BusError) {
        try state.withLock { state throws(BusError) in
            guard state.bus != nil, !state.looping else { throw .closed }
            state.looping = true
        }
        defer {
            state.withLock { state in
                state.looping = false
                Self.closeNow(&state)
            }
        }
        while !Task.isCancelled {
            drainWakeups()
            guard let plan = try turn() else {
                // More may be waiting; let the callers the lock kept out have their turn first.
                await Task.yield()
                continue
            }
            if plan.timeout == .zero { continue }
            await waitForAny(plan)
        }
    }

    private struct WaitPlan {
        var fd: Int32
        var readable: Bool
        var writable: Bool
        var timeout: Duration?
    }

    /// Processes what is ready, then says what to wait for; `nil` when there may be more to process
    /// at once. The events and the timeout are asked after the last `sd_bus_process` of every turn,
    /// because processing changes both (a reply arrived, a call was queued, auth moved on).
    private func turn() throws(BusError) -> WaitPlan? {
        try state.withLock { state throws(BusError) -> WaitPlan? in
            guard let bus = state.bus, !state.closeRequested else { throw .closed }
            for _ in 0..<Self.maxMessagesPerTurn {
                let processed = sd_bus_process(bus, nil)
                if processed < 0 { throw .disconnected(errno: -processed) }
                if processed > 0 { continue }
                let events = sd_bus_get_events(bus)
                if events < 0 { throw .disconnected(errno: -events) }
                var deadline: UInt64 = 0
                let timed = sd_bus_get_timeout(bus, &deadline)
                if timed < 0 { throw .disconnected(errno: -timed) }
                let fd = sd_bus_get_fd(bus)
                if fd < 0 { throw .disconnected(errno: -fd) }
                return WaitPlan(
                    fd: fd, readable: events & Int32(POLLIN) != 0, writable: events & Int32(POLLOUT) != 0,
                    timeout: Self.relative(deadline))
            }
            return nil
        }
    }

    /// sd-bus gives an absolute CLOCK_MONOTONIC time in microseconds, `UInt64.max` for none.
    private static func relative(_ deadline: UInt64) -> Duration? {
        guard deadline != .max else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        guard deadline > nowMicros else { return .zero }
        return .microseconds(Int64(clamping: deadline - nowMicros))
    }

    /// Sleeps until the bus socket is ready as sd-bus asked, a caller woke us, the timeout passed or
    /// the task was cancelled. The bus fd stays open throughout: only `close` closes it, and `run`
    /// calls that only after this returned.
    private func waitForAny(_ plan: WaitPlan) async {
        let wakeFD = wakeReader.rawValue
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await Readiness.wait(wakeFD, for: .readable, timeout: plan.timeout) }
            if plan.readable {
                group.addTask { _ = try? await Readiness.wait(plan.fd, for: .readable, timeout: plan.timeout) }
            }
            if plan.writable {
                group.addTask { _ = try? await Readiness.wait(plan.fd, for: .writable, timeout: plan.timeout) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func wake() {
        // A full socket buffer already wakes the loop; nothing else can fail here that matters.
        _ = try? wakeWriter.send([1])
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while let count = try? wakeReader.receive(into: &buffer, flags: Int32(MSG_DONTWAIT)), count > 0 {}
    }

    // MARK: - Calls

    /// Calls a method and returns its reply; a D-Bus error reply throws `.methodError`. Never
    /// starts a service by bus activation: a service that is not running is absent, and this
    /// daemon only reads.
    package func call(
        destination: String, path: String, interface: String, member: String,
        arguments: [BusArgument] = [], timeout: Duration = .seconds(25)
    ) async throws(BusError) -> BusMessage {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<BusMessage, BusError>, Never>) in
            let pending = PendingReply(counter: counter, continuation: continuation)
            do throws(BusError) {
                try send(pending, destination: destination, path: path, interface: interface, member: member,
                         arguments: arguments, timeout: timeout)
            } catch {
                pending.settle(.failure(error))
            }
        }
        return try result.get()
    }

    private func send(
        _ pending: PendingReply, destination: String, path: String, interface: String, member: String,
        arguments: [BusArgument], timeout: Duration
    ) throws(BusError) {
        try state.withLock { state throws(BusError) in
            guard let bus = state.bus, !state.closeRequested else { throw .closed }
            var message: OpaquePointer?
            var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
            guard result >= 0, let message else { throw Self.failure("sd_bus_message_new_method_call", result) }
            defer { sd_bus_message_unref(message) }
            result = sd_bus_message_set_auto_start(message, 0)
            guard result >= 0 else { throw Self.failure("sd_bus_message_set_auto_start", result) }
            for argument in arguments {
                result = Self.append(argument, to: message)
                guard result >= 0 else { throw Self.failure("sd_bus_message_append_basic", result) }
            }
            let userdata = Unmanaged.passRetained(pending).toOpaque()
            var slot: OpaquePointer?
            result = sd_bus_call_async(
                bus, &slot, message,
                { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    Unmanaged<PendingReply>.fromOpaque(userdata).takeUnretainedValue().settle(with: message)
                    return 1
                },
                userdata, Self.microseconds(timeout))
            guard result >= 0, let slot else {
                Unmanaged<PendingReply>.fromOpaque(userdata).release()
                throw Self.failure("sd_bus_call_async", result)
            }
            Self.handOver(slot) { userdata in
                guard let userdata else { return }
                Unmanaged<PendingReply>.fromOpaque(userdata).takeRetainedValue().settle(.failure(.closed))
            }
        }
        wake()
    }

    /// Gives the slot to the bus: it frees it after the reply, or when the connection is freed, and
    /// the destroy callback then releases the userdata exactly once.
    private static func handOver(_ slot: OpaquePointer, destroy: sd_bus_destroy_t) {
        sd_bus_slot_set_destroy_callback(slot, destroy)
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
    }

    private static func append(_ argument: BusArgument, to message: OpaquePointer) -> Int32 {
        switch argument {
        case .string(let text):
            return text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .objectPath(let text):
            return text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }
        case .uint32(var value):
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value)
        case .bool(let flag):
            var value: Int32 = flag ? 1 : 0
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &value)
        }
    }

    private static func microseconds(_ duration: Duration) -> UInt64 {
        UInt64(max(0, duration.wholeMicroseconds))
    }

    private static func failure(_ call: String, _ result: Int32) -> BusError {
        let code = -result
        if code == ENOTCONN || code == ECONNRESET { return .disconnected(errno: code) }
        return .libsystemd(call: call, errno: code)
    }

    // MARK: - Matches

    /// Asks the bus for the messages `rule` selects and passes each to `handler`, for the life of
    /// this connection. `handler` runs inside the loop with the bus locked (see the type's note).
    /// A rule the bus refuses closes the connection (sd-bus's default), which the supervisor then
    /// reports and reconnects.
    package func addMatch(_ rule: BusMatchRule, _ handler: @escaping @Sendable (BusMessage) -> Void) throws(BusError) {
        let box = MatchHandler(counter: counter, handler: handler)
        try state.withLock { state throws(BusError) in
            guard let bus = state.bus, !state.closeRequested else { throw .closed }
            let userdata = Unmanaged.passRetained(box).toOpaque()
            var slot: OpaquePointer?
            let result = sd_bus_add_match_async(
                bus, &slot, rule.text,
                { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    Unmanaged<MatchHandler>.fromOpaque(userdata).takeUnretainedValue().deliver(message)
                    return 0
                },
                nil, userdata)
            guard result >= 0, let slot else {
                Unmanaged<MatchHandler>.fromOpaque(userdata).release()
                throw Self.failure("sd_bus_add_match_async", result)
            }
            Self.handOver(slot) { userdata in
                guard let userdata else { return }
                Unmanaged<MatchHandler>.fromOpaque(userdata).release()
            }
        }
        wake()
    }
}

/// Numbers messages in the order the connection delivers them (see `BusMessage.sequence`).
final class MessageCounter: Sendable {
    private let value = Atomic<UInt64>(0)

    func next() -> UInt64 {
        value.add(1, ordering: .relaxed).newValue
    }
}

/// The caller of one method call, resumed exactly once: by the reply, or by the slot's end.
private final class PendingReply: Sendable {
    private let counter: MessageCounter
    private let continuation: Mutex<CheckedContinuation<Result<BusMessage, BusError>, Never>?>

    init(counter: MessageCounter, continuation: CheckedContinuation<Result<BusMessage, BusError>, Never>) {
        self.counter = counter
        self.continuation = Mutex(continuation)
    }

    func settle(with message: OpaquePointer) {
        let sequence = counter.next()
        if let error = BusMessageDecoder.error(of: message) {
            // A connection that broke answers every pending call with a NoReply error of its own
            // making; that is the bus going away, not the peer saying no.
            let open = sd_bus_message_get_bus(message).map { sd_bus_is_open($0) > 0 } ?? false
            settle(.failure(open ? error : .disconnected(errno: ECONNRESET)))
            return
        }
        settle(Result { () throws(BusError) in try BusMessageDecoder.decode(message, sequence: sequence) })
    }

    func settle(_ result: Result<BusMessage, BusError>) {
        continuation.withLock { $0.take() }?.resume(returning: result)
    }
}

/// One match's handler; a message that fails to decode is dropped, as if it never matched.
private final class MatchHandler: Sendable {
    private let counter: MessageCounter
    private let handler: @Sendable (BusMessage) -> Void

    init(counter: MessageCounter, handler: @escaping @Sendable (BusMessage) -> Void) {
        self.counter = counter
        self.handler = handler
    }

    func deliver(_ message: OpaquePointer) {
        let sequence = counter.next()
        guard let decoded = try? BusMessageDecoder.decode(message, sequence: sequence) else { return }
        handler(decoded)
    }
}
