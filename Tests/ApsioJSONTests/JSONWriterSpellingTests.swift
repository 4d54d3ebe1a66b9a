import ApsioJSON
import Testing

/// How `JSONWriter` spells strings and numbers, against the plainest spelling of the same rules:
/// every byte in turn, `"` `\` and control characters escaped, everything else as it is.
@Suite struct JSONWriterSpellingTests {
    static func reference(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F: out += Array(String(format: byte).utf8)
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    /// Each character that needs escaping, at every place in strings around the eight bytes the
    /// writer checks at once, next to multi-byte UTF-8 that must pass unchanged.
    @Test(arguments: ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀", " ", "~"])
    func everyCharacterIsSpelledAsTheRulesSayWhereverItSits(special: String) {
        for length in 0...25 {
            for place in 0...length {
                var characters = Array(repeating: "a", count: length)
                characters.insert(special, at: place)
                let text = characters.joined()
                var writer = JSONWriter()
                writer.string(text)
                #expect(writer.bytes == Self.reference(text), "\(length) \(place)")
            }
        }
    }

    @Test(arguments: [UInt64(0), 7, 9, 10, 42, 99, 100, 101, 999, 1_000, 65_535, 1_700_000_000_000_037_000, UInt64.max])
    func unsignedNumbersAreTheirDecimalDigits(value: UInt64) {
        var writer = JSONWriter()
        writer.uint(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }

    /// The scratch counts a number's digits before it writes them where they go: every count from
    /// 1 to 20, at each power of ten and on either side of it.
    @Test func theScratchWritesEachNumberWithAllItsDigits() {
        var values: [UInt64] = [0, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0...19 {
            values += [power - 1, power, power + 1]
            if power <= UInt64.max / 10 { power *= 10 }
        }
        var scratch = JSONScratch()
        for value in values {
            scratch.reset(reserving: 64)
            scratch.put(UInt8(ascii: "<"))
            scratch.putDecimal(value)
            scratch.put(UInt8(ascii: ">"))
            #expect(String(decoding: scratch.bytes, as: UTF8.self) == "<\(value)>")
        }
    }

    @Test(arguments: [Int64(0), -1, -9, -10, 12_345, Int64.min, Int64.max])
    func signedNumbersAreTheirDecimalDigits(value: Int64) {
        var writer = JSONWriter()
        writer.int(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }
}

extension String {
    /// `\u00XX` for a control byte.
    fileprivate init(format byte: UInt8) {
        let hex = Array("0123456789abcdef")
        self = "\\u00" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
    }
}

/// The form a person reads: every value the parser reads back the same, nested and empty ones too.
@Suite struct JSONPrettyPrintingTests {
    @Test func prettyPrintedReadsBackAsTheSameValue() throws {
        let value: JSONValue = .object([
            "b": .array([.number(1), .string("two \"quoted\""), .null, .array([]), .object([:])]),
            "a": .object(["nested": .object(["deep": .bool(true)])]),
        ])
        let text = String(decoding: value.prettyPrinted, as: UTF8.self)
        #expect(try JSONParser().parse(value.prettyPrinted) == value)
        #expect(text.hasPrefix("{\n  \"a\": {\n    \"nested\": {\n      \"deep\": true\n    }\n  },\n  \"b\": [\n    1,\n"))
        #expect(text.hasSuffix("    [],\n    {}\n  ]\n}\n"))
        #expect(JSONValue.number(3).prettyPrinted == Array("3\n".utf8))
    }
}
