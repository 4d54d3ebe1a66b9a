package import ApsioCore
import ApsioPlatform
internal import ApsioPOSIX
import Synchronization


/// The daemon's own log: structured journal entries when systemd started it (stderr is the
/// journal), plain lines on stderr otherwise. Callers pass only what may be seen: no app key,
/// proof or token is ever handed to it (tests read its output for them).
package final class DaemonLog: LogSink {
    package enum Destination: Sendable, Equatable {
        case journal
        case standardError
        /// Lines kept in memory, for tests.
        case memory
    }

    package let destination: Destination
    private let minimum: Mutex<LogLevel>
    private let kept = Mutex<[String]>([])
    private let journal = JournalWriter()

    package init(minimum: LogLevel = .info, destination: Destination? = nil) {
        self.minimum = Mutex(minimum)
        self.destination = destination ?? (JournalWriter.stderrIsJournal ? .journal : .standardError)
    }

    package var level: LogLevel {
        get { minimum.withLock { $0 } }
        set { minimum.withLock { $0 = newValue } }
    }

    /// The lines logged so far, when the destination is `.memory`.
    package var lines: [String] { kept.withLock { $0 } }

    /// A logger for one kind of event, with the app's name as its lines' one prefix.
    package func logger(_ kind: LogKind, app: String? = nil) -> Logger { Logger(self, kind: kind, app: app) }

    package func log(
        _ level: LogLevel, _ kind: LogKind, _ message: @autoclosure () -> String, app: String? = nil,
        fields: [(name: String, value: String)] = []
    ) {
        guard isLogged(level) else { return }
        write(level, kind, message(), app: app, fields: fields)
    }

    package func isLogged(_ level: LogLevel) -> Bool { level.isLogged(atMinimum: self.level) }

    package func write(
        _ level: LogLevel, _ kind: LogKind, _ message: String, app: String?, fields: [(name: String, value: String)]
    ) {
        let text = app.map { "\($0): \(message)" } ?? message
        switch destination {
        case .journal:
            var entry: [(name: String, value: String)] = [
                ("MESSAGE", text), ("PRIORITY", String(level.rawValue)), ("MESSAGE_ID", kind.messageID),
                ("SYSLOG_IDENTIFIER", "apsiod"),
            ]
            if let app { entry.append(("APSIO_APP", app)) }
            entry.append(contentsOf: fields)
            if !journal.send(entry) { writeStandardError(level, text) }
        case .standardError:
            writeStandardError(level, text)
        case .memory:
            let suffix = fields.map { " \($0.name)=\($0.value)" }.joined()
            kept.withLock { $0.append("\(level.name) \(kind.rawValue) \(text)\(suffix)") }
        }
    }

    private func writeStandardError(_ level: LogLevel, _ text: String) {
        StandardStream.error.write("apsiod: \(level.name): \(text)\n")
    }
}
