#if canImport(Glibc)
internal import Glibc
#endif

/// The process's stdout and stderr, written with write(2) so each line leaves at once and no C
/// stdio buffer is shared.
public struct StandardStreams: CtlOutput {
    public init() {}

    public func write(_ bytes: [UInt8], to stream: CtlStream) {
        let fd: Int32 = stream == .standardOutput ? 1 : 2
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, $0.count - sent) }
            if count < 0 {
                if errno == EINTR { continue }
                // A closed pipe or a full disk: nobody is left to tell.
                return
            }
            sent += count
        }
    }
}
