/// CRC-32C (Castagnoli), the checksum of every queue entry.
///
/// Pure Swift and table-driven because this module may not import zlib. Castagnoli rather than
/// zlib's CRC-32: it detects more of the short burst errors a torn or bit-rotted write leaves, and
/// it is the checksum ext4, iSCSI and LevelDB-style logs use for the same job.
package enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
        }
        return crc
    }

    /// Extends a running checksum: `checksum(b, continuing: checksum(a))` is the checksum of a + b.
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }
}
