import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct ProcessFrameTests {
    let unit = SysfsFixture.unit
    let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    @Test func aFrameListsTheWholeTreeIncludingChildCgroups() throws {
        let machine = try SysfsFixture("frame")
        try machine.cgroupV2()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(10))
        #expect(frame.activeState == "active")
        #expect(frame.subState == "running")
        #expect(frame.tasks == 6)
        #expect(frame.memoryBytes == 748_683_264)
        #expect(frame.processes.map(\.pid) == [100, 101, 102])
        let worker = frame.processes[1]
        #expect(worker.ppid == 100)
        #expect(worker.comm == "nginx")
        #expect(worker.threads == 4)
        #expect(worker.rssBytes == 3000 * pageSize)
        #expect(worker.state == "S")
        let odd = frame.processes[2]
        #expect(odd.comm == "my (odd) app")
        #expect(odd.state == "R")
        #expect(frame.processes.allSatisfy { $0.cpuPercent == nil })  // no previous frame yet
        #expect(frame.sockets == nil)
    }

    @Test func argumentsAndEnvironmentNeverEnterAFrame() throws {
        let machine = try SysfsFixture("masking")
        try machine.cgroupV2()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .zero)
        #expect(frame.processes.map(\.argv0) == ["nginx", "nginx", "python3"])
        let json = String(decoding: try JSONEncoder().encode(frame), as: UTF8.self)
        for secret in ["tenant-acme", "serve.py", "s3cret", "hunter2", "API_KEY", "master process", "/usr/bin"] {
            #expect(!json.contains(secret), "\(secret) leaked into \(json)")
        }
    }

    @Test func cpuPercentIsSinceThePreviousFrame() throws {
        let machine = try SysfsFixture("cpu")
        try machine.cgroupV2()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        _ = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(100))
        var worker = SysfsFixture.unitProcesses[1]
        worker.utime += UInt64(ticksPerSecond)  // one CPU-second in two seconds
        try machine.process(worker)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(102))
        #expect(frame.processes.map(\.cpuPercent) == [0, 50, 0])
    }

    @Test func aReusedPidIsANewProcessWithoutAPercent() throws {
        let machine = try SysfsFixture("reuse")
        try machine.cgroupV2()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        _ = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(1))
        var newcomer = SysfsFixture.unitProcesses[2]
        newcomer.startTicks += 500
        try machine.process(newcomer)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(2))
        #expect(frame.processes[2].cpuPercent == nil)
    }

    @Test func anUnchangedUnitGivesAnEqualFrameAndAChangeDoesNot() throws {
        let machine = try SysfsFixture("equal")
        try machine.cgroupV2()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        _ = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(1))
        let second = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(2))
        let third = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(3))
        #expect(second == third)
        let reloading = reader.frame(cgroup: unit, activeState: "reloading", subState: "reload", monotonic: .seconds(4))
        #expect(reloading != third)
        try machine.file("sys/fs/cgroup\(unit)/worker/cgroup.procs", "")
        let fewer = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .seconds(5))
        #expect(fewer.processes.map(\.pid) == [100, 102])
    }

    @Test func hybridMachinesTakeMemoryFromV1AndTasksFromThePidsController() throws {
        let machine = try SysfsFixture("hybrid-frame")
        try machine.cgroupV1Hybrid()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .zero)
        #expect(frame.memoryBytes == 748_683_264)
        #expect(frame.tasks == 6)
        #expect(frame.processes.count == 3)
    }

    @Test func legacyMachinesListFromTheSystemdHierarchyAndCountThreads() throws {
        let machine = try SysfsFixture("legacy-frame")
        try machine.cgroupV1LegacyWithoutMemory()
        var reader = ProcessFrameReader(roots: machine.roots, sockets: nil)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .zero)
        #expect(frame.processes.map(\.pid) == [100, 101, 102])
        #expect(frame.tasks == 6)  // 1 + 4 + 1 threads
        #expect(frame.memoryBytes == nil)
    }

    @Test func aFrameHasACapAndCountsWhatItLeftOut() throws {
        let machine = try SysfsFixture("cap")
        try machine.cgroupV2()
        var limits = ReadLimits()
        limits.maxFrameProcesses = 2
        var reader = ProcessFrameReader(roots: machine.roots, limits: limits, sockets: nil)
        let frame = reader.frame(cgroup: unit, activeState: "active", subState: "running", monotonic: .zero)
        #expect(frame.processes.map(\.pid) == [100, 101])
        #expect(frame.omittedProcesses == 1)
    }

    @Test func aFrameEncodesWithTheProfilesNames() throws {
        let frame = ProcessFrame(
            activeState: "active", subState: "running", tasks: 1, memoryBytes: 2,
            processes: [ProcessEntry(pid: 7, ppid: 1, comm: "x", argv0: "x", state: "S", threads: 1, rssBytes: 4096, cpuPercent: 1.5)],
            sockets: [ListeningSocket(transport: .tcp, address: "0.0.0.0", port: 80)])
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(frame)) as? [String: Any]
        #expect(object?["active_state"] as? String == "active")
        #expect(object?["memory_bytes"] as? Int == 2)
        let process = (object?["processes"] as? [[String: Any]])?.first
        #expect(process?["rss_bytes"] as? Int == 4096)
        #expect(process?["cpu_percent"] as? Double == 1.5)
        #expect(Set(process?.keys.map { $0 } ?? []) == ["pid", "ppid", "comm", "argv0", "state", "threads", "rss_bytes", "cpu_percent"])
        #expect((object?["sockets"] as? [[String: Any]])?.first?["port"] as? Int == 80)
    }

    /// The test process itself, read from the real /proc.
    @Test func ownProcessFromTheRealProc() throws {
        var reader = ProcessFrameReader(sockets: nil)
        let pid = getpid()
        _ = reader.frame(cgroup: "/no-such.slice/none.service", activeState: "active", subState: "running",
                         extraPIDs: [pid], monotonic: .zero)
        let frame = reader.frame(cgroup: "/no-such.slice/none.service", activeState: "active", subState: "running",
                                 extraPIDs: [pid], monotonic: .seconds(1))
        let own = try #require(frame.processes.first)
        #expect(frame.processes.count == 1)
        #expect(own.pid == pid)
        #expect(own.ppid == getppid())
        let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(own.comm == comm)
        #expect(own.argv0 == URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent)
        #expect(own.threads >= 1)
        #expect(own.rssBytes > 0)
        #expect(own.cpuPercent != nil)
    }
}
