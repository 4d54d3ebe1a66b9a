import ApsioCore
import ApsioControl
import ApsioPlatform
import ApsioLive

/// The machine showing that it is watched (16.2, LINUX-PROFILE §16): the live runtimes' events go
/// through one `IndicatorBoard`, and each change reaches `STATUS=`, the motd file and the logged-in
/// terminals (`apsioctl status`/`watch` read the daemon's own record of each app). None of it ever
/// enters a record.
actor DaemonIndicator {
    private var board = IndicatorBoard()
    private var motd: MotdFile?
    private var terminals: TerminalAnnouncer?
    private let notifier: SystemdNotifier
    private let log: DaemonLog
    private let wallUnixMs: @Sendable () -> Int64
    /// What `STATUS=` says while nobody watches: the daemon's ordinary state.
    private var idleStatus = "Starting"
    private var lastMotdFailure: String?

    init(
        motdFile: String?, announceTerminals: Bool, utmpPath: String, notifier: SystemdNotifier, log: DaemonLog,
        wallUnixMs: @escaping @Sendable () -> Int64
    ) {
        motd = motdFile.map(MotdFile.init(path:))
        terminals = announceTerminals ? TerminalAnnouncer(utmpPath: utmpPath) : nil
        self.notifier = notifier
        self.log = log
        self.wallUnixMs = wallUnixMs
    }

    /// `apsiod.conf` changed on reload: the old motd file goes before the new one is used.
    func reconfigure(motdFile: String?, announceTerminals: Bool, utmpPath: String) {
        if motd?.path != motdFile {
            try? motd?.show([])
            motd = motdFile.map(MotdFile.init(path:))
            lastMotdFailure = nil
            writeMotd()
        }
        terminals = announceTerminals ? TerminalAnnouncer(utmpPath: utmpPath) : nil
    }

    func setIdleStatus(_ text: String) {
        idleStatus = text
        publishStatus()
    }

    func apply(_ event: AppLiveEvent) {
        let changes = board.apply(event, nowUnixMs: wallUnixMs())
        carryOut(changes)
    }

    func forget(_ app: AppName) {
        carryOut(board.forget(app))
    }

    /// At stop: nobody can watch a daemon that is not running, so the motd file goes.
    func clear() {
        try? motd?.show([])
    }

    private func carryOut(_ changes: [IndicatorBoard.Change]) {
        guard !changes.isEmpty else { return }
        var boardChanged = false
        for change in changes {
            switch change {
            case .viewingStarted(let app, let viewers):
                boardChanged = true
                let text = IndicatorText.viewing(app: app.rawValue, viewers: viewers, since: nil)
                log.log(.notice, .indicator, text, app: app.rawValue)
                announce(text)
            case .viewersChanged:
                boardChanged = true
            case .viewingEnded(let app):
                boardChanged = true
                log.log(.notice, .indicator, IndicatorText.viewingEnded(app: app.rawValue), app: app.rawValue)
            case .command(let app, let command):
                let text = IndicatorText.notice(command, app: app.rawValue)
                log.log(.notice, .indicator, text, app: app.rawValue)
                announce(text)
                notifier.status(text)
            }
        }
        if boardChanged {
            writeMotd()
            publishStatus()
        }
    }

    private var viewings: [IndicatorViewing] {
        board.watched.map { app, watch in
            IndicatorViewing(app: app.rawValue, viewers: watch.viewers, since: ClockTime.local(unixMs: watch.sinceUnixMs))
        }
    }

    private func publishStatus() {
        notifier.status(IndicatorText.summary(viewings).map { $0.split(separator: "\n").joined(separator: "; ") } ?? idleStatus)
    }

    private func writeMotd() {
        guard let motd else { return }
        let lines = IndicatorText.summary(viewings).map { $0.split(separator: "\n").map(String.init) } ?? []
        do {
            try motd.show(lines)
            lastMotdFailure = nil
        } catch {
            // Said once per failure, not on every change: a missing /run/motd.d stays missing.
            let message = "the motd file \(motd.path) cannot be written: \(error)"
            if lastMotdFailure != message {
                lastMotdFailure = message
                log.log(.warning, .indicator, message)
            }
        }
    }

    private func announce(_ text: String) {
        guard let terminals else { return }
        terminals.announce("apsiod: " + text)
    }
}
