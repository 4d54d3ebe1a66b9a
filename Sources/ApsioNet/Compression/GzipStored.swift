internal import CZlib

extension Gzip {
    /// One gzip member holding `input` uncompressed, in deflate's stored blocks (RFC 1951 3.2.4):
    /// valid gzip made without a compressor, for when compressing fails, so that a body which
    /// must go out gzipped still goes out.
    package static func stored(_ input: [UInt8]) -> [UInt8] {
        let maxBlock = 65_535
        let blocks = max(1, (input.count + maxBlock - 1) / maxBlock)
        var output: [UInt8] = []
        output.reserveCapacity(10 + blocks * 5 + input.count + 8)
        // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown.
        output += [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]
        for block in 0..<blocks {
            let start = block * maxBlock
            let end = min(start + maxBlock, input.count)
            let length = UInt16(end - start)
            // BFINAL on the last block, BTYPE 00; then LEN and its complement, little-endian.
            output.append(block == blocks - 1 ? 1 : 0)
            output += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8)]
            output += input[start..<end]
        }
        let checksum = input.withUnsafeBufferPointer { buffer -> UInt32 in
            // zlib's crc32 takes a length of 32 bits: fed in pieces, so any size is summed.
            var crc = UInt(crc32(0, nil, 0))
            var offset = 0
            repeat {
                let piece = min(buffer.count - offset, Int(UInt32.max))
                crc = UInt(crc32(crc, buffer.baseAddress.map { $0 + offset }, UInt32(piece)))
                offset += piece
            } while offset < buffer.count
            return UInt32(truncatingIfNeeded: crc)
        }
        let size = UInt32(truncatingIfNeeded: input.count)
        for value in [checksum, size] {
            output += [UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff), UInt8(value >> 24)]
        }
        return output
    }
}
