/// `application/x-www-form-urlencoded` query strings (`install=abc&x=1`): `+` is a space, `%XX` a
/// byte; a malformed escape stays as written rather than failing the request.
package enum QueryString {
    package static func parse(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `Hex.value(of:)`'s rule, here again: the HTTP parsers import nothing, so that each compiles
    /// into its fuzzer alone (fuzz/build.sh).
    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
