import Foundation

/// Runs `body`, which blocks (a child waited for, a server polled until it answers), on a thread of
/// its own and resumes the caller with its result. The cooperative pool has one thread per core
/// (two here), and the scripted backends, servers and clients of every test running meanwhile need
/// them: a fixture that waits seconds for a Redis failover on one of them stalls all of those, and
/// a test elsewhere then sees a backend that "did not answer".
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
