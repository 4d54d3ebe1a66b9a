package import ApsioPOSIX
import ApsioCore
import Synchronization

/// The way to one Redis server: one pipelined connection, opened when first needed and again after
/// it fails, with a deadline on every request. `RedisClient` holds one for a single server, and
/// one for each master of a cluster.
///
/// While Redis is unreachable, requests fail at once with `unavailable` and how long until the
/// next try, instead of each waiting for a connect of its own: the hub turns that into a 503
/// with `Retry-After`. Connecting again follows `RedisBackoff`; the first request after the delay
/// tries, the ones with it wait for that one try.
package final class RedisNodeClient: Sendable {
    private struct State {
        var connection: RedisConnection?
        var connecting: Task<RedisConnection, any Error>?
        var failures = 0
        var retryAt: MonotonicInstant?
        var lastFailure = ""
        var closed = false
    }

    package let endpoint: RedisEndpoint
    private let clock: any AgentClock
    private let timeout: Duration
    private let backoff: RedisBackoff
    private let limits: RedisConnection.Limits
    /// Run on each new connection before any request (loading functions, say).
    private let prepare: @Sendable (RedisConnection) async throws -> Void
    private let state = Mutex(State())
    private let activity: ChangeSignal

    package init(
        endpoint: RedisEndpoint, clock: any AgentClock, timeout: Duration = .seconds(2),
        backoff: RedisBackoff = RedisBackoff(), limits: RedisConnection.Limits = .init(), activity: ChangeSignal = ChangeSignal(),
        prepare: @escaping @Sendable (RedisConnection) async throws -> Void = { _ in }
    ) {
        self.activity = activity
        self.endpoint = endpoint
        self.clock = clock
        self.timeout = timeout
        self.backoff = backoff
        self.limits = limits
        self.prepare = prepare
    }

    /// Requests sent on the connection in use and not yet answered.
    package var waitingRequests: Int { state.withLock { $0.connection?.waitingCount ?? 0 } }

    /// Whether the last attempt reached Redis: what the viewer shows as the backend's health.
    package var isConnected: Bool { state.withLock { $0.connection.map { !$0.isFailed } ?? false } }

    /// One command's reply.
    package func send(_ command: RESPCommand, timeout: Duration? = nil) async throws -> RESPValue {
        try await send([command], timeout: timeout)[0]
    }

    /// The commands pipelined in one write, and their replies in order, within `timeout` (the
    /// client's by default).
    package func send(_ commands: [RESPCommand], timeout: Duration? = nil) async throws -> [RESPValue] {
        let connection = try await connection()
        do {
            return try await connection.send(commands, deadline: .now + (timeout ?? self.timeout))
        } catch let error as RedisError {
            forget(connection, because: error)
            throw error
        }
    }

    /// Closes the connection; every request from now on fails with `closed`.
    package func close() {
        let (connection, connecting) = state.withLock { state -> (RedisConnection?, Task<RedisConnection, any Error>?) in
            state.closed = true
            defer {
                state.connection = nil
                state.connecting = nil
            }
            return (state.connection, state.connecting)
        }
        connecting?.cancel()
        connection?.close()
    }

    // MARK: - The connection

    private enum Next {
        case use(RedisConnection)
        case wait(Task<RedisConnection, any Error>)
        case refuse(RedisError)
    }

    private func connection() async throws -> RedisConnection {
        let now = clock.now().mono
        let next = state.withLock { state -> Next in
            if state.closed { return .refuse(.closed) }
            if let connection = state.connection, !connection.isFailed { return .use(connection) }
            state.connection = nil
            if let connecting = state.connecting { return .wait(connecting) }
            if let retryAt = state.retryAt, retryAt > now {
                return .refuse(.unavailable(reason: state.lastFailure, retryIn: retryAt - now))
            }
            let task = Task { try await self.open() }
            state.connecting = task
            return .wait(task)
        }
        switch next {
        case .use(let connection): return connection
        case .refuse(let error): throw error
        case .wait(let task): return try await task.value
        }
    }

    /// One attempt to connect, as the single flight all waiting requests share.
    private func open() async throws -> RedisConnection {
        do {
            let connection = try await RedisConnection.open(endpoint, deadline: .now + timeout, limits: limits, activity: activity)
            do {
                try await prepare(connection)
            } catch {
                connection.close()
                throw RedisError.unavailable(reason: "preparing the connection to \(endpoint): \(error)", retryIn: .zero)
            }
            let closed = state.withLock { state -> Bool in
                state.connecting = nil
                guard !state.closed else { return true }
                state.connection = connection
                state.failures = 0
                state.retryAt = nil
                return false
            }
            if closed {
                connection.close()
                throw RedisError.closed
            }
            return connection
        } catch {
            let reason = (error as? RedisError).map { error -> String in
                if case .unavailable(let reason, _) = error { return reason }
                return error.description
            } ?? "\(error)"
            let now = clock.now().mono
            let delay = state.withLock { state -> Duration in
                state.connecting = nil
                state.failures += 1
                let delay = backoff.delay(afterFailures: state.failures, unit: Double.random(in: 0..<1))
                state.retryAt = now + delay
                state.lastFailure = reason
                return delay
            }
            throw RedisError.unavailable(reason: reason, retryIn: delay)
        }
    }

    /// A request failed on `connection`: the next request opens another (at once: one broken
    /// connection is not yet an outage; a failed connect is).
    private func forget(_ connection: RedisConnection, because error: RedisError) {
        guard error != .overloaded else { return }
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
    }
}
