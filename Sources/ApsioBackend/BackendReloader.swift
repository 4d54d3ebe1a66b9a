import ApsioConfiguration

/// What SIGHUP does, without the signal or the server: reads the configuration directory again,
/// keeps the last good version of whatever is broken, combines the result with the command line,
/// and says what to log and what the hub serves now. A refused result (no live origin, a plain
/// one without `--dev`) changes nothing.
struct BackendReloader {
    let flags: BackendFlags
    private(set) var running: BackendConfiguration
    private(set) var lastGood: BackendFiles

    init(flags: BackendFlags, running: BackendConfiguration, lastGood: BackendFiles) {
        self.flags = flags
        self.running = running
        self.lastGood = lastGood
    }

    struct Outcome {
        /// Problems as `FILE:LINE: message`, and what was kept because of them.
        var log: [String] = []
        /// The hub's new configuration; nil when nothing is applied.
        var hub: HubConfiguration?
        var summary: String
    }

    mutating func reload() -> Outcome {
        guard let directory = flags.configDirectory else {
            return Outcome(summary: "no configuration directory: nothing to read again")
        }
        let loaded = BackendFilesLoader(directory: directory).load()
        var log = loaded.problems.map(\.description)
        if loaded.settingsBroken {
            log.append("\(directory)/backend.conf has problems: its last good settings stay")
        }
        let files = loaded.keepingLastGood(of: lastGood)
        for app in files.apps where !loaded.apps.contains(where: { $0.name == app.name }) {
            log.append("the app \(app.name) keeps its last good configuration until its file is fixed")
        }
        let combined: (configuration: BackendConfiguration, problems: [ConfigurationProblem])
        do {
            combined = try flags.configuration(files: files)
        } catch {
            log.append("the configuration read again is refused, the last good one stays: \(error.description)")
            return Outcome(log: log, hub: nil, summary: "configuration not changed: serving \(running.hub.apps.count) app(s)")
        }
        log += combined.problems.map(\.description)
        let new = combined.configuration
        if new.listenHost != running.listenHost || new.listenPort != running.listenPort || new.tls?.certificateFile != running.tls?.certificateFile
            || new.tls?.privateKeyFile != running.tls?.privateKeyFile
            || new.accountsPath != running.accountsPath || new.redis != running.redis
            || new.maxConnections != running.maxConnections || new.auditRetention != running.auditRetention
        {
            log.append("Listen=, the TLS files, AccountsFile=, Redis=, MaxConnections= and AuditRetentionDays= change at the next start, not on a reload")
        }
        running.hub = new.hub
        lastGood = files
        return Outcome(log: log, hub: new.hub, summary: "configuration read again: serving \(new.hub.apps.count) app(s)")
    }
}
