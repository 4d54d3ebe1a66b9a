// apsiod: serves every app configured in apps.d until SIGTERM; SIGHUP reads the configuration
// again. Everything it does lives in ApsioAgent; this file reads the command line and the
// environment, binds the control socket, tells systemd, and turns failures into one line and an
// exit code.
import ApsioAgent
import ApsioCore
import ApsioNet
import ApsioPOSIX
import ApsioPlatform

#if canImport(Glibc)
import Glibc
import ApsioControl
#endif

let usage = """
    Usage: apsiod [OPTIONS]

    Watches the systemd services configured in /etc/apsio/apps.d as Apsio app installs: exports
    their journal to the backend and, when the operator allows it, opens the live channel.

    Options:
      --config-dir DIR     configuration directory (default /etc/apsio)
      --state-dir DIR      state directory (default $STATE_DIRECTORY, else /var/lib/apsio)
      --runtime-dir DIR    runtime directory (default $RUNTIME_DIRECTORY, else /run/apsio)
      --journal-dir DIR    read the journal files in DIR instead of the system journal
      --sysfs DIR          sysfs root (default /sys)
      --procfs DIR         procfs root (default /proc)
      --log-level LEVEL    debug, info, notice, warning or err (default info, or apsiod.conf's)
      --help               show this help
      --version            show the version

    Signals: SIGTERM or SIGINT stop it; SIGHUP reads the configuration again.

    """

func writeError(_ text: String) {
    StandardStream.error.write("apsiod: " + text + "\n")
}

func environment(_ names: [String]) -> [String: String] {
    var values: [String: String] = [:]
    for name in names {
        if let value = getenv(name) { values[name] = String(cString: value) }
    }
    return values
}

/// systemd makes the directories (StateDirectory=, RuntimeDirectory=); by hand, apsiod does.
func makeDirectory(_ path: String, mode: mode_t) {
    var partial = ""
    for component in path.split(separator: "/") {
        partial += "/" + component
        do {
            try FileSystem.makeDirectoryIfMissing(partial, mode: mode)
        } catch {
            writeError("cannot make \(partial): \(error.reason)")
            exit(1)
        }
    }
}

let env = environment(["STATE_DIRECTORY", "RUNTIME_DIRECTORY", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] + ProxySettings.variableNames)
let options: DaemonOptions
do {
    switch try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: env) {
    case .help:
        print(usage, terminator: "")
        exit(0)
    case .version:
        print("apsiod \(ApsioVersion.current)")
        exit(0)
    case .serve(let chosen):
        options = chosen
    }
} catch {
    writeError(error.description)
    exit(2)
}

// Every task runs on the daemon's own executors: the main thread's loop and a pool that sleeps
// while there is nothing to do, where the runtime's own pool would wake once a second for good.
DaemonExecutors.run { await serve(options, environment: env) }

/// The daemon, from its log to the end of a SIGTERM; the process's exit status.
func serve(_ options: DaemonOptions, environment env: [String: String]) async -> Int32 {
    let log = DaemonLog(minimum: options.logLevel ?? .info)
    // Device tokens, tester proofs and app keys live in this process's memory only: before any of them
    // is read, keep them out of core files and out of reach of other processes of the same user.
    do {
        try ProcessHardening.disableCoreDumps()
    } catch {
        log.log(.warning, .started, "core dumps of apsiod cannot be turned off (\(error)): a crash may write what it holds in memory to disk")
    }
    // The one clock every wait of the daemon goes through.
    let clock = SystemAgentClock()
    let notifier = SystemdNotifier()
    let signals = ProcessSignals([SIGTERM, SIGINT, SIGHUP])
    makeDirectory(options.stateDirectory, mode: 0o750)
    makeDirectory(options.runtimeDirectory, mode: 0o755)

    // The socket is bound before READY=1, so `apsioctl` works as soon as systemd says the daemon is up.
    let listener: ControlListener
    do {
        listener = try ControlListener.inherited(environment: env)
            ?? ControlListener.bind(path: ControlListener.path(runtimeDirectory: options.runtimeDirectory))
    } catch {
        writeError("the control socket cannot be opened: \(error)")
        exit(1)
    }

    let daemon: Daemon
    do {
        daemon = try Daemon(
            options: options,
            edges: DaemonEdges(clock: clock, hashing: OpenSSLSHA256(), log: log, notifier: notifier))
    } catch {
        writeError("cannot start: \(error)")
        exit(1)
    }
    await daemon.start()
    // The daemon's own user owns the state where the installation ids are kept: `apps` withholds them
    // from it for nothing.
    let server = ControlServer(
        listener: listener, handler: daemon, access: ControlAccess(stateOwner: ProcessIdentity.effectiveUserID), clock: clock)
    server.start()
    notifier.ready(status: await daemon.statusLine)

    let watchdog: Task<Void, Never>? = notifier.watchdogInterval.map { interval in
        Task {
            while !Task.isCancelled {
                // From inside the daemon's actor: a daemon stuck on its own work misses the keep-alive
                // and systemd restarts it.
                await daemon.keepAlive()
                try? await clock.sleep(for: interval)
            }
        }
    }

    for await number in signals.events {
        if number == SIGHUP {
            await daemon.reloadConfiguration()
            continue
        }
        break
    }
    watchdog?.cancel()
    await server.stop()
    await daemon.stop()
    return 0
}
