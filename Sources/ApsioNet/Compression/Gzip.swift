internal import CZlib

/// gzip (RFC 1952): bodies out (1.1) through ISA-L's igzip, which compresses a whole body in memory
/// several times faster than zlib or libdeflate; bodies in through zlib, whose streaming lets a cap
/// stop what they expand to, so that a small hostile body cannot become gigabytes in memory.
package enum Gzip {
    /// ISA-L's level 1: on JSON log batches as fast as its level 0 and as small as its level 3,
    /// which is about zlib's level 6 ratio (docs/ingest.md).
    package static let defaultLevel: Int32 = 1

    /// The levels `compress` accepts, ISA-L's: 0 (fastest) to 3 (slowest, smallest output). They
    /// are not zlib's 1–9.
    package static let levels: ClosedRange<Int32> = 0...3

    /// Shared by every caller of `compress`. Four: more than two cores' worth of concurrent
    /// bodies, about 1.5 MiB kept at most at the default level.
    static let compressors = DeflateCompressorPool(capacity: 4)

    /// One gzip member holding all of `input`. A level outside `levels` is `GzipError.invalidLevel`.
    package static func compress(_ input: [UInt8], level: Int32 = defaultLevel) throws(GzipError) -> [UInt8] {
        let pool = compressors
        let compressor = try pool.take(level: level)
        let output = Result { () throws(GzipError) in try compressor.gzip(input) }
        pool.giveBack(compressor)
        return try output.get()
    }

    /// Decompresses one gzip member, refusing to produce more than `maxOutput` bytes.
    package static func decompress(_ input: [UInt8], maxOutput: Int) throws(GzipError) -> [UInt8] {
        var stream = z_stream()
        let initCode = apsio_inflate_init_gzip(&stream)
        guard initCode == Z_OK else { throw .zlib(code: initCode) }
        defer { inflateEnd(&stream) }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var result: Result<Void, GzipError> = .success(())
        input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let code: Int32 = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > maxOutput {
                    result = .failure(.tooLarge(limit: maxOutput))
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                switch code {
                case Z_STREAM_END:
                    if stream.avail_in != 0 { result = .failure(.trailingData) }
                    return
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: all input consumed without reaching the end.
                    result = .failure(.truncated)
                    return
                case Z_DATA_ERROR:
                    let message = stream.msg.map { String(cString: $0) } ?? "invalid data"
                    result = .failure(.corrupt(message))
                    return
                default:
                    result = .failure(.zlib(code: code))
                    return
                }
            }
        }
        try result.get()
        return output
    }
}
