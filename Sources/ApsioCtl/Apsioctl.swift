#if canImport(Glibc)
internal import Glibc
#endif

internal import ApsioCore
import ApsioControl
import ApsioJSON
internal import ApsioPOSIX
internal import ApsioControl
internal import ApsioState

/// The operator's command (LINUX-PROFILE §R, docs/control.md): one invocation, through the
/// control socket when apsiod runs; the settings commands straight into the state directory when
/// it does not.
package struct Apsioctl {
    let invocation: Invocation
    let environment: CtlEnvironment

    /// Runs the command line `arguments` (without the program's name) in `environment`: what
    /// the `apsioctl` binary does with its own, and what tests do with theirs.
    package static func main(arguments: [String], environment: CtlEnvironment) async -> ExitCode {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            Output(streams: environment.output).error("\(error.message); see 'apsioctl --help'")
            return .badCommandLine
        }
        return await Apsioctl(invocation: invocation, environment: environment).run()
    }

    private var output: Output { Output(streams: environment.output) }

    var socketPath: String { ControlListener.path(runtimeDirectory: invocation.runtimeDirectory) }

    func run() async -> ExitCode {
        switch invocation.command {
        case .help(let command):
            guard let command else {
                output.line(Help.overview)
                return .done
            }
            guard let text = Help.command(command) else {
                output.error("unknown command '\(command)'; see 'apsioctl --help'")
                return .badCommandLine
            }
            output.line(text)
            return .done
        case .version:
            return await version()
        case .ownVersion:
            output.line("apsioctl \(ApsioVersion.current)")
            return .done
        case .status(let apps):
            return await status(apps)
        case .watch(let apps):
            return await watch(apps)
        case .apps:
            return await listApps()
        case .reload:
            return await reload()
        case .allowLive(let on, let apps):
            return await change(.allowLive(on, apps: apps.map(\.rawValue)), apps: apps) { settings, apps in
                for app in apps { settings.setAllowsLive(on, for: app) }
            }
        case .consent(let choice, let apps):
            return await change(.consent(choice, apps: apps.map(\.rawValue)), apps: apps) { settings, apps in
                for app in apps { settings.setConsentOverride(choice == .grant ? .granted : .denied, for: app) }
            }
        case .dataSaver(let on):
            return await change(.dataSaver(on), apps: nil) { settings, _ in settings.dataSaver = on }
        }
    }

    // MARK: Talking to the daemon

    private enum Connection {
        case connected(ControlClient)
        /// Nothing answers on the socket and no daemon holds the state directory's lock; with
        /// `unsure`, why the lock could not be asked.
        case notRunning(ControlClientError, unsure: String?)
        case failed(String)
    }

    /// Connects to the daemon. A socket it cannot reach is taken for a daemon not running only
    /// when the state directory's lock says so: a daemon that runs holds it whatever became of
    /// its socket (removed, replaced, its directory remade), and a change stored for "the next
    /// start" behind its back would not apply.
    private func connect() -> Connection {
        let failure: ControlClientError
        do {
            return .connected(try ControlClient.connect(path: socketPath))
        } catch {
            failure = error
        }
        let unsure: String?
        switch DaemonPresence.of(StateLayout(root: invocation.stateDirectory)) {
        case .running:
            return .failed("apsiod runs but its control socket cannot be reached: \(failure.reason); restarting apsiod makes it again")
        case .notRunning: unsure = nil
        case .unknown(let why): unsure = why
        }
        if case .notRunning = failure { return .notRunning(failure, unsure: unsure) }
        return .failed(failure.description)
    }

    /// Exit 3 for a command that needs the daemon, in either output form.
    private func notRunning(_ message: String) -> ExitCode {
        if invocation.json {
            output.json(.object(["ok": .bool(false), "error": .string("not_running"), "message": .string(message)]))
        }
        output.error("\(message); start it with 'systemctl start apsiod'")
        return .notRunning
    }

    private func failed(_ error: ControlError) -> ExitCode {
        if invocation.json { output.json(ControlAnswer.failed(error).line) }
        output.error(error.message + hint(error.code))
        return .failed
    }

    private func failed(_ message: String) -> ExitCode {
        if invocation.json {
            output.json(.object(["ok": .bool(false), "error": .string("failed"), "message": .string(message)]))
        }
        output.error(message)
        return .failed
    }

    private func hint(_ code: ControlErrorCode) -> String {
        code == .notPermitted ? "; run it with sudo" : ""
    }

    /// What became of a request sent to the daemon.
    private enum Reply {
        /// Its answer, a refusal included. The connection stays open for what follows (a
        /// `watch`'s events); the caller closes it.
        case answered(ControlClient, ControlAnswer, line: [UInt8])
        case notRunning(ControlClientError, unsure: String?)
        /// The connection or the exchange failed.
        case failed(String)
        /// Still `busy` when `BusyRetry` gave up.
        case stayedBusy(ControlError)
    }

    /// Connects and sends `request`; while the daemon answers `busy` (no place for this connection
    /// now) asks again on a new connection, for at most `BusyRetry.budget`.
    private func ask(_ request: ControlRequest) async -> Reply {
        var retry = BusyRetry()
        while true {
            let client: ControlClient
            switch connect() {
            case .connected(let connected): client = connected
            case .notRunning(let error, let unsure): return .notRunning(error, unsure: unsure)
            case .failed(let message): return .failed(message)
            }
            let answer: ControlAnswer
            let line: [UInt8]
            do {
                (answer, line) = try await client.exchange(request)
            } catch {
                client.close()
                return .failed(error.description)
            }
            guard case .failed(let error) = answer, error.code == .busy else {
                return .answered(client, answer, line: line)
            }
            client.close()
            guard let wait = retry.next() else { return .stayedBusy(error) }
            await environment.clock.sleep(for: wait)
        }
    }

    /// Reports a reply that carries no answer to go on with (a refusal is reported by the caller,
    /// who knows the request), and gives its exit code.
    private func unanswered(_ reply: Reply, to request: ControlRequest) -> ExitCode {
        switch reply {
        case .answered(let client, let answer, _):
            client.close()
            if case .failed(let error) = answer { return failed(error) }
            return failed("apsiod's answer does not fit the request")
        case .notRunning(let error, _): return notRunning(error.description)
        case .failed(let message): return failed(message)
        case .stayedBusy(let error):
            var message = "\(error.message) (asked again for \(BusyRetry.budget.components.seconds) seconds)"
            if case .allowLive(false, _) = request {
                message += "; live inspection was not turned off: run it again, or stop apsiod with 'systemctl stop apsiod'"
            }
            return failed(ControlError(.busy, message))
        }
    }

    /// Sends a request the daemon must answer. With `--json` its answer line is printed as it
    /// came; otherwise `show` prints the answer. A daemon not running, a failure or a refusal is
    /// reported here and gives its exit code.
    private func respond(to request: ControlRequest, _ show: (ControlAnswer) -> ExitCode) async -> ExitCode {
        let reply = await ask(request)
        guard case .answered(let client, let answer, let line) = reply else { return unanswered(reply, to: request) }
        client.close()
        if case .failed(let error) = answer { return failed(error) }
        if invocation.json {
            output.json(line)
            return .done
        }
        return show(answer)
    }

    private func localTime(_ unixMs: Int64) -> ClockTime {
        let time = environment.clock.timeOfDay(unixMs: unixMs)
        return ClockTime(hour: time.hour, minute: time.minute)
    }

    // MARK: Commands

    private func version() async -> ExitCode {
        var daemon: String?
        var unreachable: String?
        switch await ask(.version) {
        case .answered(let client, let answer, _):
            client.close()
            if case .version(let text) = answer { daemon = text }
        case .failed(let message): unreachable = message
        case .notRunning, .stayedBusy: break
        }
        if invocation.json {
            output.json(.object([
                "ok": .bool(true), "apsioctl": .string(ApsioVersion.current), "apsiod": daemon.map(JSONValue.string) ?? .null,
            ]))
        } else {
            output.line("apsioctl \(ApsioVersion.current)")
            output.line(daemon.map { "apsiod \($0)" } ?? unreachable ?? "apsiod is not running")
        }
        return .done
    }

    private func status(_ apps: [AppName]) async -> ExitCode {
        await respond(to: .status(apps: apps.map(\.rawValue))) { answer in
            guard case .status(let status) = answer else { return failed("apsiod's answer was not a status") }
            if status.apps.isEmpty { output.line("No app is configured") }
            for app in status.apps {
                for text in ControlStatusText.lines(app, localTime: localTime) { output.line(text) }
            }
            output.line("Data Saver: \(status.dataSaver ? "on" : "off")")
            return .done
        }
    }

    private func reload() async -> ExitCode {
        await respond(to: .reload) { answer in
            guard case .reloaded(let problems) = answer else { return failed("apsiod's answer was not a reload") }
            output.line(problems.isEmpty ? "Configuration reloaded" : "Configuration reloaded, with problems:")
            for problem in problems { output.line("  " + problem) }
            return .done
        }
    }

    private func watch(_ apps: [AppName]) async -> ExitCode {
        let request = ControlRequest.watch(apps: apps.map(\.rawValue))
        let reply = await ask(request)
        guard case .answered(let client, let answer, let line) = reply else { return unanswered(reply, to: request) }
        defer { client.close() }
        if case .failed(let error) = answer { return failed(error) }
        if invocation.json { output.json(line) }
        return await follow(on: client)
    }

    /// Prints a watch's events until the daemon ends it.
    private func follow(on client: ControlClient) async -> ExitCode {
        do {
            var narrator = WatchNarrator()
            while let (event, line) = try await client.nextEventLine() {
                if invocation.json {
                    output.json(line)
                    continue
                }
                guard let event else { continue }
                let stamp = environment.clock.timeOfDay(unixMs: environment.clock.nowUnixMs()).description
                for text in narrator.lines(for: event, localTime: localTime) { output.line("[\(stamp)] " + text) }
            }
            output.error("apsiod ended the watch (it stopped, gave its place to a newer connection, or this watch read too slowly); run it again")
            return .failed
        } catch {
            return failed(error.description)
        }
    }

    // MARK: apps

    private func listApps() async -> ExitCode {
        let reply = await ask(.apps)
        switch reply {
        case .answered(let client, .apps(let apps), let line):
            client.close()
            if invocation.json {
                output.json(withDaemonRunning(line, true))
            } else {
                printApps(apps)
            }
            return .done
        case .notRunning:
            return offlineApps()
        default:
            return unanswered(reply, to: .apps)
        }
    }

    /// Without the daemon: the app files' names and the installation ids the state keeps, these
    /// only for root and the admin group, as the daemon would answer (the caller's own
    /// credentials decide, since no daemon sees them).
    private func offlineApps() -> ExitCode {
        let names: [AppName]
        switch ConfiguredApps.names(configDirectory: invocation.configDirectory) {
        case .success(let found): names = found
        case .failure(let error): return failed("cannot read \(ConfiguredApps.directory(invocation.configDirectory)): \(error.reason)")
        }
        let store = AppStateStore(layout: StateLayout(root: invocation.stateDirectory))
        let maySeeIDs = ControlAccess(stateOwner: stateDirectoryOwner()).maySeeInstallationIDs(environment.caller)
        let apps = names.map { name in
            guard maySeeIDs else { return ControlAppInfo(name: name.rawValue, unit: "").withholdingInstallationID() }
            return ControlAppInfo(name: name.rawValue, unit: "", installationID: (try? store.existingInstallationID(for: name)) ?? nil)
        }
        if invocation.json {
            var items: [JSONValue] = []
            for app in apps {
                guard case .object(var members) = app.json else { continue }
                members["unit"] = .null
                items.append(.object(members))
            }
            output.json(.object(["ok": .bool(true), "apps": .array(items), "daemon_running": .bool(false)]))
        } else {
            output.error(
                maySeeIDs
                    ? "apsiod is not running: showing the app files and the installation ids kept on disk"
                    : "apsiod is not running: showing the app files")
            printApps(apps)
        }
        return .done
    }

    /// The user the state directory belongs to (the daemon's), nil when it cannot be read.
    private func stateDirectoryOwner() -> UInt32? {
        ((try? FileSystem.status(invocation.stateDirectory)) ?? nil)?.uid
    }

    private func printApps(_ apps: [ControlAppInfo]) {
        if apps.isEmpty {
            output.line("No app is configured in \(ConfiguredApps.directory(invocation.configDirectory))")
            return
        }
        for app in apps {
            output.line(app.name)
            if !app.unit.isEmpty { output.line("  unit:             \(app.unit)") }
            if let value = app.serviceName { output.line("  service.name:     \(value)") }
            if let value = app.serviceVersion { output.line("  service.version:  \(value)") }
            if let value = app.buildID { output.line("  app.build_id:     \(value)") }
            let id = app.installationIDHidden
                ? ControlAccess().installationIDWithheld
                : app.installationID ?? "none yet (apsiod makes it when it first serves the app)"
            output.line("  installation id:  \(id)")
        }
    }

    private func withDaemonRunning(_ line: [UInt8], _ running: Bool) -> [UInt8] {
        guard case .object(var members) = try? JSONParser(maxBytes: ControlAnswer.maxLineBytes).parse(line) else { return line }
        members["daemon_running"] = .bool(running)
        return JSONWriter.encode(.object(members))
    }

    // MARK: Settings

    /// A settings change: through the daemon, which stores and applies it, when it runs; into
    /// settings.json for its next start when it does not.
    private func change(
        _ request: ControlRequest, apps: [AppName]?, _ apply: (inout OperatorSettings, [AppName]) -> Void
    ) async -> ExitCode {
        let reply = await ask(request)
        switch reply {
        case .answered(let client, let answer, let line):
            client.close()
            if case .failed(let error) = answer { return failed(error) }
            if invocation.json {
                output.json(withDaemonRunning(line, true))
            } else {
                output.line(confirmation(request, answer: answer, running: true))
            }
            return .done
        case .notRunning(_, unsure: nil):
            return storeOffline(request, apps: apps, apply)
        case .notRunning(let error, unsure: let why?):
            // Stored while a daemon runs, the change would not apply: nothing is written unless
            // the lock says none does.
            return failed("\(error.reason), and whether apsiod runs cannot be told (\(why)); nothing was changed: run it with sudo")
        default:
            return unanswered(reply, to: request)
        }
    }

    private func storeOffline(
        _ request: ControlRequest, apps named: [AppName]?, _ apply: (inout OperatorSettings, [AppName]) -> Void
    ) -> ExitCode {
        var apps: [AppName] = []
        if let named {
            let configured: [AppName]
            switch ConfiguredApps.names(configDirectory: invocation.configDirectory) {
            case .success(let found): configured = found
            case .failure(let error): return failed("cannot read \(ConfiguredApps.directory(invocation.configDirectory)): \(error.reason)")
            }
            for app in named where !configured.contains(app) {
                return failed(ControlError(
                    .unknownApp, "no app \(app) is configured (\(ConfiguredApps.directory(invocation.configDirectory))/\(app).conf)"))
            }
            apps = named.isEmpty ? configured : named
            if apps.isEmpty {
                return failed("no app is configured in \(ConfiguredApps.directory(invocation.configDirectory)); add an app file first")
            }
        }
        let store = SettingsStore(layout: StateLayout(root: invocation.stateDirectory))
        do {
            try store.update { settings in apply(&settings, apps) }
        } catch {
            var message = error.description
            if case .system(let system) = error, system.errno == EACCES || system.errno == EPERM {
                message += "; run it with sudo (root or the group apsio may change the settings)"
            } else if case .system(let system) = error, system.errno == ENOENT {
                message = "the state directory \(invocation.stateDirectory) does not exist; is apsio installed? (\(system))"
            }
            return failed(message)
        }
        let answer: ControlAnswer = switch request {
        case .dataSaver(let on): .dataSaver(on)
        default: .changed(apps: apps.map(\.rawValue))
        }
        if invocation.json {
            output.json(withDaemonRunning(answer.line, false))
        } else {
            output.line(confirmation(request, answer: answer, running: false))
        }
        return .done
    }

    private func confirmation(_ request: ControlRequest, answer: ControlAnswer, running: Bool) -> String {
        let apps: String = if case .changed(let names) = answer { names.joined(separator: ", ") } else { "" }
        let text: String = switch request {
        case .allowLive(true, _): "Live inspection allowed for \(apps)"
        case .allowLive(false, _): "Live inspection off for \(apps)"
        case .consent(.grant, _): "Consent granted for \(apps)"
        case .consent(.deny, _): "Consent denied for \(apps)"
        case .dataSaver(let on): "Data Saver \(on ? "on" : "off")"
        default: "Done"
        }
        return running ? text : text + " (apsiod is not running: it takes effect when apsiod starts)"
    }
}
