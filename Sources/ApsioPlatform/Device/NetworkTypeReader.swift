package import ApsioCore
/// `network.connection.type` and `apsio.network.vpn` (7.10) from the main routing table
/// (`/proc/net/route`, `/proc/net/ipv6_route`) and the interfaces under `/sys/class/net`.
package struct NetworkTypeReader: Sendable {
    package var roots: SysfsRoots
    package var limits: ReadLimits

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard) {
        self.roots = roots
        self.limits = limits
    }

    struct Route: Equatable {
        var interface: String
        var prefixLength: Int
        /// The destination is the all-zero address (true for the default route and the lower half
        /// of a split default).
        var zeroDestination: Bool
        var metric: UInt32
        var ipv6: Bool
    }

    package func read() -> NetworkReading {
        let v4 = try? SmallFile.text(roots.proc("net/route"), limit: limits.tableFileBytes)
        let v6 = try? SmallFile.text(roots.proc("net/ipv6_route"), limit: limits.tableFileBytes)
        guard v4 != nil || v6 != nil else { return NetworkReading(connectionType: .unknown, vpn: nil) }
        // A machine with IPv6 turned off has no ipv6_route: that table is empty, not unreadable.
        let routes = Self.ipv4Routes(v4 ?? "") + Self.ipv6Routes(v6 ?? "")
        return classify(routes)
    }

    func classify(_ routes: [Route]) -> NetworkReading {
        guard let leaving = Self.leavingInterface(routes) else {
            return NetworkReading(connectionType: .unavailable, vpn: false)
        }
        guard let leavingKind = kind(of: leaving) else {
            return NetworkReading(connectionType: .unknown, vpn: nil, interface: leaving)
        }
        if leavingKind != .vpn {
            return NetworkReading(connectionType: leavingKind.connectionType, vpn: false, interface: leaving)
        }
        // Through a VPN, the connection type is that of the link under it: the best default route
        // that is not itself a VPN (OpenVPN's split default keeps the real one in the table).
        let under = Self.defaults(routes).first { route in
            guard let kind = kind(of: route.interface) else { return false }
            return kind != .vpn
        }
        let type = under.flatMap { kind(of: $0.interface)?.connectionType } ?? .unknown
        return NetworkReading(connectionType: type, vpn: true, interface: leaving)
    }

    /// The interface the traffic for the internet leaves through: the interface holding both halves
    /// of a split default (`0.0.0.0/1` and `128.0.0.0/1`, as OpenVPN's `redirect-gateway def1`
    /// installs them, more specific than the default), else the best default route, IPv4 first.
    static func leavingInterface(_ routes: [Route]) -> String? {
        let halves = routes.filter { $0.prefixLength == 1 }
        for route in halves where route.zeroDestination {
            if halves.contains(where: { !$0.zeroDestination && $0.interface == route.interface && $0.ipv6 == route.ipv6 }) {
                return route.interface
            }
        }
        return defaults(routes).first?.interface
    }

    /// Default routes, IPv4 before IPv6, lowest metric first within each.
    static func defaults(_ routes: [Route]) -> [Route] {
        routes.filter { $0.prefixLength == 0 }.sorted { ($0.ipv6 ? 1 : 0, $0.metric) < ($1.ipv6 ? 1 : 0, $1.metric) }
    }

    enum Kind: Equatable {
        case wifi, wired, cell, vpn, other
        var connectionType: ConnectionType {
            switch self {
            case .wifi: .wifi
            case .wired: .wired
            case .cell: .cell
            case .vpn, .other: .unknown
            }
        }
    }

    /// What an interface is; `nil` when it has no readable sysfs directory.
    func kind(of interface: String) -> Kind? {
        guard !interface.contains("/"), interface != "." && interface != ".." else { return nil }
        let directory = roots.sys("class/net/\(interface)")
        guard let type = SmallFile.integer(join(directory, "type")) else { return nil }
        let devtype = (try? SmallFile.text(join(directory, "uevent"), limit: limits.smallFileBytes))
            .flatMap { uevent in
                uevent.split(whereSeparator: \.isNewline).first { $0.hasPrefix("DEVTYPE=") }
                    .map { String($0.dropFirst("DEVTYPE=".count)) }
            }
        // tun and tap devices carry tun_flags; WireGuard says so in DEVTYPE; PPP is ARPHRD_PPP.
        if SmallFile.exists(join(directory, "tun_flags")) || devtype == "wireguard" || type == 512 { return .vpn }
        if devtype == "wwan" { return .cell }
        if devtype == "wlan" || SmallFile.exists(join(directory, "wireless")) || SmallFile.exists(join(directory, "phy80211")) {
            return .wifi
        }
        // ARPHRD_ETHER (bridges, bonds and VLANs over Ethernet too) and ARPHRD_INFINIBAND.
        if type == 1 || type == 32 { return .wired }
        return .other
    }

    /// `Iface Destination Gateway Flags RefCnt Use Metric Mask …`, addresses in hex as stored.
    static func ipv4Routes(_ text: String) -> [Route] {
        text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 8, let destination = UInt32(fields[1], radix: 16),
                let flags = UInt32(fields[3], radix: 16), let metric = UInt32(fields[6], radix: 16),
                let mask = UInt32(fields[7], radix: 16), usable(interface: fields[0], flags: flags)
            else { return nil }
            // The mask is printed in the kernel's byte order; its count of one bits is the prefix
            // length whatever that order is.
            return Route(
                interface: String(fields[0]), prefixLength: mask.nonzeroBitCount, zeroDestination: destination == 0,
                metric: metric, ipv6: false)
        }
    }

    /// `dest plen src plen nexthop metric refcnt use flags iface`, all hex.
    static func ipv6Routes(_ text: String) -> [Route] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 10, let prefix = Int(fields[1], radix: 16), let metric = UInt32(fields[5], radix: 16),
                let flags = UInt32(fields[8], radix: 16), usable(interface: fields[9], flags: flags)
            else { return nil }
            return Route(
                interface: String(fields[9]), prefixLength: prefix, zeroDestination: fields[0].allSatisfy { $0 == "0" },
                metric: metric, ipv6: true)
        }
    }

    /// Up (`RTF_UP`), not a reject or unreachable route (`RTF_REJECT`, which the kernel puts on `lo`).
    private static func usable(interface: Substring, flags: UInt32) -> Bool {
        flags & 0x0001 != 0 && flags & 0x0200 == 0 && interface != "lo"
    }
}
