public import ApsioState
public import ApsioCore

/// `apsiod.conf`: how the daemon itself behaves, for every app it serves.
public struct DaemonConfiguration: Sendable, Equatable {
    /// `[Daemon] LogLevel=`; `--log-level` on the command line wins over it.
    public var logLevel: LogLevel
    /// `[Indicator] MotdFile=`: the file that names the watched apps while viewers watch (16.2);
    /// nil turns it off.
    public var motdFile: String?
    /// `[Indicator] AnnounceTerminals=`: one line to every logged-in terminal when viewing starts
    /// and for each command.
    public var announceTerminals: Bool
    /// `[Queue] MaxSize=` and `MaxAge=`: what each app's queue may hold (LINUX-PROFILE §4).
    public var queue: QueueBounds

    public static let defaultMotdFile = "/run/motd.d/50-apsio"

    public init(
        logLevel: LogLevel = .info, motdFile: String? = DaemonConfiguration.defaultMotdFile,
        announceTerminals: Bool = true, queue: QueueBounds = .standard
    ) {
        self.logLevel = logLevel
        self.motdFile = motdFile
        self.announceTerminals = announceTerminals
        self.queue = queue
    }
}
