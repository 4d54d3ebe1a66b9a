package import ApsioState
package import ApsioCore

/// `apsiod.conf`: how the daemon itself behaves, for every app it serves.
package struct DaemonConfiguration: Sendable, Equatable {
    /// `[Daemon] LogLevel=`; `--log-level` on the command line wins over it.
    package var logLevel: LogLevel
    /// `[Indicator] MotdFile=`: the file that names the watched apps while viewers watch (16.2);
    /// nil turns it off.
    package var motdFile: String?
    /// `[Indicator] AnnounceTerminals=`: one line to every logged-in terminal when viewing starts
    /// and for each command.
    package var announceTerminals: Bool
    /// `[Queue] MaxSize=` and `MaxAge=`: what each app's queue may hold (LINUX-PROFILE §4).
    package var queue: QueueBounds
    /// `[Network] Proxy=`, `NoProxy=`, `ProxyCredentialsFile=`.
    package var network: NetworkConfiguration

    package static let defaultMotdFile = "/run/motd.d/50-apsio"

    package init(
        logLevel: LogLevel = .info, motdFile: String? = DaemonConfiguration.defaultMotdFile,
        announceTerminals: Bool = true, queue: QueueBounds = .standard, network: NetworkConfiguration = NetworkConfiguration()
    ) {
        self.logLevel = logLevel
        self.motdFile = motdFile
        self.announceTerminals = announceTerminals
        self.queue = queue
        self.network = network
    }
}
