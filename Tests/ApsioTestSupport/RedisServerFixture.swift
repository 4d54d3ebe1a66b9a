import Foundation
import Glibc
import Synchronization

/// A `redis-server` of Debian's for one test: on a unix socket in the test's own directory (and,
/// when asked, a TCP port on 127.0.0.1), with no persistence, so a restart comes back empty as a
/// Redis that lost its state does. Stopped by its pid when the test is done with it.
package final class RedisServerFixture: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let directory: TemporaryDirectory
    package let socketPath: String
    /// The TCP port, when the fixture listens on one.
    package let port: Int?
    private let process = Mutex<Process?>(nil)
    private let hidden = Mutex(false)

    /// `tcp`: listen on a free port of 127.0.0.1 as well as on the socket.
    package init(tcp: Bool = false) throws {
        directory = try TemporaryDirectory("apsio-redis")
        socketPath = directory.path + "/redis.sock"
        port = tcp ? try LoopbackPort.free() : nil
        try start()
    }

    deinit { stop() }

    /// The endpoint as `--redis` takes it.
    package var endpoint: String { socketPath }

    package var pid: Int32? { process.withLock { $0?.processIdentifier } }

    /// Starts the server and returns once its socket accepts. Started again after `stop`, it is
    /// empty.
    package func start() throws {
        unlink(socketPath)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        server.arguments = [
            "--port", String(port ?? 0), "--bind", "127.0.0.1", "--unixsocket", socketPath, "--unixsocketperm", "700",
            "--save", "", "--appendonly", "no", "--dir", directory.path, "--daemonize", "no",
            "--logfile", directory.path + "/redis.log", "--enable-debug-command", "local",
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        process.withLock { $0 = server }
        // The socket appears once the server listens: a process's own time, polled.
        for _ in 0..<2000 {
            if access(socketPath, F_OK) == 0 { return }
            guard server.isRunning else { break }
            usleep(5000)
        }
        throw Failure(description: "redis-server did not start: \(log)")
    }

    /// SIGKILL, as a crash: clients see their connections end.
    package func stop() {
        guard let server = process.withLock({ state -> Process? in defer { state = nil }; return state }) else { return }
        // Killed whatever `isRunning` says: at the test process's exit a `waitUntilExit` with both
        // servers still alive once hung a whole test run.
        killAndRelease(server)
    }

    /// Stops it and starts it again, empty.
    package func restart() throws {
        stop()
        try start()
    }

    /// SIGSTOP / SIGCONT: a server that holds its connections and answers nothing.
    package func pause() { if let pid { kill(pid, SIGSTOP) } }
    package func resume() { if let pid { kill(pid, SIGCONT) } }

    /// Moves the socket out of the way: connections already made go on, new ones fail (the path
    /// is gone), as with a Redis that takes no more clients. `showSocket` puts it back.
    package func hideSocket() throws {
        guard rename(socketPath, socketPath + ".hidden") == 0 else { throw Failure(description: "rename: errno \(errno)") }
        hidden.withLock { $0 = true }
    }

    package func showSocket() throws {
        guard rename(socketPath + ".hidden", socketPath) == 0 else { throw Failure(description: "rename: errno \(errno)") }
        hidden.withLock { $0 = false }
    }

    package var log: String {
        (try? String(contentsOfFile: directory.path + "/redis.log", encoding: .utf8)) ?? ""
    }

    /// `redis-cli` against the server, for what a test checks from outside the client under test.
    package func cli(_ arguments: String...) throws -> String {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-s", hidden.withLock { $0 } ? socketPath + ".hidden" : socketPath] + arguments
        let output = Pipe()
        cli.standardOutput = output
        cli.standardError = FileHandle.nullDevice
        try cli.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        cli.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
