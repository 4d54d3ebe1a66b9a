package import ApsioCore
import ApsioPOSIX
import ApsioNet
import ApsioPlatform
package import ApsioConfiguration
import ApsioLive
import ApsioState
import ApsioIngest

/// `apsiod`: every configured app served — its journal exported, its policy followed, its live
/// channel run — with the operator's settings applied, the indicator shown, and the control socket
/// answered. One actor owns the set of apps; each app's work runs in its own actors
/// (`AppRuntime`, `AppExporter`, `PolicyFetcher`), so a slow app never holds up another.
package actor Daemon {
    package let options: DaemonOptions
    let edges: DaemonEdges
    let log: DaemonLog
    let layout: StateLayout
    let settingsStore: SettingsStore
    let appState: AppStateStore
    /// Held from `init` until `stop()` has closed every app's queue.
    let stateLock: StateDirectoryLock
    let client: HTTPClient
    /// What every HTTP client of the daemon reads at each new connection: the environment's proxy
    /// (`environmentProxy`) under apsiod.conf's `[Network]`, set again at each reload.
    let proxyRoute: ProxyRoute
    private let environmentProxy: ProxySettings
    /// Whether the route was said once: at start only when there is a proxy, then at each change.
    private var proxyRouteSaid = false
    let indicator: DaemonIndicator
    let facts: ResourceFacts

    var configuration = Configuration()
    var settings = OperatorSettings()
    var apps: [AppName: ServedApp] = [:]
    /// What the live channel of an app stopped by a reload remembered (`LiveChannelMemory`), for the
    /// same install started again: changed, or fixed after its file broke. Dropped with the file.
    private var liveMemories: [AppName: LiveChannelMemory] = [:]
    /// Unit state, Low Power and Low Data Mode: rebuilt when the set of units changes.
    var feeds: [Task<Void, Never>] = []
    var fedUnits: [String: [AppName]] = [:]
    /// Each unit the feeds follow, as last known: what an app starts from.
    var followedUnits: [String: FollowedUnit] = [:]
    /// The one journal reader of every app's ingest and of live, and the apps (unit, `MinPriority=`)
    /// it was opened with: opened again when they change.
    var journal: (hub: JournalHub, apps: [JournalApp])?
    var lowPower = false
    var lowData = false
    var watchers: [Int: DaemonWatcher] = [:]
    var nextWatcherID = 0
    var stopped = false
    /// Journal files reported as unreadable, each once for the daemon's life.
    private let unreadableJournalFiles = OnceEach()
    /// How long ingest and the hello wait at most for the unit's main executable before going with
    /// the stand-in Resource (`Version=` or `unknown`, `NAME@VERSION`): the bus and the dpkg
    /// database answer in well under a second, but a box that is booting may be slow, and a bus
    /// that never answers must not hold an app's records forever.
    static let resourceWait: Duration = .seconds(10)
    private let liveEvents: AsyncStream<AppLiveEvent>
    private let liveEventSink: AsyncStream<AppLiveEvent>.Continuation
    private var liveEventTask: Task<Void, Never>?

    /// Takes the state directory for this daemon alone (a second daemon on it is refused), then
    /// readies everything `start()` needs.
    package init(options: DaemonOptions, edges: DaemonEdges) throws(DaemonStartError) {
        self.options = options
        self.edges = edges
        log = edges.log
        layout = StateLayout(root: options.stateDirectory)
        do {
            stateLock = try StateDirectoryLock.acquire(layout)
        } catch {
            throw .state(error)
        }
        settingsStore = SettingsStore(layout: layout)
        appState = AppStateStore(layout: layout)
        let (fromEnvironment, proxyProblems) = ProxySettings.environment(options.proxyEnvironment)
        for problem in proxyProblems { edges.log.log(.warning, .configuration, problem) }
        environmentProxy = fromEnvironment
        proxyRoute = ProxyRoute(fromEnvironment)
        do {
            client = try HTTPClient(options: HTTPClient.Options(proxy: proxyRoute))
        } catch {
            throw .http(error)
        }
        indicator = DaemonIndicator(
            motdFile: nil, announceTerminals: false, utmpPath: edges.utmpPath, notifier: edges.notifier, log: edges.log,
            wallUnixMs: { edges.clock.now().wallUnixMs })
        facts = ResourceFactsReader(roots: SysfsRoots(sysfs: options.sysfs, procfs: options.procfs)).machine()
        (liveEvents, liveEventSink) = AsyncStream.makeStream(of: AppLiveEvent.self)
    }

    // MARK: - Lifecycle

    /// Reads the configuration and the operator's settings and starts serving every app that
    /// loaded. Returns once all are started; `stop()` ends them.
    package func start() async {
        let stream = liveEvents
        liveEventTask = Task { [weak self] in
            for await event in stream { await self?.liveEvent(event) }
        }
        loadSettings()
        let loaded = loadConfiguration()
        await apply(loaded)
        await indicator.setIdleStatus(idleStatus)
        log.log(.notice, .started, "serving \(apps.count) app\(apps.count == 1 ? "" : "s")")
    }

    /// Ends every app's work: an `ended` body where the spec wants one, cursors saved, the motd
    /// file removed.
    package func stop() async {
        guard !stopped else { return }
        stopped = true
        edges.notifier.stopping(status: "Stopping")
        for task in feeds { task.cancel() }
        feeds = []
        for name in apps.keys.sorted() { await stopServing(name) }
        await journal?.hub.stop()
        journal = nil
        await indicator.clear()
        for watcher in watchers.values { watcher.continuation.finish() }
        watchers = [:]
        liveEventSink.finish()
        liveEventTask?.cancel()
        client.closeIdleConnections()
        stateLock.release()
        log.log(.notice, .stopping, "stopped")
    }

    /// SIGHUP or `apsioctl reload`: the configuration read again, apps added, removed or restarted
    /// as their files changed, and every policy fetched at once. Returns the problems found.
    @discardableResult
    package func reloadConfiguration() async -> [ConfigurationProblem] {
        guard !stopped else { return [] }
        edges.notifier.reloading(monotonicMicroseconds: UInt64(max(0, edges.clock.now().mono.sinceOrigin.wholeMicroseconds)))
        loadSettings()
        let loaded = loadConfiguration()
        await apply(loaded)
        for served in apps.values { await served.fetcher.fetchNow() }
        edges.notifier.ready(status: idleStatus)
        // The app count changed: what STATUS= says again once nobody watches.
        await indicator.setIdleStatus(idleStatus)
        log.log(.notice, .reloaded, "configuration read again: serving \(apps.count) app\(apps.count == 1 ? "" : "s")")
        return loaded.problems
    }

    /// Proves the actor still turns: the watchdog's keep-alive goes out only from here.
    package func keepAlive() {
        edges.notifier.watchdog()
    }

    package var servedApps: [AppName] { apps.keys.sorted() }

    /// The runtime serving an app, for tests that drive the daemon in process.
    func runtime(of name: AppName) -> AppRuntime? { apps[name]?.runtime }

    /// What `STATUS=` says while nobody watches.
    package var statusLine: String { idleStatus }

    var idleStatus: String {
        let count = apps.count
        return count == 0
            ? "No app configured; add one in \(options.configDirectory)/apps.d"
            : "Serving \(count) app\(count == 1 ? "" : "s"); nobody is viewing"
    }

    // MARK: - Configuration

    private func loadConfiguration() -> Configuration {
        var loaded = ConfigurationLoader(directory: options.configDirectory).load()
        for problem in loaded.problems { log.log(.err, .configuration, problem.description) }
        if let level = options.logLevel { loaded.daemon.logLevel = level }
        log.level = loaded.daemon.logLevel
        return loaded
    }

    /// The proxy of `[Network]` over the environment's, said when it changes (and at start when
    /// there is one): connections already made through the old route are closed when idle.
    private func applyProxy(_ network: NetworkConfiguration) {
        let settings = network.settings(over: environmentProxy)
        let changed = proxyRoute.update(settings)
        guard changed || (!proxyRouteSaid && settings.https != nil) else { return }
        proxyRouteSaid = true
        if changed { client.closeIdleConnections() }
        if let proxy = settings.https {
            let bypass = settings.noProxy.isEmpty ? "" : " (except the hosts of NO_PROXY)"
            log.log(.notice, .configuration, "https requests go through the proxy \(proxy)\(bypass)")
        } else {
            log.log(.notice, .configuration, "https requests go directly to their hosts, through no proxy")
        }
    }

    private func loadSettings() {
        do {
            settings = try settingsStore.load()
        } catch {
            log.log(.err, .state, "the operator's settings cannot be read (\(error)); live stays off until they can")
            settings = OperatorSettings()
        }
    }

    private func apply(_ new: Configuration) async {
        let old = configuration
        let changes = ConfigurationChanges(from: old, to: new)
        configuration = new
        applyProxy(new.daemon.network)
        await indicator.reconfigure(
            motdFile: new.daemon.motdFile, announceTerminals: new.daemon.announceTerminals, utmpPath: edges.utmpPath)
        for name in changes.removed + changes.changed {
            liveMemories[name] = await stopServing(name)
            await indicator.forget(name)
        }
        forgetRemovedApps(present: new.appFiles)
        let serving = (changes.added + changes.changed).compactMap { new.app(named: $0) }
        await reopenJournalIfAppsChanged(apps.values.map(\.configuration) + serving)
        for name in (changes.added + changes.changed).sorted() {
            guard let app = new.app(named: name) else { continue }
            await serve(app, previousUnit: old.app(named: name)?.unit, liveMemory: liveMemories.removeValue(forKey: name))
        }
        // Once every app subscribed: those behind are caught up together, from one catch-up reader.
        await journal?.hub.start()
        // Apps whose file did not change still see settings changed while the daemon ran.
        for name in apps.keys.sorted() { await applySettings(to: name) }
        restartFeedsIfUnitsChanged()
    }

    /// An app whose file is gone is removed: its state goes with it (installation id, cursor,
    /// queue, day bytes, policy, the operator's settings), so that added again it is a new install
    /// with live inspection off (LINUX-PROFILE §2), as a reinstalled app is. An app whose file is
    /// broken for a while is not removed, and nothing is when `apps.d` cannot be listed. Runs after
    /// removed apps stopped: their exporters have closed the files being removed.
    private func forgetRemovedApps(present: Set<AppName>?) {
        guard let present else { return }
        liveMemories = liveMemories.filter { present.contains($0.key) }
        let state = AgentState(root: options.stateDirectory)
        do {
            let forgotten = try state.forgetApps(notIn: present.union(apps.keys))
            for name in forgotten {
                log.log(.notice, .state, "its app file is gone: its installation id and state are removed; added again, it is a new install", app: name.rawValue)
            }
            if !forgotten.isEmpty { loadSettings() }
        } catch {
            log.log(.err, .state, "the state of removed apps cannot be removed: \(error)")
        }
    }

    // MARK: - One app

    /// `previousUnit`: the unit the app's file named before a reload restarted it; nil for an app
    /// served for the first time.
    private func serve(
        _ app: AppConfiguration, previousUnit: String? = nil, liveMemory: LiveChannelMemory? = nil
    ) async {
        let name = app.name
        do {
            let served = try await ServedApp.start(
                app, options: options, edges: edges, appState: appState, layout: layout,
                stateLock: stateLock, client: client,
                facts: facts, journal: journal?.hub, liveEvents: liveEventSink, queueBounds: configuration.daemon.queue,
                liveMemory: liveMemory)
            apps[name] = served
            // Before the exporter starts, so its first batch already carries the executable's Resource.
            await startFromWhatIsKnown(name, previousUnit: previousUnit)
            await settleResourceIfKnown(name)
            if apps[name]?.resourceSettled == false { waitForResource(name) }
            let fetcher = served.fetcher
            let policies = Task { [weak self] in
                for await policy in fetcher.policies { await self?.policyArrived(policy, for: name) }
            }
            apps[name]?.tasks.append(policies)
            // The exporter starts knowing consent and the last good policy: with consent denied
            // it skips the journal to its end rather than reading what may never leave.
            await fetcher.start()
            if let stored = await fetcher.current { await served.apply(stored) }
            await applySettings(to: name)
            try await served.exporter.start()
            log.log(.info, .configuration, "serving \(app.unit) as \(app.serviceName)", app: name.rawValue)
        } catch {
            log.log(.err, .configuration, "cannot be served: \(error)", app: name.rawValue)
        }
    }

    /// The unit's state and main executable as the daemon knows them, given to an app it starts:
    /// the feeds tell an app only of changes, so one restarted while its unit runs would otherwise
    /// sit in the background, with no live session and a stand-in build id, until the unit itself
    /// changed. Read from `followedUnits` once the app is in `apps`, so a change that came while
    /// it was being started is not lost.
    private func startFromWhatIsKnown(_ name: AppName, previousUnit: String?) async {
        guard let served = apps[name] else { return }
        let unit = served.configuration.unit
        let known = followedUnits[unit]
        if let previousUnit {
            log.log(.info, .configuration, FollowedUnit.restartNote(unit: unit, previousUnit: previousUnit, known: known), app: name.rawValue)
        }
        if let executable = known?.executable { await executableRead(executable, for: name) }
        guard let state = known?.state else { return }
        apps[name]?.unitState = state
        await served.runtime.unitChanged(state)
        publishStatus(of: name)
    }

    /// The Resource is as good as it will soon get: the hello may go with its `service.version` as
    /// `release`, and ingest may send.
    private func settleResource(of name: AppName, because why: String, level: LogLevel = .debug) async {
        guard let served = apps[name], !served.resourceSettled else { return }
        apps[name]?.resourceSettled = true
        served.resourceWait?.cancel()
        await served.runtime.releaseKnown(served.resource.serviceVersion)
        await served.exporter.resourceSettled()
        log.log(
            level, .configuration, "sending as \(served.resource.serviceVersion), build \(served.resource.appBuildID): \(why)",
            app: name.rawValue)
    }

    private func settleResourceIfKnown(_ name: AppName) async {
        guard let served = apps[name], !served.resourceSettled,
            let why = followedUnits[served.configuration.unit]?.resourceSettledBecause
        else { return }
        await settleResource(of: name, because: why)
    }

    /// At most `resourceWait`.
    private func waitForResource(_ name: AppName) {
        log.log(.debug, .configuration, "ingest and the hello wait for its unit's main executable", app: name.rawValue)
        let clock = edges.clock
        apps[name]?.resourceWait = Task { [weak self] in
            guard (try? await clock.sleep(for: Self.resourceWait)) != nil else { return }
            await self?.settleResource(
                of: name, because: "its unit's main executable was not read within \(Self.resourceWait)", level: .info)
        }
    }

    @discardableResult
    private func stopServing(_ name: AppName) async -> LiveChannelMemory? {
        guard let served = apps.removeValue(forKey: name) else { return nil }
        return await served.stop()
    }

    private func policyArrived(_ policy: Policy, for name: AppName) async {
        guard let served = apps[name] else { return }
        await served.apply(policy)
    }

    /// allow-live, consent and Data Saver as they stand, applied to one app.
    func applySettings(to name: AppName) async {
        guard let served = apps[name] else { return }
        await served.applySettings(
            allowLive: settings.allowsLive(name), consentGranted: consentGranted(name) == true,
            lowPower: lowPower, lowData: lowData, dataSaver: settings.dataSaver)
    }

    /// The operator's override, else the app file's `Consent=`; nil when neither says.
    func consentGranted(_ name: AppName) -> Bool? {
        if let override = settings.consentOverride(name) { return override == .granted }
        return configuration.app(named: name)?.consent.map { $0 == .granted }
    }

    // MARK: - Device feeds

    private func restartFeedsIfUnitsChanged() {
        var units: [String: [AppName]] = [:]
        for (name, served) in apps { units[served.configuration.unit, default: []].append(name) }
        for key in units.keys { units[key]?.sort() }
        guard units != fedUnits || feeds.isEmpty else { return }
        fedUnits = units
        for task in feeds { task.cancel() }
        feeds = []
        // The units still followed keep what is known of them until the new watcher reads them
        // again (or says they are unknown): the apps already have it, and one started meanwhile
        // should too.
        followedUnits = followedUnits.filter { units[$0.key] != nil }
        guard !units.isEmpty else { return }

        let unitWatcher = UnitStateWatcher(units: units.keys.sorted())
        let power = PowerModeWatcher(sysfs: options.sysfs)
        let metered = MeteredWatcher()
        let supervisor = SystemBusSupervisor(address: edges.bus, watchers: [unitWatcher, power, metered], clock: edges.clock)
        feeds.append(Task { await supervisor.run() })
        feeds.append(Task { await power.followLocalSources() })
        feeds.append(Task { [weak self] in
            for await on in power.updates { await self?.modesChanged(lowPower: on, lowData: nil) }
        })
        feeds.append(Task { [weak self] in
            for await on in metered.updates { await self?.modesChanged(lowPower: nil, lowData: on) }
        })
        for unit in units.keys {
            guard let states = unitWatcher.updates(for: unit) else { continue }
            feeds.append(Task { [weak self] in
                for await state in states { await self?.unitChanged(state, of: unit) }
            })
        }
    }

    /// The apps served for `unit` now (a reload may have moved some since the feed started).
    private func apps(of unit: String) -> [AppName] {
        apps.filter { $0.value.configuration.unit == unit }.keys.sorted()
    }

    private func unitChanged(_ state: UnitState?, of unit: String) async {
        followedUnits[unit, default: FollowedUnit()].state = state
        if let pid = state?.mainPID, followedUnits[unit]?.executableAskedFor != pid {
            followedUnits[unit]?.executableAskedFor = pid
            readExecutable(of: unit, pid: pid)
        }
        for name in apps(of: unit) {
            apps[name]?.unitState = state
            await apps[name]?.runtime.unitChanged(state)
            publishStatus(of: name)
            await settleResourceIfKnown(name)
        }
    }

    /// Reads the main executable's build-id and owning package away from the actor (the dpkg
    /// database can be large), then updates the Resource ingest sends from then on.
    private func readExecutable(of unit: String, pid: Int32) {
        let roots = SysfsRoots(sysfs: options.sysfs, procfs: options.procfs)
        Task.detached { [weak self] in
            let facts = MainExecutable.path(pid: pid, roots: roots).map {
                ResourceFactsReader(roots: roots).executable(path: $0, dpkg: DpkgDatabase())
            }
            await self?.executableRead(facts, of: unit, pid: pid)
        }
    }

    /// `facts` nil: the main process's executable could not be found (`/proc/PID/exe` unreadable
    /// and no absolute `argv[0]`); what was read before stands.
    private func executableRead(_ facts: ExecutableFacts?, of unit: String, pid: Int32) async {
        // A read for a main process that has been replaced since says nothing of the unit now.
        guard followedUnits[unit]?.executableAskedFor == pid else { return }
        followedUnits[unit]?.executableReadFor = pid
        if let facts {
            followedUnits[unit]?.executable = facts
        } else {
            log.log(.info, .configuration, "the executable of \(unit)'s main process (\(pid)) cannot be found; its Resource stays as it was")
        }
        for name in apps(of: unit) {
            if let facts { await executableRead(facts, for: name) }
            await settleResourceIfKnown(name)
        }
    }

    private func executableRead(_ facts: ExecutableFacts, for name: AppName) async {
        guard let served = apps[name] else { return }
        await served.runtime.executableRead(facts)
        let resource = ServedApp.resource(served.resource, configured: served.configuration.version, executable: facts)
        guard resource != served.resource else { return }
        apps[name]?.resource = resource
        await served.exporter.resourceChanged(resource)
        // Before it is settled the hello waits, and settling gives it the release.
        if served.resourceSettled { await served.runtime.releaseKnown(resource.serviceVersion) }
        log.log(.info, .configuration, "serving \(facts.path), \(resource.serviceVersion), build \(resource.appBuildID)", app: name.rawValue)
    }

    private func modesChanged(lowPower: Bool?, lowData: Bool?) async {
        if let lowPower { self.lowPower = lowPower }
        if let lowData { self.lowData = lowData }
        for name in apps.keys.sorted() { await applySettings(to: name) }
    }

    /// One journal reader for every app the daemon serves (`JournalHub`): its tail gives the lines
    /// the live channel streams, from the moment it opened, and each app's ingest pulls from it at
    /// its own pace, from its own cursor. Opened again when an app's unit, `MinPriority=` (the log
    /// bridge's floor, which holds for live lines too, also under a raised level, 16.6), `Match=` or
    /// `Exclude=` changes, or
    /// an app comes or goes; the exporters already served move to the new one.
    private func reopenJournalIfAppsChanged(_ configurations: [AppConfiguration]) async {
        let wanted = configurations.map {
            JournalApp(id: $0.name.rawValue, unit: $0.unit, minPriority: $0.minPriority, selection: $0.selection, start: .now)
        }.sorted { $0.id < $1.id }
        guard wanted != journal?.apps || (journal == nil && !wanted.isEmpty) else { return }
        let old = journal
        journal = nil
        if !wanted.isEmpty {
            let source: JournalSource = options.journalDirectory.map { .directory($0) } ?? .system
            do {
                // This reader, the daemon's one for every app, says which journal files cannot be read.
                let hub = try JournalHub(
                    source: source, apps: wanted, log: log.logger(.journal),
                    unreadableFile: { [log, unreadableJournalFiles] file in
                        if unreadableJournalFiles.first(file.path) { log.log(.warning, .journal, file.description) }
                    },
                    live: { [weak self] byApp in await self?.liveRecords(byApp) })
                journal = (hub, wanted)
                for served in apps.values { await served.exporter.attach(hub) }
            } catch {
                log.log(.err, .journal, "the journal cannot be read: \(error)")
            }
        }
        await old?.hub.stop()
    }

    private func liveRecords(_ byApp: [String: [LogRecord]]) async {
        for (app, records) in byApp {
            guard let name = try? AppName(app), let served = apps[name] else { continue }
            await served.liveRecords(records)
        }
    }

    // MARK: - The indicator

    private func liveEvent(_ event: AppLiveEvent) async {
        let name = event.app
        guard let served = apps[name] else { return }
        switch event.event {
        case .logLevel(let until):
            await served.exporter.releaseDebug(untilUnixMs: until)
            apps[name]?.logLevelRaisedUntilUnixMs = until
            publishStatus(of: name)
        case .viewers(let count):
            let before = served.viewers
            apps[name]?.viewers = count
            if count == 0 {
                apps[name]?.viewingSinceUnixMs = nil
            } else if before == 0 {
                apps[name]?.viewingSinceUnixMs = edges.clock.now().wallUnixMs
            }
            if count != before { publishStatus(of: name) }
        case .sessionEnded(let end):
            apps[name]?.viewers = 0
            apps[name]?.viewingSinceUnixMs = nil
            broadcast(.ended(app: name.rawValue, end), app: name.rawValue)
            if served.viewers != 0 { publishStatus(of: name) }
        case .notice(let command):
            let now = edges.clock.now().wallUnixMs
            let until = command == .raiseLogLevel ? apps[name]?.logLevelRaisedUntilUnixMs : nil
            broadcast(.notice(app: name.rawValue, command: command, atUnixMs: now, untilUnixMs: until), app: name.rawValue)
        case .held(let until):
            apps[name]?.liveHeldUntilUnixMs = until
            if let until {
                let seconds = max(0, until - edges.clock.now().wallUnixMs + 999) / 1000
                log.log(.info, .live, "the live backend asked for nothing for \(seconds) s", app: name.rawValue)
            }
            publishStatus(of: name)
        case .sessionStarted:
            break
        }
        await indicator.apply(event)
    }
}
