/// Why gzip data could not be made or read.
public enum GzipError: Error, Equatable, CustomStringConvertible {
    /// The stream is not gzip, or its data or checksum is damaged.
    case corrupt(String)
    /// The stream ends before its trailer: cut short in transit.
    case truncated
    /// Decompressed, it would be larger than the caller allows (a gzip bomb, or an honest body too big).
    case tooLarge(limit: Int)
    /// Bytes follow the gzip member; nothing the project sends does that.
    case trailingData
    /// zlib itself failed while decompressing (out of memory, a version mismatch).
    case zlib(code: Int32)
    /// A compression level outside `Gzip.levels`: a configuration mistake, refused rather than guessed.
    case invalidLevel(Int32)
    /// libdeflate could not allocate a compressor's tables.
    case outOfMemory

    public var description: String {
        switch self {
        case .corrupt(let why): "gzip data is corrupt: \(why)"
        case .truncated: "gzip data ends before its trailer (truncated)"
        case .tooLarge(let limit): "gzip data decompresses to more than \(limit) bytes"
        case .trailingData: "gzip data has bytes after its end"
        case .zlib(let code): "zlib failed with code \(code)"
        case .invalidLevel(let level):
            "gzip level \(level) is outside \(Gzip.levels.lowerBound)...\(Gzip.levels.upperBound) "
                + "(1 is fastest, 6 the default, 12 the smallest output)"
        case .outOfMemory: "no memory for a gzip compressor"
        }
    }
}
