import ApsioPOSIX
import Synchronization

/// Where password checks run: threads of their own, one for each check the backend runs at once
/// (`BackendLimits.maxConcurrentPasswordChecks`). A check is half a second or more of PBKDF2 that
/// never yields. On the process's task pool (a thread per core) a few at once would hold every
/// thread, and every task waiting for one (the hub's actor among them) would wait for the checks;
/// on a connection's loop, every request on that loop would. Here the checks only share the cores.
enum PasswordCheckThreads {
    private static let executors: [ThreadExecutor] = (0..<max(1, BackendLimits.default.maxConcurrentPasswordChecks)).map {
        ThreadExecutor(name: "apsio-password-\($0)")
    }
    private static let turn = Atomic<Int>(0)

    /// `check`'s result, computed on one of the threads.
    static func run<Result: Sendable>(_ check: @escaping @Sendable () -> Result) async -> Result {
        let executor = executors[turn.wrappingAdd(1, ordering: .relaxed).oldValue % executors.count]
        return await withTaskExecutorPreference(executor) { check() }
    }
}
