internal import CZstd

/// Zstandard (RFC 8878), `Content-Encoding: zstd`: bodies out in one call through a context kept
/// between bodies; bodies in as a stream into a bounded buffer, so that a small hostile body cannot
/// become gigabytes in memory, and with the window a frame may ask for capped at RFC 9659's 8 MiB,
/// so that the reader's own buffer is bounded too.
package enum Zstd {
    /// On OTLP log batches level 1 writes no more than zstd's own default (3) at about twice its
    /// speed, and less than ISA-L's gzip (docs/performance.md).
    package static let defaultLevel: Int32 = 1

    /// The levels `compress` accepts. Not the negative ("fast") ones, whose output is larger than
    /// gzip's; not above 19, whose windows exceed what RFC 9659 lets a sender ask of a receiver.
    package static let levels: ClosedRange<Int32> = 1...19

    /// RFC 9659: a `Content-Encoding: zstd` decoder must support windows up to 8 MiB and a sender
    /// must not ask for more. The reader refuses a larger one before allocating it.
    package static let maxWindowLog: Int32 = 23

    /// Shared by every caller of `compress`; as many as `Gzip.compressors`, for the same reason.
    static let compressors = ZstdCompressorPool(capacity: 4)

    /// One zstd frame holding all of `input`. A level outside `levels` is `ZstdError.invalidLevel`.
    package static func compress(_ input: [UInt8], level: Int32 = defaultLevel) throws(ZstdError) -> [UInt8] {
        let pool = compressors
        let compressor = try pool.take(level: level)
        let output = Result { () throws(ZstdError) in try compressor.compress(input) }
        pool.giveBack(compressor)
        return try output.get()
    }

    /// Decompresses one or more frames (RFC 8878 3.1), refusing to produce more than `maxOutput`
    /// bytes. Trailing bytes that are no frame are `corrupt`.
    package static func decompress(_ input: [UInt8], maxOutput: Int) throws(ZstdError) -> [UInt8] {
        guard let context = ZSTD_createDCtx() else { throw .outOfMemory }
        defer { ZSTD_freeDCtx(context) }
        let windowCode = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, maxWindowLog)
        guard ZSTD_isError(windowCode) == 0 else { throw .corrupt(errorName(windowCode)) }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var result: Result<Void, ZstdError> = .success(())
        input.withUnsafeBufferPointer { inBuf in
            var source = ZSTD_inBuffer(src: inBuf.baseAddress, size: inBuf.count, pos: 0)
            while true {
                var produced = 0
                let code: Int = chunk.withUnsafeMutableBufferPointer { outBuf in
                    var destination = ZSTD_outBuffer(dst: outBuf.baseAddress, size: outBuf.count, pos: 0)
                    let code = ZSTD_decompressStream(context, &destination, &source)
                    produced = destination.pos
                    return code
                }
                if ZSTD_isError(code) != 0 {
                    result = .failure(
                        ZSTD_getErrorCode(code) == ZSTD_error_frameParameter_windowTooLarge
                            ? .windowTooLarge(limit: 1 << Int(maxWindowLog)) : .corrupt(errorName(code)))
                    return
                }
                if output.count + produced > maxOutput {
                    result = .failure(.tooLarge(limit: maxOutput))
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                let inputLeft = source.pos < source.size
                // 0: a frame ended and everything it held was given out.
                if code == 0, !inputLeft { return }
                // All input taken and the output not filled: the decoder gave all it could, and a
                // frame is still open.
                if !inputLeft, produced < chunk.count {
                    result = .failure(.truncated)
                    return
                }
                // Otherwise more output waits to be flushed, or another frame follows.
            }
        }
        try result.get()
        return output
    }

    static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }
}
