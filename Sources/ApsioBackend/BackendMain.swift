import ApsioConfiguration
import ApsioCore
import ApsioNet
import ApsioPOSIX
#if canImport(Glibc)
import Glibc
#endif

/// The whole program of `apsio-backend` and `apsio-devbackend`, which differ only in their name
/// and in the configuration directory read when `--config` is not given (`/etc/apsio-backend`
/// for the product, none for the development backend). Serves until SIGINT or SIGTERM; with a
/// configuration directory, SIGHUP reads its files again. Returns the exit code: 0 done, 1 failed
/// at run time, 2 a bad command line or a refused configuration.
package enum BackendMain {
    package static func run(arguments: [String], program: String, defaultConfigDirectory: String?) async -> Int32 {
        let log = BackendLog(program: program)
        let command: BackendCommand
        do {
            command = try BackendCommandLine.parseCommand(
                arguments, nowUnixSeconds: SystemAgentClock().now().wallUnixSeconds, hashing: OpenSSLSHA256(),
                defaultConfigDirectory: defaultConfigDirectory, program: program)
        } catch {
            log.error(error.description)
            return 2
        }
        switch command {
        case .help:
            StandardStream.output.write(BackendCommandLine.usage(program: program, defaultConfigDirectory: defaultConfigDirectory) + "\n")
            return 0
        case .addUser(let path, let user, let role, let iterations):
            return addUser(accountsPath: path, user: user, role: role, iterations: iterations, log: log)
        case .run(let flags):
            return await serve(flags, program: program, log: log)
        }
    }

    private static func serve(_ flags: BackendFlags, program: String, log: BackendLog) async -> Int32 {
        var files = BackendFiles()
        if let directory = flags.configDirectory {
            files = BackendFilesLoader(directory: directory).load()
            for problem in files.problems { log.error(problem.description) }
        }
        let configuration: BackendConfiguration
        do {
            let combined = try flags.configuration(files: files)
            for problem in combined.problems { log.error(problem.description) }
            configuration = combined.configuration
        } catch {
            log.error(error.description)
            return 2
        }
        guard let accountsPath = configuration.accountsPath else {
            let where_ = flags.configDirectory.map { " or AccountsFile= in \($0)/backend.conf" } ?? ""
            log.error("give --accounts FILE\(where_) (create it with --add-user)")
            return 2
        }
        let accounts: AccountsFile
        do { accounts = try AccountsFile.load(path: accountsPath) } catch {
            log.error(error.description)
            return 1
        }
        // Before the server starts: a SIGHUP that comes while it binds is then a reload, not death.
        let signals = ProcessSignals([SIGINT, SIGTERM, SIGHUP])
        let backend: BackendServer
        do { backend = try BackendServer(configuration: configuration, accounts: accounts) } catch {
            log.error(error.description)
            return 2
        }
        let port: Int
        do { port = try await backend.start() } catch {
            log.error(error.description)
            return 1
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.listenHost.contains(":") ? "[\(configuration.listenHost)]" : configuration.listenHost
        StandardStream.output.write(
            "\(program) listening on \(scheme)://\(host):\(port); live origin \(configuration.hub.origin); "
                + "\(configuration.hub.apps.count) app(s), \(accounts.accounts.count) account(s)\n")

        var reloader = BackendReloader(flags: flags, running: configuration, lastGood: files)
        for await number in signals.events {
            guard number == SIGHUP else { break }
            let outcome = reloader.reload()
            for line in outcome.log { log.error(line) }
            if let hub = outcome.hub { await backend.service.reconfigure(hub) }
            StandardStream.output.write(outcome.summary + "\n")
            // The accounts file the backend started with, read again: who may sign in and what
            // each person may do follow it from now on. A broken file keeps the last good one.
            do {
                let accounts = try AccountsFile.load(path: accountsPath)
                await backend.readAccounts(accounts)
                StandardStream.output.write("accounts read again: \(accounts.accounts.count) account(s)\n")
            } catch {
                log.error("\(error.description); the last good accounts stay")
            }
        }
        await backend.stop()
        return 0
    }

    /// A password from standard input, one line, never from the command line (where `ps` shows it).
    private static func addUser(accountsPath: String, user: String, role: AccountRole, iterations: Int, log: BackendLog) -> Int32 {
        var accounts = AccountsFile()
        if FileSystem.exists(accountsPath) {
            do { accounts = try AccountsFile.load(path: accountsPath) } catch {
                log.error(error.description)
                return 1
            }
        }
        if StandardStream.inputIsTerminal { StandardStream.error.write("password for \(user): ") }
        guard var bytes = StandardStream.readInputLine(maxBytes: 1024) else {
            log.error("a password is at most 1024 bytes")
            return 2
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let password = String(decoding: bytes, as: UTF8.self)
        guard password.utf8.count >= 8 else {
            log.error("a password has at least 8 bytes")
            return 2
        }
        accounts.set(Account(user: user, role: role, password: PasswordHash(password: password, iterations: iterations)))
        do { try accounts.save(path: accountsPath) } catch {
            log.error(error.description)
            return 1
        }
        StandardStream.output.write("\(user) (\(role.rawValue)) written to \(accountsPath)\n")
        return 0
    }
}
