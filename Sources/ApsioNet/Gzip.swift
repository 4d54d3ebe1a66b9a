internal import CZlib

/// gzip (RFC 1952) through zlib: request bodies out (1.1), and bodies in with a cap on what they
/// may expand to, so that a small hostile body cannot become gigabytes in memory.
public enum Gzip {
    /// Level 6 is zlib's default: most of level 9's ratio on JSON log batches at a fraction of
    /// its CPU. The ingest benchmark is where this choice is measured.
    public static let defaultLevel: Int32 = 6

    public static func compress(_ input: [UInt8], level: Int32 = defaultLevel) throws(GzipError) -> [UInt8] {
        var stream = z_stream()
        let initCode = apsio_deflate_init_gzip(&stream, level)
        guard initCode == Z_OK else { throw .zlib(code: initCode) }
        defer { deflateEnd(&stream) }

        // Left uninitialised: zeroing the bound (about the input's size) cost a pass over memory
        // that deflate mostly never touches, as a batch of log records compresses about tenfold.
        let bound = Int(deflateBound(&stream, UInt(input.count))) + 32
        var code: Int32 = Z_OK
        let output = input.withUnsafeBufferPointer { inBuf in
            [UInt8](unsafeUninitializedCapacity: bound) { outBuf, count in
                stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                // deflateBound guarantees one call with Z_FINISH is enough.
                code = deflate(&stream, Z_FINISH)
                count = code == Z_STREAM_END ? Int(stream.total_out) : 0
            }
        }
        guard code == Z_STREAM_END else { throw .zlib(code: code) }
        return output
    }

    /// Decompresses one gzip member, refusing to produce more than `maxOutput` bytes.
    public static func decompress(_ input: [UInt8], maxOutput: Int) throws(GzipError) -> [UInt8] {
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
