import Foundation
import Glibc
import Synchronization

/// A private system bus for one test: a dbus-daemon listening on a socket in the test's own
/// directory, and python-dbusmock services on it (TESTING.md). Every process it starts is stopped
/// by its pid when the test ends, whether or not the test passed.
final class DBusMockFixture: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let directory: TemporaryDirectory
    let socketPath: String
    var address: String { "unix:path=\(socketPath)" }
    private let children = Mutex<[String: Process]>([:])

    init() throws {
        directory = try TemporaryDirectory("apsio-bus")
        socketPath = directory.path + "/bus.sock"
        try directory.write("bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(socketPath)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
            <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy></busconfig>
            """)
        try startBus()
    }

    deinit { stopAll() }

    // MARK: - Processes

    /// Starts dbus-daemon and returns once it listens: it prints its address only then.
    func startBus() throws {
        unlink(socketPath)
        let output = Pipe()
        let daemon = try spawn(
            "bus", "/usr/bin/dbus-daemon",
            ["--config-file=\(directory.path)/bus.conf", "--nofork", "--print-address=1"], stdout: output)
        let line = output.fileHandleForReading.availableData
        guard !line.isEmpty else {
            throw Failure(description: "dbus-daemon did not start: \(log("bus"))")
        }
        _ = daemon
    }

    /// Kills dbus-daemon outright, as a crash would; the clients see their connection break.
    func killBus() {
        stop("bus")
    }

    /// Starts a dbusmock template and returns once `busName` is on the bus.
    func startTemplate(_ template: String, busName: String, parameters: String? = nil) async throws {
        var arguments = ["-m", "dbusmock", "--system", "--template", template]
        if let parameters { arguments += ["--parameters", parameters] }
        try spawn(busName, "/usr/bin/python3", arguments)
        try await waitForName(busName)
    }

    /// Starts a bare dbusmock object (for names no template has).
    func startObject(busName: String, path: String, interface: String) async throws {
        try spawn(busName, "/usr/bin/python3", ["-m", "dbusmock", "--system", busName, path, interface])
        try await waitForName(busName)
    }

    /// Stops the mock that owns `busName`, and returns once it is gone.
    func stopService(_ busName: String) {
        stop(busName)
    }

    func stopAll() {
        let names = children.withLock { Array($0.keys) }
        for name in names where name != "bus" { stop(name) }
        stop("bus")
    }

    @discardableResult
    private func spawn(_ name: String, _ executable: String, _ arguments: [String], stdout: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        let logURL = directory.url.appendingPathComponent("\(name).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw Failure(description: "cannot create \(logURL.path)")
        }
        let logHandle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = stdout ?? logHandle
        process.standardError = logHandle
        try process.run()
        children.withLock { $0[name] = process }
        return process
    }

    /// SIGKILL: the children inherit the test runner's blocked signals, SIGTERM among them.
    private func stop(_ name: String) {
        guard let process = children.withLock({ $0.removeValue(forKey: name) }) else { return }
        killAndRelease(process)
    }

    /// The pid of a child, to stop (SIGSTOP) or continue it.
    func pid(_ name: String) -> Int32? {
        children.withLock { $0[name]?.processIdentifier }
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: directory.url.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    // MARK: - Driving the mocks

    /// `busctl call` on the private bus; returns its output, throws with it on failure.
    @discardableResult
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String, _ signature: String = "",
              _ arguments: String...) async throws -> String {
        var all = ["--address=\(address)", "call", destination, path, interface, member]
        if !signature.isEmpty { all += [signature] + arguments }
        return try await run("/usr/bin/busctl", all)
    }

    /// `org.freedesktop.DBus.Mock` on an object of a mock.
    @discardableResult
    func mock(_ destination: String, _ path: String, _ member: String, _ signature: String = "",
              _ arguments: String...) async throws -> String {
        var all = ["--address=\(address)", "call", destination, path, "org.freedesktop.DBus.Mock", member]
        if !signature.isEmpty { all += [signature] + arguments }
        return try await run("/usr/bin/busctl", all)
    }

    /// `busctl` with any arguments, on the private bus.
    @discardableResult
    func run(busctl arguments: [String]) async throws -> String {
        try await run("/usr/bin/busctl", ["--address=\(address)"] + arguments)
    }

    /// Waits for `name` to have an owner: NameHasOwner asked again until it says so, with a
    /// generous deadline (python takes its time to start on a loaded machine).
    private func waitForName(_ name: String, within: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + within
        while clock.now < deadline {
            let answer = try? await call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name)
            if answer?.hasPrefix("b true") == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "\(name) did not appear on the bus: \(log(name))")
    }

    /// Runs a short command without holding a thread of the concurrency pool while it runs.
    private func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        releaseEnded(process)
        guard status == 0 else {
            throw Failure(description: "\(([executable] + arguments).joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }
}

/// Waiting for a stream to say something, with a deadline so a broken build fails instead of hanging.
enum Eventually {
    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    static func first<T: Sendable>(
        _ stream: AsyncStream<T>, _ what: String, within: Duration = .seconds(60),
        where predicate: @escaping @Sendable (T) -> Bool
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                for await value in stream where predicate(value) { return value }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: within)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw TimedOut(description: "timed out waiting for \(what)") }
            return first
        }
    }
}
