import ApsioTestSupport
import Foundation
import Testing

/// Three built `apsio-backend` instances on a real Redis Cluster (three masters of Debian's
/// redis-server, a replica each, on loopback), named by one node: a live session spread over the
/// instances runs as on one server, and goes on when the master serving the device is killed and
/// its replica promoted, the device told to come back later meanwhile (503 with `Retry-After`).
@Suite(.serialized) struct FleetClusterTests {
    typealias Fleet = FleetBinaryTests.Fleet

    /// The master holding the device's document: the one whose keys include it.
    static func masterOfDevice(_ cluster: RedisClusterFixture) throws -> Int {
        for master in try cluster.masters() {
            let keys = try cluster.cli(port: master.port, "--scan", "--pattern", "apsio:device:*").split(separator: "\n")
            if keys.contains(where: { $0.hasSuffix(":demo:\(FleetBinaryTests.install)") }) { return master.port }
        }
        throw WaitTimedOut(what: "a master holding the device's document")
    }

    @Test func aLiveSessionOnAClusterGoesOnWhenItsMasterIsKilled() async throws {
        let cluster = try await RedisClusterFixture.start()
        let fleet = try await Fleet(cluster: cluster)
        let (a, b, c) = (fleet[0], fleet[1], fleet[2])
        let (token, ann, stream) = try await FleetBinaryTests.liveSession(
            fleet, hello: 0, watch: 1, session: 2, frames: 0, heard: 2, line: "before")

        // A command sent on one instance answers the `next` held on another: the wake-up went
        // over the device's sharded channel.
        let held = Task { try await FleetBinaryTests.next(b, token: token) }
        try await fleet.waitForHeld(1, count: 1)
        let command = try await c.api(
            "POST", "/api/devices/\(FleetBinaryTests.install)/commands?app=demo", bearer: ann, body: .object(["name": .string("diagnostics")]))
        #expect(command.status == 202)
        #expect(try await held.value.body["commands"]?.arrayValue?.first?["id"] == command.body["id"])

        let master = try Self.masterOfDevice(cluster)
        try await cluster.waitForReplicas(of: master)
        cluster.kill(port: master)

        // The device posts until its frames are taken again; meanwhile only 503s that say when to
        // come back.
        var refused = 0
        while true {
            let answer = try await a.device(
                "/v1/live/frames",
                .object([
                    "install": .string(FleetBinaryTests.install), "state": .string("live"),
                    "lines": .array([.object(["body": .string("after")])]),
                ]), token: token, key: FleetBinaryTests.appKey)
            if answer.status == 200 { break }
            #expect(answer.status == 503, "\(answer.status) \(answer.body)")
            #expect(answer.headers["Retry-After"].flatMap { Int($0) }.map { $0 >= 1 } == true)
            refused += 1
            try #require(refused < 600, "the frames were taken again within the failover")
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(refused > 0, "the master's loss was felt")
        #expect(try cluster.masters().allSatisfy { $0.port != master })
        // Every instance says it is whole again once its subscriptions moved to the promoted
        // master (what was published before that is lost, as pub/sub loses it: a `gap`).
        for instance in fleet.instances {
            try await poll("the instance's health is ok again") {
                (try? await instance.client.send(.get("/api/health")))?.body["status"]?.stringValue == "ok"
            }
        }
        #expect(try await FleetBinaryTests.frames(a, token: token, line: "after") == 200)

        // The same session: the viewer hears the frames after the failover, and no end.
        let after = try await stream.until("frames", on: [c, a, b]) {
            $0["frames"]?["lines"]?.arrayValue?.first?["body"]?.stringValue == "after"
        }
        #expect(after["frames"] != nil)
        #expect(!stream.events.contains { $0["type"]?.stringValue == "session_ended" }, "\(stream.events)")
        for instance in fleet.instances { #expect(instance.child.process.isRunning) }
    }
}
