// apsio-devbackend: the development backend of live inspection (spec 16.4 and 16.7).
// Everything it does lives in ApsioBackend; this file reads the command line and the clock,
// runs until SIGINT or SIGTERM, and turns failures into one line and an exit code.
import ApsioBackend
import ApsioCore
import ApsioNet
import ApsioPOSIX
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String, code: Int32) -> Never {
    FileHandleOutput.standardError.write("apsio-devbackend: \(message)\n")
    exit(code)
}

enum FileHandleOutput {
    case standardOutput, standardError

    func write(_ text: String) {
        (self == .standardOutput ? StandardStream.output : StandardStream.error).write(text)
    }
}

/// A password from standard input, one line, never from the command line (where `ps` shows it).
func readPassword() -> String {
    guard var bytes = StandardStream.readInputLine(maxBytes: 1024) else {
        fail("a password is at most 1024 bytes", code: 2)
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
}

func addUser(accountsPath: String, user: String, role: AccountRole, iterations: Int) {
    var accounts = AccountsFile()
    if FileSystem.exists(accountsPath) {
        do { accounts = try AccountsFile.load(path: accountsPath) } catch { fail(error.description, code: 1) }
    }
    if StandardStream.inputIsTerminal { FileHandleOutput.standardError.write("password for \(user): ") }
    let password = readPassword()
    guard password.utf8.count >= 8 else { fail("a password has at least 8 bytes", code: 2) }
    accounts.set(Account(user: user, role: role, password: PasswordHash(password: password, iterations: iterations)))
    do { try accounts.save(path: accountsPath) } catch { fail(error.description, code: 1) }
    FileHandleOutput.standardOutput.write("\(user) (\(role.rawValue)) written to \(accountsPath)\n")
}

/// Returns at the first SIGINT or SIGTERM.
func waitForTermination() async {
    let signals = ProcessSignals([SIGINT, SIGTERM])
    for await _ in signals.events { break }
}

let command: DevBackendCommand
do {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    command = try DevBackendCommandLine.parse(
        Array(CommandLine.arguments.dropFirst()), nowUnixSeconds: Int64(now.tv_sec), hashing: OpenSSLSHA256())
} catch {
    fail(error.description, code: 2)
}

switch command {
case .help:
    FileHandleOutput.standardOutput.write(DevBackendCommandLine.usage + "\n")
case .addUser(let path, let user, let role, let iterations):
    addUser(accountsPath: path, user: user, role: role, iterations: iterations)
case .run(let configuration):
    guard let accountsPath = configuration.accountsPath else { fail("give --accounts FILE (create it with --add-user)", code: 2) }
    let accounts: AccountsFile
    do { accounts = try AccountsFile.load(path: accountsPath) } catch { fail(error.description, code: 1) }
    let backend: DevBackend
    do { backend = try DevBackend(configuration: configuration, accounts: accounts) } catch { fail(error.description, code: 2) }
    let port: Int
    do { port = try await backend.start() } catch { fail(error.description, code: 1) }
    let scheme = configuration.tls == nil ? "http" : "https"
    let host = configuration.listenHost.contains(":") ? "[\(configuration.listenHost)]" : configuration.listenHost
    FileHandleOutput.standardOutput.write(
        "apsio-devbackend listening on \(scheme)://\(host):\(port); live origin \(configuration.hub.origin); "
            + "\(configuration.hub.apps.count) app(s), \(accounts.accounts.count) account(s)\n")
    await waitForTermination()
    await backend.stop()
}
