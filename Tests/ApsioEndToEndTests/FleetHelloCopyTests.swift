import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// A device's hellos keep to one instance (the nginx example hashes on the device token), which
/// answers those that only renew the presence from its copy of the device and writes them a
/// moment later, together (docs/fleet-backend.md, "Hellos answered from a copy"). Built
/// `apsio-backend` instances on a real redis-server.
@Suite(.serialized) struct FleetHelloCopyTests {
    typealias Fleet = FleetBinaryTests.Fleet

    static func hello(
        _ client: BackendHTTPClient, token: String?, model: String = "Box"
    ) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        var body = FleetBinaryTests.helloBody()
        if case .object(var fields) = body {
            fields["model"] = .string(model)
            body = .object(fields)
        }
        return try await client.device("/v1/live/hello", body, token: token, key: FleetBinaryTests.appKey)
    }

    /// The devices whose state the instance answers from its own copy (`/api/health`).
    static func copies(_ client: BackendHTTPClient) async throws -> Int {
        Int(try await client.send(.get("/api/health")).body["copies"]?.numberValue ?? -1)
    }

    /// Waits until the instance has written the hellos it answered from its copies.
    static func written(_ client: BackendHTTPClient) async throws {
        try await poll("the hellos answered from copies written") {
            try await client.send(.get("/api/health")).body["unwritten_hellos"]?.numberValue == 0
        }
    }

    static func listedModel(_ client: BackendHTTPClient, bearer: String) async throws -> String? {
        try await client.api("GET", "/api/devices", bearer: bearer).body["devices"]?.arrayValue?.first?["model"]?.stringValue
    }

    /// The watch is announced to the instance answering the device's hellos, which forgets its
    /// copy: its next hello counts the viewer and starts the session. Without the announcement,
    /// the copy would answer "nobody watches" until the hello after.
    @Test func aViewerWhoWatchesOnAnotherInstanceCountsAtTheNextHelloAnsweredFromACopy() async throws {
        let fleet = try await Fleet(count: 2)
        let (a, b) = (fleet[0], fleet[1])
        let token = try #require(try await Self.hello(a, token: nil).body["device_token"]?.stringValue)
        #expect(try await Self.hello(a, token: token).body["viewers"]?.numberValue == 0)
        #expect(try await Self.copies(a) == 1)
        // Written, so that A's copy is what Redis holds until B changes it.
        try await Self.written(a)

        let ann = try await b.signIn("ann", "ann-password")
        #expect(try await b.api("POST", "/api/devices/\(FleetBinaryTests.install)/watch?app=demo", bearer: ann).status == 200)
        // What a real device's interval leaves time for: the announcement reaching A, seen in its
        // health. Not required here: without it the hello below is answered from the copy.
        try? await poll("instance A forgets its copy of the device, told of the watch", seconds: 30) { try await Self.copies(a) == 0 }
        let next = try await Self.hello(a, token: token)
        #expect(next.body["viewers"]?.numberValue == 1)
        #expect(next.body["device_token"]?.stringValue == token)
        // The session started with that hello: frames are taken and reach the viewer on B.
        #expect(try await FleetBinaryTests.frames(a, token: token, line: "from a copy's instance") == 200)
        let stream = FleetBinaryTests.Stream(bearer: ann)
        _ = try await stream.until("frames", on: [b])
    }

    /// A hello without the token on another instance replaces the device's presence. The old
    /// token, presented where the copy was, is not renewed from it: that hello replaces again.
    @Test func aTokenReplacedOnAnotherInstanceIsNeverRenewedFromACopy() async throws {
        let fleet = try await Fleet(count: 2)
        let (a, b) = (fleet[0], fleet[1])
        let token = try #require(try await Self.hello(a, token: nil).body["device_token"]?.stringValue)
        #expect(try await Self.hello(a, token: token).body["device_token"]?.stringValue == token)
        try await Self.written(a)
        let replacing = try #require(try await Self.hello(b, token: nil).body["device_token"]?.stringValue)
        #expect(replacing != token)
        try? await poll("instance A forgets its copy of the device, told of the replace", seconds: 30) { try await Self.copies(a) == 0 }
        let old = try await Self.hello(a, token: token)
        #expect(old.status == 200)
        let answered = try #require(old.body["device_token"]?.stringValue)
        #expect(answered != token, "the replaced token is not the device's any more")
        #expect(answered != replacing)
    }

    /// What a renewing hello says reaches Redis, and so every instance, a moment after it is
    /// answered; an instance stopped in that moment writes it before it exits.
    @Test func whatARenewingHelloSaysReachesEveryInstanceAndOutlivesAStop() async throws {
        let fleet = try await Fleet(count: 2)
        let (a, b) = (fleet[0], fleet[1])
        let token = try #require(try await Self.hello(a, token: nil).body["device_token"]?.stringValue)
        let ann = try await b.signIn("ann", "ann-password")
        #expect(try await Self.listedModel(b, bearer: ann) == "Box")

        #expect(try await Self.hello(a, token: token, model: "Box 2").status == 200)
        try await poll("the renewed model listed on B") { try await Self.listedModel(b, bearer: ann) == "Box 2" }

        #expect(try await Self.hello(a, token: token, model: "Box 3").status == 200)
        fleet.instances[0].child.signal(SIGTERM)
        try await poll("instance A stopped", seconds: 120) { !fleet.instances[0].child.process.isRunning }
        #expect(fleet.instances[0].child.process.terminationStatus == 0)
        #expect(try await Self.listedModel(b, bearer: ann) == "Box 3", "A's log: \(fleet.instances[0].child.stderr)")
    }
}
