import ApsioCore
import ApsioNet
import ApsioPOSIX
import Foundation
import Synchronization
import Testing
import ApsioPolicy
import ApsioState
import ApsioTestSupport

/// The policy fetcher against a real server on loopback, with time on a manual clock.
@Suite struct PolicyFetcherTests {
    static let appKey = "apsio_app_9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"
    static let app = try! AppName("demo")

    /// `GET /v1/policy` answered from a script the test changes; every request is recorded, and
    /// requests may be held until the test lets them go.
    final class PolicyBackend: Sendable {
        private struct State {
            var answer = HTTPServerResponse(status: 503)
            var seen: [HTTPServerRequest] = []
            var holding = false
            var held: [Int: CheckedContinuation<Void, Never>] = [:]
            var nextHeld = 0
        }

        private final class Shared: Sendable {
            let state = Mutex(State())
        }

        private let shared = Shared()
        /// Bumped whenever a request arrives, is held, or goes on: what a test waits on.
        let changes = ChangeSignal()
        let server: HTTPServer
        let port: Int

        init() async throws {
            let shared = self.shared
            let changes = changes
            var router = HTTPRouter()
            router.add("GET", "/v1/policy") { request in
                let number = shared.state.withLock { state -> Int? in
                    state.seen.append(request)
                    guard state.holding else { return nil }
                    state.nextHeld += 1
                    return state.nextHeld
                }
                changes.notify()
                if let number {
                    await withTaskCancellationHandler {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            let goNow = shared.state.withLock { state -> Bool in
                                if Task.isCancelled || !state.holding { return true }
                                state.held[number] = continuation
                                return false
                            }
                            if goNow { continuation.resume() }
                            changes.notify()
                        }
                    } onCancel: {
                        shared.state.withLock { $0.held.removeValue(forKey: number) }?.resume()
                        changes.notify()
                    }
                }
                return shared.state.withLock { $0.answer }
            }
            server = HTTPServer(router: router)
            port = try await server.start()
        }

        var endpoint: HTTPEndpoint { get throws { try HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)") } }
        var requests: [HTTPServerRequest] { shared.state.withLock { $0.seen } }
        var heldCount: Int { shared.state.withLock { $0.held.count } }

        func answer(_ status: Int, _ body: String = "", headers: HTTPHeaders = [:]) {
            shared.state.withLock { $0.answer = HTTPServerResponse(status: status, headers: headers, body: Array(body.utf8)) }
        }

        func hold() { shared.state.withLock { $0.holding = true } }

        func release() {
            let held = shared.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.holding = false
                defer { state.held.removeAll() }
                return Array(state.held.values)
            }
            for continuation in held { continuation.resume() }
            changes.notify()
        }
    }

    /// What the fetcher reported and delivered.
    final class Recorder: Sendable {
        private let state = Mutex<(events: [PolicyFetchEvent], policies: [Policy], finished: Bool)>(([], [], false))
        let changes = ChangeSignal()

        var events: [PolicyFetchEvent] { state.withLock { $0.events } }
        var policies: [Policy] { state.withLock { $0.policies } }
        var finished: Bool { state.withLock { $0.finished } }

        func record(_ event: PolicyFetchEvent) {
            state.withLock { $0.events.append(event) }
            changes.notify()
        }

        func follow(_ stream: AsyncStream<Policy>) -> Task<Void, Never> {
            Task {
                for await policy in stream {
                    state.withLock { $0.policies.append(policy) }
                    changes.notify()
                }
                state.withLock { $0.finished = true }
                changes.notify()
            }
        }

        func count(_ matching: (PolicyFetchEvent) -> Bool) -> Int { events.filter(matching).count }
    }

    /// One fetcher on a state directory of its own, stopped whatever the test did.
    final class Harness: Sendable {
        let directory: TemporaryDirectory
        let backend: PolicyBackend
        let clock: ManualAgentClock
        let recorder: Recorder
        let fetcher: PolicyFetcher
        let follower: Task<Void, Never>

        init(directory: TemporaryDirectory? = nil, backend: PolicyBackend? = nil) async throws {
            let directory = try directory ?? TemporaryDirectory()
            let backend = if let backend { backend } else { try await PolicyBackend() }
            let recorder = Recorder()
            let clock = ManualAgentClock()
            let fetcher = PolicyFetcher(
                app: PolicyFetcherTests.app, backend: try backend.endpoint, appKey: AppKey(PolicyFetcherTests.appKey),
                client: try HTTPClient(), store: AppStateStore(layout: StateLayout(root: directory.path)),
                clock: clock, events: { recorder.record($0) })
            self.directory = directory
            self.backend = backend
            self.recorder = recorder
            self.clock = clock
            self.fetcher = fetcher
            follower = recorder.follow(fetcher.policies)
        }

        var store: AppStateStore { AppStateStore(layout: StateLayout(root: directory.path)) }

        /// Waits until the fetcher sleeps until `after` from the clock's origin.
        func asleep(until after: Duration) async throws {
            try await clock.waitAsleep("asleep until \(after)") { $0 == [MonotonicInstant(after)] }
        }

        /// Waits until `condition` holds, checked whenever the backend, the fetcher's reports or
        /// the clock's sleepers change.
        func until(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
            try await ApsioTestSupport.until(what, on: [backend.changes, recorder.changes, clock], condition)
        }

        func close() async {
            await fetcher.stop()
            await follower.value
            await backend.server.stop()
        }
    }

    static func withHarness(
        directory: TemporaryDirectory? = nil, backend: PolicyBackend? = nil, _ body: (Harness) async throws -> Void
    ) async throws {
        let harness = try await Harness(directory: directory, backend: backend)
        do {
            try await body(harness)
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    static func body(refresh: Int, killSwitch: Bool = false) -> String {
        #"{"refresh_s":\#(refresh),"kill_switch":\#(killSwitch),"capture":{"logs":"always"},"future_field":[1,2]}"#
    }

    static func policy(refresh: Int, killSwitch: Bool = false) -> Policy {
        Policy(refresh: .seconds(refresh), killSwitch: killSwitch)
    }

    // MARK: - ETag and refresh

    @Test func theETagIsSentBackAndA304KeepsThePolicyInUse() async throws {
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 60), headers: ["ETag": #""v1""#])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(60))
            try await h.until("the first policy") { h.recorder.policies == [Self.policy(refresh: 60)] }
            #expect(h.backend.requests.first?.headers["If-None-Match"] == nil)
            #expect(h.recorder.events == [.fetched(changed: true, ignoredLive: nil)])

            h.backend.answer(304)
            h.clock.advance(by: .seconds(60))
            try await h.until("the second request answered") { h.recorder.events.last == .notModified }
            #expect(h.backend.requests.count == 2)
            #expect(h.backend.requests.last?.headers["If-None-Match"] == #""v1""#)
            #expect(await h.fetcher.current == Self.policy(refresh: 60))
            // Nothing new to apply.
            #expect(h.recorder.policies.count == 1)
            try await h.asleep(until: .seconds(120))
        }
    }

    @Test func itAsksAgainEveryRefreshSecondsAsTheLatestPolicySays() async throws {
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 120))
            await h.fetcher.start()
            try await h.asleep(until: .seconds(120))
            h.clock.advance(by: .seconds(119))
            // Nothing can happen before the deadline: the fetcher is still asleep on it.
            try await h.asleep(until: .seconds(120))
            #expect(h.backend.requests.count == 1)

            h.backend.answer(200, Self.body(refresh: 3600))
            h.clock.advance(by: .seconds(1))
            try await h.until("the second request") { h.backend.requests.count == 2 }
            try await h.asleep(until: .seconds(120 + 3600))
            #expect(h.recorder.policies == [Self.policy(refresh: 120), Self.policy(refresh: 3600)])

            // The same body again: applied already, so not delivered twice, and not rewritten.
            h.clock.advance(by: .seconds(3600))
            try await h.until("the third request") { h.backend.requests.count == 3 }
            try await h.asleep(until: .seconds(120 + 7200))
            #expect(h.recorder.policies.count == 2)
            #expect(h.recorder.events.last == .fetched(changed: false, ignoredLive: nil))
        }
    }

    // MARK: - The copy on disk

    @Test func theLastGoodPolicyIsUsedAtStartBeforeAnyAnswerAndWhileTheBackendIsDown() async throws {
        let directory = try TemporaryDirectory()
        // A first run fetches and keeps the policy and its ETag.
        try await Self.withHarness(directory: directory) { h in
            h.backend.answer(200, Self.body(refresh: 600, killSwitch: true), headers: ["ETag": #"W/"seven""#])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(600))
        }
        #expect(try AppStateStore(layout: StateLayout(root: directory.path)).lastPolicy(for: Self.app)
            == Array(Self.body(refresh: 600, killSwitch: true).utf8))

        // The next start: the kept policy is in use while the first request is still unanswered,
        // and the request names the kept ETag.
        try await Self.withHarness(directory: directory) { h in
            h.backend.hold()
            h.backend.answer(503)
            await h.fetcher.start()
            try await h.until("the request held") { h.backend.heldCount == 1 }
            #expect(h.recorder.events == [.loadedFromDisk])
            try await h.until("the kept policy delivered") { h.recorder.policies == [Self.policy(refresh: 600, killSwitch: true)] }
            #expect(h.backend.requests.first?.headers["If-None-Match"] == #"W/"seven""#)

            // The backend is down: the kept policy stays in use.
            h.backend.release()
            try await h.until("the failure reported") {
                h.recorder.events.last == .failed(.status(503), retryIn: .seconds(1))
            }
            #expect(await h.fetcher.current == Self.policy(refresh: 600, killSwitch: true))
            #expect(h.recorder.policies.count == 1)
        }

        // Nothing listening at all: the same.
        let stopped = try await PolicyBackend()
        await stopped.server.stop()
        try await Self.withHarness(directory: directory, backend: stopped) { h in
            await h.fetcher.start()
            try await h.until("the refused connection reported") {
                h.recorder.events.contains { if case .failed(.network(.connectionRefused), _) = $0 { true } else { false } }
            }
            #expect(h.recorder.events.first == .loadedFromDisk)
            #expect(h.recorder.policies == [Self.policy(refresh: 600, killSwitch: true)])
        }
    }

    @Test func aDamagedKeptCopyIsReportedAndTheBackendDecides() async throws {
        let directory = try TemporaryDirectory()
        try AppStateStore(layout: StateLayout(root: directory.path)).saveLastPolicy(Array("{not json".utf8), for: Self.app)
        try await Self.withHarness(directory: directory) { h in
            h.backend.answer(200, Self.body(refresh: 60), headers: ["ETag": #""v2""#])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(60))
            #expect(h.recorder.events.count == 2)
            if case .storedPolicyUnusable = h.recorder.events.first {} else { Issue.record("no report of the damaged copy") }
            #expect(h.recorder.policies == [Self.policy(refresh: 60)])
            // Without a usable copy, no ETag is sent, and the good body replaces the damaged one.
            #expect(h.backend.requests.first?.headers["If-None-Match"] == nil)
            #expect(try h.store.lastPolicy(for: Self.app) == Array(Self.body(refresh: 60).utf8))
            #expect(try h.store.lastPolicyETag(for: Self.app) == PolicyETag(#""v2""#))
        }
    }

    // MARK: - Malformed bodies

    @Test func aMalformedBodyKeepsTheLastGoodPolicyAndIsReportedOncePerBody() async throws {
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 60), headers: ["ETag": #""good""#])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(60))

            let stringKillSwitch = #"{"refresh_s":60,"kill_switch":"true"}"#
            h.backend.answer(200, stringKillSwitch, headers: ["ETag": #""bad""#])
            for round in 1...3 {
                h.clock.advance(by: .seconds(60))
                try await h.asleep(until: .seconds(60 * (round + 1)))
            }
            let malformed = h.recorder.events.filter { if case .malformed = $0 { true } else { false } }
            #expect(malformed == [.malformed(.wrongType(field: "kill_switch", expected: "true or false"))])
            #expect(await h.fetcher.current == Self.policy(refresh: 60))
            #expect(h.recorder.policies == [Self.policy(refresh: 60)])
            // The good policy is still the one kept, with its own ETag, which is what is asked with.
            #expect(try h.store.lastPolicy(for: Self.app) == Array(Self.body(refresh: 60).utf8))
            #expect(h.backend.requests.last?.headers["If-None-Match"] == #""good""#)

            // Another malformed body is news.
            h.backend.answer(200, "[]")
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(300))
            #expect(h.recorder.count { $0 == .malformed(.notAnObject) } == 1)

            // A good one, then the first malformed one again: reported again.
            h.backend.answer(200, Self.body(refresh: 60, killSwitch: true))
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(360))
            h.backend.answer(200, stringKillSwitch)
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(420))
            #expect(h.recorder.count { if case .malformed(.wrongType) = $0 { true } else { false } } == 2)
            #expect(await h.fetcher.current == Self.policy(refresh: 60, killSwitch: true))
        }
    }

    @Test func anETagThatIsNotAnEntityTagIsNotSentBack() async throws {
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 60), headers: ["ETag": "unquoted"])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(60))
            // A 304 to a request that named no ETag is not "keep what you have": it is a failure.
            h.backend.answer(304)
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(61))
            #expect(h.recorder.events.last == .failed(.status(304), retryIn: .seconds(1)))
            #expect(h.backend.requests.count == 2)
            #expect(h.backend.requests.allSatisfy { $0.headers["If-None-Match"] == nil })
            #expect(try h.store.lastPolicyETag(for: Self.app) == nil)
            #expect(await h.fetcher.current == Self.policy(refresh: 60))
        }
    }

    @Test func onlyAnEntityTagIsKeptAndItIsReadableByTheGroupOnly() throws {
        #expect(PolicyETag(#""33a64df5""#) != nil)
        #expect(PolicyETag(#"W/"v2""#) != nil)
        #expect(PolicyETag(#""""#) != nil)
        for refused in ["33a64df5", #""open"#, #""a"b""#, "\"a b\"", "\"a\r\nSet-Cookie: x\"", "w/\"v\"",
                        "\"" + String(repeating: "a", count: PolicyETag.maxBytes) + "\""] {
            #expect(PolicyETag(refused) == nil, "\(refused)")
        }
        let directory = try TemporaryDirectory()
        let store = AppStateStore(layout: StateLayout(root: directory.path))
        try store.saveLastPolicyETag(PolicyETag(#"W/"v2""#), for: Self.app)
        #expect(try store.lastPolicyETag(for: Self.app) == PolicyETag(#"W/"v2""#))
        #expect(try directory.mode(of: "apps/demo/policy.etag") == 0o640)
        try store.saveLastPolicyETag(nil, for: Self.app)
        #expect(try store.lastPolicyETag(for: Self.app) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/apps/demo/policy.etag"))
    }

    // MARK: - Failures

    @Test func failuresBackOffFromOneSecondHonourRetryAfterAndNeverWaitLongerThanARefresh() async throws {
        try await Self.withHarness { h in
            h.backend.answer(503)
            await h.fetcher.start()
            try await h.asleep(until: .seconds(1))
            h.clock.advance(by: .seconds(1))
            try await h.asleep(until: .seconds(3))
            h.clock.advance(by: .seconds(2))
            try await h.asleep(until: .seconds(7))

            h.backend.answer(429, headers: ["Retry-After": "42"])
            h.clock.advance(by: .seconds(4))
            try await h.asleep(until: .seconds(49))

            // A Retry-After of zero is still a second; one of a day is cut to the refresh interval
            // (300 s while there is no policy).
            h.backend.answer(500, headers: ["Retry-After": "0"])
            h.clock.advance(by: .seconds(42))
            try await h.asleep(until: .seconds(50))
            h.backend.answer(503, headers: ["Retry-After": "86400"])
            h.clock.advance(by: .seconds(1))
            try await h.asleep(until: .seconds(350))

            #expect(h.recorder.events.map { event -> Duration? in
                if case .failed(_, let retryIn) = event { retryIn } else { nil }
            } == [.seconds(1), .seconds(2), .seconds(4), .seconds(42), .seconds(1), .seconds(300)])

            // A success resets the backoff: the next failure waits a second again.
            h.backend.answer(200, Self.body(refresh: 60))
            h.clock.advance(by: .seconds(300))
            try await h.asleep(until: .seconds(410))
            h.backend.answer(502)
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(411))
        }
    }

    @Test func fetchNowAsksAtOnceWhateverTheScheduleAndAfterARequestInFlight() async throws {
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 3600))
            await h.fetcher.start()
            try await h.asleep(until: .seconds(3600))

            h.backend.answer(200, Self.body(refresh: 3600, killSwitch: true))
            await h.fetcher.fetchNow()
            try await h.until("the kill switch applied without the clock moving") {
                h.recorder.policies.last == Self.policy(refresh: 3600, killSwitch: true)
            }
            try await h.asleep(until: .seconds(3600))
            #expect(h.backend.requests.count == 2)

            // Asked while a request is on its way: once it is answered, another goes.
            h.backend.hold()
            await h.fetcher.fetchNow()
            try await h.until("the request held") { h.backend.heldCount == 1 }
            await h.fetcher.fetchNow()
            h.backend.answer(200, Self.body(refresh: 3600))
            h.backend.release()
            try await h.until("a request after the one in flight") { h.backend.requests.count == 4 }
            try await h.asleep(until: .seconds(3600))
            #expect(h.recorder.policies.last == Self.policy(refresh: 3600))
        }
    }

    @Test func stopCancelsTheRequestInFlightAtOnceAndEndsTheStream() async throws {
        let backend = try await PolicyBackend()
        let harness = try await Harness(backend: backend)
        backend.hold()
        await harness.fetcher.start()
        try await harness.until("the request held") { backend.heldCount == 1 }
        await harness.fetcher.stop()
        try await poll("the connection closed") { backend.server.connectionCount == 0 }
        await harness.follower.value
        #expect(harness.recorder.finished)
        #expect(harness.recorder.events.isEmpty)
        await harness.close()
    }

    // MARK: - The app key

    @Test func theAppKeyReachesTheBackendOnlyNeverARedirectTargetAnEventOrAFile() async throws {
        let elsewhere = try await PolicyBackend()
        elsewhere.answer(200, Self.body(refresh: 60))
        try await Self.withHarness { h in
            h.backend.answer(200, Self.body(refresh: 60), headers: ["ETag": #""k""#])
            await h.fetcher.start()
            try await h.asleep(until: .seconds(60))
            h.backend.answer(
                307, headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/v1/policy", "Retry-After": "5"])
            h.clock.advance(by: .seconds(60))
            try await h.asleep(until: .seconds(65))

            #expect(h.recorder.events.last == .failed(.status(307), retryIn: .seconds(5)))
            #expect(elsewhere.requests.isEmpty)
            #expect(h.backend.requests.count == 2)
            #expect(h.backend.requests.allSatisfy { $0.headers["Apsio-App-Key"] == Self.appKey })
            for event in h.recorder.events {
                #expect(!"\(event)".contains(Self.appKey))
                #expect(!String(reflecting: event).contains(Self.appKey))
            }
            let files = try h.directory.files()
            #expect(files.contains("apps/demo/policy.json"))
            #expect(files.contains("apps/demo/policy.etag"))
            for file in files {
                guard let data = FileManager.default.contents(atPath: h.directory.path + "/" + file) else { continue }
                #expect(data.range(of: Data(Self.appKey.utf8)) == nil, "\(file) holds the app key")
            }
        }
        await elsewhere.server.stop()
    }
}
