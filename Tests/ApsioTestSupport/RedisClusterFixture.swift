import Foundation
import Glibc
import Synchronization

/// A Redis Cluster of Debian's redis-server for one test: `masters` masters with
/// `replicasPerMaster` replicas each, every node on a TCP port of 127.0.0.1 with a directory of its
/// own and no persistence, joined by `redis-cli --cluster create`. A node killed by the test
/// (`kill(port:)`) is a crash: its replica takes its slots over after the node timeout (one
/// second). Every node is stopped by its pid when the test is done with the cluster.
package final class RedisClusterFixture: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// One node as started; `pid` is nil once it is killed or stopped.
    package struct Node: Sendable, Equatable {
        package let port: Int
        package let pid: Int32?
    }

    private struct State {
        var processes: [Int: Process] = [:]
        /// Each killed node's id and the slots it served when it was killed, for `waitForFailover`.
        var killed: [Int: (id: String?, slots: [ClosedRange<Int>])] = [:]
    }

    private let directory: TemporaryDirectory
    /// Every node's client port, in the order given to `redis-cli --cluster create`.
    private let ports: [Int]
    /// The master of slot 0 once the cluster came up.
    private let seedPort: Int
    private let state: Mutex<State>

    /// Ports handed to a fixture of this process and not given back yet: two fixtures starting at
    /// once would otherwise both find the same port free before either node binds it.
    private static let claimed = Mutex<Set<Int>>([])

    /// Starts the nodes, creates the cluster and returns once every node serves (`cluster_state:ok`),
    /// every replica's link to its master is up and every node sees the same cluster. `masters`: at
    /// least 3, as `redis-cli --cluster create` asks, and as a failover needs (a majority of the
    /// masters must vote for the replica, the dead one not voting). Started on a thread of its own
    /// (`onOwnThread`): creating a cluster takes seconds of polling.
    package static func start(masters: Int = 3, replicasPerMaster: Int = 1) async throws -> RedisClusterFixture {
        try await onOwnThread { try RedisClusterFixture(masters: masters, replicasPerMaster: replicasPerMaster) }
    }

    private init(masters: Int, replicasPerMaster: Int) throws {
        guard masters >= 3, replicasPerMaster >= 0 else {
            throw Failure(description: "a cluster needs 3 masters or more, not \(masters), and replicas >= 0")
        }
        let directory = try TemporaryDirectory("apsio-redis-cluster")
        self.directory = directory
        let count = masters * (1 + replicasPerMaster)
        // A port found free may be taken before the node binds it (by another test's server, or by
        // a connection's local port when the range chosen is the kernel's ephemeral one): the node
        // then exits at once, and the whole set is started again on other ports.
        var started: (ports: [Int], processes: [Int: Process])?
        var failures: [String] = []
        for _ in 0..<3 where started == nil {
            let ports = try Self.freePorts(count)
            do {
                started = (ports, try Self.launch(ports: ports, in: directory.path))
            } catch {
                Self.release(ports)
                failures.append(String(describing: error))
            }
        }
        guard let started else { throw Failure(description: "the nodes did not start:\n" + failures.joined(separator: "\n")) }
        ports = started.ports
        state = Mutex(State(processes: started.processes))
        do {
            seedPort = try Self.create(ports: ports, replicas: replicasPerMaster, directory: directory.path)
        } catch {
            Self.stop(Array(started.processes.values), ports: ports)
            throw error
        }
    }

    deinit { stop() }

    /// The first master's endpoint (the master of slot 0 when the cluster came up) as
    /// `apsio-backend --redis` takes it. It stays that node after a failover, dead or not.
    package var seed: String { "redis://127.0.0.1:\(seedPort)" }

    /// Every node started, in the order of their creation, whatever its role now.
    package var nodes: [Node] {
        state.withLock { state in ports.map { Node(port: $0, pid: state.processes[$0]?.processIdentifier) } }
    }

    /// The masters that serve, as a live node sees the cluster now, in the order of the first slot
    /// each serves. A killed master is not among them, even before the cluster noticed.
    package func masters() throws -> [(port: Int, pid: Int32)] {
        let alive = livePids()
        return try view().filter { $0.isMaster && !$0.failing && alive[$0.port] != nil }
            .sorted { ($0.slots.first?.lowerBound ?? Int.max, $0.port) < ($1.slots.first?.lowerBound ?? Int.max, $1.port) }
            .map { ($0.port, alive[$0.port]!) }
    }

    /// The live replicas, as a live node sees the cluster now, with their master's port, by port.
    package func replicas() throws -> [(port: Int, pid: Int32, master: Int)] {
        let alive = livePids()
        let view = try view()
        let ports = Dictionary(view.map { ($0.id, $0.port) }, uniquingKeysWith: { first, _ in first })
        return view.compactMap { node in
            guard !node.isMaster, !node.failing, let pid = alive[node.port], let master = node.master.flatMap({ ports[$0] })
            else { return nil }
            return (node.port, pid, master)
        }.sorted { $0.port < $1.port }
    }

    /// The port of the master serving `slot`, as a live node sees the cluster now.
    package func master(ofSlot slot: Int) throws -> Int {
        let view = try view()
        guard let owner = view.first(where: { $0.isMaster && !$0.failing && $0.serves(slot) }) else {
            throw Failure(description: "no master serves slot \(slot):\n" + view.map(\.line).joined(separator: "\n"))
        }
        return owner.port
    }

    /// The port of the master serving `key`'s slot, as a live node sees the cluster now.
    package func master(ofKey key: String) throws -> Int {
        let answer = try cli(port: try anyLivePort(), "CLUSTER", "KEYSLOT", key)
        guard let slot = Int(answer) else { throw Failure(description: "CLUSTER KEYSLOT \(key): \(answer)") }
        return try master(ofSlot: slot)
    }

    /// SIGKILL, as a crash of that node (and of its fork, if it was sending a copy to a replica).
    /// The slots it served are noted first, for `waitForFailover`.
    package func kill(port: Int) {
        guard let process = state.withLock({ $0.processes[port] }) else { return }
        // Its own line is the last word on what it serves; a survivor's view if it does not answer.
        let line =
            ((try? parseNodes(run(["-p", String(port), "CLUSTER", "NODES"]).output)) ?? []).first { $0.myself }
            ?? (try? view(excluding: port).first { $0.port == port })
        state.withLock { state in
            state.processes[port] = nil
            state.killed[port] = (line?.id, line?.slots ?? [])
        }
        Self.stop([process], ports: [])
    }

    /// Waits until a node that was a replica serves every slot the killed master `port` served, as
    /// every surviving node sees it, the killed master's other replicas follow the new one, and
    /// every surviving node says `cluster_state:ok`. Returns the new master's port.
    /// Polled on a thread of its own (`onOwnThread`): a failover takes seconds.
    @discardableResult
    package func waitForFailover(of port: Int, timeout: Duration = .seconds(60)) async throws -> Int {
        try await onOwnThread { try self.pollFailover(of: port, timeout: timeout) }
    }

    private func pollFailover(of port: Int, timeout: Duration) throws -> Int {
        guard let killed = state.withLock({ $0.killed[port] }) else {
            throw Failure(description: "\(port) was not killed by kill(port:)")
        }
        guard let probe = killed.slots.first?.lowerBound else { throw Failure(description: "\(port) served no slots: it was no master") }
        let deadline = ContinuousClock.now + timeout
        // Failure detection, the FAIL flag's gossip and the election with its random delay: a few
        // seconds of the cluster's own time, polled.
        // Why the last look was not the end, for the failure's message.
        var notYet = ""
        while true {
            var owners: Set<Int> = []
            var ready = true
            for survivor in livePids().keys.sorted() {
                // Each look bounded well within the wait: one redis-cli stuck must not use it up.
                let look = { (arguments: [String]) in try? Self.run(["-p", String(survivor)] + arguments, deadline: .seconds(5)).output }
                guard let info = look(["CLUSTER", "INFO"]), info.contains("cluster_state:ok") else {
                    (ready, notYet) = (false, "\(survivor) did not say cluster_state:ok")
                    break
                }
                guard let view = look(["CLUSTER", "NODES"]).flatMap({ try? parseNodes($0) }),
                    let owner = view.first(where: { $0.isMaster && !$0.failing && $0.serves(probe) }),
                    killed.slots.allSatisfy({ range in owner.slots.contains { $0.contains(range.lowerBound) && $0.contains(range.upperBound) } })
                else {
                    (ready, notYet) = (false, "\(survivor) named no live master of every slot \(port) served")
                    break
                }
                // A sibling replica moves to the new master once it hears of its new epoch.
                guard !view.contains(where: { !$0.failing && $0.master != nil && $0.master == killed.id }) else {
                    (ready, notYet) = (false, "\(survivor) still saw a replica of \(port)")
                    break
                }
                owners.insert(owner.port)
            }
            if ready, owners.count == 1, let owner = owners.first, owner != port, livePids()[owner] != nil { return owner }
            if ready { notYet = "the survivors named different masters: \(owners.sorted())" }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "no failover of \(port) within \(timeout) (last: \(notYet)):\n" + describe())
            }
            usleep(50_000)
        }
    }

    /// Waits until every live replica of master `port` has processed what the master had been
    /// sent when called (replication is asynchronous: a write acknowledged by the master may not
    /// be on its replica yet).
    package func waitForReplicas(of port: Int, timeout: Duration = .seconds(10)) async throws {
        try await onOwnThread { try self.pollReplicas(of: port, timeout: timeout) }
    }

    private func pollReplicas(of port: Int, timeout: Duration) throws {
        let written = try Self.field("master_repl_offset", in: cli(port: port, "INFO", "replication")).flatMap(Int.init)
        guard let written else { throw Failure(description: "no master_repl_offset from \(port)") }
        let deadline = ContinuousClock.now + timeout
        for replica in try replicas() where replica.master == port {
            // The replica's own offset moves as it applies the stream: its acknowledgement to the
            // master comes only once a second.
            while (try? Self.field("slave_repl_offset", in: cli(port: replica.port, "INFO", "replication")).flatMap(Int.init)) ?? -1 < written {
                guard ContinuousClock.now < deadline else {
                    throw Failure(description: "replica \(replica.port) did not reach offset \(written) of \(port)")
                }
                usleep(10_000)
            }
        }
    }

    /// `redis-cli -p port` against one node, for what a test checks from outside the client under
    /// test. Without `-c`: a key of another node's slot answers `MOVED`.
    package func cli(port: Int, _ arguments: String...) throws -> String {
        try Self.run(["-p", String(port)] + arguments).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGKILL for every node still running; the cluster is gone for good.
    package func stop() {
        let processes = state.withLock { state -> [Process] in
            defer { state.processes = [:] }
            return Array(state.processes.values)
        }
        Self.stop(processes, ports: ports)
    }

    /// A node's log, as redis-server wrote it.
    package func log(port: Int) -> String {
        (try? String(contentsOfFile: "\(directory.path)/\(port)/redis.log", encoding: .utf8)) ?? ""
    }

    // MARK: Starting

    /// The nodes on `ports`, each answering on its port. On a failure, those started are stopped.
    private static func launch(ports: [Int], in directory: String) throws -> [Int: Process] {
        var processes: [Int: Process] = [:]
        do {
            for port in ports {
                let node = "\(directory)/\(port)"
                try FileManager.default.createDirectory(atPath: node, withIntermediateDirectories: true)
                let server = Process()
                server.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
                server.arguments = [
                    "--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                    "--cluster-config-file", node + "/nodes.conf", "--cluster-node-timeout", "1000",
                    "--save", "", "--appendonly", "no", "--dir", node, "--daemonize", "no",
                    "--logfile", node + "/redis.log", "--enable-debug-command", "local",
                    // A replica may take over however long ago it last heard from its master: by
                    // default one silent for more than ten node timeouts (a master paused by the
                    // test, say) never does, and its slots stay down.
                    "--cluster-replica-validity-factor", "0",
                    // The full copy a replica gets when it first links up is sent at once: by
                    // default (diskless) the master waits 5 s for more replicas to share it.
                    "--repl-diskless-sync-delay", "0",
                    // Roles change only by the failovers a test causes: with more replicas than
                    // one, one would otherwise move to a master left without any.
                    "--cluster-allow-replica-migration", "no",
                ]
                server.standardInput = FileHandle.nullDevice
                server.standardOutput = FileHandle.nullDevice
                server.standardError = FileHandle.nullDevice
                try server.run()
                processes[port] = server
            }
            // A node accepts once it listens: a process's own time, polled while it lives.
            for port in ports {
                var waited = 0
                while !LoopbackPort.accepts(port) {
                    guard processes[port]!.isRunning, waited < 2000 else {
                        let log = (try? String(contentsOfFile: "\(directory)/\(port)/redis.log", encoding: .utf8)) ?? ""
                        throw Failure(description: "redis-server on \(port) did not start: \(tail(log))")
                    }
                    usleep(5000)
                    waited += 1
                }
            }
        } catch {
            stop(Array(processes.values), ports: [])
            throw error
        }
        return processes
    }

    /// Runs `redis-cli --cluster create` and waits for the cluster to settle; returns the port of
    /// slot 0's master.
    private static func create(ports: [Int], replicas: Int, directory: String) throws -> Int {
        let creation = try run(
            ["--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + ["--cluster-replicas", String(replicas), "--cluster-yes"],
            errors: true, deadline: .seconds(60))
        guard creation.status == 0 else {
            throw Failure(description: "redis-cli --cluster create: \(creation.output)\n" + describe(ports: ports, directory: directory))
        }
        // The replicas' first copies and the nodes' gossip: the cluster's own time, polled.
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let seed = settled(ports: ports) { return seed }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "the cluster did not settle within 60 s:\n" + describe(ports: ports, directory: directory))
            }
            usleep(50_000)
        }
    }

    /// Slot 0's master when every node serves, every replica's link is up, every node sees the
    /// same nodes in the same roles with the same slots, and `redis-cli --cluster check` agrees.
    /// A replica must be known as one by the masters before a failover: they vote only for the
    /// replica of a failed master.
    private static func settled(ports: [Int]) -> Int? {
        var views: [[String]] = []
        for port in ports {
            guard let info = try? run(["-p", String(port), "CLUSTER", "INFO"]).output, info.contains("cluster_state:ok"),
                let replication = try? run(["-p", String(port), "INFO", "replication"]).output,
                replication.contains("role:master") || replication.contains("master_link_status:up"),
                let nodes = try? parseNodes(run(["-p", String(port), "CLUSTER", "NODES"]).output),
                nodes.count == ports.count, nodes.allSatisfy({ $0.connected && !$0.failing })
            else { return nil }
            views.append(nodes.map(\.signature).sorted())
        }
        guard Set(views).count == 1, (try? run(["--cluster", "check", "127.0.0.1:\(ports[0])"]).status) == 0,
            let nodes = try? parseNodes(run(["-p", String(ports[0]), "CLUSTER", "NODES"]).output),
            let seed = nodes.first(where: { $0.isMaster && $0.serves(0) })
        else { return nil }
        return seed.port
    }

    // MARK: Ports

    /// `count` ports P of 127.0.0.1 where nothing listens on P nor on P + 10000, the node's cluster
    /// bus. Picked at random below the kernel's ephemeral range when it leaves room (P in
    /// 10000..<22768 for the usual 32768), so that no connection's local port takes one between
    /// this check and the node's bind (the nodes' own connections among themselves included);
    /// anywhere the bus port fits otherwise.
    private static func freePorts(_ count: Int) throws -> [Int] {
        let ephemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let range = ephemeral - 10000 > 10000 + 1000 ? 10000..<(ephemeral - 10000) : 1024..<55536
        return try claimed.withLock { claimed in
            var ports: [Int] = []
            for _ in 0..<10000 where ports.count < count {
                let port = Int.random(in: range)
                guard !claimed.contains(port), !claimed.contains(port + 10000), !claimed.contains(port - 10000),
                    LoopbackPort.isBindable(port), LoopbackPort.isBindable(port + 10000)
                else { continue }
                claimed.formUnion([port, port + 10000])
                ports.append(port)
            }
            guard ports.count == count else {
                claimed.subtract(ports.flatMap { [$0, $0 + 10000] })
                throw Failure(description: "no \(count) free port pairs on 127.0.0.1 in \(range)")
            }
            return ports
        }
    }

    private static func release(_ ports: [Int]) {
        claimed.withLock { $0.subtract(ports.flatMap { [$0, $0 + 10000] }) }
    }

    // MARK: Stopping

    /// SIGKILL for each process and its children (a master's fork sending a copy to a replica),
    /// whatever `isRunning` says, each waited for with a bound; `ports` are given back.
    private static func stop(_ processes: [Process], ports: [Int]) {
        for process in processes {
            let pid = process.processIdentifier
            let forks = ProcessChildren.of(pid)
            Glibc.kill(pid, SIGKILL)
            for fork in forks { Glibc.kill(fork, SIGKILL) }
        }
        // `waitUntilExit` spins a run loop until Foundation's own thread sees the exit, and once
        // hung a whole test run (RedisServerFixture): polled instead.
        for process in processes {
            for _ in 0..<2000 where process.isRunning { usleep(5000) }
            releaseEnded(process)
        }
        release(ports)
    }

    // MARK: The cluster's view

    /// One line of `CLUSTER NODES`:
    /// `ID IP:PORT@BUSPORT[,HOSTNAME] FLAGS MASTER PING PONG EPOCH LINK SLOT...`.
    private struct ClusterNode {
        let line: String
        let id: String
        let port: Int
        let flags: Set<String>
        /// The master's id, for a replica.
        let master: String?
        let connected: Bool
        let slots: [ClosedRange<Int>]

        var myself: Bool { flags.contains("myself") }
        var isMaster: Bool { flags.contains("master") }
        /// Down (`fail`), suspected down (`fail?`), or not a full member yet.
        var failing: Bool { !flags.isDisjoint(with: ["fail", "fail?", "handshake", "noaddr"]) }
        /// What every node must agree on: who, in which role, serving what.
        var signature: String {
            "\(id) \(port) \(isMaster ? "master" : "replica") \(master ?? "-") \(slots.map { "\($0.lowerBound)-\($0.upperBound)" })"
        }

        func serves(_ slot: Int) -> Bool { slots.contains { $0.contains(slot) } }
    }

    private static func parseNodes(_ text: String) throws -> [ClusterNode] {
        try text.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, let address = fields[1].split(separator: "@").first,
                let port = address.split(separator: ":").last.flatMap({ Int($0) })
            else { throw Failure(description: "not a line of CLUSTER NODES: \(line)") }
            // Slots are `N`, `N-M`, or `[N->-ID]` / `[N-<-ID]` for one being moved, which the
            // fixture never does.
            let slots = fields.dropFirst(8).compactMap { field -> ClosedRange<Int>? in
                let bounds = field.split(separator: "-").compactMap { Int($0) }
                guard !field.hasPrefix("["), let first = bounds.first, bounds.count <= 2 else { return nil }
                return first...(bounds.last ?? first)
            }
            return ClusterNode(
                line: String(line), id: String(fields[0]), port: port, flags: Set(fields[2].split(separator: ",").map(String.init)),
                master: fields[3] == "-" ? nil : String(fields[3]), connected: fields[7] == "connected", slots: slots)
        }
    }

    private func parseNodes(_ text: String) throws -> [ClusterNode] { try Self.parseNodes(text) }

    private func run(_ arguments: [String]) throws -> (status: Int32?, output: String) { try Self.run(arguments) }

    /// `CLUSTER NODES` of the first live node.
    private func view(excluding excluded: Int? = nil) throws -> [ClusterNode] {
        try Self.parseNodes(run(["-p", String(try anyLivePort(excluding: excluded)), "CLUSTER", "NODES"]).output)
    }

    private func livePids() -> [Int: Int32] {
        state.withLock { $0.processes.mapValues(\.processIdentifier) }
    }

    private func anyLivePort(excluding excluded: Int? = nil) throws -> Int {
        guard let port = livePids().keys.filter({ $0 != excluded }).min() else { throw Failure(description: "no node is running") }
        return port
    }

    private func describe() -> String { Self.describe(ports: livePids().keys.sorted(), directory: directory.path) }

    /// Each node's view of the cluster and the end of its log, for a failure's message.
    private static func describe(ports: [Int], directory: String) -> String {
        ports.map { port in
            let nodes = (try? run(["-p", String(port), "CLUSTER", "NODES"]).output) ?? ""
            let log = (try? String(contentsOfFile: "\(directory)/\(port)/redis.log", encoding: .utf8)) ?? ""
            return "-- node \(port), CLUSTER NODES:\n\(nodes)-- its log:\n\(tail(log))"
        }.joined(separator: "\n")
    }

    /// The last lines of a log, without the warning every node starts with (vm.overcommit_memory).
    private static func tail(_ text: String, lines: Int = 15) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("WARNING Memory overcommit") }
            .suffix(lines).joined(separator: "\n")
    }

    private static func field(_ name: String, in info: String) -> String? {
        info.split(whereSeparator: \.isNewline).first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// `redis-cli` with `arguments`: its exit status (nil when it was killed) and its output, with
    /// its errors when `errors`. A node stopped or gone half-way can leave it waiting on its socket
    /// for good: it is stopped by its pid (SIGKILL) once `deadline` passes.
    private static func run(_ arguments: [String], errors: Bool = false, deadline: Duration = .seconds(30)) throws
        -> (status: Int32?, output: String)
    {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = arguments
        // Into a file, read once the process has ended, not a pipe read to its end: a pipe's end
        // inherited by a server another test starts at that moment would keep it open for as long
        // as that server lives.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-redis-cli-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
            throw Failure(description: "cannot create \(path)")
        }
        defer {
            try? output.close()
            unlink(path)
        }
        cli.standardInput = FileHandle.nullDevice
        cli.standardOutput = output
        cli.standardError = errors ? output : FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        cli.terminationHandler = { _ in ended.signal() }
        try cli.run()
        let pid = cli.processIdentifier
        let overdue = DispatchWorkItem { Glibc.kill(pid, SIGKILL) }
        let (seconds, attoseconds) = deadline.components
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)), execute: overdue)
        // Bounded by `overdue`, which ends it if it has not ended by itself.
        ended.wait()
        overdue.cancel()
        releaseEnded(cli)
        let data = FileManager.default.contents(atPath: path) ?? Data()
        return (cli.terminationReason == .exit ? cli.terminationStatus : nil, String(decoding: data, as: UTF8.self))
    }
}
