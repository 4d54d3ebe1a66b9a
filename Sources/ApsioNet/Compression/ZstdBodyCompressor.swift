import ApsioCore

/// zstd for ingest's bodies when the app file says `Compression=zstd`; `GzipBodyCompressor` is the
/// other choice, and the one every receiver reads.
package struct ZstdBodyCompressor: BodyCompressing {
    private let level: Int32

    package init(level: Int32 = Zstd.defaultLevel) {
        self.level = level
    }

    /// Never fails: should the compressor fail (it can only when it cannot allocate its context),
    /// the body goes in zstd's raw blocks, larger but as valid, rather than stopping the process.
    package func compress(_ bytes: [UInt8]) -> [UInt8] {
        (try? Zstd.compress(bytes, level: level)) ?? Zstd.stored(bytes)
    }
}
