import ApsioCore

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
                let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2])
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
}
