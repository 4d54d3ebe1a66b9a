internal import CIsal

/// One ISA-L igzip compressor at one level: its stream state (about 80 KiB) and the level's
/// buffer (a few hundred KiB) are allocated once and serve every body it compresses;
/// `Gzip.compressors` keeps it between bodies so that a batch does not pay for fresh pages
/// each time. Not for two threads at once: the pool lends it to one caller at a time.
final class DeflateCompressor: PooledCompressor {
    typealias Failure = GzipError
    let level: Int32
    private let stream: UnsafeMutablePointer<isal_zstream>
    private let levelBuffer: UnsafeMutablePointer<UInt8>
    private let levelBufferSize: UInt32

    init(level: Int32) throws(GzipError) {
        guard Gzip.levels.contains(level) else { throw .invalidLevel(level) }
        self.level = level
        stream = .allocate(capacity: 1)
        levelBufferSize = apsio_isal_level_buffer_size(level)
        levelBuffer = .allocate(capacity: Int(levelBufferSize))
    }

    deinit {
        stream.deallocate()
        levelBuffer.deallocate()
    }

    /// The largest body one call takes: ISA-L counts in 32 bits, and the bound below must too.
    static let maxInput = Int(UInt32.max / 2)

    /// Room enough for any input: ISA-L falls back to stored blocks when compressing would
    /// expand, which adds a 5-byte header to each block of at most 64 KiB; the header and trailer
    /// of gzip add 18. An eighth of a byte per input byte, plus a little, covers both with room.
    static func outputBound(_ count: Int) -> Int {
        count + count / 8 + 1024
    }

    /// One gzip member (RFC 1952) holding all of `input`.
    func gzip(_ input: [UInt8]) throws(GzipError) -> [UInt8] {
        guard input.count <= Self.maxInput else { throw .tooLargeToCompress(limit: Self.maxInput) }
        let bound = Self.outputBound(input.count)
        var code: Int32 = 0
        // Left uninitialised: a batch of log records compresses about fifteenfold, so most of the
        // bound is never written, and zeroing it would be one more pass over memory.
        let output = input.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: bound) { destination, count in
                var written: UInt32 = 0
                // An empty array may have no storage; ISA-L reads none of its bytes either way.
                var nothing: UInt8 = 0
                code = withUnsafeMutablePointer(to: &nothing) { placeholder in
                    apsio_isal_gzip(
                        stream, levelBuffer, levelBufferSize, level, source.baseAddress ?? UnsafePointer(placeholder),
                        UInt32(source.count), destination.baseAddress, UInt32(destination.count), &written)
                }
                count = code == COMP_OK ? Int(written) : 0
            }
        }
        guard code == COMP_OK else { throw .compressor(code: code) }
        return output
    }
}

typealias DeflateCompressorPool = CompressorPool<DeflateCompressor>
