/// Why zstd data could not be made or read.
package enum ZstdError: Error, Equatable, CustomStringConvertible {
    /// The bytes are not zstd, or a frame or its checksum is damaged, or bytes follow the last frame.
    case corrupt(String)
    /// The data ends inside a frame: cut short in transit.
    case truncated
    /// Decompressed, it would be larger than the caller allows (a zip bomb, or an honest body too big).
    case tooLarge(limit: Int)
    /// A frame asks the reader for a window over `limit` bytes, more than RFC 9659 lets a
    /// `Content-Encoding: zstd` sender ask: refused before the window is allocated.
    case windowTooLarge(limit: Int)
    /// A compression level outside `Zstd.levels`: a configuration mistake, refused rather than guessed.
    case invalidLevel(Int32)
    /// A body over what one call compresses here (the same limit as gzip's).
    case tooLargeToCompress(limit: Int)
    /// libzstd refused to compress (its error's name): a defect here, never the data's fault.
    case compressor(String)
    /// libzstd could not allocate a context.
    case outOfMemory

    package var description: String {
        switch self {
        case .corrupt(let why): "zstd data is corrupt: \(why)"
        case .truncated: "zstd data ends inside a frame (truncated)"
        case .tooLarge(let limit): "zstd data decompresses to more than \(limit) bytes"
        case .windowTooLarge(let limit): "zstd data asks for a window over \(limit) bytes"
        case .invalidLevel(let level):
            "zstd level \(level) is outside \(Zstd.levels.lowerBound)...\(Zstd.levels.upperBound) "
                + "(the lowest is fastest, \(Zstd.defaultLevel) the default, the highest the smallest output)"
        case .tooLargeToCompress(let limit): "a body over \(limit) bytes is too large to compress with zstd in one piece"
        case .compressor(let why): "libzstd failed to compress a body: \(why)"
        case .outOfMemory: "libzstd could not allocate its context"
        }
    }
}
