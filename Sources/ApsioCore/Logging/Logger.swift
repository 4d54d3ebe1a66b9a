/// A part of the daemon's way to its log: the sink, the kind of event its lines are (their journal
/// `MESSAGE_ID`) and, for an app's parts, the app. The app is bound here and written once, by the
/// sink, so a line never says it twice; the message is an autoclosure, made only when its level is
/// logged.
package struct Logger: Sendable {
    private let sink: (any LogSink)?
    package let kind: LogKind
    package let app: String?

    package init(_ sink: any LogSink, kind: LogKind, app: String? = nil) {
        self.sink = sink
        self.kind = kind
        self.app = app
    }

    private init(sink: (any LogSink)?, kind: LogKind, app: String?) {
        self.sink = sink
        self.kind = kind
        self.app = app
    }

    /// Writes nothing: for parts run without a daemon (benches, tests that do not look).
    package static func discarding(_ kind: LogKind) -> Logger { Logger(sink: nil, kind: kind, app: nil) }

    /// The same sink and app, for lines of another kind.
    package func kind(_ kind: LogKind) -> Logger { Logger(sink: sink, kind: kind, app: app) }

    package func isLogged(_ level: LogLevel) -> Bool { sink?.isLogged(level) ?? false }

    package func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, fields: [(name: String, value: String)] = []
    ) {
        guard let sink, sink.isLogged(level) else { return }
        sink.write(level, kind, message(), app: app, fields: fields)
    }

    package func err(_ message: @autoclosure () -> String) { log(.err, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
