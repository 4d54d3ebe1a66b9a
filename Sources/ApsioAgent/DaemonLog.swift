import ApsioPlatform
import Synchronization

#if canImport(Glibc)
internal import Glibc
public import ApsioCore
#endif

/// The daemon's own log: structured journal entries when systemd started it (stderr is the
/// journal), plain lines on stderr otherwise. Callers pass only what may be seen: no app key,
/// proof or token is ever handed to it (tests read its output for them).
public final class DaemonLog: Sendable {
    public enum Destination: Sendable, Equatable {
        case journal
        case standardError
        /// Lines kept in memory, for tests.
        case memory
    }

    public let destination: Destination
    private let minimum: Mutex<DaemonLogLevel>
    private let kept = Mutex<[String]>([])
    private let journal = JournalWriter()

    public init(minimum: DaemonLogLevel = .info, destination: Destination? = nil) {
        self.minimum = Mutex(minimum)
        self.destination = destination ?? (JournalWriter.stderrIsJournal ? .journal : .standardError)
    }

    public var level: DaemonLogLevel {
        get { minimum.withLock { $0 } }
        set { minimum.withLock { $0 = newValue } }
    }

    /// The lines logged so far, when the destination is `.memory`.
    public var lines: [String] { kept.withLock { $0 } }

    public func log(
        _ level: DaemonLogLevel, _ kind: DaemonLogKind, _ message: String, app: String? = nil,
        fields: [(name: String, value: String)] = []
    ) {
        guard level.isLogged(atMinimum: self.level) else { return }
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

    private func writeStandardError(_ level: DaemonLogLevel, _ text: String) {
        let line = Array("apsiod: \(level.name): \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
