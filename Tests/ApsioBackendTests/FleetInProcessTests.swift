import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioPOSIX
import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// The fleet's rules in process: two `FleetService`s on the same stores kept in memory behave as
/// two instances of one fleet, on a clock the test moves. What the built binaries show against
/// Redis (FleetBinaryTests), tried here in milliseconds and with faults Redis cannot be made to
/// have on demand (a message lost on the way to one instance).
@Suite struct FleetInProcessTests {
    static let appKey = "apsio_app_demo_key"
    static let install = "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90"
    static let proof = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha256)
    static let ann = HubViewerIdentity(signIn: "signin-ann", user: "ann", mayChangeSettings: true)

    /// Two instances of one fleet, sharing stores in this process.
    struct Fleet {
        let clock = ManualAgentClock()
        let channels = MemoryChannels()
        let documents: CountingDocuments
        let instances: [FleetService]

        init() async {
            let configuration = HubConfiguration(
                origin: LiveOrigin("https://live.example.com")!, interval: .seconds(30),
                apps: [HubApp(name: "com.example.demo", appKey: FleetInProcessTests.appKey, testers: [
                    TesterEntry(id: "qa-box-7", match: FleetInProcessTests.proof.match(hashing: sha256), expiresAt: 1_900_000_000)
                ])])
            var stores = FleetStores.memory(clock: clock, channels: channels)
            documents = CountingDocuments(stores.documents)
            stores.documents = documents
            var instances: [FleetService] = []
            for _ in 0..<2 {
                let instance = FleetService(
                    configuration: configuration, accounts: AccountsBook(AccountsFile()), stores: stores, clock: clock, program: "test")
                await instance.start()
                instances.append(instance)
            }
            self.instances = instances
        }

        func stop() async { for instance in instances { await instance.stop() } }

        /// Moves the fleet's clock on by `duration`, half a second a step, each step once the
        /// instances' timers have run.
        func pass(_ duration: Duration) async throws {
            var left = duration
            while left > .zero {
                let step = clock.advance(by: .milliseconds(500))
                try await anyChange("the instances' timers after a step of the clock", [step.changed], before: waitDeadline(seconds: 60))
                left -= .milliseconds(500)
            }
        }
    }

    /// The fleet's store, counting how often the instances ask it for the devices that are due.
    final class CountingDocuments: IndexedDocumentStore {
        let inner: any IndexedDocumentStore
        private let sweeps = Mutex(0)

        init(_ inner: any IndexedDocumentStore) { self.inner = inner }

        var sweepCount: Int { sweeps.withLock { $0 } }

        func update<Result: Sendable>(
            _ key: String, member: String, touching again: IndexedDocuments.TouchAgain?, trustCopy: Bool,
            _ decide: @Sendable (_ bytes: [UInt8]?, _ nowMs: Int64) throws -> (IndexedDocuments.Change, Result)
        ) async throws -> Result {
            try await inner.update(key, member: member, touching: again, trustCopy: trustCopy, decide)
        }
        func kept(_ key: String) async throws -> [[UInt8]] { try await inner.kept(key) }
        func dropKept(_ key: String) async throws { try await inner.dropKept(key) }
        func log(_ key: String, limit: Int) async throws -> [[UInt8]] { try await inner.log(key, limit: limit) }
        func due(by score: Int64, limit: Int) async throws -> [String] {
            sweeps.withLock { $0 += 1 }
            return try await inner.due(by: score, limit: limit)
        }
        func members() async throws -> [String] { try await inner.members() }
        func forget(member: String) async throws { try await inner.forget(member: member) }
        func read(_ keys: [String]) async throws -> (documents: [[UInt8]?], nowMs: Int64) { try await inner.read(keys) }
    }

    static func hello(_ instance: FleetService, token: String?) async throws -> (token: String, viewers: Int) {
        let body = JSONWriter.encode(.object([
            "install": .string(install), "tester": .string("qa-box-7"), "proof": .string(proof.secretHex),
            "model": .string("ThinkPad X1"), "os": .string("Debian GNU/Linux 12"), "release": .string("1.4.2"),
        ]))
        let reply = await instance.hello(appKey: appKey, token: token, body: body)
        #expect(reply.status == 200)
        let answer = json(reply)
        return (try #require(answer["device_token"]?.stringValue), Int(answer["viewers"]?.numberValue ?? -1))
    }

    static func frames(_ instance: FleetService, token: String, line: String) async -> Int {
        let body = JSONWriter.encode(.object([
            "install": .string(install), "state": .string("live"),
            "lines": .array([.object(["t": .number(1), "severity": .number(9), "body": .string(line)])]),
        ]))
        return await instance.frames(appKey: appKey, token: token, body: body, wireBytes: body.count).status
    }

    /// The viewer's events after `after`, as its instance answers its poll (held until some come).
    static func poll(_ instance: FleetService, after: UInt64?) async throws -> (events: [JSONValue], last: UInt64) {
        let reply = await instance.stream(ann, app: nil, install: install, after: after)
        #expect(reply.status == 200)
        let answer = json(reply)
        return (answer["events"]?.arrayValue ?? [], UInt64(answer["last_seq"]?.numberValue ?? 0))
    }

    /// The viewer's poll, with the fleet's clock moving on meanwhile (half a second a step, each
    /// step once the instances' timers have run): what an instance finds out at its next look.
    static func pollWhileTimePasses(_ fleet: Fleet, _ instance: FleetService, after: UInt64?) async throws -> (events: [JSONValue], last: UInt64) {
        let answered = Answered()
        let polling = Task {
            defer { answered.set() }
            return try await poll(instance, after: after)
        }
        let deadline = waitDeadline(seconds: 120)
        while !answered.isSet {
            let step = fleet.clock.advance(by: .milliseconds(500))
            try await anyChange("the instances' timers after a step of the clock", [step.changed], before: deadline)
        }
        return try await polling.value
    }

    final class Answered: Sendable {
        private let flag = Mutex(false)
        func set() { flag.withLock { $0 = true } }
        var isSet: Bool { flag.withLock { $0 } }
    }

    /// A device whose viewer watches on the second instance, its session live on the first; the
    /// viewer has seen the frames. Returns the device's token and where the viewer's stream is.
    static func liveSession(_ fleet: Fleet) async throws -> (token: String, seen: UInt64) {
        let (device, viewer) = (fleet.instances[0], fleet.instances[1])
        let first = try await hello(device, token: nil)
        #expect(await viewer.watch(ann, app: nil, install: install).status == 200)
        let token = try await hello(device, token: first.token)
        #expect(token.viewers == 1)
        #expect(await frames(device, token: token.token, line: "order 1234 shipped") == 200)
        var seen: UInt64?
        var sawFrames = false
        while !sawFrames {
            let answer = try await poll(viewer, after: seen)
            sawFrames = answer.events.contains { $0["type"] == .string("frames") }
            seen = answer.last
        }
        return (token.token, try #require(seen))
    }

    @Test func aReplaceOnOneInstanceIsToldToTheViewerOnTheOther() async throws {
        let fleet = await Fleet()
        let (_, seen) = try await Self.liveSession(fleet)
        // Another party says hello without the token: the session ends as replaced (16.7).
        _ = try await Self.hello(fleet.instances[0], token: nil)
        let answer = try await Self.poll(fleet.instances[1], after: seen)
        let ended = answer.events.first { $0["type"] == .string("session_ended") }
        #expect(ended?["reason"] == .string("replaced"), "\(answer.events)")
        await fleet.stop()
    }

    @Test func aReplaceWhoseMessageTheViewersInstanceMissedIsStillToldAsReplaced() async throws {
        let fleet = await Fleet()
        let (_, seen) = try await Self.liveSession(fleet)
        // Every event of the device is lost on its way to the viewer's instance (the second
        // subscription made): it learns of the end from the device's state and its recent events.
        fleet.channels.lose { channel, subscription in subscription == 1 && channel.hasPrefix("apsio:events:") }
        _ = try await Self.hello(fleet.instances[0], token: nil)
        let answer = try await Self.pollWhileTimePasses(fleet, fleet.instances[1], after: seen)
        let ended = answer.events.first { $0["type"] == .string("session_ended") }
        #expect(ended?["reason"] == .string("replaced"), "\(answer.events)")
        #expect(!answer.events.contains { $0["type"] == .string("frames") })
        await fleet.stop()
    }

    /// A stream poll that finds nothing new is held, and answered by the next event.
    @Test func aHeldStreamPollIsAnsweredByTheNextEvent() async throws {
        let fleet = await Fleet()
        let (token, seen) = try await Self.liveSession(fleet)
        let viewerSide = fleet.instances[1]
        let polling = Task { try await Self.poll(viewerSide, after: seen) }
        try await ApsioTestSupport.poll("the viewer's poll held") { await viewerSide.heldRequestCount() == 1 }
        #expect(await Self.frames(fleet.instances[0], token: token, line: "order 1235 shipped") == 200)
        let answer = try await polling.value
        let lines = answer.events.ofType("frames").compactMap { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue }
        #expect(lines == ["order 1235 shipped"], "\(answer.events)")
        await fleet.stop()
    }

    /// "... held up to 25 s": with nothing to tell, the poll is answered empty at the end of its
    /// hold, on the fleet's clock.
    @Test func anUnansweredStreamPollIsAnsweredEmptyAfter25Seconds() async throws {
        let fleet = await Fleet()
        let (_, seen) = try await Self.liveSession(fleet)
        let start = fleet.clock.now().mono
        let answer = try await Self.pollWhileTimePasses(fleet, fleet.instances[1], after: seen)
        #expect(answer.events.isEmpty, "\(answer.events)")
        #expect(fleet.clock.now().mono - start >= .seconds(25))
        await fleet.stop()
    }

    /// 16.7: the live stream goes with its session. A poll from the start of the stream after the
    /// end finds the session's start and end, and none of its frames.
    @Test func aSessionsFramesAreGoneFromTheStreamWhenItEnds() async throws {
        let fleet = await Fleet()
        let (token, seen) = try await Self.liveSession(fleet)
        let body = JSONWriter.encode(.object(["install": .string(Self.install), "state": .string("ended"), "reason": .string("closed")]))
        #expect(await fleet.instances[0].frames(appKey: Self.appKey, token: token, body: body, wireBytes: body.count).status == 200)
        var after = seen
        var ended = false
        while !ended {
            let answer = try await Self.poll(fleet.instances[1], after: after)
            ended = !answer.events.ofType("session_ended").isEmpty
            after = answer.last
        }
        let reply = await fleet.instances[1].stream(Self.ann, app: nil, install: Self.install, after: 0)
        let events = json(reply)["events"]?.arrayValue ?? []
        #expect(!events.ofType("session_started").isEmpty && !events.ofType("session_ended").isEmpty, "\(events)")
        #expect(events.ofType("frames").isEmpty)
        #expect(!String(decoding: reply.json ?? [], as: UTF8.self).contains("order 1234 shipped"))
        await fleet.stop()
    }

    /// An app taken away on reload: its viewers' held polls are answered at once, as no longer
    /// watching, and the device is gone from the instance that held them.
    @Test func anAppTakenAwayAnswersItsViewersHeldPolls() async throws {
        let fleet = await Fleet()
        let (_, seen) = try await Self.liveSession(fleet)
        let viewerSide = fleet.instances[1]
        let polling = Task { await viewerSide.stream(Self.ann, app: nil, install: Self.install, after: seen) }
        try await ApsioTestSupport.poll("the viewer's poll held") { await viewerSide.heldRequestCount() == 1 }
        let onlyOther = HubConfiguration(
            origin: LiveOrigin("https://live.example.com")!, apps: [HubApp(name: "com.example.other", appKey: "apsio_app_other_key")])
        for instance in fleet.instances { await instance.reconfigure(onlyOther) }
        let answer = await polling.value
        #expect(answer.status == 200 && json(answer)["watching"] == .bool(false), "\(json(answer))")
        #expect(await viewerSide.heldRequestCount() == 0)
        #expect(await viewerSide.stream(Self.ann, app: nil, install: Self.install, after: seen).status == 404)
        await fleet.stop()
    }

    /// An instance with nothing due asks its store every few seconds, not at every tick of its
    /// timer: an idle fleet leaves Redis alone.
    @Test func anIdleInstanceSweepsEveryFewSecondsNotAtEveryTick() async throws {
        let fleet = await Fleet()
        let before = fleet.documents.sweepCount
        try await fleet.pass(.seconds(20))
        // Two instances, each at most once every 5 s, and once more as the 20 s began: 10; a
        // sweep at every half-second tick would be 80.
        #expect(fleet.documents.sweepCount - before <= 10)
        await fleet.stop()
    }

    /// A deadline written by an instance that is gone is met by another's sweep: a device that
    /// said hello to an instance since stopped, and says nothing more, runs out all the same.
    @Test func aDeviceWhoseInstanceStoppedStillRunsOut() async throws {
        let fleet = await Fleet()
        _ = try await Self.hello(fleet.instances[0], token: nil)
        #expect(try await fleet.documents.members().count == 1)
        await fleet.instances[0].stop()
        // Its presence lasts two intervals (60 s) and 25 s of slack; a sweep of the other
        // instance, at most 5 s later, then drops it.
        try await fleet.pass(.seconds(100))
        #expect(try await fleet.documents.members().isEmpty)
        await fleet.instances[1].stop()
    }

    /// In memory the store's bound on devices is the hub's: a new device past it hears `busy`
    /// with the interval to wait, not that the backend lost its state; the others go on.
    @Test func aNewDevicePastTheBoundIsToldBusyAndTheOthersGoOn() async throws {
        let other = "0b7e1c3d-5a2f-4e8b-9c6d-7f1a2b3c4d5e"
        let otherProof = TesterProof(entryID: "qa-box-8", installationID: other, hashing: sha256)
        let configuration = HubConfiguration(
            origin: LiveOrigin("https://live.example.com")!, interval: .seconds(30),
            apps: [HubApp(name: "com.example.demo", appKey: Self.appKey, testers: [
                TesterEntry(id: "qa-box-7", match: Self.proof.match(hashing: sha256), expiresAt: 1_900_000_000),
                TesterEntry(id: "qa-box-8", match: otherProof.match(hashing: sha256), expiresAt: 1_900_000_000),
            ])])
        var limits = BackendLimits.default
        limits.maxDevices = 1
        let clock = ManualAgentClock()
        let hub = FleetService(
            configuration: configuration, accounts: AccountsBook(AccountsFile()), stores: .memory(clock: clock, backendLimits: limits),
            clock: clock, backendLimits: limits, program: "test")
        await hub.start()
        let first = try await Self.hello(hub, token: nil)
        let refused = await hub.hello(appKey: Self.appKey, token: nil, body: JSONWriter.encode(.object([
            "install": .string(other), "tester": .string("qa-box-8"), "proof": .string(otherProof.secretHex),
        ])))
        #expect(refused.status == 503)
        #expect(json(refused)["error"] == .string("busy"))
        #expect(refused.retryAfterSeconds == 30)
        #expect(try await Self.hello(hub, token: first.token).token == first.token)
        await hub.stop()
    }
}
