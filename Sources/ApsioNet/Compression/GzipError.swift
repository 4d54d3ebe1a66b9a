/// Why gzip data could not be made or read.
package enum GzipError: Error, Equatable, CustomStringConvertible {
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
    /// A body over what one gzip member is made of here (ISA-L counts in 32 bits).
    case tooLargeToCompress(limit: Int)
    /// ISA-L refused to compress (its error code): a defect here, never the data's fault.
    case compressor(code: Int32)

    package var description: String {
        switch self {
        case .corrupt(let why): "gzip data is corrupt: \(why)"
        case .truncated: "gzip data ends before its trailer (truncated)"
        case .tooLarge(let limit): "gzip data decompresses to more than \(limit) bytes"
        case .trailingData: "gzip data has bytes after its end"
        case .zlib(let code): "zlib failed with code \(code)"
        case .invalidLevel(let level):
            "gzip level \(level) is outside \(Gzip.levels.lowerBound)...\(Gzip.levels.upperBound) "
                + "(0 is fastest, 1 the default, 3 the smallest output)"
        case .tooLargeToCompress(let limit): "a body over \(limit) bytes is too large to gzip in one piece"
        case .compressor(let code): "ISA-L failed to gzip a body with code \(code)"
        }
    }
}
