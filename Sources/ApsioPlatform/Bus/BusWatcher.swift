/// Something that reads state from the system bus and follows it; `SystemBusSupervisor` hands
/// each connection to every watcher in turn of its life.
package protocol BusWatcher: Sendable {
    /// Serves one connection: installs its matches, reads its state, and follows the signals until
    /// the task is cancelled, which is how the supervisor says the connection ended. It reads
    /// everything afresh each time: after a reconnection nothing from the old connection holds.
    func serve(_ bus: SystemBus) async

    /// The connection is gone, or could not be made: report whatever is now unknown.
    func connectionLost()

    /// Work that needs no bus and lasts as long as the supervisor runs (a file to follow, say).
    func followLocalSources() async
}

extension BusWatcher {
    package func followLocalSources() async {}
}
