/// Lowercase hexadecimal, the only spelling the spec accepts for proofs, matches and tokens.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
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
