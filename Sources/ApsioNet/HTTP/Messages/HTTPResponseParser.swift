/// An HTTP/1.1 response, parsed incrementally from whatever bytes the connection gives: one at a
/// time or all at once, the events are the same. It knows nothing of sockets, so the tests feed
/// it byte by byte and the fuzzer feeds it garbage.
///
/// Interim `1xx` responses are skipped (their bytes count against the head limit); a `101` is an
/// error, since the client never asks to switch. After `.end`, the parser takes no more bytes:
/// `excessByteCount` counts what a server sent past the message, which makes its connection unfit
/// for reuse.
package struct HTTPResponseParser: Sendable {
    package enum Event: Sendable, Equatable {
        case head(HTTPResponseHead)
        case body([UInt8])
        case end
    }

    private enum State: Sendable {
        case head(HTTPHeadParser)
        case body(HTTPBodyFramer)
        case untilClose(received: Int)
        case complete
    }

    private let limits: HTTPLimits
    private let isResponseToHead: Bool
    private var state: State
    private var failure: HTTPParseError?
    private var headBytesUsed = 0
    package private(set) var head: HTTPResponseHead?
    /// Whether any byte arrived: a connection closed before that never answered at all.
    package private(set) var hasReceivedBytes = false
    package private(set) var excessByteCount = 0

    /// `isResponseToHead`: the request was `HEAD`, so the response has no body whatever it says.
    package init(limits: HTTPLimits = .default, isResponseToHead: Bool = false) {
        self.limits = limits
        self.isResponseToHead = isResponseToHead
        self.state = .head(HTTPHeadParser(.status, limits: limits))
    }

    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Whether the connection may carry another exchange: a complete message, framed by its length
    /// or chunks (not by the close), that the server did not ask to close, with nothing after it.
    package var connectionReusable: Bool {
        guard isComplete, excessByteCount == 0, let head else { return false }
        return head.allowsReuse && !readsUntilClose
    }

    private var readsUntilClose = false

    package mutating func feed(_ bytes: [UInt8]) throws(HTTPParseError) -> [Event] {
        try feed(bytes[...])
    }

    package mutating func feed(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> [Event] {
        if let failure { throw failure }
        if !bytes.isEmpty { hasReceivedBytes = true }
        do {
            return try run(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    /// The connection closed: ends a body read until the close, and is an error anywhere else.
    package mutating func finish() throws(HTTPParseError) -> [Event] {
        if let failure { throw failure }
        var events: [Event] = []
        switch state {
        case .complete: break
        case .untilClose:
            state = .complete
            events = [.end]
        case .head:
            failure = .truncated(hasReceivedBytes ? "response head" : "response: the server closed without answering")
        case .body(let framer):
            failure = .truncated(framer.missing)
        }
        if let failure { throw failure }
        return events
    }

    private mutating func run(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> [Event] {
        var events: [Event] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .complete:
                excessByteCount += bytes.endIndex - index
                return events
            case .head(var parser):
                guard let end = try parser.consume(bytes[index...]) else {
                    state = .head(parser)
                    return events
                }
                index = end
                headBytesUsed += parser.byteCount
                try startBody(parser, events: &events)
            case .body(var framer):
                let (next, isDone) = try framer.feed(bytes[index...], into: &events, body: Event.body, end: .end)
                index = next
                state = isDone ? .complete : .body(framer)
            case .untilClose(let received):
                let count = bytes.endIndex - index
                guard received + count <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
                events.append(.body(Array(bytes[index...])))
                index = bytes.endIndex
                state = .untilClose(received: received + count)
            }
        }
        return events
    }

    /// The head is complete: decide how the body is framed (RFC 9112 6.3).
    private mutating func startBody(_ parser: HTTPHeadParser, events: inout [Event]) throws(HTTPParseError) {
        guard let line = parser.startLine else { throw .invalidStartLine }
        let parsed = try HTTPResponseHead.parse(line, headers: parser.headers)
        if parsed.status == 101 { throw .unexpectedSwitchingProtocols }
        if parsed.status < 200 {
            // An interim response: the real one follows, within what is left of the head limit.
            let left = limits.maxHeaderBytes - headBytesUsed
            guard left > 0 else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            state = .head(HTTPHeadParser(.status, limits: limits, maxBytes: left))
            return
        }
        head = parsed
        events.append(.head(parsed))
        if isResponseToHead || parsed.status == 204 || parsed.status == 304 {
            // Still checked: a malformed length is a sign of a confused or hostile server.
            _ = try HTTPSyntax.bodyFraming(parsed.headers, maxBody: Int.max)
            state = .complete
            events.append(.end)
            return
        }
        switch try HTTPSyntax.bodyFraming(parsed.headers, maxBody: limits.maxBodyBytes) {
        case .chunked:
            state = .body(.chunked(limits: limits))
        case .length(0):
            state = .complete
            events.append(.end)
        case .length(let length):
            state = .body(.length(length))
        case nil:
            readsUntilClose = true
            state = .untilClose(received: 0)
        }
    }
}
