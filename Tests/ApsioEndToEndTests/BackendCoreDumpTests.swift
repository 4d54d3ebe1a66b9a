import ApsioBackend
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// apsio-backend holds app keys, device tokens and viewer sessions in memory only; a core dump
/// would put them on disk. The built apsio-backend, run as an unprivileged user as its unit runs
/// it, and started with core dumps allowed, leaves the kernel no leave to dump it.
@Suite(.serialized) struct BackendCoreDumpTests {
    @Test func apsioBackendRunAsAnotherUserCannotBeDumped() async throws {
        let binary = BackendBinaryTests.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build apsio-backend first (swift build)")
        let directory = try ConfigDirectory()
        let accounts = directory.path + "/accounts"
        try AccountsFile(accounts: [
            Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000))
        ]).save(path: accounts)
        // The backend's own user reads its accounts, as the package's StateDirectory= gives them to it.
        chown(accounts, ProcessDumpability.nobody, ProcessDumpability.nogroup)
        try directory.write(
            "backend.conf", "[Backend]\nListen=127.0.0.1:0\nLiveOrigin=http://127.0.0.1:8787\nAccountsFile=\(accounts)\n")
        let wrapper = ProcessDumpability.asNobodyWithCoreDumps
        let child = try BackendBinaryTests.Child(
            binary: wrapper[0], arguments: Array(wrapper.dropFirst()) + [binary, "--config", directory.path, "--dev"],
            directory: directory.path)
        try await poll("the backend says where it listens", seconds: 120) {
            child.stdout.contains("listening on") || !child.process.isRunning
        }
        #expect(child.process.isRunning, "stdout: \(child.stdout) stderr: \(child.stderr)")
        let seen = try ProcessDumpability(pid: child.process.processIdentifier)
        #expect(seen.effectiveUserID == ProcessDumpability.nobody, "the backend runs as nobody")
        #expect(seen.procOwner == 0, "/proc/PID belongs to uid \(seen.procOwner): the kernel may dump apsio-backend")
        #expect(seen.coreLimit == "0 0", "Max core file size: \(seen.coreLimit)")
        child.signal(SIGTERM)
        try await poll("the backend stopped", seconds: 120) { !child.process.isRunning }
        #expect(child.process.terminationStatus == 0)
    }
}
