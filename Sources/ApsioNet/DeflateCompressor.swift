internal import CDeflate

/// One libdeflate compressor at one level. Its match-finder tables (hundreds of KiB) are allocated
/// once and serve every body it compresses; `DeflateCompressorPool` keeps it between bodies so that
/// a batch does not pay for fresh pages each time. Not for two threads at once: the pool lends it to
/// one caller at a time.
final class DeflateCompressor {
    let level: Int32
    private let compressor: OpaquePointer

    init(level: Int32) throws(GzipError) {
        // libdeflate answers NULL both for a level it does not know and for no memory: checked
        // first, so that the error says which.
        guard Gzip.levels.contains(level) else { throw .invalidLevel(level) }
        guard let compressor = libdeflate_alloc_compressor(level) else { throw .outOfMemory }
        self.level = level
        self.compressor = compressor
    }

    deinit {
        libdeflate_free_compressor(compressor)
    }

    /// One gzip member (RFC 1952) holding all of `input`.
    func gzip(_ input: [UInt8]) -> [UInt8] {
        let bound = libdeflate_gzip_compress_bound(compressor, input.count)
        // Left uninitialised: a batch of log records compresses about fifteenfold, so most of the
        // bound is never written, and zeroing it would be one more pass over memory.
        let output = input.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: bound) { destination, count in
                count = Self.compress(compressor, source, into: destination)
            }
        }
        // libdeflate's contract: given its own bound, compression cannot run out of room.
        precondition(!output.isEmpty, "libdeflate wrote nothing within its own bound")
        return output
    }

    private static func compress(
        _ compressor: OpaquePointer, _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        guard let base = source.baseAddress else {
            // An empty array may have no storage; libdeflate still copies its zero bytes, and a
            // null source is undefined behaviour in C even then.
            var nothing: UInt8 = 0
            return withUnsafeBytes(of: &nothing) { byte in
                libdeflate_gzip_compress(compressor, byte.baseAddress, 0, destination.baseAddress, destination.count)
            }
        }
        return libdeflate_gzip_compress(compressor, base, source.count, destination.baseAddress, destination.count)
    }
}
