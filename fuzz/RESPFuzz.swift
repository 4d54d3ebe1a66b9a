// libFuzzer entry point for resp (see docs/fuzzing.md): the replies a Redis server (or whatever
// answers on its port) sends the backend, read by RESPReplyParser, fed in pieces as a socket
// hands them over.
//
// Besides "no crash", it checks: feeding in pieces gives the same replies and the same error as
// feeding at once (short of the buffer's limit, which what is buffered at once decides); the buffer never holds more than its limit; every reply written back as RESP
// parses to the same reply; and an error is final (the connection is closed on it).

/// Small limits so that short inputs reach every one of them.
let fuzzRESPLimits = RESPLimits(maxBufferedBytes: 2048, maxBulkBytes: 512, maxArrayElements: 64, maxDepth: 4, maxLineBytes: 128)

struct RESPParse: Equatable {
    var replies: [RESPValue] = []
    var error: RESPProtocolError?
}

func parseRESP(_ message: [UInt8], pieceSize: Int) -> RESPParse {
    var parser = RESPReplyParser(limits: fuzzRESPLimits)
    var out = RESPParse()
    var offset = 0
    while offset < message.count {
        let end = min(message.count, offset + pieceSize)
        do {
            try parser.append(message[offset..<end])
            while let reply = try parser.next() { out.replies.append(reply) }
        } catch {
            out.error = error
            return out
        }
        check(parser.bufferedCount <= fuzzRESPLimits.maxBufferedBytes, "the buffer passed its limit")
        offset = end
    }
    return out
}

/// The reply as a server would write it.
func encodeRESP(_ value: RESPValue, into out: inout [UInt8]) {
    func line(_ type: Character, _ text: String) {
        out.append(contentsOf: String(type).utf8)
        out.append(contentsOf: text.utf8)
        out.append(contentsOf: [13, 10])
    }
    switch value {
    case .simple(let text): line("+", text)
    case .error(let text): line("-", text)
    case .integer(let number): line(":", String(number))
    case .bulk(nil): line("$", "-1")
    case .bulk(let bytes?):
        line("$", String(bytes.count))
        out.append(contentsOf: bytes)
        out.append(contentsOf: [13, 10])
    case .array(nil): line("*", "-1")
    case .array(let elements?):
        line("*", String(elements.count))
        for element in elements { encodeRESP(element, into: &out) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRESP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (message, pieceSize) = pieces(data, size)
    let whole = parseRESP(message, pieceSize: max(1, message.count))
    let cut = parseRESP(message, pieceSize: pieceSize)
    let bufferFull = RESPProtocolError.tooLarge("buffered bytes")
    if whole.error == bufferFull || cut.error == bufferFull {
        // How much is buffered at once depends on the pieces (the whole input may not fit at
        // all): up to the first overflow, both read the same replies.
        let common = min(whole.replies.count, cut.replies.count)
        check(whole.replies.prefix(common) == cut.replies.prefix(common), "feeding in pieces of \(pieceSize) changed the replies")
    } else {
        check(whole == cut, "feeding in pieces of \(pieceSize) changed the result")
    }
    for reply in whole.replies {
        // A simple string or error that is not valid UTF-8 reads back with replacement characters,
        // which may be longer than the line limit or differ in bytes: only the others round-trip.
        var encoded: [UInt8] = []
        encodeRESP(reply, into: &encoded)
        guard encoded.count <= fuzzRESPLimits.maxBufferedBytes, !hasLossyText(reply) else { continue }
        let again = parseRESP(encoded, pieceSize: max(1, encoded.count))
        check(again.error == nil && again.replies == [reply], "a reply written back did not parse to itself")
    }
    return 0
}

func hasLossyText(_ value: RESPValue) -> Bool {
    switch value {
    case .simple(let text), .error(let text): text.utf8.contains(13) || text.utf8.contains(10) || text.contains("\u{FFFD}")
    case .array(let elements?): elements.contains(where: hasLossyText)
    default: false
    }
}
