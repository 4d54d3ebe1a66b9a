/// Lowercase hexadecimal, the only spelling the spec accepts for proofs, matches and tokens.
package enum Hex {
    /// Written straight into the string's storage: the generic loop over any sequence this was
    /// ran unspecialised from other modules, and cost a device's hello, which hashes its token,
    /// more than the hash did.
    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        if let hex = bytes.withContiguousStorageIfAvailable(lowercase(buffer:)) { return hex }
        return Array(bytes).withUnsafeBufferPointer(lowercase(buffer:))
    }

    package static func lowercase(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer(lowercase(buffer:))
    }

    private static func lowercase(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for index in 0..<bytes.count {
                out[2 * index] = digit(bytes[index] >> 4)
                out[2 * index + 1] = digit(bytes[index] & 0x0f)
            }
            return bytes.count * 2
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 - 10 + value
    }

    /// True when `text` is exactly `length` characters of 0-9 and a-f. Upper case is refused on
    /// purpose: the spec pins lowercase, and a backend compares the strings as they are.
    package static func isLowercase(_ text: String, length: Int) -> Bool {
        var count = 0
        for byte in text.utf8 {
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
            count += 1
            if count > length { return false }
        }
        return count == length
    }

    /// The value of one hex digit, either case (percent-encoding), nil for any other byte.
    package static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
