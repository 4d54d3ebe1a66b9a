/// The control protocol's framing: bytes as a socket hands them over, cut into newline-terminated
/// lines, none longer than a bound. A value of its own, apart from the socket, so that the rule a
/// local peer's bytes meet can be tested and fuzzed without one.
///
/// The caller reads at most `room` more bytes when told `needMore`, so the buffer never holds more
/// than `maxBytes` whatever the peer sends.
package struct LineFramer: Sendable {
    package enum Next: Sendable, Equatable {
        /// A line, without its newline.
        case line([UInt8])
        /// No whole line yet: append at most `room` more bytes, then ask again.
        case needMore(room: Int)
        /// No newline within `maxBytes`: a line too long to be one of ours.
        case tooLong
    }

    private var buffered: [UInt8] = []
    /// Bytes already searched for a newline, so a line arriving byte by byte is scanned once.
    private var scanned = 0

    package init() {}

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        buffered.append(contentsOf: bytes)
    }

    /// The next line, or what to do for one; `maxBytes` bounds a line, its newline included.
    ///
    /// Only the first `maxBytes` bytes are searched: a newline after them ends a line that is
    /// already too long, and must say so whether it came in the same read as the line or a later
    /// one, or how the peer's bytes were cut would decide whether a line is read.
    package mutating func next(maxBytes: Int) -> Next {
        let searched = min(buffered.count, maxBytes)
        if scanned < searched, let newline = buffered[scanned..<searched].firstIndex(of: 0x0A) {
            let line = Array(buffered[..<newline])
            buffered.removeSubrange(...newline)
            scanned = 0
            return .line(line)
        }
        scanned = searched
        if buffered.count >= maxBytes { return .tooLong }
        return .needMore(room: min(16 * 1024, maxBytes - buffered.count))
    }
}
