/// The byte tests the redaction scanner runs on every byte of every line: table lookups, so the
/// common case (a byte that starts nothing) costs two loads and a branch.
enum ScanBytes {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// What a byte may start, for the scanner's dispatch.
    enum Trigger: UInt8 {
        /// Nothing: spaces, punctuation, bytes of multibyte characters.
        case none = 0
        /// A letter or `_` no token starts with.
        case word
        /// A letter some token starts with (`A` of `AKIA`, `g` of `ghp_`, `b` of `Bearer`, …).
        case tokenLetter
        case digit
        case equals
        case colon
        case dash
        case at

        /// Letters, digits and `_`: a word's bytes.
        @inline(__always)
        var isWord: Bool { rawValue &- 1 <= Trigger.digit.rawValue &- 1 }
    }

    /// By byte, what it may start; read through `withTriggers` in the scanner's loop.
    private static let triggers: [Trigger] = {
        var table = [Trigger](repeating: .none, count: 256)
        table[Int(UInt8(ascii: "="))] = .equals
        table[Int(UInt8(ascii: ":"))] = .colon
        table[Int(UInt8(ascii: "-"))] = .dash
        table[Int(UInt8(ascii: "@"))] = .at
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = .word }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = .word }
        table[Int(UInt8(ascii: "_"))] = .word
        for letter in TokenPrefixes.firstLetters { table[Int(letter)] = .tokenLetter }
        for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(digit)] = .digit }
        return table
    }()


    /// The trigger table as a pointer, for a loop over every byte: one lookup a byte, no check
    /// that the table exists.
    static func withTriggers<Result>(_ body: (UnsafeBufferPointer<Trigger>) -> Result) -> Result {
        triggers.withUnsafeBufferPointer(body)
    }

    /// Letters, digits and `_`: what a token is made of, and what a word boundary is not.
    @inline(__always)
    static func isWord(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == 0x5F }

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
        prefix.withUnsafeBufferPointer { hasPrefix(bytes, at: start, $0) }
    }

    /// The constants the rules look for are `StaticString`s: read in place, never allocated, and
    /// never behind a lazily made global.
    @inline(__always)
    static func hasPrefix(_ bytes: Bytes, at start: Int, _ prefix: StaticString) -> Bool {
        hasPrefix(bytes, at: start, UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    static func hasPrefix(_ bytes: Bytes, at start: Int, _ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard start >= 0, start + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count where bytes[start + offset] != prefix[offset] { return false }
        return true
    }

    /// The bytes just before `end` are `suffix` (given in lowercase), without regard to ASCII case.
    static func endsWith(_ bytes: Bytes, at end: Int, lowercased suffix: StaticString) -> Bool {
        let count = suffix.utf8CodeUnitCount
        guard end >= count, end <= bytes.count else { return false }
        let start = end - count
        let letters = suffix.utf8Start
        for offset in 0..<count where lowercase(bytes[start + offset]) != letters[offset] { return false }
        return true
    }

    static func firstIndex(of needle: StaticString, in bytes: Bytes, from start: Int) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard count > 0, bytes.count >= count else { return nil }
        let first = needle.utf8Start[0]
        var index = start
        let last = bytes.count - count
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
