import Foundation
@testable import ApsioTestSupport
import Glibc

/// The package's executables, next to the test runner in the build directory: end-to-end tests run
/// the very binaries an operator would.
enum BuiltBinaries {
    static var directory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // `swift test` runs `apsioPackageTests.xctest`, a file beside the products; a bundle
        // directory layout puts it one level deeper.
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("apsiod").path), url.path != "/" {
            url = url.deletingLastPathComponent()
        }
        return url.path
    }

    static var apsiod: String { directory + "/apsiod" }
    static var apsioctl: String { directory + "/apsioctl" }
}

/// One run of a command to its end: its exit status and what it wrote. Output goes through files,
/// not pipes, so a chatty child never blocks on a full pipe.
struct CommandRun: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String

    /// `user`: run as that user through setpriv (the test runs as root), with no supplementary group.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], user: String? = nil,
        deadline: Duration = .seconds(60)
    ) async throws -> CommandRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=nogroup", "--clear-groups", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let status = try await runToEnd(process, deadline: deadline)
        guard let status else { throw DaemonTestError("\(executable) \(arguments) did not finish within \(deadline)") }
        return CommandRun(
            status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}

struct DaemonTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A long-running child (apsiod, `apsioctl watch`): output to files read while it runs, stopped by
/// its pid — SIGTERM when the test asks, SIGKILL if it is still there when the value goes.
final class RunningChild: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String, name: String) throws {
        stdoutPath = directory + "/\(name).out"
        stderrPath = directory + "/\(name).err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// SIGTERM, then the exit status once it ended (SIGKILL after `deadline`).
    func terminate(deadline: Duration = .seconds(60)) async -> Int32 {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let start = ContinuousClock.now
        while process.isRunning, ContinuousClock.now - start < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            killAndRelease(process)
            return -9
        }
        releaseEnded(process)
        return process.terminationStatus
    }

    deinit { killAndRelease(process) }
}

/// A loopback TCP port free right now, for a server whose own address must be in its configuration
/// before it starts (the development backend publishes its live origin). The kernel does not hand
/// a just-released ephemeral port out again at once, so the race is one a test can live with.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw DaemonTestError("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else { throw DaemonTestError("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A socket standing in for systemd's `NOTIFY_SOCKET`: what the daemon tells the service manager
/// (READY=1, STATUS=, WATCHDOG=1) arrives here. A thread drains it at once, as the service manager
/// does: a notification waits in the sender's buffer until read, and a full buffer would block the
/// daemon's sd_notify.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var stopped = false

    init(directory: String) throws {
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonTestError("socket: \(errno)") }
        try bindUnixSocket(fd, to: path)
        let thread = Thread { [self] in drain() }
        thread.start()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            lock.lock()
            let done = stopped
            lock.unlock()
            if done {
                close(fd)
                return
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { continue }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            lock.lock()
            received.append(message)
            lock.unlock()
        }
    }

    /// Every notification so far, one string each (assignments separated by newlines).
    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Stops the draining thread, which closes the socket; the thread holds the value until then.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}

/// Binds `fd`, a unix socket, to `path`.
func bindUnixSocket(_ fd: Int32, to path: String) throws {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw DaemonTestError("bind \(path): \(errno)") }
}
