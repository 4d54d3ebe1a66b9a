/// Cutting text to a number of UTF-8 bytes without splitting a character (1.6): a body to 4096
/// bytes, a string attribute to 1024.
package enum UTF8Cut {
    package static func cut(_ text: String, maxBytes: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > maxBytes else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, maxBytes))
        // Back off continuation bytes (10xxxxxx) to the start of the character the limit splits.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 {
            end = utf8.index(before: end)
        }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self)
    }

    package static func cutBody(_ text: String, limits: Limits = .spec) -> String {
        cut(text, maxBytes: limits.maxBodyBytes)
    }

    package static func cutAttribute(_ text: String, limits: Limits = .spec) -> String {
        cut(text, maxBytes: limits.maxAttributeStringBytes)
    }
}
