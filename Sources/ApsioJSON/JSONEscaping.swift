/// How a string is spelled inside JSON quotes: `"` and `\` escaped, control characters and DEL as
/// `\n`, `\r`, `\t` or `\u00XX`, everything else (all of UTF-8 above them) as it is. One
/// implementation for `JSONWriter` and `JSONScratch`.
package enum JSONEscaping {
    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Bytes `writeQuoted` may write for `count` bytes of UTF-8: six for each (`\u00XX`) and the quotes.
    package static func quotedBound(utf8Count count: Int) -> Int { count * 6 + 2 }

    /// Writes `utf8` quoted and escaped at `output`, which has room for `quotedBound`; returns the
    /// bytes written. Runs that need no escaping are copied whole.
    package static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var written = 0
        output[written] = UInt8(ascii: "\"")
        written += 1
        var runStart = 0
        func copyRun(to end: Int) {
            let length = end - runStart
            if length > 0, let base = utf8.baseAddress {
                (output + written).update(from: base + runStart, count: length)
                written += length
            }
        }
        var index = 0
        while index < utf8.count {
            // Eight bytes at a time while none of them needs escaping, which is most text.
            if index + 8 <= utf8.count, let base = utf8.baseAddress,
                !needsEscaping(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = utf8[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else { continue }
            copyRun(to: index - 1)
            runStart = index
            output[written] = UInt8(ascii: "\\")
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output[written + 1] = byte
                written += 2
            case 0x0A:
                output[written + 1] = UInt8(ascii: "n")
                written += 2
            case 0x0D:
                output[written + 1] = UInt8(ascii: "r")
                written += 2
            case 0x09:
                output[written + 1] = UInt8(ascii: "t")
                written += 2
            default:
                output[written + 1] = UInt8(ascii: "u")
                output[written + 2] = UInt8(ascii: "0")
                output[written + 3] = UInt8(ascii: "0")
                output[written + 4] = hexDigits[Int(byte >> 4)]
                output[written + 5] = hexDigits[Int(byte & 0x0F)]
                written += 6
            }
        }
        copyRun(to: utf8.count)
        output[written] = UInt8(ascii: "\"")
        return written + 1
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is a control character, `"`, `\` or DEL. Exact as a yes or no
    /// (which byte is not needed): a byte below 0x20 is found by subtracting 0x20 from each byte,
    /// the others as zero bytes after an exclusive or.
    @inline(__always)
    package static func needsEscaping(_ word: UInt64) -> Bool {
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || hasZeroByte(word ^ (ones &* 0x7F))
    }
}
