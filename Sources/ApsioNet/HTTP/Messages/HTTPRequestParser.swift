/// An HTTP/1.1 request, parsed incrementally, for the server: same line rules and limits as the
/// response parser, a body framed by `Content-Length` or chunks (none without either), and it
/// stops at the end of the message so that a pipelined next request stays with the caller.
package struct HTTPRequestParser: Sendable {
    package enum Event: Sendable, Equatable {
        case head(HTTPRequestHead)
        case body([UInt8])
        case end
    }

    /// What one `feed` produced, and how many of its bytes it took: fewer than given only when the
    /// request ended, and the rest belongs to the next one.
    package struct Step: Sendable, Equatable {
        package var events: [Event]
        package var consumed: Int
    }

    private enum State: Sendable {
        case head(HTTPHeadParser)
        case body(HTTPBodyFramer)
        case complete
    }

    private let limits: HTTPLimits
    private var state: State
    private var failure: HTTPParseError?
    package private(set) var head: HTTPRequestHead?

    package init(limits: HTTPLimits = .default) {
        self.limits = limits
        self.state = .head(HTTPHeadParser(.request, limits: limits, skipsLeadingBlankLines: true))
    }

    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Whether any byte of this request arrived (an idle keep-alive connection has none).
    package var hasStarted: Bool {
        if case .head(let parser) = state { return parser.hasStarted }
        return true
    }

    package mutating func feed(_ bytes: [UInt8]) throws(HTTPParseError) -> Step {
        try feed(bytes[...])
    }

    package mutating func feed(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Step {
        if let failure { throw failure }
        do {
            return try run(bytes)
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func run(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Step {
        var events: [Event] = []
        var index = bytes.startIndex
        loop: while index < bytes.endIndex {
            switch state {
            case .complete:
                break loop
            case .head(var parser):
                guard let end = try parser.consume(bytes[index...]) else {
                    state = .head(parser)
                    index = bytes.endIndex
                    break loop
                }
                index = end
                guard let line = parser.startLine else { throw .invalidStartLine }
                let parsed = try HTTPRequestHead.parse(line, headers: parser.headers)
                head = parsed
                events.append(.head(parsed))
                switch try HTTPSyntax.bodyFraming(parsed.headers, maxBody: limits.maxBodyBytes) {
                case .chunked: state = .body(.chunked(limits: limits))
                case .length(let length) where length > 0: state = .body(.length(length))
                default:
                    state = .complete
                    events.append(.end)
                }
            case .body(var framer):
                let (next, isDone) = try framer.feed(bytes[index...], into: &events, body: Event.body, end: .end)
                index = next
                state = isDone ? .complete : .body(framer)
            }
        }
        return Step(events: events, consumed: index - bytes.startIndex)
    }
}
