import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioTestSupport
import Foundation
import Synchronization
import Testing

/// The built `apsio-backend` as an operator runs it: a child process on a configuration directory,
/// reloaded with SIGHUP. The only waits are for the child's own output to say it acted.
@Suite(.serialized) struct BackendBinaryTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("apsio-backend").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/apsio-backend").path
    }

    static let webKey = "apsio_app_binary_web"
    static let apiKey = "apsio_app_binary_api"

    /// The child and the files its standard output and error go to.
    final class Child: Sendable {
        let process: Process
        let output: String
        let errors: String

        init(binary: String, arguments: [String], directory: String) throws {
            output = directory + "/stdout"
            errors = directory + "/stderr"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
        }

        var stdout: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// How many times standard output has said `text`.
        func count(_ text: String) -> Int { stdout.components(separatedBy: text).count - 1 }

        deinit { killAndRelease(process) }
    }

    @Test func servesTheAppsOfItsConfigurationDirectoryAndReadsThemAgainOnSIGHUP() async throws {
        let binary = Self.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build apsio-backend first (swift build)")
        let directory = try ConfigDirectory()
        let accounts = directory.path + "/accounts"
        try AccountsFile(accounts: [
            Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000))
        ]).save(path: accounts)
        try directory.write("backend.conf", """
            [Backend]
            Listen=127.0.0.1:0
            LiveOrigin=http://127.0.0.1:8787
            Interval=45
            AccountsFile=\(accounts)
            """)
        try directory.write("apps.d/web.conf", "[App]\nAppKey=\(Self.webKey)\n")

        let child = try Child(binary: binary, arguments: ["--config", directory.path, "--dev"], directory: directory.path)
        try await poll("the backend says where it listens", seconds: 120) { child.stdout.contains("\n") || !child.process.isRunning }
        let line = child.stdout
        let port = try #require(
            line.components(separatedBy: "listening on http://127.0.0.1:").dropFirst().first?.split(separator: ";").first
                .flatMap { Int($0) }, "stdout: \(line) stderr: \(child.stderr)")
        let client = try BackendHTTPClient(port: port)
        func policy(_ key: String) async throws -> (status: Int, body: JSONValue) {
            let answer = try await client.send(.get("/v1/policy", headers: ["Apsio-App-Key": key]))
            return (answer.status, answer.body)
        }

        let web = try await policy(Self.webKey)
        #expect(web.status == 200)
        #expect(web.body["live"]?["interval_s"]?.numberValue == 45)
        #expect(try await policy(Self.apiKey).status == 401)

        // A new app file and SIGHUP: the new app is served, the old one still.
        let match = String(repeating: "cd", count: 32)
        try directory.write("apps.d/api.conf", "[App]\nAppKey=\(Self.apiKey)\nTester=qa-1:\(match):4102444800\n")
        child.signal(SIGHUP)
        try await poll("the first reload", seconds: 120) { child.count("configuration read again") >= 1 }
        let api = try await policy(Self.apiKey)
        #expect(api.status == 200)
        #expect(api.body["live"]?["testers"]?.arrayValue?.first?["match"]?.stringValue == match)
        #expect(try await policy(Self.webKey).status == 200)

        // A malformed edit and SIGHUP: the last good version stays, and the log says where.
        try directory.write("apps.d/api.conf", "[App]\nAppKey=\(Self.apiKey)\nTester=qa-1\n")
        child.signal(SIGHUP)
        try await poll("the second reload", seconds: 120) { child.count("configuration read again") >= 2 }
        let kept = try await policy(Self.apiKey)
        #expect(kept.status == 200)
        #expect(kept.body["live"]?["testers"]?.arrayValue?.first?["match"]?.stringValue == match)
        #expect(child.stderr.contains("\(directory.path)/apps.d/api.conf:3: Tester= is ID:MATCH:EXPIRES"))

        // Removing the file removes the app.
        try directory.remove("apps.d/api.conf")
        child.signal(SIGHUP)
        try await poll("the third reload", seconds: 120) { child.count("configuration read again") >= 3 }
        #expect(try await policy(Self.apiKey).status == 401)

        // A malformed backend.conf and SIGHUP: the last good settings stay.
        try directory.write("backend.conf", "[Backend]\nListen=127.0.0.1:0\nLiveOrigin=http://127.0.0.1:8787\nInterval=5\nAccountsFile=\(accounts)\n")
        child.signal(SIGHUP)
        try await poll("the fourth reload", seconds: 120) { child.count("configuration read again") >= 4 }
        #expect(try await policy(Self.webKey).body["live"]?["interval_s"]?.numberValue == 45)
        #expect(child.stderr.contains("\(directory.path)/backend.conf:4: Interval=5 is not a number of seconds from 15 to 120"))

        child.signal(SIGTERM)
        try await poll("the backend stopped", seconds: 120) { !child.process.isRunning }
        #expect(child.process.terminationStatus == 0)
        // No app key reaches the log.
        #expect(!child.stderr.contains(Self.webKey) && !child.stderr.contains(Self.apiKey))
        #expect(!child.stdout.contains(Self.webKey) && !child.stdout.contains(Self.apiKey))
    }

    @Test func aBadBackendConfStopsTheStartWithItsFileAndLine() async throws {
        let binary = Self.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build apsio-backend first (swift build)")
        let directory = try ConfigDirectory()
        try directory.write("backend.conf", "[Backend]\nListen=127.0.0.1:0\nLiveOrigin=https://Live.example.com\n")
        let child = try Child(binary: binary, arguments: ["--config", directory.path], directory: directory.path)
        try await poll("the backend exited", seconds: 120) { !child.process.isRunning }
        #expect(child.process.terminationStatus == 2)
        #expect(child.stderr.contains("apsio-backend: \(directory.path)/backend.conf:3: LiveOrigin=https://Live.example.com is not https://"))
    }
}
