import ApsioNet
import Testing

/// What a parser made of a whole response, fed in one piece or one byte at a time.
struct ParsedResponse: Equatable {
    var head: HTTPResponseHead?
    var body: [UInt8] = []
    var ended = false
    var reusable = false
}

/// Feeds `text` whole, or byte by byte, then closes the connection when `close` says so.
func parseResponse(
    _ bytes: [UInt8], byteAtATime: Bool, close: Bool = true, limits: HTTPLimits = .default, head: Bool = false
) throws(HTTPParseError) -> ParsedResponse {
    var parser = HTTPResponseParser(limits: limits, isResponseToHead: head)
    var result = ParsedResponse()
    func apply(_ events: [HTTPResponseParser.Event]) {
        for event in events {
            switch event {
            case .head(let value):
                #expect(result.head == nil, "one head per response")
                result.head = value
            case .body(let piece):
                #expect(!result.ended)
                result.body += piece
            case .end:
                #expect(!result.ended, "one end per response")
                result.ended = true
            }
        }
    }
    if byteAtATime {
        for byte in bytes { apply(try parser.feed([byte])) }
    } else {
        apply(try parser.feed(bytes))
    }
    if close && !parser.isComplete { apply(try parser.finish()) }
    result.reusable = parser.connectionReusable
    return result
}

func parseResponse(_ text: String, byteAtATime: Bool, close: Bool = true, limits: HTTPLimits = .default, head: Bool = false)
    throws(HTTPParseError) -> ParsedResponse
{
    try parseResponse(Array(text.utf8), byteAtATime: byteAtATime, close: close, limits: limits, head: head)
}

@Suite struct HTTPResponseParserTests {
    static let modes = [false, true]

    @Test(arguments: modes)
    func contentLengthBody(byteAtATime: Bool) throws {
        let parsed = try parseResponse(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"viewers\":0}",
            byteAtATime: byteAtATime, close: false)
        #expect(parsed.head?.status == 200)
        #expect(parsed.head?.reason == "OK")
        #expect(parsed.head?.headers["content-type"] == "application/json")
        #expect(parsed.body == Array("{\"viewers\":0}".utf8))
        #expect(parsed.ended)
        #expect(parsed.reusable)
    }

    @Test(arguments: modes)
    func chunkedBodyWithExtensionsAndTrailers(byteAtATime: Bool) throws {
        let parsed = try parseResponse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n1A\r\n, a chunk of 26 bytes.....\r\n0\r\nX-Trailer: yes\r\n\r\n",
            byteAtATime: byteAtATime, close: false)
        #expect(String(decoding: parsed.body, as: UTF8.self) == "hello, a chunk of 26 bytes.....")
        #expect(parsed.ended)
        #expect(parsed.reusable)
    }

    @Test(arguments: modes)
    func bodyUntilCloseEndsAtTheClose(byteAtATime: Bool) throws {
        let parsed = try parseResponse("HTTP/1.1 200 OK\r\n\r\nuntil the end", byteAtATime: byteAtATime)
        #expect(parsed.body == Array("until the end".utf8))
        #expect(parsed.ended)
        #expect(!parsed.reusable, "a body framed by the close leaves nothing to reuse")
    }

    @Test(arguments: modes)
    func interimResponsesAreSkipped(byteAtATime: Bool) throws {
        let parsed = try parseResponse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
            byteAtATime: byteAtATime, close: false)
        #expect(parsed.head?.status == 204)
        #expect(parsed.head?.headers["Link"] == nil)
        #expect(parsed.ended)
    }

    @Test func noBodyForHeadOr304EvenWithALength() throws {
        let head = try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n", byteAtATime: false, close: false, head: true)
        #expect(head.ended && head.body.isEmpty && head.reusable)
        let notModified = try parseResponse("HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n", byteAtATime: false, close: false)
        #expect(notModified.ended && notModified.body.isEmpty)
    }

    @Test func statusLineForms() throws {
        #expect(try parseResponse("HTTP/1.1 302\r\nContent-Length: 0\r\n\r\n", byteAtATime: false).head?.status == 302)
        #expect(try parseResponse("HTTP/1.1 503 \r\nContent-Length: 0\r\n\r\n", byteAtATime: false).head?.reason == "")
        let old = try parseResponse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", byteAtATime: false, close: false)
        #expect(old.head?.minorVersion == 0)
        #expect(!old.reusable, "HTTP/1.0 closes unless it says keep-alive")
        let closing = try parseResponse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", byteAtATime: false, close: false)
        #expect(!closing.reusable)
    }

    static let badStatusLines: [(String, HTTPParseError)] = [
        ("HTTP/1.1 OK\r\n\r\n", .invalidStartLine),
        ("HTTP/1.1 20 OK\r\n\r\n", .invalidStartLine),
        ("HTTP/1.1 2000 OK\r\n\r\n", .invalidStartLine),
        ("HTTP/1.1 099 Low\r\n\r\n", .invalidStartLine),
        ("HTTP/1.1  200 OK\r\n\r\n", .invalidStartLine),
        ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .invalidStartLine),
        ("ICY 200 OK\r\n\r\n", .invalidStartLine),
        ("\r\n\r\n", .invalidStartLine),
        ("HTTP/2 200 OK\r\n\r\n", .unsupportedVersion),
        ("HTTP/1.2 200 OK\r\n\r\n", .unsupportedVersion),
        ("HTTP/1.1 200 OK\nContent-Length: 0\n\n", .invalidLineEnding),
        ("HTTP/1.1 200 OK\r\r\n\r\n", .invalidLineEnding),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .unexpectedSwitchingProtocols),
    ]

    @Test(arguments: badStatusLines)
    func badStatusLine(text: String, error: HTTPParseError) {
        for byteAtATime in Self.modes {
            #expect(throws: error) { try parseResponse(text, byteAtATime: byteAtATime) }
        }
    }

    static let badHeaders: [(String, HTTPParseError)] = [
        ("No-Colon\r\n", .invalidHeaderLine),
        ("Space Before: x\r\n", .invalidHeaderLine),
        ("Name : x\r\n", .invalidHeaderLine),
        (": no name\r\n", .invalidHeaderLine),
        ("A: b\r\n folded\r\n", .invalidHeaderLine),
        ("Bell: \u{7}\r\n", .invalidHeaderLine),
        ("Content-Length: 12abc\r\n", .invalidContentLength),
        ("Content-Length: -1\r\n", .invalidContentLength),
        ("Content-Length: 3\r\nContent-Length: 4\r\n", .invalidContentLength),
        ("Content-Length: 3, 4\r\n", .invalidContentLength),
        ("Content-Length: 99999999999999999999999\r\n", .bodyTooLarge(limit: 1 << 20)),
        ("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", .conflictingFraming),
        ("Transfer-Encoding: gzip, chunked\r\n", .unsupportedTransferEncoding("gzip, chunked")),
        ("Transfer-Encoding: identity\r\n", .unsupportedTransferEncoding("identity")),
    ]

    @Test(arguments: badHeaders)
    func badHeader(field: String, error: HTTPParseError) {
        for byteAtATime in Self.modes {
            #expect(throws: error) { try parseResponse("HTTP/1.1 200 OK\r\n\(field)\r\nabc", byteAtATime: byteAtATime) }
        }
    }

    @Test func repeatedEqualLengthsAreOne() throws {
        let parsed = try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3, 3\r\n\r\nabc", byteAtATime: false, close: false)
        #expect(parsed.body == Array("abc".utf8))
    }

    @Test func limitsOnTheHead() {
        var limits = HTTPLimits.default
        limits.maxStartLineBytes = 32
        limits.maxHeaderBytes = 100
        limits.maxHeaderCount = 3
        // The start line at its limit (30 bytes + CRLF = 32) passes, one more byte does not.
        let atLimit = "HTTP/1.1 200 " + String(repeating: "x", count: 17) + "\r\n"
        #expect(atLimit.utf8.count == 32)
        #expect(throws: Never.self) { try parseResponse(atLimit + "\r\n", byteAtATime: false, limits: limits) }
        #expect(throws: HTTPParseError.startLineTooLong(limit: 32)) {
            try parseResponse("HTTP/1.1 200 " + String(repeating: "x", count: 18) + "\r\n\r\n", byteAtATime: true, limits: limits)
        }
        #expect(throws: HTTPParseError.tooManyHeaders(limit: 3)) {
            try parseResponse("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", byteAtATime: false, limits: limits)
        }
        #expect(throws: HTTPParseError.headersTooLarge(limit: 100)) {
            try parseResponse("HTTP/1.1 200 OK\r\nA: " + String(repeating: "v", count: 100) + "\r\n\r\n", byteAtATime: true, limits: limits)
        }
        // A head that never ends is cut at the limit, not buffered without end.
        #expect(throws: HTTPParseError.headersTooLarge(limit: 100)) {
            try parseResponse("HTTP/1.1 200 OK\r\nA: " + String(repeating: "v", count: 1000), byteAtATime: false, close: false, limits: limits)
        }
        // Interim responses count against the same head limit.
        #expect(throws: HTTPParseError.headersTooLarge(limit: 100)) {
            try parseResponse(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 5), byteAtATime: false, close: false, limits: limits)
        }
    }

    @Test func limitsOnTheBody() {
        var limits = HTTPLimits.default
        limits.maxBodyBytes = 10
        #expect(throws: Never.self) {
            try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", byteAtATime: false, limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", byteAtATime: false, close: false, limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n", byteAtATime: true, close: false, limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try parseResponse("HTTP/1.1 200 OK\r\n\r\n0123456789A", byteAtATime: false, close: false, limits: limits)
        }
        // A chunk size with more hex digits than any integer holds is refused, not overflowed.
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 1 << 20)) {
            try parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n", byteAtATime: false, close: false)
        }
    }

    static let badChunks: [(String, HTTPParseError)] = [
        ("5\r\nhello", .truncated("chunked body")),
        ("5\r\nhel", .truncated("chunked body")),
        ("5\r\nhello\r\n", .truncated("chunked body")),
        ("5\r\nhello\r\n0\r\n", .truncated("chunked body")),
        ("5\r\nhelloX\r\n0\r\n\r\n", .invalidChunk("chunk data is longer than its size")),
        ("Z\r\n", .invalidChunk("a chunk size must start with a hex digit")),
        ("\r\n", .invalidChunk("a chunk size must start with a hex digit")),
        ("5x\r\nhello\r\n", .invalidChunk("unexpected byte in a chunk size")),
        ("5\nhello\r\n", .invalidChunk("unexpected byte in a chunk size")),
        ("5\r\rhello\r\n", .invalidLineEnding),
        ("5;\u{1}\r\nhello\r\n", .invalidChunk("control character in a chunk extension")),
        ("0\r\nBad Trailer\r\n\r\n", .invalidHeaderLine),
    ]

    @Test(arguments: badChunks)
    func badChunk(chunks: String, error: HTTPParseError) {
        for byteAtATime in Self.modes {
            #expect(throws: error) {
                try parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks, byteAtATime: byteAtATime)
            }
        }
    }

    @Test func chunkLineLimit() {
        var limits = HTTPLimits.default
        limits.maxChunkLineBytes = 16
        #expect(throws: HTTPParseError.chunkLineTooLong(limit: 16)) {
            try parseResponse(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "e", count: 100),
                byteAtATime: false, close: false, limits: limits)
        }
    }

    @Test(arguments: modes)
    func lyingContentLengthIsTruncation(byteAtATime: Bool) {
        #expect(throws: HTTPParseError.truncated("body (90 bytes of Content-Length missing)")) {
            try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", byteAtATime: byteAtATime)
        }
        #expect(throws: HTTPParseError.truncated("response head")) {
            try parseResponse("HTTP/1.1 200 OK\r\nContent-Le", byteAtATime: byteAtATime)
        }
    }

    @Test func bytesAfterTheMessageMakeTheConnectionUnfit() throws {
        var parser = HTTPResponseParser()
        let events = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA".utf8))
        #expect(events == [.head(parser.head!), .body(Array("ok".utf8)), .end])
        #expect(parser.excessByteCount == 5)
        #expect(!parser.connectionReusable)
    }

    /// Found by the fuzzer: the error must not depend on how the bytes were split.
    @Test func errorsDoNotDependOnTheSplit() {
        // A first line that is not HTTP, followed by a line that is not a header either.
        for byteAtATime in Self.modes {
            #expect(throws: HTTPParseError.invalidStartLine) {
                try parseResponse("Hsfer-Enco: chunked\r\n1\r\nT: 1\r\n\r\n", byteAtATime: byteAtATime)
            }
        }
        // After an interim response, a long status line crosses the head's remaining budget before
        // its own limit: the head limit is the one reported, whole or byte by byte.
        var limits = HTTPLimits.default
        limits.maxStartLineBytes = 128
        limits.maxHeaderBytes = 128
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 " + String(repeating: "r", count: 120) + "\r\n\r\n"
        for byteAtATime in Self.modes {
            #expect(throws: HTTPParseError.headersTooLarge(limit: 128)) {
                try parseResponse(text, byteAtATime: byteAtATime, limits: limits)
            }
        }
    }

    @Test func anErrorSticks() {
        var parser = HTTPResponseParser()
        #expect(throws: HTTPParseError.invalidStartLine) { try parser.feed(Array("NOPE 200 OK\r\n".utf8)) }
        #expect(throws: HTTPParseError.invalidStartLine) { try parser.feed(Array("HTTP/1.1 200 OK\r\n\r\n".utf8)) }
    }

    /// Every way of splitting a response in two gives the same result as feeding it whole.
    @Test func everySplitPointAgrees() throws {
        let text = Array(
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX: y\r\n\r\n"
                + "3\r\nabc\r\n10;e=1\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\n").utf8)
        let whole = try parseResponse(text, byteAtATime: false, close: false)
        for split in 0...text.count {
            var parser = HTTPResponseParser()
            var body: [UInt8] = []
            var ended = false
            for part in [text[0..<split], text[split...]] {
                for event in try parser.feed(part) {
                    if case .body(let piece) = event { body += piece }
                    if case .end = event { ended = true }
                }
            }
            #expect(body == whole.body && ended, "split at \(split)")
        }
    }
}
