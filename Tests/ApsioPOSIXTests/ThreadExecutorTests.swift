import ApsioPOSIX
import ApsioTestSupport
import Dispatch
import Glibc
import Synchronization
import Testing

/// What runs on a `ThreadExecutor`: a preferring task, the actors it calls and its resumptions
/// after a wait, all on one thread under the given name, in the order they came.
@Suite struct ThreadExecutorTests {
    /// Shared with the tasks, which escape the test's scope.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    actor Counter {
        private(set) var threads: Set<String> = []
        func note() { threads.insert(currentThreadName()) }
    }

    @Test func aPreferringTaskItsActorsAndItsResumptionsRunOnTheNamedThread() async throws {
        let executor = ThreadExecutor(name: "apsio-test-one")
        let counter = Counter()
        let names = await Task(executorPreference: executor) { () -> [String] in
            var names = [currentThreadName()]
            await counter.note()
            try? await Task.sleep(for: .milliseconds(5))
            names.append(currentThreadName())
            // Resumed from another thread: the continuation brings the task back here.
            let fromElsewhere = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: currentThreadName()) }
            }
            names.append(currentThreadName())
            return names + [fromElsewhere == "apsio-test-one" ? "resumed on the executor" : "resumed elsewhere"]
        }.value
        #expect(names == ["apsio-test-one", "apsio-test-one", "apsio-test-one", "resumed elsewhere"])
        #expect(await counter.threads == ["apsio-test-one"])
        #expect(currentThreadName() != "apsio-test-one")
    }

    @Test func jobsRunInTheOrderTheyCame() async {
        let executor = ThreadExecutor(name: "apsio-test-fifo")
        let order = Shared<[Int]>([])
        let tasks = (0..<200).map { index in
            Task(executorPreference: executor) { order.value.withLock { $0.append(index) } }
        }
        for task in tasks { await task.value }
        #expect(order.value.withLock { $0 } == Array(0..<200))
    }

    @Test func jobsEnqueuedFromManyThreadsAtOnceAllRun() async {
        #expect(await jobsRun(on: ThreadExecutor(name: "apsio-test-many")) == 800)
    }

    @Test func aLongNameIsCutToWhatLinuxKeeps() async {
        let executor = ThreadExecutor(name: "apsio-a-very-long-thread-name")
        #expect(executor.name == "apsio-a-very-lo")
        let name = await Task(executorPreference: executor) { currentThreadName() }.value
        #expect(name == "apsio-a-very-lo")
    }
}
