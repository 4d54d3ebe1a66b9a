#if canImport(Glibc)
internal import Glibc
#endif

/// Standard input, output and error, which the process inherits and never closes. A line for the
/// operator is written whole, and dropped when the stream is gone (nobody is there to tell); the
/// C library's `stdout` and `stderr` are not used, being shared mutable state to Swift 6.
package enum StandardStream: Sendable {
    case output, error

    package func write(_ text: String) {
        let fd: Int32 = self == .output ? 1 : 2
        try? FileSystem.writeAll(descriptor: fd, path: self == .output ? "stdout" : "stderr", Array(text.utf8))
    }

    /// Whether standard input is a terminal (someone may be asked to type).
    package static var inputIsTerminal: Bool { isatty(0) == 1 }

    /// One line of standard input without its newline, read a byte at a time so that nothing after
    /// it is taken from whoever reads next; nil when it is longer than `maxBytes`.
    package static func readInputLine(maxBytes: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while (try? retryingInterrupts("read(stdin)", { Glibc.read(0, &byte, 1) })) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
            if bytes.count > maxBytes { return nil }
        }
        return bytes
    }
}
