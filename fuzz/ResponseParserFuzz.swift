// libFuzzer entry point for HTTPResponseParser (see docs/fuzzing.md). Besides "no crash, no hang",
// it checks that feeding the bytes in pieces gives exactly what feeding them whole gives.

struct ResponseOutcome: Equatable {
    var events: [HTTPResponseParser.Event] = []
    var error: HTTPParseError?
    var reusable = false
}

func parseResponse(_ message: [UInt8], pieceSize: Int, isHead: Bool) -> ResponseOutcome {
    var parser = HTTPResponseParser(limits: fuzzLimits, isResponseToHead: isHead)
    var outcome = ResponseOutcome()
    var body: [UInt8] = []
    func record(_ events: [HTTPResponseParser.Event]) {
        for event in events {
            // Body pieces depend on how the input was cut; compare their concatenation.
            if case .body(let piece) = event { body += piece } else {
                if !body.isEmpty { outcome.events.append(.body(body)); body = [] }
                outcome.events.append(event)
            }
        }
    }
    do {
        var index = 0
        while index < message.count {
            let end = min(index + pieceSize, message.count)
            record(try parser.feed(message[index..<end]))
            index = end
        }
        if !parser.isComplete { record(try parser.finish()) }
        if !body.isEmpty { outcome.events.append(.body(body)) }
        if case .head(let head)? = outcome.events.first, let value = head.headers["Retry-After"] {
            _ = RetryAfter.parse(value, nowUnixSeconds: 1_700_000_000)
        }
        outcome.reusable = parser.connectionReusable
    } catch {
        if !body.isEmpty { outcome.events.append(.body(body)) }
        outcome.error = error
        // What came out before an error depends on where the input was cut (events of the
        // failing feed are not returned), and the caller discards the message anyway: only the
        // error itself must agree.
        body = []
        outcome.events.removeAll()
    }
    var total = 0
    for case .body(let piece) in outcome.events { total += piece.count }
    check(total <= fuzzLimits.maxBodyBytes, "a body passed its limit")
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (message, pieceSize) = pieces(data, size)
    let isHead = size > 0 && data[0] & 0x80 != 0
    let whole = parseResponse(message, pieceSize: max(1, message.count), isHead: isHead)
    let cut = parseResponse(message, pieceSize: pieceSize, isHead: isHead)
    check(whole == cut, "feeding in pieces of \(pieceSize) changed the result")
    return 0
}
