import ApsioJSON
import Foundation
import Testing

@Suite struct JSONParserTests {
    let parser = JSONParser()

    func parse(_ text: String) throws(JSONParseError) -> JSONValue { try parser.parse(text) }

    func reason(_ text: String, parser: JSONParser = JSONParser()) -> JSONParseError.Reason? {
        do {
            _ = try parser.parse(text)
            return nil
        } catch {
            return error.reason
        }
    }

    func reason(bytes: [UInt8]) -> JSONParseError.Reason? {
        do {
            _ = try parser.parse(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" { "n": null, "t": true, "f": false, "i": -12, "d": 2.5e-3, "s": "x", "a": [1, [], {}] } "#)
        #expect(value == .object([
            "n": .null, "t": .bool(true), "f": .bool(false), "i": .number(-12), "d": .number(0.0025),
            "s": .string("x"), "a": .array([.number(1), .array([]), .object([:])]),
        ]))
        #expect(try parse("0") == .number(0))
        #expect(try parse("-0.0") == .number(0))
        #expect(try parse("\"\"") == .string(""))
        #expect(try parse("1E+2") == .number(100))
    }

    @Test func numbersAreCorrectlyRounded() throws {
        #expect(try parse("0.1") == .number(0.1))
        #expect(try parse("9007199254740993") == .number(9_007_199_254_740_992))
        #expect(try parse("1.7976931348623157e308") == .number(.greatestFiniteMagnitude))
        #expect(try parse("5e-324") == .number(.leastNonzeroMagnitude))
    }

    @Test func decodesEscapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try parse(#""caf\u00e9 \u00E9""#) == .string("café é"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse("\"日本語 😀\"") == .string("日本語 😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test(arguments: [
        ("", JSONParseError.Reason.unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("[1,]", .unexpectedByte(UInt8(ascii: "]"))),
        ("{\"a\":1,}", .unexpectedByte(UInt8(ascii: "}"))),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2"))),
        ("{'a':1}", .unexpectedByte(UInt8(ascii: "'"))),
        ("{a:1}", .unexpectedByte(UInt8(ascii: "a"))),
        ("01", .trailingData),
        ("1.", .invalidNumber),
        (".5", .unexpectedByte(UInt8(ascii: "."))),
        ("+1", .unexpectedByte(UInt8(ascii: "+"))),
        ("-", .unexpectedEnd),
        ("-a", .invalidNumber),
        ("1e", .invalidNumber),
        ("1e400", .numberOutOfRange),
        ("-1e400", .numberOutOfRange),
        ("NaN", .unexpectedByte(UInt8(ascii: "N"))),
        ("Infinity", .unexpectedByte(UInt8(ascii: "I"))),
        ("tru", .unexpectedEnd),
        ("nul1", .unexpectedByte(UInt8(ascii: "1"))),
        ("{} {}", .trailingData),
        ("[1] // comment", .trailingData),
        ("\"a\tb\"", .controlCharacterInString),
        ("\"a\nb\"", .controlCharacterInString),
        (#""\x""#, .invalidEscape),
        (#""\u12zz""#, .invalidEscape),
        (#""\u12""#, .unexpectedEnd),
        (#""\ud83d""#, .loneSurrogate),
        (#""\ude00""#, .loneSurrogate),
        (#""\ud83d\u0041""#, .loneSurrogate),
        ("{\"a\":1,\"a\":2}", .duplicateKey("a")),
        ("\"open", .unexpectedEnd),
    ])
    func refuses(_ text: String, _ expected: JSONParseError.Reason) {
        #expect(reason(text) == expected, "\(text)")
    }

    @Test func refusesInvalidUTF8AndAByteOrderMark() {
        #expect(reason(bytes: [0x22, 0xC3, 0x28, 0x22]) == .invalidUTF8)
        #expect(reason(bytes: [0x22, 0xC0, 0x80, 0x22]) == .invalidUTF8)  // overlong NUL
        #expect(reason(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]) == .invalidUTF8)  // encoded surrogate
        #expect(reason(bytes: [0x22, 0xFF, 0x22]) == .invalidUTF8)
        #expect(reason(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .unexpectedByte(0xEF))
    }

    @Test func duplicateKeysAreRefusedEvenAfterEscapes() {
        #expect(reason(#"{"kill_switch":false,"kill\u005fswitch":true}"#) == .duplicateKey("kill_switch"))
    }

    @Test func depthIsBoundedAtAndPastItsLimit() throws {
        let limited = JSONParser(maxDepth: 4)
        let four = String(repeating: "[", count: 4) + String(repeating: "]", count: 4)
        let five = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
        #expect(reason(four, parser: limited) == nil)
        #expect(reason(five, parser: limited) == .tooDeep(limit: 4))
        #expect(reason(#"{"a":{"b":{"c":{"d":1}}}}"#, parser: limited) == nil)
        #expect(reason(#"{"a":{"b":{"c":{"d":{}}}}}"#, parser: limited) == .tooDeep(limit: 4))
        // A hostile body of a million brackets is refused, not a stack overflow.
        let deep = String(repeating: "[", count: 1_000_000)
        #expect(reason(deep, parser: JSONParser(maxBytes: 2_000_000)) == .tooDeep(limit: 32))
    }

    @Test func sizeIsBoundedAtAndPastItsLimit() {
        let limited = JSONParser(maxBytes: 10)
        #expect(reason("\"12345678\"", parser: limited) == nil)
        #expect(reason("\"123456789\"", parser: limited) == .tooLarge(limit: 10))
    }

    /// Every cut of a document fails cleanly, wherever the cut falls (a body cut by the network).
    @Test func everyTruncationIsRefused() {
        let document = Array(#"{"a":[1,-2.5e3,true,false,null,"é\n😀"],"b":{"c":"\ud83d\ude00"}}"#.utf8)
        #expect(reason(bytes: document) == nil)
        for length in 0..<document.count {
            #expect(reason(bytes: Array(document.prefix(length))) != nil, "prefix of \(length) bytes")
        }
    }

    /// The same documents read as Foundation's reader reads them.
    @Test func agreesWithFoundation() throws {
        let documents = [
            #"{"refresh_s":300,"capture":{"logs":"never"},"list":[1,2.5,-0.125,"a\u00e9",true,null]}"#,
            #"[[[]],{},"\ud834\udd1e",1e-7,123456789012]"#,
        ]
        for document in documents {
            let ours = try parse(document)
            let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
            #expect(ours == theirs)
        }
    }

    @Test func errorsSayWhereAndWhat() {
        do {
            _ = try parse("{\"a\": tru }")
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 9)
            #expect(error.description == "not JSON at byte 9: unexpected byte 0x20")
        }
    }

    @Test func writerOutputReadsBack() throws {
        let value = JSONValue.object([
            "s": .string("tab\t quote\" nl\n del\u{7f} é 😀"), "n": .number(-1.25), "a": .array([.bool(true), .null]),
        ])
        #expect(try parser.parse(JSONWriter.encode(value)) == value)
    }
}
