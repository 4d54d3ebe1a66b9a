#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioPOSIX

/// Reads a segment file through a window of about a mebibyte, so a scan of thousands of small
/// entries costs a few reads rather than two system calls an entry.
struct SegmentReader {
    private let file: OwnedFileDescriptor
    let path: String
    let size: Int
    private var windowStart = 0
    private var window: [UInt8] = []
    private static let windowBytes = 1 << 20

    init(path: String) throws(SystemError) {
        file = try FileSystem.open(path, O_RDONLY | O_NOFOLLOW)
        self.path = path
        size = try FileSystem.size(of: file, path: path)
    }

    func close() { file.close() }

    /// `count` bytes at `offset`, or nil when they run past the end of the file.
    mutating func bytes(at offset: Int, count: Int) throws(SystemError) -> ArraySlice<UInt8>? {
        guard offset >= 0, count >= 0, offset + count <= size else { return nil }
        if offset < windowStart || offset + count > windowStart + window.count {
            let want = min(max(count, Self.windowBytes), size - offset)
            window = try FileSystem.read(file, path: path, at: offset, count: want)
            windowStart = offset
            // The file shrank under us; what is missing is as good as torn.
            guard window.count >= count else { return nil }
        }
        let start = offset - windowStart
        return window[start..<(start + count)]
    }

    /// The offset of the next entry magic at or after `offset`, if any.
    mutating func nextMagic(from offset: Int) throws(SystemError) -> Int? {
        let magic = QueueEntryFormat.magic
        var position = offset
        while position + QueueEntryFormat.headerSize <= size {
            guard let chunk = try bytes(at: position, count: min(Self.windowBytes, size - position)) else { return nil }
            guard let found = chunk.firstIndex(of: magic[0]) else {
                position += chunk.count
                continue
            }
            let candidate = position + (found - chunk.startIndex)
            if let head = try bytes(at: candidate, count: magic.count), head.elementsEqual(magic) { return candidate }
            position = candidate + 1
        }
        return nil
    }
}
