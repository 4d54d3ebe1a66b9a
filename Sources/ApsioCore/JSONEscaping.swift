/// How a string is spelled inside JSON quotes: `"` and `\` escaped, control characters and DEL as
/// `\n`, `\r`, `\t` or `\u00XX`, everything else (all of UTF-8 above them) as it is. One
/// implementation for `JSONWriter` and `JSONScratch`.
enum JSONEscaping {
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Bytes `writeQuoted` may write for `count` bytes of UTF-8: six for each (`\u00XX`) and the quotes.
    static func quotedBound(utf8Count count: Int) -> Int { count * 6 + 2 }

    /// Writes `utf8` quoted and escaped at `output`, which has room for `quotedBound`; returns the
    /// bytes written. Runs that need no escaping are copied whole.
    static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
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
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else { continue }
            copyRun(to: index)
            runStart = index + 1
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
}
