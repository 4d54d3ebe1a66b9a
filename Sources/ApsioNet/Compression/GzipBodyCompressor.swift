import ApsioCore

/// gzip for the live channel's bodies (1.1 compresses ingest's the same way).
package struct GzipBodyCompressor: BodyCompressing {
    package init() {}

    package func compress(_ bytes: [UInt8]) -> [UInt8] {
        // Compressing bytes in memory at the default level fails only when libdeflate cannot
        // allocate, which nothing above could recover from either.
        do {
            return try Gzip.compress(bytes)
        } catch {
            preconditionFailure("gzip compression failed: \(error)")
        }
    }
}
