@testable import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import Foundation
import Testing

let sha256 = OpenSSLSHA256()

/// Predictable "random" bytes: each call gives a different, recognisable run of one byte.
struct CountingRandom: RandomBytesSource {
    var counter: UInt8 = 0x10
    mutating func bytes(_ count: Int) -> [UInt8] {
        counter &+= 1
        return [UInt8](repeating: counter, count: count)
    }
}

func json(_ bytes: [UInt8]?) -> JSONValue {
    guard let bytes, !bytes.isEmpty else { return .null }
    return (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) ?? .null
}

func json(_ reply: HubReply) -> JSONValue { json(reply.json) }

extension HubStep {
    var reply: HubReply? {
        if case .reply(let reply) = self { return reply }
        return nil
    }

    var hold: HoldID? {
        if case .held(let id) = self { return id }
        return nil
    }
}

/// The hub on a manual clock, with one app, one tester install and two people: a 30-minute
/// session runs in microseconds.
struct HubHarness {
    var hub: LiveHub
    var now = LiveNow(mono: MonotonicInstant(.seconds(1000)), wallUnixMs: 1_800_000_000_000)
    /// Answers of held requests, in the order the hub released them.
    var released: [HubRelease] = []
    /// The events the hub's steps produced for the device's viewers, in order: what the service
    /// publishes, and each viewer's stream shows from the moment they watch.
    var emitted: [StreamEvent] = []

    static let appKey = "apsio_app_demo_key"
    static let appName = "com.example.demo"
    static let install = "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90"
    static let testerID = "qa-box-7"
    static let proof = TesterProof(entryID: testerID, installationID: install, hashing: sha256)
    static let admin = HubViewerIdentity(signIn: "signin-ann", user: "ann", mayChangeSettings: true)
    static let watcher = HubViewerIdentity(signIn: "signin-bob", user: "bob", mayChangeSettings: false)

    /// Viewers here stay until they leave, unless a test sets a timeout: a real viewer's page
    /// polls its stream, which these tests do only where they mean to.
    static let patientViewers: BackendLimits = {
        var limits = BackendLimits()
        limits.viewerTimeout = .seconds(24 * 3600)
        return limits
    }()

    init(
        testerExpiresAt: Int64 = 1_900_000_000, interval: Duration = .seconds(30), limits: Limits = .spec,
        backendLimits: BackendLimits = HubHarness.patientViewers
    ) {
        let entry = TesterEntry(id: Self.testerID, match: Self.proof.match(hashing: sha256), expiresAt: testerExpiresAt)
        hub = LiveHub(
            configuration: HubConfiguration(
                origin: LiveOrigin("https://live.example.com")!, interval: interval,
                apps: [HubApp(name: Self.appName, appKey: Self.appKey, testers: [entry])]),
            hashing: sha256, random: CountingRandom(), limits: limits, backendLimits: backendLimits)
    }

    var key: DeviceKey { DeviceKey(app: Self.appName, install: Self.install) }

    mutating func collect() {
        released += hub.takeReleases()
        emitted += hub.takeEmitted()
    }

    /// Moves both clocks and lets the hub apply what came due.
    mutating func advance(_ duration: Duration) {
        now = now.advanced(by: duration)
        hub.tick(now: now)
        collect()
    }

    mutating func hello(
        token: String? = nil, proof: String? = HubHarness.proof.secretHex, tester: String? = HubHarness.testerID,
        reason: String? = nil, appKey: String = HubHarness.appKey
    ) -> HubReply {
        var body: [String: JSONValue] = [
            "install": .string(Self.install), "session": .string("11111111-2222-3333-4444-555555555555"),
            "model": .string("ThinkPad X1"), "os": .string("Debian GNU/Linux 12"), "release": .string("1.4.2"),
        ]
        if let tester { body["tester"] = .string(tester) }
        if let proof { body["proof"] = .string(proof) }
        if let reason { body["reason"] = .string(reason) }
        let reply = hub.hello(appKey: appKey, token: token, body: JSONWriter.encode(.object(body)), now: now)
        collect()
        return reply
    }

    /// A hello that counts; returns its token.
    mutating func presentToken(token: String? = nil) throws -> String {
        let reply = hello(token: token)
        return try #require(json(reply)["device_token"]?.stringValue)
    }

    mutating func next(_ token: String?) -> HubStep {
        let step = hub.next(appKey: Self.appKey, token: token, install: Self.install, now: now)
        collect()
        return step
    }

    mutating func frames(
        _ token: String?, state: String = "live", reason: String? = nil, lines: [String] = [], wireBytes: Int = 100
    ) -> HubReply {
        var body: [String: JSONValue] = [
            "install": .string(Self.install), "state": .string(state),
            "lines": .array(lines.map { .object(["t": .number(1), "severity": .number(9), "body": .string($0)]) }),
        ]
        if let reason { body["reason"] = .string(reason) }
        let reply = hub.frames(
            appKey: Self.appKey, token: token, body: JSONWriter.encode(.object(body)), wireBytes: wireBytes, now: now)
        collect()
        return reply
    }

    mutating func results(_ token: String?, id: String, name: String, outcome: String = "done") -> HubReply {
        let body: JSONValue = .object([
            "install": .string(Self.install), "id": .string(id), "name": .string(name), "outcome": .string(outcome),
            "at": .number(Double(now.wallUnixMs)), "result": .object(["until": .number(1)]),
        ])
        let reply = hub.results(appKey: Self.appKey, token: token, body: JSONWriter.encode(body), wireBytes: 80, now: now)
        collect()
        return reply
    }

    mutating func watch(_ viewer: HubViewerIdentity = HubHarness.admin) -> HubReply {
        let reply = hub.watch(viewer, app: nil, install: Self.install, now: now)
        collect()
        return reply
    }

    mutating func leave(_ viewer: HubViewerIdentity = HubHarness.admin) -> HubReply {
        let reply = hub.leave(viewer, app: nil, install: Self.install, now: now)
        collect()
        return reply
    }

    mutating func command(_ name: String, by viewer: HubViewerIdentity = HubHarness.admin) -> HubReply {
        let reply = hub.command(
            viewer, app: nil, install: Self.install, body: JSONWriter.encode(.object(["name": .string(name)])), now: now)
        collect()
        return reply
    }

    /// A poll of the viewer's stream: nil while they watch (the instance then answers from its
    /// stream of the device's events), the refusal otherwise.
    mutating func poll(_ viewer: HubViewerIdentity = HubHarness.admin) -> HubReply? {
        let refusal = hub.streamPoll(viewer, app: nil, install: Self.install, now: now)
        collect()
        return refusal
    }

    /// A device present with a viewer watching and a session started by its hello; returns the token.
    mutating func startSession(viewer: HubViewerIdentity = HubHarness.admin) throws -> String {
        let first = try presentToken()
        _ = watch(viewer)
        let token = try presentToken(token: first)
        try #require(hub.isInSession(key))
        return token
    }

    /// Moves time on as a live device does: a `frames` body every 20 seconds, which keeps both
    /// its presence and its session going.
    mutating func stayLive(_ token: String, for duration: Duration) {
        var left = duration
        while left > .zero {
            let step = min(left, .seconds(20))
            advance(step)
            _ = frames(token)
            left -= step
        }
    }

    /// The id of the first command an immediate `next` answer carries.
    mutating func firstCommandID(_ token: String) throws -> String {
        let reply = try #require(next(token).reply)
        return try #require(json(reply)["commands"]?.arrayValue?.first?["id"]?.stringValue)
    }

    /// The answer released for `hold`, if it was.
    func releasedReply(_ hold: HoldID?) -> HubReply? {
        released.last { $0.hold == hold }?.reply
    }

    /// The events produced for the device's viewers since the harness began, or since `from`.
    func events(from start: Int = 0) -> [JSONValue] { emitted[start...].map { json(Array($0.json.utf8)) } }

    /// Everything the hub holds, as text: what a memory dump of the backend would show.
    var dump: String {
        var out = ""
        Swift.dump(hub, to: &out)
        return out
    }
}

extension [JSONValue] {
    func ofType(_ type: String) -> [JSONValue] { filter { $0["type"]?.stringValue == type } }
}
