/// Which of a Redis Cluster's 16,384 slots a key belongs to: CRC16 (XMODEM) of the key, or of its
/// hash tag, modulo 16,384, as the cluster specification defines it. Keys that must be changed in
/// one step (a device's document, its index, its audit, its channel) carry the same tag, so they
/// share a slot and one master serves them all.
package enum RedisHashSlot {
    package static let count = 16_384

    /// The hash tag rule: when the key has a `{` followed later by a `}` with at least one byte
    /// between them, only those bytes are hashed (the first such pair).
    package static func slot(of key: some Collection<UInt8>) -> Int {
        let bytes = Array(key)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
           let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
            return Int(crc16(bytes[(open + 1)..<close]) % UInt16(count))
        }
        return Int(crc16(bytes) % UInt16(count))
    }

    package static func slot(of key: String) -> Int { slot(of: key.utf8) }

    /// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection.
    package static func crc16(_ bytes: some Collection<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
