/// Where apsioctl writes: the process's stdout and stderr in the binary, memory in tests, so that
/// a test of every command runs in its own process and reads what an operator would see.
package protocol CtlOutput: Sendable {
    /// Writes `bytes` as they are, at once: a `watch` piped into another program must not sit in
    /// a buffer.
    func write(_ bytes: [UInt8], to stream: CtlStream)
}

/// apsioctl's two streams: answers on stdout, the one line saying what went wrong on stderr.
package enum CtlStream: Sendable, Equatable {
    case standardOutput
    case standardError
}
