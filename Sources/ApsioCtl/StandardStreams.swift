internal import ApsioPOSIX

/// The process's stdout and stderr, written with write(2) so each line leaves at once and no C
/// stdio buffer is shared.
package struct StandardStreams: CtlOutput {
    package init() {}

    package func write(_ bytes: [UInt8], to stream: CtlStream) {
        let isOutput = stream == .standardOutput
        // A closed pipe or a full disk: nobody is left to tell.
        try? FileSystem.writeAll(descriptor: isOutput ? 1 : 2, path: isOutput ? "stdout" : "stderr", bytes)
    }
}
