@testable import ApsioRedis
import Testing

/// The reply parser as the connection drives it: bytes in any pieces, replies out in order, and
/// a clear error for what is not RESP or passes a limit.
@Suite struct RESPReplyParserTests {
    static func parse(_ text: [UInt8], pieces size: Int, limits: RESPLimits = .standard) throws -> [RESPValue] {
        var parser = RESPReplyParser(limits: limits)
        var replies: [RESPValue] = []
        var offset = 0
        while offset < text.count {
            let end = min(text.count, offset + size)
            try parser.append(text[offset..<end])
            while let reply = try parser.next() { replies.append(reply) }
            offset = end
        }
        return replies
    }

    static let stream = Array("+OK\r\n-ERR unknown command 'FOO'\r\n:42\r\n:-9223372036854775808\r\n$5\r\nhe\r\no\r\n$0\r\n\r\n$-1\r\n*3\r\n:1\r\n*2\r\n+a\r\n$-1\r\n*-1\r\n*0\r\n".utf8)
    static let replies: [RESPValue] = [
        .simple("OK"), .error("ERR unknown command 'FOO'"), .integer(42), .integer(.min),
        .bulk(Array("he\r\no".utf8)), .bulk([]), .bulk(nil),
        .array([.integer(1), .array([.simple("a"), .bulk(nil)]), .array(nil)]), .array([]),
    ]

    @Test func everyTypeParsesWhateverPiecesTheSocketHandsOver() throws {
        for size in [1, 2, 3, 7, Self.stream.count] {
            #expect(try Self.parse(Self.stream, pieces: size) == Self.replies, "in pieces of \(size)")
        }
    }

    @Test func anIncompleteReplyWaitsForItsRest() throws {
        var parser = RESPReplyParser()
        try parser.append(Array("*2\r\n$3\r\nab".utf8))
        #expect(try parser.next() == nil)
        try parser.append(Array("c\r\n:7\r\n".utf8))
        #expect(try parser.next() == .array([.bulk(Array("abc".utf8)), .integer(7)]))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedCount == 0)
    }

    @Test func whatIsNotRESPIsAnErrorNamingWhy() {
        let cases: [(String, RESPProtocolError)] = [
            ("HTTP/1.1 200 OK\r\n", .unknownType(UInt8(ascii: "H"))),
            ("+OK\rX", .malformedLine),
            (":12a\r\n", .malformedLength),
            (":9223372036854775808\r\n", .malformedLength),
            ("$-2\r\n", .malformedLength),
            ("$3\r\nabcd\r\n", .malformedLine),
            ("*-\r\n", .malformedLength),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text.debugDescription)") { try Self.parse(Array(text.utf8), pieces: 1) }
        }
    }

    /// A hostile length costs nothing: it is refused before anything is reserved for it.
    @Test func everyLimitIsEnforcedBeforeAnythingIsReserved() {
        let limits = RESPLimits(maxBufferedBytes: 1024, maxBulkBytes: 16, maxArrayElements: 4, maxDepth: 2, maxLineBytes: 24)
        let cases: [(String, RESPProtocolError)] = [
            ("$17\r\n", .tooLarge("bulk string")),
            ("$9223372036854775807\r\n", .tooLarge("bulk string")),
            ("*5\r\n", .tooLarge("array")),
            ("*1\r\n*1\r\n*1\r\n:1\r\n", .tooDeep),
            ("+" + String(repeating: "x", count: 25) + "\r\n", .tooLarge("line")),
            ("+" + String(repeating: "x", count: 26), .tooLarge("line")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text.debugDescription)") { try Self.parse(Array(text.utf8), pieces: 3, limits: limits) }
        }
        var parser = RESPReplyParser(limits: limits)
        #expect(throws: RESPProtocolError.tooLarge("buffered bytes")) { try parser.append([UInt8](repeating: 0x2b, count: 1025)) }
    }

    @Test func aCommandIsAnArrayOfBulkStringsWhateverItsBytes() {
        var out: [UInt8] = []
        RESPCommand([Array("SET".utf8), [0, 13, 10], []]).encode(into: &out)
        #expect(out == Array("*3\r\n$3\r\nSET\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$0\r\n\r\n".utf8))
        #expect(RESPCommand("GET", "k").name == "GET")
    }
}
