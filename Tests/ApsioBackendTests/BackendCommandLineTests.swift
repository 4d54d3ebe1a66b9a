import ApsioBackend
import ApsioCore
import ApsioNet
import Foundation
import Testing

@Suite struct BackendCommandLineTests {
    static let now: Int64 = 1_800_000_000

    static func parse(_ arguments: [String]) throws(BackendConfigurationError) -> ResolvedBackendCommand {
        try BackendCommandLine.parse(arguments, nowUnixSeconds: now, hashing: sha256)
    }

    static func configuration(_ arguments: [String]) throws -> BackendConfiguration {
        guard case .run(let configuration) = try parse(arguments) else { throw Unexpected() }
        return configuration
    }

    struct Unexpected: Error {}

    static let base = ["--app", "demo:apsio_app_key_1", "--accounts", "accounts"]

    /// "MUST, when it serves production devices, publish only an https:// live.origin, and refuse
    /// any other in its configuration"
    @Test func aPlainOriginIsRefusedWithoutDev() {
        #expect(throws: BackendConfigurationError.self) {
            try Self.parse(Self.base + ["--live-origin", "http://127.0.0.1:8787"])
        }
        do {
            _ = try Self.parse(Self.base + ["--live-origin", "http://127.0.0.1:8787"])
        } catch {
            guard case .plainOriginRefused = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("https://"))
        }
    }

    @Test func devAllowsAPlainOriginOnlyOnLoopback() throws {
        let local = try Self.configuration(Self.base + ["--live-origin", "http://127.0.0.1:8787", "--dev"])
        #expect(local.hub.origin.scheme == .http && local.development)
        let v6 = try Self.configuration(Self.base + ["--live-origin", "http://[::1]:8787", "--dev", "--listen", "[::1]:8787"])
        #expect(v6.listenHost == "::1" && v6.listenPort == 8787)
        #expect(throws: BackendConfigurationError.self) {
            try Self.parse(Self.base + ["--live-origin", "http://127.0.0.1:8787", "--dev", "--listen", "0.0.0.0:8787"])
        }
    }

    @Test func anHTTPSOriginNeedsNoDev() throws {
        let configuration = try Self.configuration(Self.base + ["--live-origin", "https://live.example.com", "--listen", "0.0.0.0:443"])
        #expect(configuration.hub.origin.text == "https://live.example.com")
    }

    @Test(arguments: [
        "https://live.example.com/path", "https://user@live.example.com", "http://127.0.0.2", "https://Live.example.com",
        "ftp://live.example.com", "http://localhost.example.com",
    ])
    func malformedOriginsAreRefused(_ origin: String) {
        #expect(throws: BackendConfigurationError.self) {
            try Self.parse(Self.base + ["--live-origin", origin, "--dev"])
        }
    }

    /// The backend computes the match from the install it is given and keeps only the match.
    @Test func testersKeepTheMatchOnly() throws {
        let install = "6f1c2a4e-8b7d-4c1e-9a53-2d0f7e6b1c90"
        let configuration = try Self.configuration(
            Self.base + ["--live-origin", "https://live.example.com", "--tester", "qa-box-7:\(install):1900000000",
                         "--tester", "qa-box-8:another-install"])
        let testers = configuration.hub.apps[0].testers
        let proof = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha256)
        #expect(testers[0] == TesterEntry(id: "qa-box-7", match: proof.match(hashing: sha256), expiresAt: 1_900_000_000))
        #expect(testers[1].expiresAt == Self.now + 90 * 86_400)
        var dump = ""
        Swift.dump(configuration, to: &dump)
        #expect(!dump.contains(proof.secretHex) && !dump.contains(install))
    }

    @Test func testersFollowTheirApp() throws {
        let configuration = try Self.configuration([
            "--app", "one:apsio_key_one", "--tester", "a:i1", "--app", "two:apsio_key_two", "--tester", "b:i2",
            "--live-origin", "https://live.example.com",
        ])
        #expect(configuration.hub.apps.map { $0.testers.map(\.id) } == [["a"], ["b"]])
    }

    @Test(arguments: [
        ["--tester", "a:i1"] + base,
        base + ["--tester", "a:i1", "--tester", "a:i2"],
        base + ["--tester", "a:i1:1700000000"],
        base + ["--tester", "bad id:i1"],
        base + ["--app", "demo:apsio_app_key_2"],
        base + ["--app", "other:apsio_app_key_1"],
        base + ["--app", "short:key"],
        base + ["--interval", "10"],
        base + ["--tls-cert", "cert.pem"],
        base + ["--bogus"],
    ])
    func badCommandLinesAreRefused(_ arguments: [String]) {
        #expect(throws: BackendConfigurationError.self) {
            try Self.parse(arguments + ["--live-origin", "https://live.example.com"])
        }
    }

    @Test func addUserAndHelp() throws {
        guard case .addUser(let path, let user, let role, let iterations) = try Self.parse(
            ["--accounts", "a.txt", "--add-user", "ann:admin", "--iterations", "2000"])
        else { throw Unexpected() }
        #expect(path == "a.txt" && user == "ann" && role == .admin && iterations == 2000)
        #expect(throws: BackendConfigurationError.self) { try Self.parse(["--accounts", "a", "--add-user", "ann:root"]) }
        #expect(throws: BackendConfigurationError.self) { try Self.parse(["--add-user", "ann:admin"]) }
        guard case .help = try Self.parse(["--help"]) else { throw Unexpected() }
    }

    @Test func aBackendRefusesAPlainOriginWithoutDevEvenWhenBuiltInCode() {
        let configuration = BackendConfiguration(
            hub: HubConfiguration(origin: LiveOrigin("http://127.0.0.1:8787")!, apps: []), development: false)
        #expect(throws: BackendConfigurationError.self) {
            _ = try BackendServer(configuration: configuration, accounts: AccountsFile())
        }
    }
}

@Suite struct AccountsFileTests {
    @Test func roundTripsThroughAFileOnlyItsOwnerCanRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("accounts").path

        var accounts = AccountsFile()
        accounts.set(Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000)))
        accounts.set(Account(user: "bob", role: .viewer, password: PasswordHash(password: "bob-password", iterations: 1000)))
        try accounts.save(path: path)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("ann-password") && !text.contains("bob-password"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        let read = try AccountsFile.load(path: path)
        #expect(read == accounts)
        #expect(read.account(named: "ann")?.password.verifies("ann-password") == true)
        #expect(read.account(named: "bob")?.role == .viewer)
    }

    @Test func replacingAUserKeepsOneLine() {
        var accounts = AccountsFile()
        accounts.set(Account(user: "ann", role: .viewer, password: PasswordHash(password: "one-password", iterations: 1000)))
        accounts.set(Account(user: "ann", role: .admin, password: PasswordHash(password: "two-password", iterations: 1000)))
        #expect(accounts.accounts.count == 1 && accounts.account(named: "ann")?.role == .admin)
    }

    @Test(arguments: [
        "ann:admin",
        "ann:root:1000:00112233445566778899aabbccddeeff:" + String(repeating: "0", count: 64),
        "a n:admin:1000:00112233445566778899aabbccddeeff:" + String(repeating: "0", count: 64),
        "ann:admin:1000:zz:" + String(repeating: "0", count: 64),
    ])
    func badLinesNameTheirLine(_ line: String) {
        do {
            _ = try AccountsFile(parsing: "# people\n\n" + line + "\n", source: "accounts")
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.description.contains("accounts line 3"))
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: BackendConfigurationError.self) {
            _ = try AccountsFile.load(path: FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)").path)
        }
    }
}
