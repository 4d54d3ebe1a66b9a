import Foundation
import Glibc
import Synchronization

/// Debian's tinyproxy (`/usr/bin/tinyproxy`) on 127.0.0.1 for one test: the egress proxy of a box
/// whose only way out it is. Its configuration, log and pid file stay in a directory of its own;
/// it runs in the foreground as a child and is stopped by its pid.
///
/// `hosts`: names the proxy resolves that the machine does not (as a proxy in a data centre knows
/// the collector's name and the box does not): tinyproxy runs in a mount namespace of its own
/// (`unshare --mount`) where a file of the test's is bound over /etc/hosts. Nothing of the
/// machine's /etc/hosts changes, and apsiod, outside that namespace, cannot resolve them.
package final class TinyproxyFixture: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package static let executable = "/usr/bin/tinyproxy"

    private let directory: TemporaryDirectory
    package let port: Int
    private let hosts: [String: String]
    private let credentials: (user: String, password: String)?
    private let process = Mutex<Process?>(nil)

    /// `http://127.0.0.1:PORT`, as `HTTPS_PROXY` or `Proxy=` name it.
    package var url: String { "http://127.0.0.1:\(port)" }

    /// `port`: chosen by the test when it must be known before the proxy runs (a proxy that is down,
    /// then started). `credentials`: the proxy answers 407 to a CONNECT without them.
    package init(
        port: Int? = nil, hosts: [String: String] = [:], credentials: (user: String, password: String)? = nil, start: Bool = true
    ) throws {
        self.port = try port ?? LoopbackPort.free()
        self.hosts = hosts
        self.credentials = credentials
        directory = try TemporaryDirectory("apsio-tinyproxy")
        var conf = """
            Port \(self.port)
            Listen 127.0.0.1
            Timeout 120
            MaxClients 64
            Allow 127.0.0.1
            LogFile "\(directory.path)/tinyproxy.log"
            LogLevel Connect
            PidFile "\(directory.path)/tinyproxy.pid"

            """
        if let credentials { conf += "BasicAuth \(credentials.user) \(credentials.password)\n" }
        try directory.write("tinyproxy.conf", conf)
        try directory.write("hosts", "127.0.0.1 localhost\n::1 localhost\n" + hosts.map { "\($0.value) \($0.key)\n" }.joined())
        if start { try self.start() }
    }

    deinit { stop() }

    /// Every `CONNECT host:port` the proxy received, in order.
    package var connects: [String] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): CONNECT ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    package var log: String { (try? String(contentsOfFile: directory.path + "/tinyproxy.log", encoding: .utf8)) ?? "" }
    private var stderr: String { (try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? "" }

    package func start() throws {
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        proxy.arguments = [
            "--mount", "--", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$1\" -d -c \"$2\"",
            directory.path + "/hosts", Self.executable, directory.path + "/tinyproxy.conf",
        ]
        proxy.standardInput = FileHandle.nullDevice
        proxy.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.path + "/stderr", contents: nil)
        proxy.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
        try proxy.run()
        process.withLock { $0 = proxy }
        for _ in 0..<3000 {
            if LoopbackPort.accepts(port) { return }
            guard proxy.isRunning else { break }
            usleep(10_000)
        }
        stop()
        throw Failure(description: "tinyproxy did not accept on 127.0.0.1:\(port): \(stderr) \(log)")
    }

    /// SIGKILL, as a proxy that goes down: connections through it end.
    package func stop() {
        guard let proxy = process.withLock({ state -> Process? in defer { state = nil }; return state }) else { return }
        killAndRelease(proxy)
    }
}
