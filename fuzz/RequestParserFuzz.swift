// libFuzzer entry point for HTTPRequestParser (see docs/fuzzing.md): parses as many pipelined
// requests as the input holds, whole and in pieces, and checks that both agree.

struct RequestOutcome: Equatable {
    var events: [HTTPRequestParser.Event] = []
    var error: HTTPParseError?
}

func parseRequests(_ message: [UInt8], pieceSize: Int) -> RequestOutcome {
    var outcome = RequestOutcome()
    var parser = HTTPRequestParser(limits: fuzzLimits)
    var body: [UInt8] = []
    var pending = ArraySlice<UInt8>()
    var index = 0
    do {
        while index < message.count || !pending.isEmpty {
            if pending.isEmpty {
                let end = min(index + pieceSize, message.count)
                pending = message[index..<end]
                index = end
            }
            let step = try parser.feed(pending)
            check(step.consumed <= pending.count, "consumed more than given")
            for event in step.events {
                if case .body(let piece) = event { body += piece } else {
                    if !body.isEmpty { outcome.events.append(.body(body)); body = [] }
                    outcome.events.append(event)
                }
            }
            pending = pending.dropFirst(step.consumed)
            if parser.isComplete {
                parser = HTTPRequestParser(limits: fuzzLimits)
            } else {
                check(pending.isEmpty, "stopped before the end of a request with bytes left")
            }
        }
    } catch {
        outcome.error = error
        // What came out before an error depends on where the input was cut (events of the
        // failing feed are not returned), and the caller discards the message anyway: only the
        // error itself must agree.
        body = []
        outcome.events.removeAll()
    }
    if !body.isEmpty { outcome.events.append(.body(body)) }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (message, pieceSize) = pieces(data, size)
    let whole = parseRequests(message, pieceSize: max(1, message.count))
    let cut = parseRequests(message, pieceSize: pieceSize)
    check(whole == cut, "feeding in pieces of \(pieceSize) changed the result")
    if case .head(let head)? = whole.events.first, let query = head.rawQuery {
        _ = QueryString.parse(query)
    }
    return 0
}
