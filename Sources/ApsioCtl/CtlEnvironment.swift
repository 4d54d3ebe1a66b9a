package import ApsioControl

/// What apsioctl takes from the process it runs in, passed in so that a test runs it in its own
/// process with its own streams, caller and clock.
package struct CtlEnvironment: Sendable {
    package var output: any CtlOutput
    /// Who runs the command, as the daemon would see it connect. When the daemon is not running
    /// apsioctl decides itself whether `apps` shows the installation ids kept on disk; when it
    /// runs, the daemon decides from the socket's peer credentials and this is not used.
    package var caller: ControlPeer
    package var clock: any CtlClock

    package init(output: any CtlOutput, caller: ControlPeer, clock: any CtlClock) {
        self.output = output
        self.caller = caller
        self.clock = clock
    }

    /// This process's stdout and stderr, its credentials, the machine's clock and zone.
    package static func thisProcess() -> CtlEnvironment {
        CtlEnvironment(output: StandardStreams(), caller: .thisProcess(), clock: SystemCtlClock())
    }
}
