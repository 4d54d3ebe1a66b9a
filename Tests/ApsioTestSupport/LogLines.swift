package import ApsioCore
import Synchronization

/// Log lines a part of the daemon wrote, every level kept, for checking what they say and that none
/// holds a secret.
package final class LogLines: LogSink {
    package init() {}

    private let lines = Mutex<[(level: LogLevel, message: String)]>([])
    /// The messages, as the sink got them: without the app, which the daemon's log adds once.
    package var all: [String] { lines.withLock { $0.map(\.message) } }
    package var levels: [LogLevel] { lines.withLock { $0.map(\.level) } }
    package func logger(_ kind: LogKind = .ingest) -> Logger { Logger(self, kind: kind, app: "test-app") }

    package func isLogged(_ level: LogLevel) -> Bool { true }
    package func write(_ level: LogLevel, _ kind: LogKind, _ message: String, app: String?, fields: [(name: String, value: String)]) {
        lines.withLock { $0.append((level, message)) }
    }
}

