import ApsioCore
import ApsioNet
import ApsioPlatform
import ApsioConfiguration
import ApsioIngest
import ApsioLive
import ApsioPolicy
import ApsioState

/// One configured app as the daemon serves it: its live runtime, its exporter and its policy
/// fetcher, and what the indicator and `apsioctl status` read of it.
struct ServedApp: Sendable {
    let configuration: AppConfiguration
    let installationID: String?
    var resource: OTLPResource
    /// The Resource is as good as it will soon get: ingest sends and the hello goes with it (until
    /// then both wait, so neither carries a stand-in the unit's main executable would correct).
    var resourceSettled = false
    /// Settles the Resource when the wait for the executable has lasted long enough; cancelled
    /// once it is settled otherwise, so no sleeper outlives its purpose.
    var resourceWait: Task<Void, Never>?
    let runtime: AppRuntime
    let exporter: AppExporter
    let fetcher: PolicyFetcher
    /// The fetches' events as logged, and the problem in force for `apsioctl status`.
    let policyEvents: PolicyEventLog
    var tasks: [Task<Void, Never>] = []
    var unitState: UnitState?
    var viewers = 0
    var viewingSinceUnixMs: Int64?
    var logLevelRaisedUntilUnixMs: Int64?
    /// The moment the live backend named (`LiveAction.held`), Unix ms; status shows it until it passes.
    var liveHeldUntilUnixMs: Int64?
    /// The redaction of the lines the live channel streams, in journal order (a private key split
    /// over entries is caught); ingest keeps its own, as it reads on its own.
    let liveRedaction: LiveRedaction

    static func start(
        _ app: AppConfiguration, options: DaemonOptions, edges: DaemonEdges, appState: AppStateStore,
        layout: StateLayout, stateLock: StateDirectoryLock, client: HTTPClient, facts: ResourceFacts, journal: JournalHub?,
        liveEvents: AsyncStream<AppLiveEvent>.Continuation, queueBounds: QueueBounds,
        liveMemory: LiveChannelMemory? = nil
    ) async throws -> ServedApp {
        let name = app.name
        try layout.makeAppDirectory(name)
        let installationID = app.installationID ? try appState.installationID(for: name) : nil
        let version = app.version ?? "unknown"
        let resource = OTLPResource(
            serviceName: app.serviceName, serviceVersion: version, appBuildID: "\(app.serviceName)@\(version)",
            facts: facts, installationID: installationID)
        guard let journal else { throw AppExporterError.noJournal }
        // An app with TLS of its own (a private CA, a client certificate) has its own client for
        // every request to its backend; the others share the daemon's.
        let client = try app.tls.map { tls in
            try HTTPClient(options: HTTPClient.Options(
                caFile: tls.caFile,
                clientIdentity: tls.clientCertificate.flatMap { certificate in
                    tls.clientKey.map { HTTPClient.ClientIdentity(certificateFile: certificate, keyFile: $0) }
                },
                proxy: client.options.proxy))
        } ?? client
        let roots = SysfsRoots(sysfs: options.sysfs, procfs: options.procfs)
        let exporter = try AppExporter(
            configuration: AppExporterConfiguration(
                app: name, unit: app.unit, minPriority: app.minPriority, selection: app.selection, families: app.families,
                firstStart: firstStart(app.startAt, roots: roots, log: edges.log.logger(.journal, app: name.rawValue)),
                resource: resource, waitsForResource: true,
                redactor: app.redaction.redactor, encoding: app.encoding, compression: app.compression,
                rateLimit: app.rateLimit),
            journal: journal, state: layout, clock: edges.clock,
            transport: HTTPIngestTransport(
                client: client, backend: app.backend, appKey: app.appKey, extraHeaders: app.headers.map { ($0.name, $0.value) }),
            hashing: edges.hashing,
            log: edges.log.logger(.ingest, app: name.rawValue),
            stateLock: stateLock)

        // The hello's `os` is `os.name`, a space, `os.version` (16.4); the reader always sets both,
        // and facts made some other way fall back as os-release(5) would.
        let os = "\(facts.osName ?? OSRelease.defaultName) \(facts.osVersion ?? OSRelease.unknownVersion)"
        let description = AppDescription(
            name: name, unit: app.unit, installationID: installationID ?? "", serviceName: app.serviceName,
            model: facts.deviceModelIdentifier ?? "unknown", os: os, release: nil,
            families: app.families, roots: roots)
        let dayCount = DayCountKeeper(store: appState, app: name, log: edges.log.logger(.state, app: name.rawValue))
        let (dayBytes, dayCountKept) = dayCount.load(today: edges.clock.now().utcDay, limits: .spec)
        let liveFailures = LogOnChange(edges.log.logger(.live, app: name.rawValue), level: .warning)
        let appKey = app.appKey
        let runtime = AppRuntime(
            app: description, dayBytes: dayBytes, clock: edges.clock, hashing: edges.hashing,
            makeTransport: { origin in
                HTTPLiveTransport(client: client, origin: origin, appKey: appKey, report: liveFailures.note)
            },
            indicator: { liveEvents.yield($0) },
            submitDiagnostics: { record in await exporter.submit(record, addingQueueLevel: true) },
            saveDayBytes: { bytes, durable in dayCount.keep(bytes, durable: durable) },
            liveMemory: liveMemory)
        // Before the first hello, so that it already says `capped`.
        if !dayCountKept { await runtime.live.send(.dayCountKept(false)) }
        await runtime.start()

        let policyEvents = PolicyEventLog(edges.log.logger(.policy, app: name.rawValue))
        let fetcher = PolicyFetcher(
            app: name, backend: app.backend, appKey: appKey, client: client, store: appState, clock: edges.clock,
            hashing: edges.hashing, events: { event in policyEvents.note(event) })
        return ServedApp(
            configuration: app, installationID: installationID, resource: resource, runtime: runtime,
            exporter: exporter, fetcher: fetcher, policyEvents: policyEvents, liveRedaction: LiveRedaction(redactor: app.redaction.redactor))
    }

    /// The Resource with what the unit's main executable says (LINUX-PROFILE §2): `Version=` wins,
    /// else the owning Debian package's version, else `unknown`; the GNU build-id, else NAME@VERSION.
    static func resource(_ base: OTLPResource, configured version: String?, executable: ExecutableFacts) -> OTLPResource {
        var resource = base
        let version = version ?? executable.package?.version ?? "unknown"
        resource.serviceVersion = version
        resource.appBuildID = executable.gnuBuildID ?? "\(base.serviceName)@\(version)"
        return resource
    }

    /// Returns what its live channel remembers (`LiveChannelMemory`).
    @discardableResult
    func stop() async -> LiveChannelMemory? {
        for task in tasks { task.cancel() }
        resourceWait?.cancel()
        await fetcher.stop()
        let memory = await runtime.stop()
        await exporter.stop()
        return memory
    }

    /// Where ingest starts for an app with no saved position (`StartAt=`).
    static func firstStart(_ startAt: StartAt, roots: SysfsRoots, log: Logger) -> JournalStart {
        switch startAt {
        case .now: return .now
        case .head: return .oldest
        case .boot:
            if let boot = BootID.current(roots: roots) { return .boot(bootID: boot) }
            // Reading from the oldest entry sends more than asked, never less.
            log.warning("StartAt=boot: the current boot's id cannot be read from \(roots.procfs); starting from the oldest entry instead")
            return .oldest
        }
    }

    func apply(_ policy: Policy) async {
        await runtime.policyChanged(policy.capture)
        await exporter.policyChanged(policy)
        await runtime.live.send(.killSwitch(policy.killSwitch))
        // Without an installation id the app takes no part in live inspection (LINUX-PROFILE §2).
        let live = installationID == nil ? nil : policy.live
        await runtime.live.configure(origin: live?.origin, testers: live?.testers ?? [], interval: live?.interval)
    }

    /// What holds the channel back goes first, what lets it open last: an app restarted by a
    /// reload already knows its unit is active, and told `allowed` before Data Saver it would say
    /// hello in between, when it must send nothing (16.3).
    func applySettings(allowLive: Bool, consentGranted: Bool, lowPower: Bool, lowData: Bool, dataSaver: Bool) async {
        await runtime.modesChanged(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver)
        await runtime.live.send(.consent(consentGranted))
        await runtime.live.send(.allowed(allowLive && installationID != nil))
        await exporter.consent(granted: consentGranted)
        await exporter.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver)
    }

    /// Journal lines for the live channel, read past the app file's `MinPriority=` (which holds
    /// under a raised level too: the log bridges keep their own floors, 16.6); the channel streams
    /// those the capture scope writes.
    func liveRecords(_ records: [LogRecord]) async {
        await runtime.records(liveRedaction.redact(records))
    }
}
