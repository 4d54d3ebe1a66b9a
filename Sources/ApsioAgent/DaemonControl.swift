package import ApsioCore
package import ApsioControl
import ApsioState

/// One `apsioctl watch` client: the apps it asked about (all when empty) and where its events go.
struct DaemonWatcher: Sendable {
    let apps: Set<String>
    let continuation: AsyncStream<ControlEvent>.Continuation

    func wants(_ app: String?) -> Bool {
        guard let app else { return true }
        return apps.isEmpty || apps.contains(app)
    }
}

/// The control socket's requests, carried out on the daemon's state (docs/control.md).
extension Daemon: ControlHandler {
    package func status(apps names: [AppName]) async throws(ControlError) -> ControlStatus {
        let chosen = try configured(names)
        var statuses: [ControlAppStatus] = []
        for name in chosen {
            var status = appStatus(name)
            if let exporter = apps[name]?.exporter {
                let counters = await exporter.status
                status.ingest = ControlIngestStatus(
                    queuedRecords: counters.queuedRecords, queuedBytes: counters.queuedBytes,
                    sentRecords: counters.sentRecords, droppedRecords: counters.droppedRecords, journalGaps: counters.journalGaps,
                    journaldDropNotes: counters.journaldDropNotes, journaldDroppedLines: counters.journaldDroppedLines,
                    rateLimitedRecords: counters.rateLimitedRecords, rejectedRecords: counters.rejectedRecords,
                    filteredRecords: counters.filteredRecords, lastFailure: counters.lastFailure, sentAs: counters.sentAs)
                status.policyProblem = apps[name]?.policyEvents.problem
            }
            statuses.append(status)
        }
        return ControlStatus(apps: statuses, dataSaver: settings.dataSaver)
    }

    package func apps() async throws(ControlError) -> [ControlAppInfo] {
        configuration.apps.sorted { $0.name < $1.name }.map { app in
            let served = self.apps[app.name]
            return ControlAppInfo(
                name: app.name.rawValue, unit: app.unit, serviceName: served?.resource.serviceName ?? app.serviceName,
                serviceVersion: served?.resource.serviceVersion, buildID: served?.resource.appBuildID,
                installationID: served?.installationID)
        }
    }

    package func setAllowLive(_ allowed: Bool, apps names: [AppName]) async throws(ControlError) -> [AppName] {
        try await change(names, "live inspection \(allowed ? "allowed" : "not allowed")") { settings, name in
            settings.setAllowsLive(allowed, for: name)
        }
    }

    package func setConsent(_ consent: ConsentOverride, apps names: [AppName]) async throws(ControlError) -> [AppName] {
        try await change(names, "consent \(consent.rawValue)") { settings, name in
            settings.setConsentOverride(consent, for: name)
        }
    }

    package func setDataSaver(_ on: Bool) async throws(ControlError) {
        try store { $0.dataSaver = on }
        for name in apps.keys.sorted() { await applySettings(to: name) }
        broadcast(.dataSaver(on), app: nil)
        log.log(.notice, .control, "Data Saver \(on ? "on" : "off")")
    }

    package func reload() async throws(ControlError) -> [String] {
        await reloadConfiguration().map(\.description)
    }

    package func watch(apps names: [AppName]) async throws(ControlError) -> AsyncStream<ControlEvent> {
        let chosen = try configured(names)
        let (stream, continuation) = AsyncStream.makeStream(of: ControlEvent.self)
        for name in chosen { continuation.yield(.status(appStatus(name))) }
        let id = nextWatcherID
        nextWatcherID += 1
        watchers[id] = DaemonWatcher(apps: Set(names.map(\.rawValue)), continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.forgetWatcher(id) }
        }
        return stream
    }

    // MARK: - Helpers

    private func forgetWatcher(_ id: Int) {
        watchers.removeValue(forKey: id)
    }

    /// The named apps, each configured (`unknown_app` otherwise); every configured app when none.
    private func configured(_ names: [AppName]) throws(ControlError) -> [AppName] {
        let known = Set(configuration.apps.map(\.name))
        guard !names.isEmpty else { return known.sorted() }
        for name in names where !known.contains(name) {
            throw ControlError(.unknownApp, "no app named \(name) is configured; see 'apsioctl apps'")
        }
        return names
    }

    /// One per-app setting: stored first (so it holds across a restart), then applied at once to
    /// each named app, told to watchers and logged.
    private func change(
        _ names: [AppName], _ what: String, _ set: (inout OperatorSettings, AppName) -> Void
    ) async throws(ControlError) -> [AppName] {
        let chosen = try configured(names)
        try store { settings in for name in chosen { set(&settings, name) } }
        for name in chosen {
            await applySettings(to: name)
            publishStatus(of: name)
        }
        log.log(.notice, .control, "\(what) for \(chosen.map(\.rawValue).joined(separator: ", "))")
        return chosen
    }

    private func store(_ change: (inout OperatorSettings) -> Void) throws(ControlError) {
        do {
            settings = try settingsStore.update(change)
        } catch {
            throw ControlError(.internal, "the setting cannot be stored: \(error)")
        }
    }

    func appStatus(_ name: AppName) -> ControlAppStatus {
        let served = apps[name]
        return ControlAppStatus(
            name: name.rawValue, unit: configuration.app(named: name)?.unit ?? "",
            foreground: served?.unitState.map { Foreground(unitState: $0) } ?? (served == nil ? nil : .background),
            allowLive: settings.allowsLive(name), consentGranted: consentGranted(name), viewers: served?.viewers ?? 0,
            viewingSinceUnixMs: served?.viewingSinceUnixMs, logLevelRaisedUntilUnixMs: served?.logLevelRaisedUntilUnixMs,
            liveHeldUntilUnixMs: served?.liveHeldUntilUnixMs.flatMap { $0 > edges.clock.now().wallUnixMs ? $0 : nil })
    }

    func publishStatus(of name: AppName) {
        broadcast(.status(appStatus(name)), app: name.rawValue)
    }

    func broadcast(_ event: ControlEvent, app: String?) {
        for watcher in watchers.values where watcher.wants(app) { watcher.continuation.yield(event) }
    }
}
