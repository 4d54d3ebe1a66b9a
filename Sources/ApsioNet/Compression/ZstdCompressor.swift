internal import CZstd

/// One Zstandard compression context at one level: its tables (about a MiB for a batch-sized
/// body) are allocated once and serve every body it compresses; `Zstd.compressors`
/// keeps it between bodies, as `Gzip.compressors` keeps ISA-L's. Not for two threads at once.
final class ZstdCompressor: PooledCompressor {
    typealias Failure = ZstdError
    let level: Int32
    private let context: OpaquePointer

    init(level: Int32) throws(ZstdError) {
        guard Zstd.levels.contains(level) else { throw .invalidLevel(level) }
        guard let context = ZSTD_createCCtx() else { throw .outOfMemory }
        // Parameters stay with the context across bodies. The checksum (4 bytes a frame) lets the
        // receiver tell a damaged body from a good one, as gzip's CRC does.
        for (parameter, value) in [(ZSTD_c_compressionLevel, level), (ZSTD_c_checksumFlag, 1)] {
            let code = ZSTD_CCtx_setParameter(context, parameter, value)
            guard ZSTD_isError(code) == 0 else {
                ZSTD_freeCCtx(context)
                throw .compressor(Zstd.errorName(code))
            }
        }
        self.level = level
        self.context = context
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// The largest body one call takes: the same as gzip's (`DeflateCompressor.maxInput`), so that
    /// choosing zstd never changes which batches can go.
    static let maxInput = DeflateCompressor.maxInput

    /// One frame (RFC 8878) holding all of `input`, with its size in the header: the receiver knows
    /// before decompressing how much it is asked to hold, and the window is no larger than the body.
    func compress(_ input: [UInt8]) throws(ZstdError) -> [UInt8] {
        guard input.count <= Self.maxInput else { throw .tooLargeToCompress(limit: Self.maxInput) }
        // ZSTD_compressBound is always enough: zstd falls back to raw blocks when compressing would expand.
        let bound = ZSTD_compressBound(input.count)
        var code = 0
        // Left uninitialised, as for gzip: most of the bound is never written.
        let output = input.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: bound) { destination, count in
                // An empty array may have no storage; zstd reads nothing of a source of size 0.
                code = ZSTD_compress2(context, destination.baseAddress, destination.count, source.baseAddress, source.count)
                count = ZSTD_isError(code) == 0 ? code : 0
            }
        }
        guard ZSTD_isError(code) == 0 else { throw .compressor(Zstd.errorName(code)) }
        return output
    }
}

typealias ZstdCompressorPool = CompressorPool<ZstdCompressor>
