import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct SockDiagTests {
    /// A TCP socket listening on 127.0.0.1 on a port the kernel picks; closed when the test ends.
    final class Listener {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    /// The test process's cgroup v2 directory, from `/proc/self/cgroup`'s `0::` line.
    func ownCgroupDirectory() throws -> String {
        let text = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("0::") })
        let layout = CgroupLayout.detect(.system)
        return try #require(layout.unifiedDirectory(String(line.dropFirst(3))))
    }

    @Test func ownListeningSocketIsFoundInOwnCgroup() throws {
        let listener = try Listener()
        let directory = try ownCgroupDirectory()
        let id = try #require(SockDiag.cgroupID(ofDirectory: directory))
        let diag = SockDiag()
        let answer = diag.listening(inCgroups: [id])
        if diag.kernelReportsCgroups() {
            guard case .sockets(let sockets) = answer else {
                Issue.record("expected sockets, got \(answer)")
                return
            }
            #expect(sockets.contains(ListeningSocket(transport: .tcp, address: "127.0.0.1", port: listener.port)))
        } else {
            guard case .unsupported = answer else {
                Issue.record("an old kernel must say unsupported, got \(answer)")
                return
            }
        }
    }

    @Test func anotherCgroupDoesNotClaimOurSocket() throws {
        let listener = try Listener()
        let diag = SockDiag()
        guard diag.kernelReportsCgroups() else { return }
        // No cgroup has id 0: it is the kernel's "none".
        guard case .sockets(let sockets) = diag.listening(inCgroups: [0]) else {
            Issue.record("expected an answer")
            return
        }
        #expect(!sockets.contains { $0.port == listener.port })
    }

    @Test func aKernelOlderThan5_7IsUnsupportedNotEmpty() throws {
        let machine = try SysfsFixture("oldkernel")
        try machine.attribute("proc/sys/kernel/osrelease", "5.4.0-150-generic")
        let diag = SockDiag(roots: machine.roots)
        #expect(diag.kernelReportsCgroups() == false)
        guard case .unsupported = diag.listening(inCgroups: [1]) else {
            Issue.record("expected unsupported")
            return
        }
        try machine.attribute("proc/sys/kernel/osrelease", "5.7.0")
        #expect(SockDiag(roots: machine.roots).kernelReportsCgroups())
    }

    @Test func aFrameCarriesTheUnitsSockets() throws {
        let listener = try Listener()
        let text = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        let cgroup = String(try #require(text.split(separator: "\n").first { $0.hasPrefix("0::") }).dropFirst(3))
        guard SockDiag().kernelReportsCgroups() else { return }
        var reader = ProcessFrameReader()
        let frame = reader.frame(cgroup: cgroup, activeState: "active", subState: "running", monotonic: .zero)
        let sockets = try #require(frame.sockets)
        #expect(sockets.contains(ListeningSocket(transport: .tcp, address: "127.0.0.1", port: listener.port)))
    }
}
