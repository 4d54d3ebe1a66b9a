/// A message body framed by `Content-Length` or by chunks, read as its bytes arrive: the part of
/// the message the request and response parsers read alike.
struct HTTPBodyFramer: Sendable {
    private enum Framing: Sendable {
        case fixed(remaining: Int)
        case chunked(ChunkedDecoder)
    }

    private var framing: Framing

    static func length(_ length: Int) -> HTTPBodyFramer { HTTPBodyFramer(framing: .fixed(remaining: length)) }

    static func chunked(limits: HTTPLimits) -> HTTPBodyFramer {
        HTTPBodyFramer(framing: .chunked(ChunkedDecoder(limits: limits)))
    }

    /// What is missing when the connection closes before the body's end, for the error.
    var missing: String {
        switch framing {
        case .fixed(let remaining): "body (\(remaining) bytes of Content-Length missing)"
        case .chunked: "chunked body"
        }
    }

    /// `consume` for a parser: what the bytes held of the body goes to `events` as `body`, and
    /// `end` follows once the body is complete. Returns the index after the bytes taken and
    /// whether the body is complete.
    mutating func feed<Event>(
        _ bytes: ArraySlice<UInt8>, into events: inout [Event], body: ([UInt8]) -> Event, end: Event
    ) throws(HTTPParseError) -> (next: ArraySlice<UInt8>.Index, isDone: Bool) {
        let (taken, next, isDone) = try consume(bytes)
        if !taken.isEmpty { events.append(body(taken)) }
        if isDone { events.append(end) }
        return (next, isDone)
    }

    /// Takes body bytes from the front of `bytes`: returns what they held of the body (possibly
    /// nothing: chunk sizes and trailers carry none), the index after the last byte taken, and
    /// whether the body is complete. Bytes past the body's end are left for the caller.
    mutating func consume(
        _ bytes: ArraySlice<UInt8>
    ) throws(HTTPParseError) -> (body: [UInt8], next: ArraySlice<UInt8>.Index, isDone: Bool) {
        switch framing {
        case .fixed(let remaining):
            let take = min(remaining, bytes.count)
            let next = bytes.startIndex + take
            framing = .fixed(remaining: remaining - take)
            return (Array(bytes[bytes.startIndex..<next]), next, take == remaining)
        case .chunked(var decoder):
            var body: [UInt8] = []
            let next = try decoder.decode(bytes, into: &body)
            framing = .chunked(decoder)
            return (body, next, decoder.isDone)
        }
    }
}
