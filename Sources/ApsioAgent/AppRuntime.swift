public import ApsioPOSIX
public import ApsioCore
import ApsioPlatform

/// One configured app, served: it turns what the device layer reports (unit state, saving modes,
/// journal records, /proc and /sys readings) into the live channel's events, and the channel's
/// notices into indicator events.
public actor AppRuntime {
    public let app: AppDescription
    public let live: LiveRuntime
    private let host: AppLiveHost
    private let clock: any AgentClock
    private let indicator: @Sendable (AppLiveEvent) -> Void
    /// Hands the `apsio.diagnostics` record to ingest and returns the queue's records and bytes.
    private let submitDiagnostics: @Sendable (LogRecord) async -> (records: Int, bytes: Int)
    /// Keeps the day's live bytes where the next start finds them (16.3: across launches).
    private let saveDayBytes: @Sendable (DayBytes) -> Void
    private var unsavedDayBytes: DayBytes?
    private var lastDayBytesSave: MonotonicInstant?

    private var unitState: UnitState?
    private var lowPower = false
    /// The families the app file leaves on, less those the policy turns off (15.3).
    private var families: Set<LogFamily>
    private var frames: ProcessFrameReader
    private let footprint: MemoryFootprintReader
    private let thermal: ThermalReader
    private let battery: PowerSupplyReader
    private let network: NetworkTypeReader
    private var sampler: Task<Void, Never>?
    private var hostEvents: Task<Void, Never>?
    /// Until when `raise_log_level` releases records from DEBUG up through ingest (16.6); memory only.
    public private(set) var logLevelRaisedUntilUnixMs: Int64?

    public init(
        app: AppDescription, dayBytes: DayBytes, clock: any AgentClock, hashing: any SHA256Hashing,
        makeTransport: @escaping @Sendable (LiveOrigin) -> any LiveTransport,
        indicator: @escaping @Sendable (AppLiveEvent) -> Void,
        submitDiagnostics: @escaping @Sendable (LogRecord) async -> (records: Int, bytes: Int),
        saveDayBytes: @escaping @Sendable (DayBytes) -> Void = { _ in }
    ) {
        self.saveDayBytes = saveDayBytes
        self.app = app
        families = app.families
        self.clock = clock
        self.indicator = indicator
        self.submitDiagnostics = submitDiagnostics
        let host = AppLiveHost()
        self.host = host
        live = LiveRuntime(
            installationID: app.installationID, dayBytes: dayBytes, clock: clock, host: host, hashing: hashing,
            makeTransport: makeTransport)
        frames = ProcessFrameReader(roots: app.roots)
        footprint = MemoryFootprintReader(roots: app.roots)
        thermal = ThermalReader(roots: app.roots)
        battery = PowerSupplyReader(roots: app.roots)
        network = NetworkTypeReader(roots: app.roots)
    }

    /// Starts following the channel's notices; the identity goes out with no session until the
    /// unit's state is known.
    public func start() async {
        host.runtime = self
        hostEvents = Task { [weak self, host] in
            for await event in host.events { await self?.hostEvent(event) }
        }
        await live.send(.identity(identity()))
    }

    public func stop() async {
        sampler?.cancel()
        sampler = nil
        await live.stop()
        // The channel's own count is the latest: notices still on their way may be behind it.
        let spent = await live.dayBytes
        if unsavedDayBytes != nil || spent.bytes > 0 {
            saveDayBytes(spent)
            unsavedDayBytes = nil
        }
        host.finish()
        hostEvents?.cancel()
    }

    // MARK: - The device layer's reports

    /// The unit's state changed (nil: unknown, which the channel treats as the background).
    public func unitChanged(_ state: UnitState?) async {
        let sessionChanged = state?.sessionID != unitState?.sessionID
        unitState = state
        if sessionChanged { await live.send(.identity(identity())) }
        await live.send(.foreground(Foreground(unitState: state)))
    }

    public func modesChanged(lowPower: Bool, lowData: Bool, dataSaver: Bool) async {
        self.lowPower = lowPower
        await live.send(.modes(lowPower: lowPower, lowData: lowData, dataSaver: dataSaver))
    }

    /// Records of this app, after redaction; the live channel gets those of families that are on.
    public func records(_ records: [LogRecord]) async {
        for record in records where families.contains(record.family) {
            await live.send(.record(record))
        }
    }

    /// The policy turned families on or off; those the app file leaves off stay off.
    public func policyFamilies(_ onByPolicy: Set<LogFamily>) {
        families = app.families.intersection(onByPolicy)
    }

    // MARK: - Commands

    func screenshot() -> JSONValue? {
        guard let frame = currentFrame() else { return nil }
        return Self.json(frame)
    }

    func diagnostics(commandID: String) async -> JSONValue? {
        let now = clock.now()
        var attributes: [Attribute] = [.string("apsio.live.command.id", commandID)]
        for (key, value) in metrics(at: now).attributes.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): attributes.append(.string(key, text))
            case .bool(let flag): attributes.append(.bool(key, flag))
            case .number(let number): attributes.append(.int(key, Int64(number)))
            default: break
            }
        }
        let record = LogRecord(
            timeUnixNano: UInt64(max(now.wallUnixMs, 0)) * 1_000_000, severityNumber: 9, severityText: "INFO",
            family: .logs, body: "apsio.diagnostics", attributes: attributes, sessionID: unitState?.sessionID)
        let queue = await submitDiagnostics(record)
        var result: [String: JSONValue] = [:]
        for attribute in record.attributes {
            switch attribute.value {
            case .string(let text): result[attribute.key] = .string(text)
            case .int(let number): result[attribute.key] = .number(Double(number))
            case .double(let number): result[attribute.key] = .number(number)
            case .bool(let flag): result[attribute.key] = .bool(flag)
            }
        }
        result["apsio.queue.records"] = .number(Double(queue.records))
        result["apsio.queue.bytes"] = .number(Double(queue.bytes))
        return .object(result)
    }

    // MARK: - Readings while watched

    private func hostEvent(_ event: LiveHostEvent) {
        switch event {
        case .sessionStarted:
            startSampling()
        case .sessionEnded:
            sampler?.cancel()
            sampler = nil
            flushDayBytes(force: true)
        case .dayBytes(let bytes):
            unsavedDayBytes = bytes
            flushDayBytes(force: false)
        case .logLevel(let until):
            logLevelRaisedUntilUnixMs = until
        default:
            break
        }
        indicator(AppLiveEvent(app: app.name, event: event))
    }

    /// A body goes out at most once a second; the count is written at most every 5 seconds, and
    /// at once when a session ends or the daemon stops. A crash loses at most 5 seconds of count.
    private func flushDayBytes(force: Bool) {
        guard let unsaved = unsavedDayBytes else { return }
        let now = clock.now().mono
        guard force || lastDayBytesSave.map({ now - $0 >= .seconds(5) }) ?? true else { return }
        saveDayBytes(unsaved)
        unsavedDayBytes = nil
        lastDayBytesSave = now
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

    private func sample(metricsToo: Bool) async {
        if let frame = currentFrame() {
            await live.send(.wireframe(JSONWriter.encode(Self.json(frame))))
        }
        if metricsToo {
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

    private func identity() -> LiveIdentity {
        LiveIdentity(
            install: app.installationID, session: unitState?.sessionID, model: app.model, os: app.os,
            release: app.release)
    }

    /// A Codable value as a JSONValue, through the JSON it encodes to.
    static func json(_ value: some Encodable) -> JSONValue {
        JSONValueEncoding.encode(value)
    }
}
