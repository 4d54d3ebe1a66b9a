import ApsioTestSupport
import Glibc
import Testing

/// The cluster fixture itself, since the cluster tests stand on it: a key written through its
/// master is read back from that master's replica once the master is killed and the replica has
/// taken over, and no node outlives the fixture.
@Suite struct RedisClusterFixtureTests {
    @Test func aKilledMastersReplicaTakesOverItsSlotsWithTheirKeys() async throws {
        let cluster = try await RedisClusterFixture.start()
        defer { cluster.stop() }
        #expect(cluster.nodes.count == 6)
        #expect(try cluster.masters().count == 3)
        #expect(try cluster.replicas().count == 3)
        #expect(try cluster.masters().first.map { "redis://127.0.0.1:\($0.port)" } == cluster.seed)

        let key = "fixture:kept"
        let owner = try cluster.master(ofKey: key)
        #expect(try cluster.cli(port: owner, "SET", key, "through the failover") == "OK")
        let standby = try cluster.replicas().filter { $0.master == owner }.map(\.port)
        #expect(standby.count == 1)
        // Replication is asynchronous: killed right after its answer, the master could take the
        // key with it.
        try await cluster.waitForReplicas(of: owner)

        cluster.kill(port: owner)
        #expect(cluster.nodes.first { $0.port == owner }?.pid == nil)
        let promoted = try await cluster.waitForFailover(of: owner)
        #expect(standby == [promoted])
        #expect(try cluster.master(ofKey: key) == promoted)
        #expect(try cluster.cli(port: promoted, "GET", key) == "through the failover")
        #expect(try cluster.masters().map(\.port).contains(promoted))
        #expect(try !cluster.masters().map(\.port).contains(owner))

        let pids = cluster.nodes.compactMap(\.pid)
        #expect(pids.count == 5)
        cluster.stop()
        #expect(cluster.nodes.allSatisfy { $0.pid == nil })
        // Gone, not left as zombies: Foundation has reaped each one.
        #expect(pids.allSatisfy { kill($0, 0) == -1 && errno == ESRCH })
    }
}
