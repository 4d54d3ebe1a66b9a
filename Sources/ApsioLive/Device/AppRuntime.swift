package import ApsioPOSIX
package import ApsioCore
import ApsioJSON
import ApsioPlatform
import ApsioWire

/// One configured app, served: it turns what the device layer reports (unit state, saving modes,
/// journal records, /proc and /sys readings) into the live channel's events, and the channel's
/// notices into indicator events.
package actor AppRuntime {
    package let app: AppDescription
    package let live: LiveRuntime
    private let host: AppLiveHost
    private let clock: any AgentClock
    private let indicator: @Sendable (AppLiveEvent) -> Void
    /// Hands the `apsio.diagnostics` record to ingest, which adds the queue's level to it, and
    /// returns it as queued.
    private let submitDiagnostics: @Sendable (LogRecord) async -> LogRecord
    /// Keeps the day's live bytes where the next start finds them (16.3: across launches); with
    /// `durable`, synced to disk. False when they could not be written.
    private let saveDayBytes: @Sendable (DayBytes, _ durable: Bool) -> Bool

    private var unitState: UnitState?
    /// The hello's `release`: the records' `service.version`. nil until known, and the identity
    /// (without which no hello goes) waits for it.
    private var release: String?
    private var lowPower = false
    /// The families the app file leaves on, less those the policy turns off (15.3).
    private var scope: CaptureScope
    private var frames: ProcessFrameReader
    private let footprint: MemoryFootprintReader
    private let storage: StorageReader
    /// The unit's main executable, once the daemon has read it: `apsio.storage.app`.
    private var executable: ExecutableFacts?
    private let thermal: ThermalReader
    private let battery: PowerSupplyReader
    private let network: NetworkTypeReader
    private var sampler: Task<Void, Never>?
    private var hostEvents: Task<Void, Never>?
    /// Until when `raise_log_level` releases records from DEBUG up through ingest (16.6); memory only.
    package private(set) var logLevelRaisedUntilUnixMs: Int64?

    package init(
        app: AppDescription, dayBytes: DayBytes, clock: any AgentClock, hashing: any SHA256Hashing,
        makeTransport: @escaping @Sendable (LiveOrigin) -> any LiveTransport,
        indicator: @escaping @Sendable (AppLiveEvent) -> Void,
        submitDiagnostics: @escaping @Sendable (LogRecord) async -> LogRecord,
        saveDayBytes: @escaping @Sendable (DayBytes, _ durable: Bool) -> Bool = { _, _ in true },
        liveMemory: LiveChannelMemory? = nil
    ) {
        self.saveDayBytes = saveDayBytes
        self.app = app
        release = app.release
        scope = CaptureScope(appFamilies: app.families, policy: nil)
        self.clock = clock
        self.indicator = indicator
        self.submitDiagnostics = submitDiagnostics
        let host = AppLiveHost(clock: clock, saveDayBytes: saveDayBytes)
        self.host = host
        live = LiveRuntime(
            installationID: app.installationID, dayBytes: dayBytes, clock: clock, host: host, hashing: hashing,
            recalled: liveMemory, makeTransport: makeTransport)
        frames = ProcessFrameReader(roots: app.roots)
        footprint = MemoryFootprintReader(roots: app.roots)
        storage = app.storage
        thermal = ThermalReader(roots: app.roots)
        battery = PowerSupplyReader(roots: app.roots)
        network = NetworkTypeReader(roots: app.roots)
    }

    /// Starts following the channel's notices; the identity goes out (with no session until the
    /// unit's state is known) once the release is known.
    package func start() async {
        host.attach(self)
        hostEvents = Task { [weak self, host] in
            for await event in host.events { await self?.hostEvent(event) }
        }
        await live.send(.capture(scope))
        await sendIdentity()
    }

    /// Returns what its live channel remembers, for the runtime a reload starts in its place.
    @discardableResult
    package func stop() async -> LiveChannelMemory? {
        sampler?.cancel()
        sampler = nil
        let memory = await live.stop()
        // The channel's own count is the latest: notices still on their way may be behind it.
        let spent = await live.dayBytes
        // Nothing more goes out after this: a failed write has nothing left to hold back.
        if spent.bytes > 0 { _ = saveDayBytes(spent, true) }
        host.finish()
        hostEvents?.cancel()
        return memory
    }

    // MARK: - The device layer's reports

    /// The unit's state changed (nil: unknown, which the channel treats as the background).
    package func unitChanged(_ state: UnitState?) async {
        let sessionChanged = state?.sessionID != unitState?.sessionID
        unitState = state
        if sessionChanged { await sendIdentity() }
        await live.send(.foreground(Foreground(unitState: state)))
    }

    package func modesChanged(lowPower: Bool, lowData: Bool, dataSaver: Bool) async {
        self.lowPower = lowPower
        await live.send(.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver))
    }

    /// Records of this app, after redaction and the app file's `MinPriority=`; the live channel
    /// streams those the capture scope writes.
    package func records(_ records: [LogRecord]) async {
        for record in records { await live.send(.record(record)) }
    }

    /// The policy changed what is captured: the families it leaves on (those the app file leaves
    /// off stay off) and the `logs` floor.
    package func policyChanged(_ capture: CapturePolicy) async {
        let changed = CaptureScope(appFamilies: app.families, policy: capture)
        guard changed != scope else { return }
        scope = changed
        await live.send(.capture(changed))
    }

    /// The unit's main executable was read (its package, for `apsio.storage.app`).
    package func executableRead(_ facts: ExecutableFacts) {
        executable = facts
    }

    /// `service.version` as the records carry it from now on: the next hello's `release` (16.4).
    /// The first call lets the hellos go.
    package func releaseKnown(_ release: String) async {
        guard release != self.release else { return }
        self.release = release
        await sendIdentity()
    }

    // MARK: - Commands

    func screenshot() -> JSONValue? {
        guard let frame = currentFrame() else { return nil }
        return frame.json
    }

    /// 16.6: the `apsio.diagnostics` record, through ingest whatever sampling and the severity
    /// floor say (`apsio.sampling.released=live`), with the attributes the spec lists: the
    /// command's id, the footprint, storage, thermal state, connection type and the queue (the
    /// exporter adds that, as it stands when the record joins it). The result is the record's
    /// attributes, each in its own type.
    func diagnostics(commandID: String) async -> JSONValue? {
        let now = clock.now()
        var sample = metrics(at: now)
        if let state = unitState {
            sample.set(storage: storage.usage(
                executable: executable, stateDirectories: state.stateDirectories, cacheDirectories: state.cacheDirectories))
        } else {
            sample.set(storage: StorageUsage(app: executable?.appStorageBytes))
        }
        let record = LogRecord(
            timeUnixNano: UInt64(max(now.wallUnixMs, 0)) * 1_000_000, severityNumber: 9, severityText: "INFO",
            family: .logs, body: "apsio.diagnostics",
            attributes: [.string("apsio.live.command.id", commandID)] + sample.recordAttributes,
            sessionID: unitState?.sessionID, releasedByCommand: true)
        let queued = await submitDiagnostics(record)
        return .object(Dictionary(queued.attributes.map { ($0.key, $0.value.json) }, uniquingKeysWith: { first, _ in first }))
    }

    // MARK: - Readings while watched

    private func hostEvent(_ event: LiveHostEvent) {
        switch event {
        case .sessionStarted:
            startSampling()
        case .sessionEnded:
            sampler?.cancel()
            sampler = nil
        case .logLevel(let until):
            logLevelRaisedUntilUnixMs = until
        default:
            break
        }
        indicator(AppLiveEvent(app: app.name, event: event))
    }

    /// Frames at most twice a second and metrics at most once (16.5, LINUX-PROFILE §7), only while
    /// a session runs: nothing is read for the channel when nobody watches.
    private func startSampling() {
        sampler?.cancel()
        let clock = self.clock
        sampler = Task { [weak self] in
            var tick = 0
            while !Task.isCancelled {
                guard let self else { return }
                await self.sample(metricsToo: tick % 2 == 0)
                tick += 1
                do {
                    try await clock.sleep(until: clock.now().mono + .milliseconds(500))
                } catch {
                    return
                }
            }
        }
    }

    /// Nothing is read for a family that is off.
    private func sample(metricsToo: Bool) async {
        if scope.isOn(.replay), let frame = currentFrame() {
            await live.send(.wireframe(JSONWriter.encode(frame.json)))
        }
        if metricsToo, scope.isOn(.metrics) {
            let now = clock.now()
            var object = metrics(at: now).attributes
            object["t"] = .number(Double(now.wallUnixMs))
            await live.send(.metrics(JSONWriter.encode(.object(object))))
        }
    }

    private func currentFrame() -> ProcessFrame? {
        guard let state = unitState, let cgroup = state.controlGroup else { return nil }
        let now = clock.now()
        return frames.frame(
            cgroup: cgroup, activeState: state.activeState, subState: state.subState ?? "",
            extraPIDs: state.mainPID.map { [$0] } ?? [], monotonic: now.mono.sinceOrigin)
    }

    private func metrics(at now: LiveNow) -> DeviceMetrics {
        var sample = DeviceMetrics(t: now.wallUnixMs)
        if let cgroup = unitState?.controlGroup {
            sample.memoryFootprint = footprint.read(cgroup: cgroup, extraPIDs: unitState?.mainPID.map { [$0] } ?? [])?.bytes
        }
        sample.thermalState = thermal.state()
        sample.lowPower = lowPower
        sample.set(battery: battery.battery())
        sample.set(network: network.read())
        return sample
    }

    private func sendIdentity() async {
        guard let release else { return }
        await live.send(.identity(LiveIdentity(
            install: app.installationID, session: unitState?.sessionID, model: app.model, os: app.os, release: release)))
    }

}
