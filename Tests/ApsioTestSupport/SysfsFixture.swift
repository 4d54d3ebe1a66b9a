import ApsioPlatform
import Foundation

/// Fixture trees of /sys and /proc, laid out as the kernel lays them out on real machines: a
/// laptop, a rack server without a battery, a Raspberry Pi, and the three cgroup layouts.
struct SysfsFixture {
    let directory: TemporaryDirectory
    var roots: SysfsRoots { SysfsRoots(sysfs: directory.path + "/sys", procfs: directory.path + "/proc") }
    var path: String { directory.path }

    init(_ label: String) throws {
        directory = try TemporaryDirectory(label)
        try mkdir("sys/class/thermal")
        try mkdir("sys/class/power_supply")
        try mkdir("sys/class/net")
        try mkdir("proc/sys/kernel")
    }

    /// A sysfs attribute as the kernel shows it: the value and a newline.
    func attribute(_ relative: String, _ value: String) throws {
        try directory.write(relative, value + "\n")
    }

    func file(_ relative: String, _ text: String) throws {
        try directory.write(relative, text)
    }

    func bytes(_ relative: String, _ bytes: [UInt8]) throws {
        let url = directory.url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent(relative), withIntermediateDirectories: true)
    }

    func symlink(_ relative: String, to target: String) throws {
        let url = directory.url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
    }

    func remove(_ relative: String) throws {
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent(relative))
    }

    // MARK: devices

    func thermalZone(_ index: Int, type: String, millidegrees: Int, trips: [(String, Int)] = []) throws {
        let zone = "sys/class/thermal/thermal_zone\(index)"
        try attribute("\(zone)/type", type)
        try attribute("\(zone)/temp", String(millidegrees))
        try attribute("\(zone)/mode", "enabled")
        for (number, trip) in trips.enumerated() {
            try attribute("\(zone)/trip_point_\(number)_type", trip.0)
            try attribute("\(zone)/trip_point_\(number)_temp", String(trip.1))
            try attribute("\(zone)/trip_point_\(number)_hyst", "0")
        }
        // The cooling-device links a real zone has beside its attributes.
        try mkdir("\(zone)/power")
    }

    func battery(_ name: String, status: String, capacity: Int?, scope: String? = nil) throws {
        let supply = "sys/class/power_supply/\(name)"
        try attribute("\(supply)/type", "Battery")
        try attribute("\(supply)/status", status)
        try attribute("\(supply)/present", "1")
        if let capacity { try attribute("\(supply)/capacity", String(capacity)) }
        if let scope { try attribute("\(supply)/scope", scope) }
        try attribute("\(supply)/technology", "Li-ion")
        try attribute("\(supply)/serial_number", "SN-BATTERY-1234")
    }

    func mains(_ name: String, online: Bool) throws {
        try attribute("sys/class/power_supply/\(name)/type", "Mains")
        try attribute("sys/class/power_supply/\(name)/online", online ? "1" : "0")
    }

    enum Link { case ethernet, wifi, wwan, tun, wireguard, ppp }

    func interface(_ name: String, _ link: Link) throws {
        let base = "sys/class/net/\(name)"
        var uevent = "INTERFACE=\(name)\nIFINDEX=\(name.count)\n"
        var type = 1
        switch link {
        case .ethernet: break
        case .wifi:
            uevent += "DEVTYPE=wlan\n"
            try mkdir("\(base)/wireless")
            try mkdir("\(base)/phy80211")
        case .wwan: uevent += "DEVTYPE=wwan\n"; type = 519
        case .tun: try attribute("\(base)/tun_flags", "0x1001"); type = 65534
        case .wireguard: uevent += "DEVTYPE=wireguard\n"; type = 65534
        case .ppp: type = 512
        }
        try attribute("\(base)/type", String(type))
        try file("\(base)/uevent", uevent)
        try attribute("\(base)/address", "00:00:00:00:00:00")
    }

    /// `/proc/net/route` with a header and one line per `(interface, destination, mask, metric)`,
    /// addresses in the little-endian hex the kernel prints on x86.
    func ipv4Routes(_ routes: [(String, String, String, Int)], flags: String = "0003") throws {
        var text = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        for (interface, destination, mask, metric) in routes {
            text += "\(interface)\t\(destination)\t0101A8C0\t\(flags)\t0\t0\t\(metric)\t\(mask)\t0\t0\t0\n"
        }
        try file("proc/net/route", text)
    }

    func ipv6Routes(_ lines: [String]) throws {
        try file("proc/net/ipv6_route", lines.joined(separator: "\n") + "\n")
    }

    // MARK: processes

    struct FakeProcess {
        var pid: Int32
        var ppid: Int32
        var comm: String
        var state = "S"
        var threads = 1
        var utime: UInt64 = 0
        var stime: UInt64 = 0
        var startTicks: UInt64 = 4200
        var rssPages: Int64 = 256
        var cmdline: [String] = []
        var rssAnonKiB: Int64 = 0
        var rssShmemKiB: Int64 = 0
        var swapKiB: Int64 = 0
    }

    func process(_ process: FakeProcess) throws {
        let base = "proc/\(process.pid)"
        // Fields 3 to 24 of proc(5), then the rest a real line has, zeros.
        let fields: [String] = [
            process.state, "\(process.ppid)", "\(process.pid)", "\(process.pid)", "0", "-1", "4194560", "1200", "0",
            "3", "0", "\(process.utime)", "\(process.stime)", "0", "0", "20", "0", "\(process.threads)", "0",
            "\(process.startTicks)", "123456789", "\(process.rssPages)", "18446744073709551615",
        ] + Array(repeating: "0", count: 28)
        try file("\(base)/stat", "\(process.pid) (\(process.comm)) " + fields.joined(separator: " ") + "\n")
        try file(
            "\(base)/status",
            """
            Name:\t\(process.comm)
            Umask:\t0022
            State:\t\(process.state) (sleeping)
            Tgid:\t\(process.pid)
            Pid:\t\(process.pid)
            PPid:\t\(process.ppid)
            VmPeak:\t  999999 kB
            VmRSS:\t  \(process.rssAnonKiB + process.rssShmemKiB + 100) kB
            RssAnon:\t  \(process.rssAnonKiB) kB
            RssFile:\t     100 kB
            RssShmem:\t  \(process.rssShmemKiB) kB
            VmSwap:\t  \(process.swapKiB) kB
            Threads:\t\(process.threads)

            """)
        try bytes("\(base)/cmdline", process.cmdline.flatMap { Array($0.utf8) + [0] })
        try file("\(base)/environ", "API_KEY=hunter2\0HOME=/var/lib/shop\0")
        // smaps is there, as on a real machine, and must never be what the footprint reads.
        try file("\(base)/smaps_rollup", "Rss: 999999999 kB\n")
    }

    /// The processes of an nginx-like unit: a master, a worker in a child cgroup, and a helper
    /// whose comm holds parentheses and spaces and whose command line holds a secret.
    static let unitProcesses: [FakeProcess] = [
        FakeProcess(
            pid: 100, ppid: 1, comm: "nginx", utime: 50, stime: 25, rssPages: 1000,
            cmdline: ["nginx: master process /usr/sbin/nginx -c /etc/nginx/tenant-acme.conf"],
            rssAnonKiB: 2048, rssShmemKiB: 512, swapKiB: 64),
        FakeProcess(
            pid: 101, ppid: 100, comm: "nginx", threads: 4, utime: 400, stime: 100, rssPages: 3000,
            cmdline: ["nginx: worker process"], rssAnonKiB: 8192, rssShmemKiB: 512, swapKiB: 0),
        FakeProcess(
            pid: 102, ppid: 100, comm: "my (odd) app", state: "R", utime: 10, stime: 0, rssPages: 10,
            cmdline: ["/usr/bin/python3", "/opt/shop/serve.py", "--token=s3cret"], rssAnonKiB: 1024),
    ]

    // MARK: cgroups

    static let unit = "/system.slice/shop.service"

    /// cgroup v2 only (Debian 11 and later): the unit with a worker cgroup below it.
    func cgroupV2() throws {
        try attribute("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc")
        let unit = "sys/fs/cgroup" + Self.unit
        try file(
            "\(unit)/memory.stat",
            """
            anon 10485760
            file 734003200
            kernel 1048576
            shmem 2097152
            file_mapped 4096
            anon_thp 2097152
            inactive_anon 8388608
            active_anon 2097152

            """)
        try attribute("\(unit)/memory.swap.current", "1048576")
        try attribute("\(unit)/memory.current", "748683264")
        try attribute("\(unit)/pids.current", "6")
        try file("\(unit)/cgroup.procs", "100\n102\n")
        try file("\(unit)/worker/cgroup.procs", "101\n")
        try file("\(unit)/worker/memory.stat", "anon 4194304\nshmem 0\n")
        for process in Self.unitProcesses { try self.process(process) }
    }

    /// Hybrid (v1 controllers, a v2 tree for the processes): memory counted by the v1 controller.
    func cgroupV1Hybrid() throws {
        try attribute("sys/fs/cgroup/unified/cgroup.controllers", "")
        let unified = "sys/fs/cgroup/unified" + Self.unit
        try file("\(unified)/cgroup.procs", "100\n102\n")
        try file("\(unified)/worker/cgroup.procs", "101\n")
        let memory = "sys/fs/cgroup/memory" + Self.unit
        // The unit's own pages and, in total_*, those of its worker cgroup too.
        try file(
            "\(memory)/memory.stat",
            """
            cache 524288000
            rss 6291456
            rss_huge 2097152
            shmem 1048576
            mapped_file 4096
            swap 524288
            total_cache 734003200
            total_rss 10485760
            total_rss_huge 2097152
            total_shmem 2097152
            total_mapped_file 8192
            total_swap 1048576

            """)
        try attribute("\(memory)/memory.usage_in_bytes", "748683264")
        try attribute("sys/fs/cgroup/pids\(Self.unit)/pids.current", "6")
        try mkdir("sys/fs/cgroup/cpu" + Self.unit)
        for process in Self.unitProcesses { try self.process(process) }
    }

    /// Legacy v1 with no memory accounting for the unit: only `name=systemd` lists its processes.
    func cgroupV1LegacyWithoutMemory() throws {
        let systemd = "sys/fs/cgroup/systemd" + Self.unit
        try file("\(systemd)/cgroup.procs", "100\n102\n")
        try file("\(systemd)/worker/cgroup.procs", "101\n")
        try file("sys/fs/cgroup/memory/memory.stat", "total_rss 999999999\ntotal_shmem 0\n")
        for process in Self.unitProcesses { try self.process(process) }
    }

    // MARK: machines

    /// A ThinkPad held at a charge threshold on mains power, with a Logitech mouse's battery.
    static func laptop() throws -> SysfsFixture {
        let machine = try SysfsFixture("laptop")
        try machine.mains("AC", online: true)
        try machine.battery("BAT0", status: "Not charging", capacity: 80)
        try machine.battery("hidpp_battery_0", status: "Discharging", capacity: 15, scope: "Device")
        try machine.thermalZone(0, type: "acpitz", millidegrees: 62_000, trips: [("critical", 103_000), ("passive", 95_000)])
        try machine.thermalZone(
            1, type: "TCPU", millidegrees: 91_000, trips: [("critical", 105_000), ("hot", 100_000), ("passive", 90_000)])
        try machine.attribute("sys/class/dmi/id/sys_vendor", "LENOVO")
        try machine.attribute("sys/class/dmi/id/product_name", "20XW0055GE")
        try machine.attribute("sys/class/dmi/id/product_uuid", "4c4c4544-0042-3510-8052-b4c04f4e4332")
        try machine.attribute("sys/class/dmi/id/product_serial", "PF2XYZ01")
        try machine.attribute("sys/class/dmi/id/board_serial", "L1HF15X01AB")
        try machine.interface("wlp0s20f3", .wifi)
        try machine.interface("lo", .ethernet)
        try machine.ipv4Routes([("wlp0s20f3", "00000000", "00000000", 600), ("wlp0s20f3", "0001A8C0", "00FFFFFF", 600)])
        try machine.attribute("proc/sys/kernel/osrelease", "6.1.0-21-amd64")
        try machine.attribute("proc/sys/kernel/hostname", "qa-laptop-7")
        try machine.file("etc/machine-id", "0123456789abcdef0123456789abcdef\n")
        return machine
    }

    /// A rack server: no battery, two zones without trip points, wired.
    static func server() throws -> SysfsFixture {
        let machine = try SysfsFixture("server")
        try machine.thermalZone(0, type: "x86_pkg_temp", millidegrees: 41_000)
        try machine.thermalZone(1, type: "x86_pkg_temp", millidegrees: 44_000)
        try machine.attribute("sys/class/dmi/id/sys_vendor", "Dell Inc.")
        try machine.attribute("sys/class/dmi/id/product_name", "PowerEdge R640")
        try machine.interface("eno1", .ethernet)
        try machine.ipv4Routes([("eno1", "00000000", "00000000", 0), ("eno1", "0000000A", "000000FF", 0)])
        try machine.attribute("proc/sys/kernel/osrelease", "6.1.0-21-amd64")
        return machine
    }

    /// A Raspberry Pi 4: device-tree model with its trailing NUL, one zone with a critical trip.
    static func raspberryPi() throws -> SysfsFixture {
        let machine = try SysfsFixture("rpi")
        try machine.bytes("sys/firmware/devicetree/base/model", Array("Raspberry Pi 4 Model B Rev 1.4".utf8) + [0])
        try machine.bytes(
            "sys/firmware/devicetree/base/compatible", Array("raspberrypi,4-model-b".utf8) + [0] + Array("brcm,bcm2711".utf8) + [0])
        try machine.bytes("sys/firmware/devicetree/base/serial-number", Array("10000000abcdef01".utf8) + [0])
        try machine.thermalZone(0, type: "cpu-thermal", millidegrees: 47_236, trips: [("critical", 110_000)])
        try machine.interface("eth0", .ethernet)
        try machine.interface("wlan0", .wifi)
        try machine.ipv4Routes([("eth0", "00000000", "00000000", 202), ("wlan0", "00000000", "00000000", 303)])
        try machine.attribute("proc/sys/kernel/osrelease", "6.6.31+rpt-rpi-v8")
        return machine
    }
}
