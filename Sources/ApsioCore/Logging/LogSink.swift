/// Where the daemon's own lines go (the journal, stderr, or memory in a test). A sink says which
/// levels it keeps, so that a message for a level it drops is never made.
package protocol LogSink: Sendable {
    func isLogged(_ level: LogLevel) -> Bool
    /// One line: `app` is its one prefix, added by the sink; `fields` go to the journal as they are.
    func write(_ level: LogLevel, _ kind: LogKind, _ message: String, app: String?, fields: [(name: String, value: String)])
}
