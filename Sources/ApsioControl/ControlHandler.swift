package import ApsioCore

/// What the control server asks of the daemon, one call per request (docs/control.md). The server
/// has already parsed the request, checked that app names are names, and checked the peer's right
/// to change settings; the handler checks that each named app is configured (`unknown_app`) and
/// carries the request out. An empty `apps` means every configured app.
///
/// Errors are `ControlError`s: their code and message go to the client as they are.
package protocol ControlHandler: Sendable {
    /// The status of the named apps, in the order named (all configured apps, by name, when none).
    func status(apps: [AppName]) async throws(ControlError) -> ControlStatus
    func apps() async throws(ControlError) -> [ControlAppInfo]
    /// Stores the choice (`SettingsStore`) and applies it at once; returns the apps it now holds for.
    func setAllowLive(_ allowed: Bool, apps: [AppName]) async throws(ControlError) -> [AppName]
    func setConsent(_ consent: ConsentOverride, apps: [AppName]) async throws(ControlError) -> [AppName]
    func setDataSaver(_ on: Bool) async throws(ControlError)
    /// Reads the configuration again and fetches every policy; returns the configuration's problems.
    func reload() async throws(ControlError) -> [String]
    /// The events of the named apps: first a `.status` for each, then every change and notice.
    ///
    /// The handler must never wait on a watcher: yield into the stream and go on (its buffer may be
    /// unbounded; the server takes events off it at once and drops a watcher that falls behind).
    /// The stream's `onTermination` is where the handler forgets the watcher.
    func watch(apps: [AppName]) async throws(ControlError) -> AsyncStream<ControlEvent>
}
