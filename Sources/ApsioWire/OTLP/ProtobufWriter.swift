/// Protocol Buffers' wire format written straight into bytes (protobuf.dev, "Encoding"): the few
/// field kinds OTLP's logs need, and nested messages whose length is written once they end.
///
/// A nested message is begun with a one-byte length and, when it ends longer than 127 bytes, the
/// length is widened in place: its bytes move once, by a byte or two (one `memmove` a record or a
/// group), rather than being written into a scratch buffer and copied whole.
struct ProtobufWriter {
    private(set) var bytes: [UInt8]

    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    /// Writes into `buffer`'s storage when it is given and not shared, as `JSONWriter` does.
    init(reusing buffer: consuming [UInt8] = [], reservingCapacity capacity: Int = 0) {
        bytes = buffer
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func tag(_ field: UInt32, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    /// A varint field (`int64` as two's complement, `uint32`, an enum).
    mutating func varintField(_ field: UInt32, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64Field(_ field: UInt32, _ value: UInt64) {
        tag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func doubleField(_ field: UInt32, _ value: Double) {
        fixed64Field(field, value.bitPattern)
    }

    mutating func stringField(_ field: UInt32, _ text: String) {
        tag(field, .lengthDelimited)
        var text = text
        text.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A length-delimited field holding `raw`: an embedded message written before, or bytes.
    mutating func rawField(_ field: UInt32, _ raw: some Collection<UInt8>) {
        tag(field, .lengthDelimited)
        varint(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }

    mutating func byte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Bytes already in the wire format (fields written by another writer), appended as they are.
    mutating func raw(_ raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Begins an embedded message as field `field`; `end(_:)` with what this returns closes it.
    mutating func begin(_ field: UInt32) -> Int {
        tag(field, .lengthDelimited)
        bytes.append(0)
        return bytes.count
    }

    mutating func end(_ start: Int) {
        let length = bytes.count - start
        if length < 0x80 {
            bytes[start - 1] = UInt8(length)
            return
        }
        var prefix: [UInt8] = []
        var value = UInt64(length)
        while value >= 0x80 {
            prefix.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        prefix.append(UInt8(value))
        bytes.replaceSubrange((start - 1)..<start, with: prefix)
    }
}
