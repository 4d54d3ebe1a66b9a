import ApsioCore
import ApsioPlatform
@testable import ApsioTestSupport
import Testing

@Suite struct MemoryFootprintTests {
    let unit = SysfsFixture.unit

    @Test func cgroupV2IsAnonPlusShmemPlusSwap() throws {
        let machine = try SysfsFixture("v2")
        try machine.cgroupV2()
        let footprint = MemoryFootprintReader(roots: machine.roots).read(cgroup: unit)
        // anon 10 MiB + shmem 2 MiB + swap 1 MiB; the 700 MiB of page cache is not the unit's to keep.
        #expect(footprint == MemoryFootprint(bytes: 13_631_488, source: .cgroupV2))
    }

    @Test func cgroupV2WithoutSwapAccountingCountsNoSwap() throws {
        let machine = try SysfsFixture("v2")
        try machine.cgroupV2()
        try machine.remove("sys/fs/cgroup\(unit)/memory.swap.current")
        #expect(MemoryFootprintReader(roots: machine.roots).read(cgroup: unit)?.bytes == 12_582_912)
    }

    @Test func hybridMachinesUseTheV1ControllersHierarchicalTotals() throws {
        let machine = try SysfsFixture("hybrid")
        try machine.cgroupV1Hybrid()
        let footprint = MemoryFootprintReader(roots: machine.roots).read(cgroup: unit)
        // total_rss 10 MiB + total_shmem 2 MiB + total_swap 1 MiB, the worker cgroup included.
        #expect(footprint == MemoryFootprint(bytes: 13_631_488, source: .cgroupV1))
    }

    @Test func withoutAMemoryCgroupTheProcessesStatusIsSummed() throws {
        let machine = try SysfsFixture("legacy")
        try machine.cgroupV1LegacyWithoutMemory()
        let footprint = MemoryFootprintReader(roots: machine.roots).read(cgroup: unit)
        // (2048 + 512 + 64) + (8192 + 512 + 0) + (1024 + 0 + 0) KiB over the three processes.
        #expect(footprint == MemoryFootprint(bytes: 12_352 * 1024, source: .procStatus))
    }

    @Test func withoutAnyCgroupTheMainPIDStandsIn() throws {
        let machine = try SysfsFixture("nocgroup")
        for process in SysfsFixture.unitProcesses { try machine.process(process) }
        let footprint = MemoryFootprintReader(roots: machine.roots).read(cgroup: unit, extraPIDs: [101])
        #expect(footprint == MemoryFootprint(bytes: 8704 * 1024, source: .procStatus))
    }

    @Test func nothingReadableMeansNoFootprint() throws {
        let machine = try SysfsFixture("empty")
        #expect(MemoryFootprintReader(roots: machine.roots).read(cgroup: unit, extraPIDs: [4242]) == nil)
    }

    @Test func aCgroupPathThatClimbsOutIsRefused() throws {
        let machine = try SysfsFixture("v2")
        try machine.cgroupV2()
        try machine.file("sys/fs/memory.stat", "anon 1\nshmem 1\n")
        let footprint = MemoryFootprintReader(roots: machine.roots).read(cgroup: "/../../fs")
        #expect(footprint?.source != .cgroupV2)
    }
}
