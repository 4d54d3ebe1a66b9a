/// The built-in redaction rules of `Redactor`, as one scan over a text's UTF-8 bytes.
///
/// Every byte they look for is ASCII, and no byte of a multibyte UTF-8 character is, so a range
/// always starts and ends on a character boundary.
enum BuiltInRules {
    struct Scan {
        var ranges: [Range<Int>] = []
        /// A private key block began and did not end in this text.
        var privateKeyOpen = false
    }

    typealias Bytes = UnsafeBufferPointer<UInt8>

    static func scan(_ bytes: Bytes, continuingPrivateKey: Bool) -> Scan {
        var scan = Scan()
        var index = 0
        if continuingPrivateKey {
            guard let end = privateKeyEnd(bytes, from: 0) else {
                if !bytes.isEmpty { scan.ranges.append(0..<bytes.count) }
                scan.privateKeyOpen = true
                return scan
            }
            scan.ranges.append(0..<end)
            index = end
        }
        while index < bytes.count {
            var found: Range<Int>?
            switch bytes[index] {
            case UInt8(ascii: "="):
                found = keyValue(bytes, equals: index)
            case UInt8(ascii: ":"):
                found = userinfo(bytes, colon: index) ?? authorization(bytes, colon: index)
            case UInt8(ascii: "b"), UInt8(ascii: "B"):
                found = bearer(bytes, at: index)
            case UInt8(ascii: "-"):
                if let headerEnd = privateKeyBegin(bytes, at: index) {
                    if let end = privateKeyEnd(bytes, from: headerEnd) {
                        found = index..<end
                    } else {
                        found = index..<bytes.count
                        scan.privateKeyOpen = true
                    }
                }
            default:
                break
            }
            if let found {
                scan.ranges.append(found)
                index = max(found.upperBound, index + 1)
            } else {
                index += 1
            }
        }
        return scan
    }

    // MARK: key=value

    private static let secretKeys: [[UInt8]] = ["password", "passwd", "secret", "token"].map { Array($0.utf8) }

    private static func keyValue(_ bytes: Bytes, equals: Int) -> Range<Int>? {
        guard secretKeys.contains(where: { endsWith(bytes, at: equals, lowercased: $0) }) else { return nil }
        return value(bytes, from: equals + 1, toEndOfLine: false)
    }

    // MARK: Authorization: value

    private static let authorizationKey = Array("authorization".utf8)

    private static func authorization(_ bytes: Bytes, colon: Int) -> Range<Int>? {
        var end = colon
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        if end > 0, bytes[end - 1] == UInt8(ascii: "\"") || bytes[end - 1] == UInt8(ascii: "'") { end -= 1 }
        guard endsWith(bytes, at: end, lowercased: authorizationKey) else { return nil }
        var start = colon + 1
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        return value(bytes, from: start, toEndOfLine: true)
    }

    /// A value from `start`: inside its quotes when quoted, else to the end of the line or to
    /// the first delimiter. nil when empty.
    private static func value(_ bytes: Bytes, from start: Int, toEndOfLine: Bool) -> Range<Int>? {
        guard start < bytes.count else { return nil }
        var end = start
        let first = bytes[start]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            end = start + 1
            while end < bytes.count, bytes[end] != first, !isLineBreak(bytes[end]) { end += 1 }
            return end > start + 1 ? (start + 1)..<end : nil
        }
        if toEndOfLine {
            while end < bytes.count, !isLineBreak(bytes[end]) { end += 1 }
        } else {
            while end < bytes.count, !isValueDelimiter(bytes[end]) { end += 1 }
        }
        return end > start ? start..<end : nil
    }

    private static func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "<"),
            UInt8(ascii: ">"):
            true
        default: false
        }
    }

    // MARK: Bearer token

    private static let bearerWord = Array("bearer".utf8)
    /// "the bearer of the letter" is prose, not a token: real tokens are long, and a short one
    /// in a header is still caught by the Authorization rule.
    static let minBearerTokenBytes = 8

    private static func bearer(_ bytes: Bytes, at start: Int) -> Range<Int>? {
        let wordEnd = start + bearerWord.count
        guard wordEnd < bytes.count, endsWith(bytes, at: wordEnd, lowercased: bearerWord) else { return nil }
        if start > 0, isAlphanumeric(bytes[start - 1]) { return nil }
        var tokenStart = wordEnd
        while tokenStart < bytes.count, bytes[tokenStart] == 0x20 || bytes[tokenStart] == 0x09 { tokenStart += 1 }
        guard tokenStart > wordEnd else { return nil }
        var end = tokenStart
        while end < bytes.count, isTokenByte(bytes[end]) { end += 1 }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        return end - tokenStart >= minBearerTokenBytes ? tokenStart..<end : nil
    }

    /// RFC 6750's b64token characters, without the trailing `=`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    // MARK: URL userinfo

    private static func userinfo(_ bytes: Bytes, colon: Int) -> Range<Int>? {
        let start = colon + 3
        guard start <= bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/"),
            colon > 0, isSchemeByte(bytes[colon - 1])
        else { return nil }
        // The authority ends at the path, query, fragment or anything a URL in a log line ends
        // with; userinfo is what comes before its last `@`.
        var lastAt: Int?
        var index = start
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""),
                UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                break scan
            case UInt8(ascii: "@"): lastAt = index
            default: break
            }
            index += 1
        }
        guard let lastAt, lastAt > start else { return nil }
        return start..<lastAt
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    // MARK: PEM private keys

    private static let beginMarker = Array("-----BEGIN ".utf8)
    private static let endMarker = Array("-----END ".utf8)
    private static let dashes = Array("-----".utf8)
    private static let privateKeyLabel = Array("PRIVATE KEY".utf8)
    /// `ENCRYPTED PRIVATE KEY`, `OPENSSH PRIVATE KEY`: a label is short.
    private static let maxLabelBytes = 40

    /// The index after `-----BEGIN <label>PRIVATE KEY-----` at `start`.
    private static func privateKeyBegin(_ bytes: Bytes, at start: Int) -> Int? {
        guard hasPrefix(bytes, at: start, beginMarker) else { return nil }
        return privateKeyLabelEnd(bytes, from: start + beginMarker.count)
    }

    /// The index after the first `-----END <label>PRIVATE KEY-----` from `start`.
    static func privateKeyEnd(_ bytes: Bytes, from start: Int) -> Int? {
        var index = start
        while let found = firstIndex(of: endMarker, in: bytes, from: index) {
            if let end = privateKeyLabelEnd(bytes, from: found + endMarker.count) { return end }
            index = found + 1
        }
        return nil
    }

    /// A label of capitals, digits and spaces ending in `PRIVATE KEY`, then `-----`.
    private static func privateKeyLabelEnd(_ bytes: Bytes, from start: Int) -> Int? {
        var index = start
        while index < bytes.count, index - start <= maxLabelBytes {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-") {
                guard hasPrefix(bytes, at: index, dashes), endsWith(bytes, at: index, exactly: privateKeyLabel)
                else { return nil }
                return index + dashes.count
            }
            guard (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x20 else { return nil }
            index += 1
        }
        return nil
    }

    // MARK: Bytes

    static func contains(_ bytes: Bytes, _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: bytes, from: 0) != nil
    }

    private static func firstIndex(of needle: [UInt8], in bytes: Bytes, from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, hasPrefix(bytes, at: index, needle) { return index }
            index += 1
        }
        return nil
    }

    private static func hasPrefix(_ bytes: Bytes, at start: Int, _ prefix: [UInt8]) -> Bool {
        guard start + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count where bytes[start + offset] != prefix[offset] { return false }
        return true
    }

    /// The bytes just before `end` are `suffix` (given in lowercase), without regard to ASCII case.
    private static func endsWith(_ bytes: Bytes, at end: Int, lowercased suffix: [UInt8]) -> Bool {
        guard end >= suffix.count, end <= bytes.count else { return false }
        let start = end - suffix.count
        for offset in 0..<suffix.count where asciiLowercase(bytes[start + offset]) != suffix[offset] { return false }
        return true
    }

    private static func endsWith(_ bytes: Bytes, at end: Int, exactly suffix: [UInt8]) -> Bool {
        guard end >= suffix.count else { return false }
        return hasPrefix(bytes, at: end - suffix.count, suffix)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
