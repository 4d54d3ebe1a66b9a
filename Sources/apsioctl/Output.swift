#if canImport(Glibc)
import Glibc
#endif
import ApsioCore

/// apsioctl's two streams, written with write(2) so each line leaves at once (a `watch` piped
/// into another program must not sit in a buffer) and no C global is shared.
enum Output {
    static func line(_ text: String) {
        write(1, Array((text + "\n").utf8))
    }

    /// A JSON line as the daemon sent it, or as apsioctl made it.
    static func json(_ bytes: [UInt8]) {
        write(1, bytes.last == 0x0A ? bytes : bytes + [0x0A])
    }

    static func json(_ value: JSONValue) {
        json(JSONWriter.encode(value))
    }

    /// The one line on stderr that says what went wrong and what to do.
    static func error(_ text: String) {
        write(2, Array(("apsioctl: " + text + "\n").utf8))
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, $0.count - sent) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            sent += count
        }
    }
}
