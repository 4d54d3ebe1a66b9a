import ApsioNet
import Testing

@Suite struct HTTPRequestParserTests {
    struct Parsed {
        var head: HTTPRequestHead?
        var body: [UInt8] = []
        var ended = false
        var rest: [UInt8] = []
    }

    func parse(_ text: String, byteAtATime: Bool, limits: HTTPLimits = .default) throws(HTTPParseError) -> Parsed {
        var parser = HTTPRequestParser(limits: limits)
        var parsed = Parsed()
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count && !parser.isComplete {
            let piece = byteAtATime ? bytes[index..<(index + 1)] : bytes[index...]
            let step = try parser.feed(piece)
            for event in step.events {
                switch event {
                case .head(let head): parsed.head = head
                case .body(let bytes): parsed.body += bytes
                case .end: parsed.ended = true
                }
            }
            index += step.consumed
            if step.consumed < piece.count { break }
        }
        parsed.rest = Array(bytes[index...])
        return parsed
    }

    @Test(arguments: [false, true])
    func postWithBodyThenAPipelinedRequest(byteAtATime: Bool) throws {
        let parsed = try parse(
            "POST /v1/live/hello?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n",
            byteAtATime: byteAtATime)
        #expect(parsed.head?.method == "POST")
        #expect(parsed.head?.path == "/v1/live/hello")
        #expect(parsed.head?.rawQuery == "x=1")
        #expect(parsed.body == Array("{}".utf8))
        #expect(parsed.ended)
        #expect(parsed.head?.keepsAlive == true)
        #expect(String(decoding: parsed.rest, as: UTF8.self) == "GET / HTTP/1.1\r\n", "the next request stays unread")
    }

    @Test(arguments: [false, true])
    func chunkedRequestBody(byteAtATime: Bool) throws {
        let parsed = try parse(
            "POST /v1/logs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n", byteAtATime: byteAtATime)
        #expect(parsed.body == Array("abcd".utf8))
        #expect(parsed.ended)
    }

    @Test func requestWithoutBodyEndsAtTheHead() throws {
        let parsed = try parse("\r\nGET /v1/live/next HTTP/1.0\r\n\r\n", byteAtATime: false)
        #expect(parsed.ended && parsed.body.isEmpty)
        #expect(parsed.head?.keepsAlive == false, "HTTP/1.0 closes by default")
    }

    static let malformed: [(String, HTTPParseError)] = [
        ("GARBAGE\r\n\r\n", .invalidStartLine),
        ("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", .invalidStartLine),
        ("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", .invalidStartLine),
        ("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", .invalidStartLine),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", .unsupportedVersion),
        ("GET http://evil/ HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        ("GET * HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        ("GET / HTTP/1.1\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .unsupportedTransferEncoding("chunked, chunked")),
        ("GET / HTTP/1.1\nHost: x\n\n", .invalidLineEnding),
    ]

    @Test(arguments: malformed)
    func malformedRequest(text: String, error: HTTPParseError) {
        for byteAtATime in [false, true] {
            #expect(throws: error) { try parse(text, byteAtATime: byteAtATime) }
        }
    }

    @Test func statusesForTheServer() {
        #expect(HTTPParseError.bodyTooLarge(limit: 1).suggestedStatus == 413)
        #expect(HTTPParseError.headersTooLarge(limit: 1).suggestedStatus == 431)
        #expect(HTTPParseError.invalidHost.suggestedStatus == 400)
    }

    @Test func bodyLimit() {
        var limits = HTTPLimits.default
        limits.maxBodyBytes = 4
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 4)) {
            try parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", byteAtATime: false, limits: limits)
        }
    }
}
