package import ApsioCore
internal import ApsioPOSIX
internal import Glibc

/// A unit's listening sockets, from the kernel's sock_diag netlink interface: each socket's dump
/// carries the cgroup v2 id of the cgroup that created it (`INET_DIAG_CGROUP_ID`, Linux 5.7 on),
/// which `ss --cgroup` shows too. No ptrace right is needed, where reading another user's
/// `/proc/PID/fd` would. Sockets are seen in the daemon's network namespace only, and a socket
/// systemd creates for socket activation belongs to systemd's cgroup, not the unit's.
package struct SockDiag: Sendable {
    package enum Answer: Sendable, Equatable {
        case sockets([ListeningSocket])
        /// The kernel does not say which cgroup a socket belongs to: no answer is better than a
        /// wrong one, so the frame leaves its sockets out.
        case unsupported(String)
        case failed(String)
    }

    package var roots: SysfsRoots
    package var limits: ReadLimits

    package init(roots: SysfsRoots = .system, limits: ReadLimits = .standard) {
        self.roots = roots
        self.limits = limits
    }

    /// The cgroup id the kernel gives sockets of the cgroup v2 directory at `path`: the directory's
    /// inode number, which is the kernfs node id on 64-bit kernels (what `ss --cgroup` matches).
    package static func cgroupID(ofDirectory path: String) -> UInt64? {
        guard let info = (try? FileSystem.status(path)) ?? nil, info.kind == .directory else { return nil }
        return info.inode
    }

    /// Whether the running kernel is new enough to report socket cgroups (5.7).
    package func kernelReportsCgroups() -> Bool {
        guard let release = SmallFile.attribute(roots.proc("sys/kernel/osrelease")) else { return false }
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard numbers.count == 2 else { return false }
        return (numbers[0], numbers[1]) >= (5, 7)
    }

    /// TCP sockets in `LISTEN` and UDP sockets bound and unconnected, IPv4 and IPv6, created in one
    /// of `cgroupIDs`.
    package func listening(inCgroups cgroupIDs: Set<UInt64>) -> Answer {
        guard kernelReportsCgroups() else {
            return .unsupported("the kernel is older than 5.7 and does not report a socket's cgroup")
        }
        var found: Set<ListeningSocket> = []
        var dumped = 0
        let queries: [(family: Int32, transport: ListeningSocket.Transport, states: UInt32)] = [
            (AF_INET, .tcp, 1 << 10), (AF_INET6, .tcp, 1 << 10),  // TCP_LISTEN
            (AF_INET, .udp, 1 << 7), (AF_INET6, .udp, 1 << 7),  // TCP_CLOSE: bound, not connected
        ]
        for query in queries {
            let result = dump(family: query.family, transport: query.transport, states: query.states)
            switch result {
            case .failure(let error):
                // udp_diag may be missing from a kernel built without it; TCP is the one that matters.
                if query.transport == .udp { continue }
                return .failed(error.message)
            case .success(let entries):
                dumped += entries.count
                if dumped > limits.maxDumpedSockets {
                    return .failed("more than \(limits.maxDumpedSockets) sockets on the machine")
                }
                for entry in entries {
                    guard let cgroup = entry.cgroupID else {
                        return .unsupported("the kernel does not report a socket's cgroup (CONFIG_SOCK_CGROUP_DATA)")
                    }
                    if cgroupIDs.contains(cgroup) { found.insert(entry.socket) }
                }
            }
        }
        return .sockets(Array(found.sorted().prefix(limits.maxFrameSockets)))
    }

    struct Entry {
        var socket: ListeningSocket
        var cgroupID: UInt64?
    }

    struct DumpError: Error {
        var message: String
    }

    private static let netlinkSockDiag: Int32 = 4
    private static let sockDiagByFamily: UInt16 = 20
    private static let nlmsgError: UInt16 = 2
    private static let nlmsgDone: UInt16 = 3
    private static let headerLength = 16
    private static let diagMessageLength = 72
    private static let cgroupAttribute: UInt16 = 21

    private func dump(family: Int32, transport: ListeningSocket.Transport, states: UInt32) -> Result<[Entry], DumpError> {
        let fd: OwnedFileDescriptor
        do throws(SystemError) {
            fd = try OwnedFileDescriptor.socket(
                family: AF_NETLINK, type: SocketFlags.raw, protocol: Self.netlinkSockDiag, nonBlocking: false)
        } catch {
            return .failure(DumpError(message: "sock_diag netlink: \(Self.errorText(error.errno))"))
        }
        defer { fd.close() }
        try? fd.setReceiveTimeout(limits.sockDiagTimeout)

        let request = Self.request(family: family, protocol: transport == .tcp ? 6 : 17, states: states)
        var kernel = [UInt8](repeating: 0, count: 12)  // struct sockaddr_nl: the kernel is port 0
        withUnsafeBytes(of: UInt16(AF_NETLINK)) { kernel.replaceSubrange(0..<2, with: $0) }
        let sent = request.withUnsafeBytes { body in
            kernel.withUnsafeBytes { address in
                Result { () throws(SystemError) in
                    try fd.send(body, to: address.baseAddress!.assumingMemoryBound(to: sockaddr.self), length: socklen_t(address.count))
                }
            }
        }
        switch sent {
        case .success(request.count): break
        // EAGAIN: the timeout ran out.
        case .success: return .failure(DumpError(message: "sock_diag request: \(Self.errorText(EAGAIN))"))
        case .failure(let error): return .failure(DumpError(message: "sock_diag request: \(Self.errorText(error.errno))"))
        }

        var entries: [Entry] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got: Int
            do throws(SystemError) {
                // nil: SO_RCVTIMEO ran out (EAGAIN).
                got = try fd.receive(into: &buffer) ?? -1
            } catch {
                return .failure(DumpError(message: "sock_diag answer: \(Self.errorText(error.errno))"))
            }
            if got < 0 { return .failure(DumpError(message: "sock_diag answer: \(Self.errorText(EAGAIN))")) }
            if got == 0 { return .failure(DumpError(message: "sock_diag answer ended early")) }
            switch parse(buffer[0..<got], transport: transport, into: &entries) {
            case .more: if entries.count > limits.maxDumpedSockets { return .success(entries) }
            case .done: return .success(entries)
            case .error(let code): return .failure(DumpError(message: "sock_diag: \(Self.errorText(code))"))
            }
        }
    }

    enum ParseState { case more, done, error(Int32) }

    /// One datagram of netlink messages, in host byte order except the ports and addresses.
    func parse(_ bytes: ArraySlice<UInt8>, transport: ListeningSocket.Transport, into entries: inout [Entry]) -> ParseState {
        let data = Array(bytes)
        var offset = 0
        while offset + Self.headerLength <= data.count {
            let length = Int(Self.load(UInt32.self, data, offset))
            let type = Self.load(UInt16.self, data, offset + 4)
            guard length >= Self.headerLength, offset + length <= data.count else { return .error(EPROTO) }
            if type == Self.nlmsgDone { return .done }
            if type == Self.nlmsgError {
                let code = length >= Self.headerLength + 4 ? Self.load(Int32.self, data, offset + Self.headerLength) : -EPROTO
                return code == 0 ? .done : .error(-code)
            }
            if type == Self.sockDiagByFamily, length >= Self.headerLength + Self.diagMessageLength {
                entries.append(entry(data, offset + Self.headerLength, end: offset + length, transport: transport))
            }
            offset += (length + 3) & ~3
        }
        return .more
    }

    private func entry(_ data: [UInt8], _ start: Int, end: Int, transport: ListeningSocket.Transport) -> Entry {
        let family = Int32(data[start])
        let port = Int(data[start + 4]) << 8 | Int(data[start + 5])
        let address = Self.addressText(family: family, Array(data[(start + 8)..<(start + 24)]))
        var cgroup: UInt64?
        var attribute = start + Self.diagMessageLength
        while attribute + 4 <= end {
            let length = Int(Self.load(UInt16.self, data, attribute))
            let type = Self.load(UInt16.self, data, attribute + 2) & 0x3FFF
            guard length >= 4, attribute + length <= end else { break }
            if type == Self.cgroupAttribute, length >= 12 { cgroup = Self.load(UInt64.self, data, attribute + 4) }
            attribute += (length + 3) & ~3
        }
        return Entry(socket: ListeningSocket(transport: transport, address: address, port: port), cgroupID: cgroup)
    }

    /// `struct nlmsghdr` then `struct inet_diag_req_v2`, with an all-zero socket id: every socket.
    static func request(family: Int32, protocol: UInt8, states: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value) { bytes += $0 } }
        put(UInt32(headerLength + 56))
        put(sockDiagByFamily)
        put(UInt16(0x1 | 0x300))  // NLM_F_REQUEST | NLM_F_DUMP
        put(UInt32(1))
        put(UInt32(0))
        bytes += [UInt8(family), `protocol`, 0, 0]
        put(states)
        bytes += [UInt8](repeating: 0, count: 48)
        return bytes
    }

    private static func load<T: FixedWidthInteger>(_: T.Type, _ data: [UInt8], _ offset: Int) -> T {
        data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    static func addressText(family: Int32, _ address: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = address.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        return ok ? text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : "?"
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
