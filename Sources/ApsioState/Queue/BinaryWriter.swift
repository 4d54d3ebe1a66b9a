/// Little-endian fixed-width fields and length-prefixed strings, appended to a byte array: the
/// shape of queue entry headers and of encoded records.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    /// A u32 byte count, then the UTF-8 bytes.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A presence byte (0 or 1), then the string when present.
    mutating func optionalString(_ value: String?) {
        guard let value else { return u8(0) }
        u8(1)
        string(value)
    }
}
