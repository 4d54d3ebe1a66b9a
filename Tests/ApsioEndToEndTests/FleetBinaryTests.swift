import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// Three `apsio-backend` processes sharing one real `redis-server`, as a fleet runs behind a load
/// balancer with no stickiness: each test sends a device's and a viewer's requests to different
/// instances, and checks that every rule of 16.7 holds across them.
@Suite struct FleetBinaryTests {
    static let appKey = "apsio_app_fleet_test_key"
    static let install = "5a0e51c2-7d4b-4f64-a7a5-0c8f1e2d3b4a"
    static let proof = TesterProof(entryID: "qa-fleet-1", installationID: install, hashing: sha256)
    /// A second tester's box, for what a person watches several of at once.
    static let otherInstall = "9c1d7e3a-0b5f-4e2d-8a61-3f4e5d6c7b8a"
    static let otherProof = TesterProof(entryID: "qa-fleet-2", installationID: otherInstall, hashing: sha256)

    /// One Redis and `count` instances on it; everything is stopped by pid when the value goes.
    final class Fleet: Sendable {
        /// The one redis-server, unless the fleet runs on `cluster`.
        let server: RedisServerFixture?
        let cluster: RedisClusterFixture?
        let directory: TemporaryDirectory
        var redis: RedisServerFixture { server! }
        let instances: [Instance]

        final class Instance: Sendable {
            let child: BackendBinaryTests.Child
            let client: BackendHTTPClient
            let port: Int

            init(_ child: BackendBinaryTests.Child, port: Int) throws {
                self.child = child
                self.port = port
                client = try BackendHTTPClient(port: port)
            }
        }

        /// With `configured`, the instances read the app from a configuration directory they share
        /// (`config`), as a fleet's instances do, instead of flags.
        init(
            count: Int = 3, interval: Int = 30, configured: Bool = false, cluster: RedisClusterFixture? = nil,
            server given: RedisServerFixture? = nil
        ) async throws {
            server = cluster == nil ? try given ?? RedisServerFixture() : nil
            self.cluster = cluster
            let redis = cluster?.seed ?? server!.endpoint
            directory = try TemporaryDirectory("apsio-fleet")
            let accounts = directory.path + "/accounts"
            try AccountsFile(accounts: [
                Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000)),
                Account(user: "bob", role: .viewer, password: PasswordHash(password: "bob-password", iterations: 1000)),
            ]).save(path: accounts)
            if configured { try Self.writeApp(directory.path + "/config", testers: true) }
            var instances: [Instance] = []
            for number in 0..<count {
                instances.append(try await Self.launch(
                    number: number, directory: directory.path, accounts: accounts, redis: redis, interval: interval,
                    config: configured ? directory.path + "/config" : nil))
            }
            self.instances = instances
        }

        var config: String { directory.path + "/config" }

        static func writeApp(_ config: String, testers: Bool) throws {
            try FileManager.default.createDirectory(atPath: config + "/apps.d", withIntermediateDirectories: true)
            let match = FleetBinaryTests.proof.match(hashing: sha256)
            let tester = testers ? "Tester=\(FleetBinaryTests.proof.entryID):\(match):4000000000\n" : ""
            try "[App]\nName=demo\nAppKey=\(FleetBinaryTests.appKey)\n\(tester)".write(
                toFile: config + "/apps.d/demo.conf", atomically: true, encoding: .utf8)
        }

        static func launch(
            number: Int, directory: String, accounts: String, redis: String?, interval: Int, config: String? = nil
        ) async throws -> Instance {
            let own = directory + "/instance-\(number)-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
            let child = try BackendBinaryTests.Child(
                binary: BackendBinaryTests.binary,
                arguments: [
                    "--dev", "--listen", "127.0.0.1:0", "--live-origin", "http://127.0.0.1:8787", "--interval", String(interval),
                    "--accounts", accounts,
                ] + (redis.map { ["--redis", $0] } ?? []) + (config.map { ["--config", $0] } ?? [
                    "--app", "demo:\(FleetBinaryTests.appKey)", "--tester", "\(FleetBinaryTests.proof.entryID):\(FleetBinaryTests.install)",
                    "--tester", "\(FleetBinaryTests.otherProof.entryID):\(FleetBinaryTests.otherInstall)",
                ]), directory: own)
            try await poll("instance \(number) says where it listens", seconds: 120) {
                child.stdout.contains("\n") || !child.process.isRunning
            }
            let line = child.stdout
            let port = try #require(
                line.components(separatedBy: "listening on http://127.0.0.1:").dropFirst().first?.split(separator: ";").first
                    .flatMap { Int($0) }, "stdout: \(line) stderr: \(child.stderr)")
            return try Instance(child, port: port)
        }

        subscript(index: Int) -> BackendHTTPClient { instances[index].client }

        /// Waits until instance `index` holds at least `count` requests (its `/api/health` says).
        func waitForHeld(_ index: Int, count: Int) async throws {
            let client = self[index]
            try await poll("instance \(index) holds \(count) request(s)") {
                let health = try await client.send(.get("/api/health"))
                return Int(health.body["held"]?.numberValue ?? 0) >= count
            }
        }
    }

    static func helloBody(_ proof: TesterProof = proof) -> JSONValue {
        .object([
            "install": .string(proof.entryID == otherProof.entryID ? otherInstall : install), "model": .string("Box"), "os": .string("Debian GNU/Linux 12"),
            "release": .string("1.0"), "tester": .string(proof.entryID), "proof": .string(proof.secretHex),
        ])
    }

    static func hello(
        _ client: BackendHTTPClient, token: String? = nil, as proof: TesterProof = proof
    ) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        try await client.device("/v1/live/hello", helloBody(proof), token: token, key: appKey)
    }

    static func frames(_ client: BackendHTTPClient, token: String, line: String, install: String = install) async throws -> Int {
        try await client.device(
            "/v1/live/frames",
            .object(["install": .string(install), "state": .string("live"), "lines": .array([.object(["body": .string(line)])])]),
            token: token, key: appKey
        ).status
    }

    static func next(_ client: BackendHTTPClient, token: String) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        try await client.send(.get("/v1/live/next?install=\(install)", headers: ["Apsio-App-Key": appKey, "Apsio-Live-Token": token]))
    }

    static func result(_ client: BackendHTTPClient, token: String, id: JSONValue, name: String) async throws -> Int {
        try await client.device(
            "/v1/live/results",
            .object([
                "install": .string(install), "id": id, "name": .string(name), "outcome": .string("done"),
                "at": .number(1_800_000_000_000), "result": .object(["ok": .bool(true)]),
            ]), token: token, key: appKey
        ).status
    }

    /// A viewer's stream, polled on whichever instance the caller names, as a page does.
    final class Stream: @unchecked Sendable {
        var after: UInt64?
        var events: [JSONValue] = []
        var dropped = 0
        let bearer: String

        init(bearer: String) { self.bearer = bearer }

        /// Polls `client` until an event of `type` arrives (each poll may be held up to 25 s).
        func until(_ type: String, on clients: [BackendHTTPClient], where matches: (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
            var turn = 0
            for _ in 0..<40 {
                if let found = events.first(where: { $0["type"]?.stringValue == type && matches($0) }) { return found }
                let client = clients[turn % clients.count]
                turn += 1
                var path = "/api/devices/\(FleetBinaryTests.install)/stream?app=demo"
                if let after { path += "&after=\(after)" }
                let answer = try await client.api("GET", path, bearer: bearer)
                try #require(answer.status == 200, "stream: \(answer.status) \(answer.body)")
                events += answer.body["events"]?.arrayValue ?? []
                dropped += Int(answer.body["dropped"]?.numberValue ?? 0)
                if let last = answer.body["last_seq"]?.numberValue, last > 0 { after = UInt64(last) }
            }
            throw WaitTimedOut(what: "a \(type) event")
        }
    }

    /// A tester's device in a live session that ann watches: hello on instance `hello`, ann
    /// signs in and watches on `watch`, the session starts at a hello on `session`, one `frames`
    /// is posted on `frames` and heard by ann's stream polled on `heard`.
    static func liveSession(
        _ fleet: Fleet, hello: Int, watch: Int, session: Int, frames: Int, heard: Int, line: String
    ) async throws -> (token: String, ann: String, stream: Stream) {
        let token = try #require(try await Self.hello(fleet[hello]).body["device_token"]?.stringValue)
        let ann = try await fleet[watch].signIn("ann", "ann-password")
        #expect(try await fleet[watch].api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await Self.hello(fleet[session], token: token).body["viewers"]?.numberValue == 1)
        #expect(try await Self.frames(fleet[frames], token: token, line: line) == 200)
        let stream = Stream(bearer: ann)
        _ = try await stream.until("frames", on: [fleet[heard]])
        return (token, ann, stream)
    }

    /// A live session across the instances: hello on A, `next` held on B, frames on C reaching a
    /// viewer signed in on A; a command sent on C answers the `next` held on B; the result is
    /// accepted once on any instance and a made-up one is refused with 409 on another.
    @Test func aSessionSpreadOverThreeInstances() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let first = try await Self.hello(a)
        #expect(first.status == 200 && first.body["viewers"]?.numberValue == 0)
        let token = try #require(first.body["device_token"]?.stringValue)

        let ann = try await a.signIn("ann", "ann-password")
        let devices = try await b.api("GET", "/api/devices", bearer: ann)
        #expect(devices.body["devices"]?.arrayValue?.first?["install"]?.stringValue == Self.install)
        let watch = try await c.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann)
        #expect(watch.status == 200 && watch.body["watching"]?.boolValue == true)

        let second = try await Self.hello(b, token: token)
        #expect(second.body["viewers"]?.numberValue == 1, "the viewer who joined on C counts on B")
        #expect(second.body["device_token"]?.stringValue == token, "a hello with the current token keeps it")

        let stream = Stream(bearer: ann)
        #expect(try await Self.frames(c, token: token, line: "posted on C") == 200)
        let frames = try await stream.until("frames", on: [a])
        #expect(frames["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "posted on C")

        let held = Task { try await Self.next(b, token: token) }
        try await fleet.waitForHeld(1, count: 1)
        let sentAt = ContinuousClock.now
        let command = try await c.api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("diagnostics")]))
        #expect(command.status == 202)
        let answer = try await held.value
        print("fleet: a command sent on C reached the next held on B after \(ContinuousClock.now - sentAt)")
        #expect(answer.status == 200)
        let sent = try #require(answer.body["commands"]?.arrayValue?.first)
        #expect(sent["id"] == command.body["id"] && sent["name"]?.stringValue == "diagnostics")

        #expect(try await Self.result(a, token: token, id: sent["id"]!, name: "diagnostics") == 200)
        #expect(try await Self.result(b, token: token, id: sent["id"]!, name: "diagnostics") == 200, "sent again after a lost answer")
        #expect(try await Self.result(c, token: token, id: .string("0123456789abcdef0123456789abcdef"), name: "diagnostics") == 409)
        #expect(try await Self.result(c, token: token, id: sent["id"]!, name: "screenshot") == 409, "the name must match too")
        let delivered = try await stream.until("result", on: [b, c, a])
        #expect(delivered["result"]?["id"] == sent["id"])
        let results = stream.events.filter { $0["type"]?.stringValue == "result" }
        #expect(results.count == 1, "the result sent twice reaches the viewers once")

        let bob = try await b.signIn("bob", "bob-password")
        _ = try await a.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: bob)
        let refused = try await c.api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: bob, body: .object(["name": .string("screenshot")]))
        #expect(refused.status == 403, "only people who may change settings send commands, on every instance")
    }

    /// A hello without the token, on another instance, replaces the device's presence: the viewers
    /// are told `replaced`, and the old token is refused everywhere.
    @Test func aReplaceOnAnotherInstanceEndsTheSessionAsReplaced() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let (token, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "first")

        let replaced = try await Self.hello(b)
        let newToken = try #require(replaced.body["device_token"]?.stringValue)
        #expect(newToken != token)
        let ended = try await stream.until("session_ended", on: [a, c])
        #expect(ended["reason"]?.stringValue == "replaced")
        #expect(try await Self.frames(c, token: token, line: "old token") == 401)
        #expect(try await Self.next(a, token: token).status == 401)
        #expect(try await Self.hello(a, token: newToken).body["device_token"]?.stringValue == newToken)
    }

    /// The instance a viewer polls missed the replace: its subscription was cut while the replace
    /// and the new session's first frames were published, and it could not subscribe again before
    /// they were. Its viewer is still told the old session ended as `replaced` before any frames
    /// of the new one, and sees no frames of the old one after that: when the new session's
    /// frames go on (the missing numbers are heard on the channel), and when nothing follows (the
    /// instance reads the device's document again once it has subscribed again). While Redis
    /// still keeps the device's recent events, the instance finds what it missed there and shows
    /// it all, with no gap; when they are gone, a `gap` says what is missing, before the end.
    @Test(arguments: [true, false], [true, false])
    func aReplaceMissedByTheViewersInstanceIsStillToldAsReplaced(framesFollow: Bool, recentKept: Bool) async throws {
        let fleet = try await Fleet(count: 2)
        let (a, b) = (fleet[0], fleet[1])
        let (_, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "old session")

        try fleet.redis.hideSocket()
        #expect(try fleet.redis.cli("CLIENT", "KILL", "TYPE", "pubsub") != "0", "the subscribers' connections cut")
        let replaced = try await Self.hello(a)
        let newToken = try #require(replaced.body["device_token"]?.stringValue, "\(replaced.status) \(replaced.body)")
        #expect(try await Self.hello(a, token: newToken).body["viewers"]?.numberValue == 1, "a new session for the watcher")
        #expect(try await Self.frames(a, token: newToken, line: "new session, unheard") == 200)
        if !recentKept {
            for key in try fleet.redis.cli("KEYS", "apsio:recent:*").split(separator: "\n") { _ = try fleet.redis.cli("DEL", String(key)) }
        }
        try fleet.redis.showSocket()

        func isNew(_ event: JSONValue) -> Bool {
            event["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue?.hasPrefix("new session") == true
        }
        if framesFollow {
            // Frames of the new session keep coming, as a live device's do, while the viewer polls B.
            let sender = Task {
                while !Task.isCancelled {
                    _ = try? await Self.frames(a, token: newToken, line: "new session")
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
            defer { sender.cancel() }
            _ = try await stream.until("frames", on: [b]) { isNew($0) }
        } else {
            _ = try await stream.until("session_ended", on: [b])
        }
        let types = stream.events.compactMap { $0["type"]?.stringValue }
        let ended = try #require(stream.events.firstIndex { $0["type"]?.stringValue == "session_ended" }, "told the end: \(types)")
        #expect(stream.events[ended]["reason"]?.stringValue == "replaced")
        let framesAfter = stream.events[ended...].filter { $0["type"]?.stringValue == "frames" }
        #expect(framesAfter.allSatisfy(isNew), "only the new session's frames after its end: \(types)")
        if recentKept {
            #expect(!types.contains("gap") && stream.dropped == 0, "nothing missing: \(types)")
            #expect(types[ended...].starts(with: ["session_ended", "session_started", "frames"]), "\(types)")
            #expect(framesAfter.first?["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "new session, unheard")
        } else {
            let gap = try #require(types.firstIndex(of: "gap"), "what it missed is said: \(types)")
            #expect(gap < ended)
            #expect(framesFollow == !framesAfter.isEmpty)
        }
    }

    /// Every device's recent events as Redis keeps them (`apsio:recent:`), one text.
    static func recentEventsKept(_ redis: RedisServerFixture) throws -> String {
        try redis.cli("KEYS", "apsio:recent:*").split(separator: "\n").map { try redis.cli("LRANGE", String($0), "0", "-1") }
            .joined(separator: "\n")
    }

    /// The devices whose events Redis sends to some instance (`PUBSUB SHARDCHANNELS`), each with
    /// how many instances subscribe to it.
    static func eventSubscribers(_ redis: RedisServerFixture) throws -> [String: Int] {
        let channels = try redis.cli("PUBSUB", "SHARDCHANNELS", "apsio:events:*").split(separator: "\n").map(String.init)
        var counts: [String: Int] = [:]
        for channel in channels where !channel.isEmpty {
            let reply = try redis.cli("PUBSUB", "SHARDNUMSUB", channel).split(separator: "\n")
            counts[channel] = reply.last.flatMap { Int($0) } ?? 0
        }
        return counts
    }

    /// A device's events reach only the instances its viewers use: one channel per device, to
    /// which an instance subscribes when a watcher watches or polls there. Three instances, the
    /// viewer watching and polling on B: only B hears the device; once the viewer polls C as
    /// well, C too; A, which serves the device's own requests, never.
    @Test func aDevicesEventsReachOnlyTheInstancesItsViewersPoll() async throws {
        let fleet = try await Fleet()
        let (a, c) = (fleet[0], fleet[2])
        let (token, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "one")
        // The other tester's box says hello and is watched by nobody: no channel of its own.
        #expect(try await Self.hello(a, as: Self.otherProof).status == 200)

        let heard = try Self.eventSubscribers(fleet.redis)
        #expect(heard.count == 1 && heard.keys.first?.hasSuffix(":demo:\(Self.install)") == true, "\(heard)")
        #expect(heard.values.first == 1, "only B subscribes: \(heard)")

        #expect(try await Self.frames(a, token: token, line: "two") == 200)
        _ = try await stream.until("frames", on: [c]) { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "two" }
        #expect(try Self.eventSubscribers(fleet.redis).values.first == 2, "B and C subscribe now")
    }

    /// An instance stops hearing a device once nobody watches it there: after the viewer left,
    /// the device's channel is let go when the instance's ring of it has nothing left to show and
    /// no poll asked for a viewer's timeout (a minute), so an instance's subscriptions follow the
    /// people it serves, not every device ever watched on it.
    @Test func anInstanceStopsHearingADeviceNobodyWatchesThereAnyMore() async throws {
        let fleet = try await Fleet(count: 2)
        let b = fleet[1]
        let (_, ann, _) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "one")
        #expect(try Self.eventSubscribers(fleet.redis).values.first == 1)
        #expect(try await b.api("DELETE", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        try await poll("instance B lets the device's channel go", seconds: 240) {
            try Self.eventSubscribers(fleet.redis).values.allSatisfy { $0 == 0 }
        }
    }

    /// A viewer's polls move to an instance that has not served the device yet (the one it
    /// polled went away, or a balancer without stickiness): that instance starts from the events
    /// Redis kept of the device, so the frames posted while no poll was out are all shown, with
    /// nothing reported missing.
    @Test func aViewerWhosePollsMoveToAnotherInstanceMissesNothing() async throws {
        let fleet = try await Fleet()
        let (a, c) = (fleet[0], fleet[2])
        let (token, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "one")
        for line in ["two", "three", "four"] { #expect(try await Self.frames(a, token: token, line: line) == 200) }

        _ = try await stream.until("frames", on: [c]) { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "four" }
        let lines = stream.events.compactMap { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue }
        #expect(lines == ["one", "two", "three", "four"])
        #expect(stream.dropped == 0 && !stream.events.contains { $0["type"]?.stringValue == "gap" }, "\(stream.events)")
    }

    /// The live stream is never stored (16.7): the device's recent events in Redis carry its
    /// frames only while Redis keeps nothing on a disk, and lose them when the session ends. On a
    /// Redis that snapshots, they are kept as one-event gaps from the start, so a viewer whose
    /// polls move is told what it missed rather than shown it.
    @Test(arguments: [false, true])
    func theLiveStreamKeptInRedisGoesWithItsSessionAndNeverToADisk(persisting: Bool) async throws {
        let server = try RedisServerFixture()
        if persisting { _ = try server.cli("CONFIG", "SET", "save", "3600 1") }
        let fleet = try await Fleet(server: server)
        let (a, c) = (fleet[0], fleet[2])
        func kept() throws -> String { try Self.recentEventsKept(fleet.redis) }
        let (token, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "secret one")
        #expect(try await Self.frames(a, token: token, line: "secret two") == 200)
        let during = try kept()
        #expect(during.contains("secret two") == !persisting, "\(during)")
        #expect(during.contains("\"session_started\""), "what is not live data is kept either way")

        if persisting {
            _ = try await stream.until("gap", on: [c])
        } else {
            _ = try await stream.until("frames", on: [c]) { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "secret two" }
        }
        #expect(stream.events.contains { $0["type"]?.stringValue == "gap" } == persisting, "\(stream.events)")

        let ended = try await a.device(
            "/v1/live/frames", .object(["install": .string(Self.install), "state": .string("ended"), "lines": .array([])]), token: token,
            key: Self.appKey)
        #expect(ended.status == 200)
        _ = try await stream.until("session_ended", on: [c])
        let after = try kept()
        #expect(!after.contains("secret"), "gone with the session: \(after)")
        #expect(after.contains("\"session_ended\""))
    }

    /// The last viewer leaves: the session ends with nobody left to tell, and its frames go
    /// from the device's recent events in Redis all the same (16.7).
    @Test func aSessionEndedWithNobodyWatchingLeavesNoneOfItsFramesInRedis() async throws {
        let fleet = try await Fleet(count: 2)
        let (a, b) = (fleet[0], fleet[1])
        func kept() throws -> String { try Self.recentEventsKept(fleet.redis) }
        let (token, ann, _) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 0, frames: 0, heard: 1, line: "secret one")
        #expect(try await Self.frames(a, token: token, line: "secret two") == 200)
        #expect(try kept().contains("secret two"), "kept while the session runs, on a Redis that stores nothing")
        #expect(try await b.api("DELETE", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        let after = try kept()
        #expect(!after.contains("secret"), "gone with the session: \(after)")
        #expect(try await Self.next(a, token: token).body["stop"]?.stringValue == "viewers_left")
    }

    /// Nobody says hello any more: the presence runs out by itself (2 × interval + 25 s), with no
    /// request for that device on any instance, and the viewers are told the device is gone.
    @Test func presenceRunsOutByItself() async throws {
        let fleet = try await Fleet(interval: 15)
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        _ = try await Self.hello(a)
        let ann = try await b.signIn("ann", "ann-password")
        #expect(try await c.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        let stream = Stream(bearer: ann)
        _ = try await stream.until("device_gone", on: [a, b, c])
        let devices = try await a.api("GET", "/api/devices", bearer: ann)
        #expect(devices.body["devices"]?.arrayValue?.isEmpty == true)
    }

    /// CPU seconds a child has used so far (user and system), from /proc.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 of the whole line.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// An instance killed mid-session: the device's requests go to the others, the session goes
    /// on, and the command queued while the dead instance held the `next` reaches the device.
    @Test func anInstanceKilledMidSessionLosesNothing() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let token = try #require(try await Self.hello(a).body["device_token"]?.stringValue)
        let ann = try await a.signIn("ann", "ann-password")
        #expect(try await c.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await Self.hello(c, token: token).body["viewers"]?.numberValue == 1)
        #expect(try await Self.frames(a, token: token, line: "before") == 200)

        let held = Task { try? await Self.next(b, token: token) }
        try await fleet.waitForHeld(1, count: 1)
        fleet.instances[1].child.signal(SIGKILL)
        _ = await held.value
        let command = try await a.api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("screenshot")]))
        #expect(command.status == 202)

        let answer = try await Self.next(c, token: token)
        #expect(answer.status == 200)
        let sent = try #require(answer.body["commands"]?.arrayValue?.first, "the command queued while B held the next: \(answer.body)")
        #expect(sent["id"] == command.body["id"])
        #expect(try await Self.frames(c, token: token, line: "after") == 200)
        #expect(try await Self.result(a, token: token, id: sent["id"]!, name: "screenshot") == 200)
        let stream = Stream(bearer: ann)
        _ = try await stream.until("result", on: [c, a])
        let lines = stream.events.compactMap { $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue }
        #expect(lines == ["before", "after"])
        #expect(!stream.events.contains { $0["type"]?.stringValue == "session_ended" })
    }

    /// Redis away for 30 s: device and viewer routes answer 503 with Retry-After, the health says
    /// degraded, policy refreshes go on, nothing crashes or spins; when Redis is back (empty,
    /// as it has no persistence here) the device is refused its old token, says hello again, and
    /// everything works again.
    @Test func redisStoppedForThirtySecondsAndStartedAgain() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let token = try #require(try await Self.hello(a).body["device_token"]?.stringValue)
        let ann = try await b.signIn("ann", "ann-password")

        fleet.redis.stop()
        let cpuBefore = fleet.instances.map { Self.cpuSeconds($0.child.process.processIdentifier) }
        let hello = try await Self.hello(b, token: token)
        #expect(hello.status == 503)
        let retry = Int(hello.headers["Retry-After"] ?? "") ?? 0
        #expect((1...30).contains(retry), "Retry-After: \(hello.headers["Retry-After"] ?? "none")")
        #expect(try await Self.next(c, token: token).status == 503)
        #expect(try await Self.frames(a, token: token, line: "x") == 503)
        #expect(try await c.api("GET", "/api/devices", bearer: ann).status == 503)
        let health = try await a.send(.get("/api/health"))
        #expect(health.status == 503 && health.body["status"]?.stringValue == "degraded")
        let policy = try await c.send(.get("/v1/policy", headers: ["Apsio-App-Key": Self.appKey]))
        #expect(policy.status == 200, "the policy comes from memory")

        try await Task.sleep(for: .seconds(30))
        let cpuAfter = fleet.instances.map { Self.cpuSeconds($0.child.process.processIdentifier) }
        let spent = zip(cpuAfter, cpuBefore).map { $0 - $1 }
        print("fleet: CPU seconds per instance over 30 s without Redis: \(spent)")
        #expect(spent.allSatisfy { $0 < 10 }, "an instance spun while Redis was away: \(spent)")
        #expect(fleet.instances.allSatisfy { $0.child.process.isRunning })

        try fleet.redis.start()
        for instance in fleet.instances {
            try await poll("instance on port \(instance.port) reaches Redis again") {
                try await instance.client.send(.get("/api/health")).status == 200
            }
        }
        let refused = try await Self.next(b, token: token)
        #expect(refused.status == 401, "the token went with Redis's state: \(refused.status)")
        let again = try await Self.hello(c)
        #expect(again.status == 200)
        let newToken = try #require(again.body["device_token"]?.stringValue)
        #expect(try await a.api("GET", "/api/devices", bearer: ann).status == 401, "sign-ins went with the state too")
        let ann2 = try await a.signIn("ann", "ann-password")
        #expect(try await b.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann2).status == 200)
        #expect(try await Self.hello(a, token: newToken).body["viewers"]?.numberValue == 1)
        #expect(try await Self.frames(b, token: newToken, line: "back") == 200)
        let stream = Stream(bearer: ann2)
        let frames = try await stream.until("frames", on: [c])
        #expect(frames["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "back")
    }

    /// Redis restarted empty while a `next` and a viewer's poll are held: the device hears its
    /// token is gone (401) and says hello again; the viewer hears the session ended because the
    /// backend restarted.
    @Test func redisRestartedEmptyEndsSessionsAndDevicesSayHelloAgain() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let (token, ann, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 0, line: "live")

        let held = Task { try await Self.next(b, token: token) }
        let watching = Task { [after = stream.after] in
            try await c.api("GET", "/api/devices/\(Self.install)/stream?app=demo&after=\(after ?? 0)", bearer: ann)
        }
        try await fleet.waitForHeld(1, count: 1)
        try await fleet.waitForHeld(2, count: 1)
        try fleet.redis.restart()

        let heldAnswer = try await held.value
        #expect(heldAnswer.status == 401, "next: \(heldAnswer.status) \(heldAnswer.body); B: \(fleet.instances[1].child.stderr)")
        let events = try await watching.value.body["events"]?.arrayValue ?? []
        let ended = events.first { $0["type"]?.stringValue == "session_ended" }
        #expect(ended?["reason"]?.stringValue == "backend_restarted", "events: \(events); A: \(fleet.instances[0].child.stderr) B: \(fleet.instances[1].child.stderr) C: \(fleet.instances[2].child.stderr)")
        let again = try await Self.hello(a, token: token)
        #expect(again.status == 200 && again.body["device_token"]?.stringValue != token)
    }

    /// Redis restarted empty while a viewer's poll is held, and the device said hello again at
    /// once (as it does after its 401), before the instance holding the poll saw the state was
    /// lost: the device's state is made again, and the viewer is still told the session ended
    /// because the backend restarted.
    @Test func aDeviceSayingHelloAtOnceAfterRedisLostItsStateStillEndsItsViewersSession() async throws {
        let fleet = try await Fleet()
        let (a, c) = (fleet[0], fleet[2])
        let (token, ann, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "live")
        let watching = Task { [after = stream.after] in
            try await c.api("GET", "/api/devices/\(Self.install)/stream?app=demo&after=\(after ?? 0)", bearer: ann)
        }
        try await fleet.waitForHeld(2, count: 1)
        try fleet.redis.restart()

        let again = try await Self.retried("the device's hello") { try? await Self.hello(a, token: token) }
        #expect(again.status == 200 && again.body["device_token"]?.stringValue != token)
        let answer = try await watching.value
        let events = answer.body["events"]?.arrayValue ?? []
        let ended = events.first { $0["type"]?.stringValue == "session_ended" }
        #expect(ended?["reason"]?.stringValue == "backend_restarted", "\(answer.status) events: \(events)")
    }

    /// `request` again while it fails or is answered 503 (an instance reconnecting to Redis), as
    /// a device or a page does.
    static func retried<Answer: Sendable>(
        _ what: String, _ request: () async -> (status: Int, body: JSONValue, headers: Answer)?
    ) async throws -> (status: Int, body: JSONValue, headers: Answer) {
        for _ in 0..<600 {
            if let answer = await request(), answer.status != 503 { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw WaitTimedOut(what: what)
    }

    /// Redis restored from an older snapshot comes back with the fleet's epoch and a stale state:
    /// a session running again, a person signed in again who had signed out. The instances see
    /// the fleet's clock go back, forget the stale devices and sign-ins once, and go on as after a
    /// restart empty: the viewer's held poll hears `backend_restarted`, the device's token is
    /// refused and its hello starts afresh, and the sign-out stands.
    @Test func redisRestoredFromAnOlderSnapshotIsTreatedAsRestartedEmpty() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let (token, ann, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "live")
        let bob = try await b.signIn("bob", "bob-password")
        #expect(try fleet.redis.cli("SAVE") == "OK")
        let saved = try Self.clocks(fleet.redis)
        #expect(saved.count == 16, "every bucket of devices has its clock")
        #expect(try await a.api("POST", "/api/logout", bearer: bob).status < 300)
        #expect(try await c.api("GET", "/api/me", bearer: bob).status == 401)
        // Every instance bumps the clocks every 2 s: the snapshot falls behind what they saw.
        try await poll("the fleet's clocks moved past the snapshot") {
            let now = (try? Self.clocks(fleet.redis)) ?? [:]
            return saved.allSatisfy { key, value in (now[key] ?? 0) > value + 3 }
        }

        let watching = Task { [after = stream.after] in
            try await c.api("GET", "/api/devices/\(Self.install)/stream?app=demo&after=\(after ?? 0)", bearer: ann)
        }
        try await fleet.waitForHeld(2, count: 1)
        try fleet.redis.restart()

        let events = try await watching.value.body["events"]?.arrayValue ?? []
        let ended = events.first { $0["type"]?.stringValue == "session_ended" }
        #expect(ended?["reason"]?.stringValue == "backend_restarted", "events: \(events)")
        #expect(try await Self.retried("the old token's next") { try? await Self.next(a, token: token) }.status == 401)
        let again = try await Self.retried("the device's hello") { try? await Self.hello(b, token: token) }
        #expect(again.status == 200 && again.body["device_token"]?.stringValue != token)
        #expect(try await Self.retried("bob's request") { try? await c.api("GET", "/api/me", bearer: bob) }.status == 401, "the sign-out stands")
        let told = fleet.instances.map { $0.child.stderr }.filter { $0.contains("went back in time") }
        #expect(!told.isEmpty, "an instance says what happened")
        #expect(told.filter { $0.contains("forgotten") }.count == 1, "the stale state is forgotten once")
    }

    /// A tester taken off the list in the files every instance reads ends its session once the
    /// instances read them again (SIGHUP), without waiting for the device's next request.
    @Test func aTesterTakenOffTheSharedFilesEndsItsSessionOnReload() async throws {
        let fleet = try await Fleet(configured: true)
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let (token, _, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "listed")

        try Fleet.writeApp(fleet.config, testers: false)
        for instance in fleet.instances { instance.child.signal(SIGHUP) }
        for instance in fleet.instances {
            try await poll("an instance reads its files again") { instance.child.count("configuration read again") >= 1 }
        }
        let ended = try await stream.until("session_ended", on: [a, b, c])
        #expect(ended["reason"]?.stringValue == "tester_removed")
        let hello = try await Self.hello(b, token: token)
        #expect(hello.body["viewers"]?.numberValue == 0 && hello.body["device_token"] == nil, "a tester no longer listed counts nowhere")
    }

    /// Several boxes watched in one held request (`POST /api/streams`): it answers when any of
    /// them has something to say, on any instance, and a box not watched is refused without
    /// ending the wait.
    @Test func oneRequestStreamsSeveralBoxes() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let first = try #require(try await Self.hello(a).body["device_token"]?.stringValue)
        let second = try #require(try await Self.hello(b, as: Self.otherProof).body["device_token"]?.stringValue)
        let ann = try await c.signIn("ann", "ann-password")
        for install in [Self.install, Self.otherInstall] {
            #expect(try await a.api("POST", "/api/devices/\(install)/watch?app=demo", bearer: ann).status == 200)
        }
        #expect(try await Self.hello(c, token: first).body["viewers"]?.numberValue == 1)
        #expect(try await Self.hello(c, token: second, as: Self.otherProof).body["viewers"]?.numberValue == 1)

        func streams(_ afters: [String: Double], on client: BackendHTTPClient) async throws -> [String: JSONValue] {
            var devices: [JSONValue] = [.object(["app": .string("demo"), "install": .string("not-watched")])]
            for (install, after) in afters {
                devices.append(.object(["app": .string("demo"), "install": .string(install), "after": .number(after)]))
            }
            let answer = try await client.api("POST", "/api/streams", bearer: ann, body: .object(["devices": .array(devices)]))
            try #require(answer.status == 200, "\(answer.body)")
            var byInstall: [String: JSONValue] = [:]
            for entry in answer.body["streams"]?.arrayValue ?? [] { byInstall[entry["install"]?.stringValue ?? ""] = entry }
            return byInstall
        }
        // Each device's first answer says where its stream stands now.
        var afters: [String: Double] = [:]
        for install in [Self.install, Self.otherInstall] {
            let state = try await a.api("GET", "/api/devices/\(install)/stream?app=demo", bearer: ann)
            afters[install] = state.body["last_seq"]?.numberValue ?? 0
        }
        let held = Task { try await streams(afters, on: b) }
        try await fleet.waitForHeld(1, count: 2)
        #expect(try await Self.frames(a, token: second, line: "from the second box", install: Self.otherInstall) == 200)
        let answer = try await held.value
        #expect(answer["not-watched"]?["status"]?.numberValue == 404)
        let lines = answer[Self.otherInstall]?["events"]?.arrayValue?.compactMap {
            $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue
        }
        #expect(lines == ["from the second box"])
        #expect(answer[Self.otherInstall]?["status"]?.numberValue == 200)
        #expect(answer[Self.install]?["status"]?.numberValue == 204, "the quiet box was let go, not answered")
    }

    /// A device or viewer that hangs up while its request is held lets go of it at once: an
    /// instance holds nothing for a client that is gone. (Every other request is answered in its
    /// connection's own task; these two are the ones the server watches.)
    @Test func aClientThatHangsUpLetsGoOfItsHeldRequest() async throws {
        let fleet = try await Fleet(count: 1)
        let a = fleet[0]
        let token = try #require(try await Self.hello(a).body["device_token"]?.stringValue)
        let ann = try await a.signIn("ann", "ann-password")
        #expect(try await a.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await Self.hello(a, token: token).body["viewers"]?.numberValue == 1)
        let requests = [
            "GET /v1/live/next?install=\(Self.install) HTTP/1.1\r\nHost: x\r\nApsio-App-Key: \(Self.appKey)\r\n"
                + "Apsio-Live-Token: \(token)\r\n\r\n",
            "GET /api/devices/\(Self.install)/stream?app=demo&after=\(UInt64.max - 1) HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer \(ann)\r\n\r\n",
        ]
        for request in requests {
            let transport = try await Transport.connect(host: "127.0.0.1", port: fleet.instances[0].port, deadline: .now + .seconds(10))
            try await transport.write(Array(request.utf8), until: .now + .seconds(10))
            try await fleet.waitForHeld(0, count: 1)
            transport.close()
            try await poll("the request of the client that hung up let go") {
                let health = try await a.send(.get("/api/health"))
                return health.body["held"]?.numberValue == 0
            }
        }
        // A command sent now is not lost to the `next` that hung up: the device's next one has it.
        let command = try await a.api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("diagnostics")]))
        #expect(command.status == 202)
        let answer = try await Self.next(a, token: token)
        #expect(answer.status == 200 && answer.body["commands"]?.arrayValue?.first?["id"] == command.body["id"], "\(answer.body)")
    }

    /// A box let go while its step is still on its way to Redis, because another box of the same
    /// request answered first, is let go (204), not refused as if Redis were away: a page told 503
    /// shows "the stream was interrupted" over what it last said, and an operator's log would
    /// count a failure that never happened.
    @Test func aBoxLetGoWhileItsStepIsInFlightIsNotCountedAsAFailure() async throws {
        let fleet = try await Fleet()
        let a = fleet[0]
        let token = try #require(try await Self.hello(a).body["device_token"]?.stringValue)
        let ann = try await a.signIn("ann", "ann-password")
        #expect(try await a.api("POST", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await Self.hello(a, token: token).body["viewers"]?.numberValue == 1)
        #expect(try await Self.frames(a, token: token, line: "waiting already") == 200)
        // The watched box has an event waiting, so it answers after one step; the seven others
        // each take a step of their own to be refused, and are let go when the first answers.
        var devices: [JSONValue] = [.object(["app": .string("demo"), "install": .string(Self.install), "after": .number(0)])]
        for number in 1...7 { devices.append(.object(["app": .string("demo"), "install": .string("quiet-\(number)")])) }
        var statuses: [Int] = []
        for _ in 0..<10 {
            let answer = try await a.api("POST", "/api/streams", bearer: ann, body: .object(["devices": .array(devices)]))
            try #require(answer.status == 200, "\(answer.body)")
            statuses += (answer.body["streams"]?.arrayValue ?? []).compactMap { $0["status"]?.numberValue.map { Int($0) } }
        }
        #expect(statuses.count == 80)
        #expect(!statuses.contains(503), "statuses: \(statuses)")
        #expect(Set(statuses).isSubset(of: [200, 204, 404]), "statuses: \(statuses)")
        let log = fleet.instances[0].child.stderr + fleet.instances[0].child.stdout
        #expect(!log.contains("answered 503"), "\(log)")
    }

    /// Who watched what, on any instance: the audit holds the watch, the session, the command
    /// and its outcome, and the leave, and never a line that was streamed.
    @Test func theAuditSaysWhoWatchedAndNeverWhatWasStreamed() async throws {
        let fleet = try await Fleet()
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let marker = "marker-line-\(UUID().uuidString)"
        let (token, ann, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: marker)
        let command = try await c.api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("diagnostics")]))
        let sent = try #require(try await Self.next(a, token: token).body["commands"]?.arrayValue?.first)
        #expect(sent["id"] == command.body["id"])
        #expect(try await Self.result(b, token: token, id: sent["id"]!, name: "diagnostics") == 200)
        _ = try await stream.until("result", on: [a])
        #expect(try await a.api("DELETE", "/api/devices/\(Self.install)/watch?app=demo", bearer: ann).status == 200)

        let text = try await c.http.send(
            HTTPRequest(method: "GET", path: "/api/audit?device=demo/\(Self.install)", headers: ["Authorization": "Bearer \(ann)"]),
            to: c.endpoint)
        let body = String(decoding: text.body, as: UTF8.self)
        #expect(text.status == 200 && text.headers["Content-Type"] == "application/x-ndjson")
        let entries = body.split(separator: "\n").compactMap { JSONBody.parse(Array($0.utf8)) }
        let types = entries.compactMap { $0["type"]?.stringValue }
        #expect(types == ["watch", "session_started", "command", "result", "leave", "session_ended"], "\(body)")
        #expect(entries.first { $0["type"]?.stringValue == "result" }?["outcome"]?.stringValue == "done")
        #expect(entries.first { $0["type"]?.stringValue == "command" }?["user"]?.stringValue == "ann")
        #expect(entries.first { $0["type"]?.stringValue == "leave" }?["reason"]?.stringValue == "left")
        #expect(entries.last?["reason"]?.stringValue == "viewers_left")
        #expect(!body.contains(marker), "the audit never holds what was streamed")
        #expect(!body.contains("\"ok\""), "nor a command's result")

        let bob = try await a.signIn("bob", "bob-password")
        #expect(try await b.api("GET", "/api/audit?device=demo/\(Self.install)", bearer: bob).status == 403)
    }

    /// The fleet page's server-sent events, from one instance, for hellos on another: a snapshot
    /// first, then only what changed.
    @Test func theFleetPageHearsChangesAsServerSentEvents() async throws {
        let fleet = try await Fleet()
        let (a, b) = (fleet[0], fleet[1])
        let ann = try await a.signIn("ann", "ann-password")
        _ = try await Self.hello(b, as: Self.otherProof)
        // A reader of the stream as a browser's EventSource reads it: python3's own socket, the
        // events it has seen written to a file.
        let seen = fleet.directory.path + "/events"
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        reader.arguments = ["-c", """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(fleet.instances[0].port)))
            s.sendall(b"GET /api/fleet/events HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer \(ann)\\r\\n\\r\\n")
            with open(sys.argv[1], "wb") as out:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    out.write(chunk); out.flush()
            """, seen]
        try reader.run()
        defer { reader.terminate() }
        @Sendable func text() -> String { (try? String(contentsOfFile: seen, encoding: .utf8)) ?? "" }
        try await poll("the snapshot") { text().contains("event: snapshot") }
        #expect(text().contains("text/event-stream"))
        #expect(text().contains(Self.otherInstall), "the snapshot lists the box present")
        #expect(!text().contains(Self.install))

        _ = try await Self.hello(b)
        try await poll("a change with the new box") { text().contains("event: change") && text().contains(Self.install) }
        let change = try #require(text().components(separatedBy: "event: change\ndata: ").last?.components(separatedBy: "\n").first)
        let body = try #require(JSONBody.parse(Array(change.utf8)))
        let upserts = body["upsert"]?.arrayValue?.compactMap { $0["install"]?.stringValue } ?? []
        #expect(upserts.contains(Self.install))
        #expect(body["remove"]?.arrayValue?.isEmpty == true)
    }

    /// What Redis holds after a whole session names no secret: not the device token, not the
    /// tester's proof, not the sign-in token, not the app key; and the instances' logs name none.
    @Test func redisAndTheLogsHoldNoSecret() async throws {
        let fleet = try await Fleet()
        let (token, ann, stream) = try await Self.liveSession(fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "x")
        _ = try await fleet[1].api(
            "POST", "/api/devices/\(Self.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("diagnostics")]))
        _ = try await stream.until("command", on: [fleet[0]])
        var everything = ""
        let keys = try fleet.redis.cli("--scan").split(separator: "\n").map(String.init)
        for key in keys {
            everything += key + "\n"
            switch try fleet.redis.cli("TYPE", key) {
            case "hash": everything += try fleet.redis.cli("HGETALL", key)
            case "zset": everything += try fleet.redis.cli("ZRANGE", key, "0", "-1", "WITHSCORES")
            case "string": everything += try fleet.redis.cli("GET", key)
            default: everything += try fleet.redis.cli("DUMP", key)
            }
        }
        #expect(
            keys.contains { $0.hasPrefix("apsio:device:{") && $0.hasSuffix(":demo:\(Self.install)") },
            "the scan found the device's document")
        for secret in [token, Self.proof.secretHex, ann, Self.appKey] {
            #expect(!everything.contains(secret))
            for instance in fleet.instances { #expect(!instance.child.stderr.contains(secret) && !instance.child.stdout.contains(secret)) }
        }
    }

    /// Each bucket's clock (`apsio:clock:{…}`), by key.
    static func clocks(_ redis: RedisServerFixture) throws -> [String: Int] {
        var clocks: [String: Int] = [:]
        for key in try redis.cli("--scan", "--pattern", "apsio:clock:*").split(separator: "\n").map(String.init) {
            clocks[key] = Int(try redis.cli("GET", key)) ?? 0
        }
        return clocks
    }
}
