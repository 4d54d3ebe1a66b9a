internal import ApsioPOSIX

/// The bytes of one queue entry on disk.
///
/// A 20-byte header, then the payload. Header: the magic `A5 51 45` and a format version (1), the
/// payload length (u32 LE), the time appended (Unix ms, i64 LE), and a CRC-32C over the length,
/// the time and the payload (u32 LE). The checksum covers the length, so a damaged length is caught
/// rather than followed; the magic is what a scan looks for to find the next entry after damage.
package enum QueueEntryFormat {
    static let magic: [UInt8] = [0xA5, 0x51, 0x45]
    static let version: UInt8 = 1
    package static let headerSize = 20
    /// A hard cap for reading, whatever the bounds: a damaged length never makes us read 4 GiB.
    static let maxPayloadBytes = 16 << 20

    static func encode(_ payload: [UInt8], unixMs: Int64) -> [UInt8] {
        var fields = BinaryWriter(reservingCapacity: 12)
        fields.u32(UInt32(payload.count))
        fields.i64(unixMs)
        let crc = CRC32C.checksum(payload, continuing: CRC32C.checksum(fields.bytes))
        var entry = BinaryWriter(reservingCapacity: headerSize + payload.count)
        entry.raw(magic)
        entry.u8(version)
        entry.raw(fields.bytes)
        entry.u32(crc)
        entry.raw(payload)
        return entry.bytes
    }

    struct Header {
        var payloadLength: Int
        var unixMs: Int64
        var size: Int { headerSize + payloadLength }
    }

    /// The entry at `offset` when it is whole and its checksum holds; nil for anything else.
    static func validEntry(in reader: inout SegmentReader, at offset: Int) throws(SystemError) -> Header? {
        guard let header = try reader.bytes(at: offset, count: headerSize) else { return nil }
        var fields = BinaryReader(header)
        guard fields.take(3).map(Array.init) == magic, fields.u8() == version,
            let length = fields.u32(), let unixMs = fields.i64(), let crc = fields.u32(),
            Int(length) <= maxPayloadBytes,
            let payload = try reader.bytes(at: offset + headerSize, count: Int(length))
        else { return nil }
        let headerFields = header[(header.startIndex + 4)..<(header.startIndex + 16)]
        guard CRC32C.checksum(payload, continuing: CRC32C.checksum(headerFields)) == crc else { return nil }
        return Header(payloadLength: Int(length), unixMs: unixMs)
    }
}
