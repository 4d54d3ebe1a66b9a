import Foundation
import Glibc
import Synchronization

/// Debian's nginx (`/usr/sbin/nginx`) in front of backend instances for one test, configured from
/// the shipped example (`packaging/examples/nginx-apsio-backend.conf`) by
/// `scripts/nginx-front-conf.sh`: TLS on 127.0.0.1 only, the instances and the collector stand-ins
/// as its upstreams. Its pid file, logs, temporary files and configuration stay in a directory of
/// its own; nothing of /etc/nginx or of a system nginx is read or touched. It runs in the
/// foreground as a child, and is stopped by its pid (SIGTERM, then SIGKILL for it and its workers).
package final class NginxFixture: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// One line of the access log: what nginx received and which upstream answered it.
    package struct Forwarded: Sendable, Equatable {
        package let method: String
        package let path: String
        package let status: Int
        /// `HOST:PORT` of the upstream, or `-` when nginx answered itself (a 413, say).
        package let upstream: String

        package init(method: String, path: String, status: Int, upstream: String) {
            self.method = method
            self.path = path
            self.status = status
            self.upstream = upstream
        }
    }

    package static let executable = "/usr/sbin/nginx"
    package static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    private let directory: TemporaryDirectory
    package let port: Int
    private let process = Mutex<Process?>(nil)

    /// The https origin nginx serves: what the instances publish as their live origin and the
    /// devices' `Backend=`.
    package var origin: String { "https://127.0.0.1:\(port)" }

    /// `port`: where to listen on 127.0.0.1, chosen before the instances start, since they publish
    /// it (`LoopbackPort.free()`). `instances`, `collectors`: the loopback ports of the backend
    /// instances and of the OTLP collector stand-ins.
    package init(port: Int, instances: [Int], collectors: [Int], certificate: String, key: String) throws {
        self.port = port
        directory = try TemporaryDirectory("apsio-nginx")
        var arguments = [
            Self.packageRoot + "/scripts/nginx-front-conf.sh", "--prefix", directory.path, "--port", String(port),
            "--cert", certificate, "--key", key,
        ]
        for instance in instances { arguments += ["--instance", "127.0.0.1:\(instance)"] }
        for collector in collectors { arguments += ["--collector", "127.0.0.1:\(collector)"] }
        let render = try Self.run("/bin/bash", arguments)
        guard render.status == 0 else { throw Failure(description: "nginx-front-conf.sh: \(render.errors)") }
        try start()
    }

    /// nginx with one `server { … }` block of the test's own, in the same main file as the example's
    /// (every path in the fixture's directory): for what the example does not set up, like a
    /// server that asks for client certificates.
    package init(port: Int, server: String) throws {
        self.port = port
        directory = try TemporaryDirectory("apsio-nginx")
        let prefix = directory.path
        try FileManager.default.createDirectory(atPath: prefix + "/temp", withIntermediateDirectories: true)
        try directory.write("nginx.conf", """
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log info;
            worker_processes 1;
            events { worker_connections 64; }
            http {
                default_type application/octet-stream;
                log_format upstreams '$request_method $uri $status upstream=$upstream_addr';
                access_log \(prefix)/access.log upstreams;
                client_body_temp_path \(prefix)/temp/body;
                proxy_temp_path \(prefix)/temp/proxy;
                fastcgi_temp_path \(prefix)/temp/fastcgi;
                uwsgi_temp_path \(prefix)/temp/uwsgi;
                scgi_temp_path \(prefix)/temp/scgi;
                \(server)
            }
            """)
        try start()
    }

    deinit { stop() }

    /// The configuration nginx runs: the example as filled in.
    package var site: String { read("apsio-backend.conf") }
    package var errorLog: String { read("error.log") + read("stderr") }

    /// Every request nginx has logged so far, in order. The upstream is a list ("A, B") when nginx
    /// tried more than one (the first refused the connection, say): the last is the one that
    /// answered.
    package var forwarded: [Forwarded] {
        read("access.log").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 3)
            guard fields.count == 4, let status = Int(fields[2]), fields[3].hasPrefix("upstream=") else { return nil }
            return Forwarded(
                method: String(fields[0]), path: String(fields[1]), status: status,
                upstream: String(fields[3].dropFirst("upstream=".count)))
        }
    }

    private func start() throws {
        let nginx = Process()
        nginx.executableURL = URL(fileURLWithPath: Self.executable)
        // -e: nginx opens its compiled-in error log (/var/log/nginx/error.log) before it reads the
        // configuration, unless told another one here.
        nginx.arguments = [
            "-p", directory.path, "-c", directory.path + "/nginx.conf", "-e", directory.path + "/error.log",
            "-g", "daemon off;",
        ]
        nginx.standardInput = FileHandle.nullDevice
        nginx.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.path + "/stderr", contents: nil)
        nginx.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
        try nginx.run()
        process.withLock { $0 = nginx }
        // It accepts once its workers run: a process's own time, polled while it lives.
        for _ in 0..<6000 {
            if LoopbackPort.accepts(port) { return }
            guard nginx.isRunning else { break }
            usleep(10_000)
        }
        stop()
        throw Failure(description: "nginx did not accept on 127.0.0.1:\(port): \(errorLog)")
    }

    /// SIGTERM, nginx's fast shutdown, which ends its workers with it; SIGKILL for the master and
    /// its workers if it is still there after a minute.
    package func stop() {
        guard let nginx = process.withLock({ state -> Process? in defer { state = nil }; return state }) else { return }
        let pid = nginx.processIdentifier
        if nginx.isRunning { kill(pid, SIGTERM) }
        var waited = 0
        while nginx.isRunning, waited < 6000 {
            usleep(10_000)
            waited += 1
        }
        if nginx.isRunning {
            let workers = ProcessChildren.of(pid)
            kill(pid, SIGKILL)
            for worker in workers { kill(worker, SIGKILL) }
        }
        nginx.waitUntilExit()
    }

    private func read(_ name: String) -> String {
        (try? String(contentsOfFile: directory.path + "/" + name, encoding: .utf8)) ?? ""
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, errors: String) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        child.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        child.standardError = errors
        try child.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: message, as: UTF8.self))
    }
}
