package import ApsioCore
import ApsioNet
import ApsioRedis

/// What `apsio-devbackend` was asked to do.
package enum ResolvedBackendCommand: Sendable {
    case run(BackendConfiguration)
    /// Adds or replaces a person in the accounts file; the password comes on standard input.
    case addUser(accountsPath: String, user: String, role: AccountRole, iterations: Int)
    case help
}

/// The command line of `apsio-devbackend` and `apsio-backend`, parsed in the library so tests run
/// it in-process.
package enum BackendCommandLine {
    package static let usage = usage(program: "apsio-devbackend", defaultConfigDirectory: nil)

    package static func usage(program: String, defaultConfigDirectory: String?) -> String {
        let pad = String(repeating: " ", count: program.count)
        let config = defaultConfigDirectory.map { "(default \($0))" } ?? "(default none: flags only)"
        return """
            usage: \(program) [--config DIR] [--app NAME:APPKEY …] [--live-origin ORIGIN] [--accounts FILE]
                   \(pad) [--tester ID:INSTALLATION_ID[:EXPIRES] …] [--listen HOST:PORT]
                   \(pad) [--interval SECONDS] [--tls-cert FILE --tls-key FILE] [--dev]
                   \(pad) [--redis URL] [--max-connections N] [--audit-retention DAYS]
                   \(program) --accounts FILE --add-user USER:ROLE [--iterations N]

            The backend of live inspection (spec 16.4 and 16.7): serves each app's policy, an OTLP/HTTP
            JSON ingest sink, the live channel, and a JSON API for signed-in viewers.

              --config DIR           read DIR/backend.conf and DIR/apps.d/*.conf \(config);
                                     the flags below add apps to the files' and override their settings;
                                     SIGHUP reads the files again (and the accounts file, always)
              --listen HOST:PORT     where to listen (default 127.0.0.1:8787; [::1]:PORT for IPv6)
              --app NAME:APPKEY      an app and the app key its devices send in Apsio-App-Key
              --live-origin ORIGIN   the live.origin the policy publishes: https://host[:port]; a loopback
                                     http:// origin only with --dev while listening on loopback
              --tester ID:INSTALLATION_ID[:EXPIRES]
                                     lists the install as a tester of the --app before it (or of the only
                                     app); EXPIRES in Unix seconds, default 90 days from now. Only the
                                     match (SHA-256 of the proof) is kept
              --interval SECONDS     interval_s for hellos, 15 to 120 (default 30)
              --accounts FILE        the people who may sign in (USER:ROLE:ITERATIONS:SALT:HASH lines)
              --tls-cert, --tls-key  serve HTTPS with this certificate chain and key (PEM)
              --dev                  local development: allow a loopback http:// live origin
              --redis URL            share the hub's state with other instances in Redis: redis://HOST:PORT/DB
                                     or the path of its unix socket (PATH[?db=N]), one server or any node of
                                     a Redis Cluster (several nodes: URL,URL); without it the hub lives
                                     in this process's memory, one instance
              --max-connections N    connections served at once (default 256); each live device holds two
              --audit-retention DAYS who watched what is kept this long, 1 to 3650 days (default 30)
              --add-user USER:ROLE   read a password on standard input and add the person to --accounts;
                                     ROLE is viewer (may watch) or admin (may also send commands)
              --iterations N         PBKDF2 iterations for --add-user (default 600000)
              --help                 this text
            """
    }

    /// `apsio-devbackend`'s command line alone, with no configuration directory unless `--config`
    /// names one: the flags, combined with that directory's files when there is one.
    package static func parse(
        _ arguments: [String], nowUnixSeconds: Int64, hashing: some SHA256Hashing
    ) throws(BackendConfigurationError) -> ResolvedBackendCommand {
        switch try parseCommand(arguments, nowUnixSeconds: nowUnixSeconds, hashing: hashing, defaultConfigDirectory: nil) {
        case .help: return .help
        case .addUser(let path, let user, let role, let iterations):
            return .addUser(accountsPath: path, user: user, role: role, iterations: iterations)
        case .run(let flags):
            let files = flags.configDirectory.map { BackendFilesLoader(directory: $0).load() } ?? BackendFiles()
            return .run(try flags.configuration(files: files).configuration)
        }
    }

    package static func parseCommand(
        _ arguments: [String], nowUnixSeconds: Int64, hashing: some SHA256Hashing, defaultConfigDirectory: String?,
        program: String = "apsio-devbackend"
    ) throws(BackendConfigurationError) -> BackendCommand {
        let usage = usage(program: program, defaultConfigDirectory: defaultConfigDirectory)
        var flags = BackendFlags(configDirectory: defaultConfigDirectory)
        var apps: [(name: String, key: String, testers: [TesterEntry])] = []
        var certificate: String?
        var key: String?
        var addUser: String?
        var iterations = 600_000

        var index = 0
        func value(_ option: String, inline: String?) throws(BackendConfigurationError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw .usage("\(option) needs a value\n\n\(usage)") }
            return arguments[index]
        }
        func integer(
            _ option: String, inline: String?, in range: ClosedRange<Int>, unit: String = ""
        ) throws(BackendConfigurationError) -> Int {
            let text = try value(option, inline: inline)
            guard let number = Int(text), range.contains(number) else {
                throw .usage("\(option) is \(range.lowerBound) to \(range.upperBound)\(unit), not \(text)")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let option = String(parts[0])
            let inline = argument.hasPrefix("--") && parts.count == 2 ? String(parts[1]) : nil
            switch option {
            case "--help", "-h": return .help
            case "--dev": flags.development = true
            case "--config": flags.configDirectory = try value(option, inline: inline)
            case "--listen":
                let (host, port) = try parseListen(try value(option, inline: inline))
                flags.listenHost = host
                flags.listenPort = port
            case "--app":
                let text = try value(option, inline: inline)
                let (name, appKey) = try parseApp(text)
                guard !apps.contains(where: { $0.name == name }) else { throw .invalidApp("\(name) is given twice") }
                guard !apps.contains(where: { $0.key == appKey }) else { throw .invalidApp("two apps share one app key") }
                apps.append((name, appKey, []))
            case "--tester":
                let text = try value(option, inline: inline)
                guard !apps.isEmpty else { throw .invalidTester("give the --app it belongs to before it") }
                let entry = try parseTester(text, nowUnixSeconds: nowUnixSeconds, hashing: hashing)
                guard !apps[apps.count - 1].testers.contains(where: { $0.id == entry.id }) else {
                    throw .invalidTester("the id \(entry.id) is listed twice for \(apps[apps.count - 1].name); ids are unique in the list (16.7)")
                }
                guard apps[apps.count - 1].testers.count < Limits.spec.maxTesters else {
                    throw .invalidTester("an app lists at most \(Limits.spec.maxTesters) testers")
                }
                apps[apps.count - 1].testers.append(entry)
            case "--live-origin":
                let text = try value(option, inline: inline)
                guard let origin = LiveOrigin(text) else {
                    throw .invalidOrigin(
                        "\(text) is not https://host[:port] (lowercase, no path, user, query or fragment) nor a loopback http:// origin")
                }
                flags.origin = origin
            case "--interval": flags.intervalSeconds = try integer(option, inline: inline, in: 15...120, unit: " seconds")
            case "--redis":
                let text = try value(option, inline: inline)
                do throws(RedisEndpoint.Invalid) { flags.redis = try RedisSeeds(parsing: text) } catch {
                    throw .usage("--redis \(error.description)")
                }
            case "--max-connections": flags.maxConnections = try integer(option, inline: inline, in: maxConnectionsRange)
            case "--audit-retention":
                flags.auditRetentionDays = try integer(option, inline: inline, in: auditRetentionDaysRange, unit: " days")
            case "--accounts": flags.accountsPath = try value(option, inline: inline)
            case "--tls-cert": certificate = try value(option, inline: inline)
            case "--tls-key": key = try value(option, inline: inline)
            case "--add-user": addUser = try value(option, inline: inline)
            case "--iterations": iterations = try integer(option, inline: inline, in: 1000...10_000_000)
            default:
                throw .usage("unknown argument \(argument)\n\n\(usage)")
            }
            index += 1
        }

        if let addUser {
            guard let accounts = flags.accountsPath else { throw .usage("--add-user needs --accounts FILE") }
            let fields = addUser.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2, Account.isValidName(String(fields[0])) else {
                throw .usage("--add-user is USER:ROLE, the user 1 to 64 letters, digits, '.', '_', '-' or '@'")
            }
            guard let role = AccountRole(rawValue: String(fields[1])) else { throw .usage("the role is viewer or admin") }
            return .addUser(accountsPath: accounts, user: String(fields[0]), role: role, iterations: iterations)
        }

        switch (certificate, key) {
        case (nil, nil): flags.tls = nil
        case (let certificate?, let key?): flags.tls = HTTPServer.TLSFiles(certificateFile: certificate, privateKeyFile: key)
        default: throw .usage("--tls-cert and --tls-key go together")
        }
        flags.apps = apps.map { HubApp(name: $0.name, appKey: $0.key, testers: $0.testers) }
        flags.usage = usage
        return .run(flags)
    }

    /// Each connection costs a file descriptor and a little memory; past this a box needs its
    /// file limit raised and is better served by another instance.
    package static let maxConnectionsRange = 16...65_536
    package static let auditRetentionDaysRange = 1...3650

    static func parseApp(_ text: String) throws(BackendConfigurationError) -> (String, String) {
        let fields = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.count == 2 else { throw .invalidApp("expected NAME:APPKEY") }
        let name = String(fields[0])
        let key = String(fields[1])
        guard isIdentifier(name, max: 128) else {
            throw .invalidApp("an app name is 1 to 128 letters, digits, '.', '_' or '-'")
        }
        guard (8...256).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw .invalidApp("the app key of \(name) must be 8 to 256 printable ASCII characters without spaces")
        }
        return (name, key)
    }

    /// `ID:INSTALLATION_ID[:EXPIRES]`. The proof is computed here only to hash it into the match,
    /// and then dropped: the backend keeps the match (16.7). In a real deployment the team
    /// computes the match elsewhere and the backend never sees an installation id at all.
    static func parseTester(
        _ text: String, nowUnixSeconds: Int64, hashing: some SHA256Hashing
    ) throws(BackendConfigurationError) -> TesterEntry {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 2 || fields.count == 3 else { throw .invalidTester("expected ID:INSTALLATION_ID[:EXPIRES]") }
        let id = fields[0]
        let install = fields[1]
        guard isIdentifier(id, max: 64) else {
            throw .invalidTester("a tester id is 1 to 64 letters, digits, '.', '_' or '-'")
        }
        guard !install.isEmpty, install.utf8.count <= 256 else { throw .invalidTester("the installation id is empty or too long") }
        var expires = nowUnixSeconds + 90 * 86_400
        if fields.count == 3 {
            guard let given = Int64(fields[2]) else { throw .invalidTester("EXPIRES is Unix seconds, not \(fields[2])") }
            guard given > nowUnixSeconds else { throw .invalidTester("the entry \(id) has already expired") }
            expires = given
        }
        let match = TesterProof(entryID: id, installationID: install, hashing: hashing).match(hashing: hashing)
        return TesterEntry(id: id, match: match, expiresAt: expires)
    }

    static func parseListen(_ text: String) throws(BackendConfigurationError) -> (String, Int) {
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .invalidListen("expected [IPV6]:PORT")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalidListen("expected HOST:PORT") }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw .invalidListen("the port is 0 to 65535, not \(portText)")
        }
        guard !host.isEmpty else { throw .invalidListen("no address in \(text)") }
        return (host, port)
    }

    static func isIdentifier(_ text: String, max: Int) -> Bool {
        guard (1...max).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
