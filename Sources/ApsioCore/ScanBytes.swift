/// The byte tests the redaction scanner runs on every byte of every line: table lookups, so the
/// common case (a byte that starts nothing) costs two loads and a branch.
enum ScanBytes {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// What a byte may start, for the scanner's dispatch.
    enum Trigger: UInt8 {
        case none = 0
        case equals
        case colon
        case dash
        /// A letter some token starts with (`A` of `AKIA`, `g` of `ghp_`, `b` of `Bearer`, …).
        case tokenLetter
        case digit
        case at
    }

    private static let triggers: [Trigger] = {
        var table = [Trigger](repeating: .none, count: 256)
        table[Int(UInt8(ascii: "="))] = .equals
        table[Int(UInt8(ascii: ":"))] = .colon
        table[Int(UInt8(ascii: "-"))] = .dash
        table[Int(UInt8(ascii: "@"))] = .at
        for letter in TokenPrefixes.firstLetters { table[Int(letter)] = .tokenLetter }
        for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(digit)] = .digit }
        return table
    }()

    /// Letters, digits and `_`: what a token is made of, and what a word boundary is not.
    private static let words: [Bool] = (0..<256).map { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }

    @inline(__always)
    static func trigger(_ byte: UInt8) -> Trigger {
        triggers.withUnsafeBufferPointer { $0[Int(byte)] }
    }

    @inline(__always)
    static func isWord(_ byte: UInt8) -> Bool { words.withUnsafeBufferPointer { $0[Int(byte)] } }

    @inline(__always)
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @inline(__always)
    static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    @inline(__always)
    static func lowercase(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    static func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    static func hasPrefix(_ bytes: Bytes, at start: Int, _ prefix: [UInt8]) -> Bool {
        guard start >= 0, start + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count where bytes[start + offset] != prefix[offset] { return false }
        return true
    }

    /// The bytes just before `end` are `suffix` (given in lowercase), without regard to ASCII case.
    static func endsWith(_ bytes: Bytes, at end: Int, lowercased suffix: [UInt8]) -> Bool {
        guard end >= suffix.count, end <= bytes.count else { return false }
        let start = end - suffix.count
        for offset in 0..<suffix.count where lowercase(bytes[start + offset]) != suffix[offset] { return false }
        return true
    }

    static func firstIndex(of needle: [UInt8], in bytes: Bytes, from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, hasPrefix(bytes, at: index, needle) { return index }
            index += 1
        }
        return nil
    }

    /// The end of a run of bytes `accept` takes, from `start`, at most `limit` long.
    @inline(__always)
    static func run(_ bytes: Bytes, from start: Int, limit: Int = Int.max, _ accept: (UInt8) -> Bool) -> Int {
        var end = start
        while end < bytes.count, end - start < limit, accept(bytes[end]) { end += 1 }
        return end
    }
}
