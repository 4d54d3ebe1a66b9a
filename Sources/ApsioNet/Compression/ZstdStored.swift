extension Zstd {
    /// One zstd frame holding `input` uncompressed, in raw blocks (RFC 8878 3.1.1.2): valid zstd
    /// made without a compressor, for when compressing fails, so that a body which must go out
    /// as zstd still goes out (as `Gzip.stored` does for gzip).
    package static func stored(_ input: [UInt8]) -> [UInt8] {
        // A 128 KiB window, the largest block: any reader takes it (RFC 9659 lets it ask 8 MiB).
        let maxBlock = 128 * 1024
        let blocks = max(1, (input.count + maxBlock - 1) / maxBlock)
        var output: [UInt8] = []
        output.reserveCapacity(6 + blocks * 3 + input.count)
        // Magic number, little-endian; a frame header descriptor with no flags (no content size,
        // no checksum, no dictionary, not a single segment); then the window descriptor:
        // exponent 7 (2^(10+7) bytes), mantissa 0.
        output += [0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3]
        for block in 0..<blocks {
            let start = block * maxBlock
            let end = min(start + maxBlock, input.count)
            // Last_Block in bit 0, Block_Type 0 (raw) in bits 1-2, Block_Size above, little-endian.
            let header = UInt32(end - start) << 3 | (block == blocks - 1 ? 1 : 0)
            output += [UInt8(header & 0xff), UInt8((header >> 8) & 0xff), UInt8(header >> 16)]
            output += input[start..<end]
        }
        return output
    }
}
