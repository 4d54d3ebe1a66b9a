/// A failure to read protobuf's wire format, said as a 400's reason.
package struct ProtobufWireError: Error, CustomStringConvertible {
    package let description: String
}

/// Protocol Buffers' wire format read from a peer's bytes (protobuf.dev, "Encoding"): the fields of
/// a message one by one. Every length is checked against what is left; a varint longer than ten
/// bytes, a field number out of range or a wire type OTLP does not use (the groups) is an error,
/// never a trap. Which field means what is the caller's.
struct ProtobufReader {
    let bytes: UnsafeRawBufferPointer

    /// One field as it came: its number and its value by wire type.
    struct Field {
        let number: UInt32
        let value: Value

        enum Value {
            case varint(UInt64)
            case fixed64(UInt64)
            case fixed32(UInt32)
            case lengthDelimited(Range<Int>)
        }

        func message() throws(ProtobufWireError) -> Range<Int> {
            guard case .lengthDelimited(let range) = value else { throw wrongType("a message") }
            return range
        }

        func varint() throws(ProtobufWireError) -> UInt64 {
            guard case .varint(let number) = value else { throw wrongType("a varint") }
            return number
        }

        func fixed64() throws(ProtobufWireError) -> UInt64 {
            guard case .fixed64(let number) = value else { throw wrongType("a fixed64") }
            return number
        }

        func fixed32() throws(ProtobufWireError) -> UInt32 {
            guard case .fixed32(let number) = value else { throw wrongType("a fixed32") }
            return number
        }

        private func wrongType(_ wanted: String) -> ProtobufWireError {
            ProtobufWireError(description: "field \(number) is not \(wanted)")
        }
    }

    /// Every field of the message in `range`, in order.
    func fields(in range: Range<Int>) throws(ProtobufWireError) -> [Field] {
        var fields: [Field] = []
        var index = range.lowerBound
        while index < range.upperBound {
            let key = try varint(at: &index, end: range.upperBound)
            guard let number = UInt32(exactly: key >> 3), number > 0 else { throw ProtobufWireError(description: "a field number out of range") }
            switch key & 7 {
            case 0:
                fields.append(Field(number: number, value: .varint(try varint(at: &index, end: range.upperBound))))
            case 1:
                guard range.upperBound - index >= 8 else { throw Self.truncated }
                fields.append(Field(number: number, value: .fixed64(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)))
                index += 8
            case 2:
                let length = try varint(at: &index, end: range.upperBound)
                guard length <= UInt64(range.upperBound - index) else { throw Self.truncated }
                fields.append(Field(number: number, value: .lengthDelimited(index..<(index + Int(length)))))
                index += Int(length)
            case 5:
                guard range.upperBound - index >= 4 else { throw Self.truncated }
                fields.append(Field(number: number, value: .fixed32(bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian)))
                index += 4
            default:
                throw ProtobufWireError(description: "wire type \(key & 7), which OTLP does not use")
            }
        }
        return fields
    }

    private static let truncated = ProtobufWireError(description: "a field runs past the end of its message")

    private func varint(at index: inout Int, end: Int) throws(ProtobufWireError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < end else { throw Self.truncated }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7f) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        throw ProtobufWireError(description: "a varint longer than ten bytes")
    }

    func string(_ field: Field) throws(ProtobufWireError) -> String {
        let range = try field.message()
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw ProtobufWireError(description: "field \(field.number) is not UTF-8")
        }
        return text
    }
}
