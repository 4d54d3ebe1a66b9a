import ApsioCore

/// gzip for the live channel's bodies, and for ingest's unless the app file says `Compression=zstd`.
package struct GzipBodyCompressor: BodyCompressing {
    private let level: Int32

    package init(level: Int32 = Gzip.defaultLevel) {
        self.level = level
    }

    /// Never fails: should the compressor fail (it can only when it cannot allocate its state),
    /// the body goes in gzip's stored blocks, larger but as valid, rather than stopping the process.
    package func compress(_ bytes: [UInt8]) -> [UInt8] {
        (try? Gzip.compress(bytes, level: level)) ?? Gzip.stored(bytes)
    }
}
