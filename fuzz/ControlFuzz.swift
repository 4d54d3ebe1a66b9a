// libFuzzer entry point for the control socket's requests (see docs/fuzzing.md): any local user
// controls these bytes. The input is a stream as a peer sends it, framed into lines the way the
// server's socket frames them, and every line read as a request.
//
// Besides "no crash", it checks: the lines are the same however the stream arrives (the first
// byte picks the size of each read), none is longer than the limit, and a line past the limit is
// refused as too long; a request read, written back as the client writes it, is one line that
// reads as the same request; a refusal is a ControlError with one of the codes a script branches on.
import ApsioCore
import ApsioControl

/// A small line limit, so that short inputs reach it (the protocol's is 4096 bytes).
let fuzzLineBytes = 96

struct Framed: Equatable {
    var lines: [[UInt8]] = []
    var tooLong = false
}

/// Feeds the stream to a framer in reads of at most `readSize` bytes, as recv does on a socket
/// the peer wrote to in pieces.
func frame(_ stream: [UInt8], readSize: Int) -> Framed {
    var framer = LineFramer()
    var framed = Framed()
    var index = 0
    while true {
        switch framer.next(maxBytes: fuzzLineBytes) {
        case .line(let line):
            framed.lines.append(line)
        case .tooLong:
            framed.tooLong = true
            return framed
        case .needMore(let room):
            check(room > 0, "asked for no bytes")
            guard index < stream.count else { return framed }
            let end = min(index + min(room, readSize), stream.count)
            framer.append(stream[index..<end])
            index = end
        }
    }
}

/// What the protocol says the stream holds: lines up to the first one whose newline would fall
/// past the limit, which makes the rest of the stream unreadable.
func expectedFraming(_ stream: [UInt8]) -> Framed {
    var framed = Framed()
    var rest = stream[...]
    while true {
        let newline = rest.firstIndex(of: 0x0A)
        let length = (newline ?? rest.endIndex) - rest.startIndex
        if length + 1 > fuzzLineBytes, newline != nil || length >= fuzzLineBytes {
            framed.tooLong = true
            return framed
        }
        guard let newline else { return framed }
        framed.lines.append(Array(rest[..<newline]))
        rest = rest[(newline + 1)...]
    }
}

let refusalCodes: Set<ControlErrorCode> = [.badRequest, .unknownCommand, .tooLarge]

func checkRequest(_ line: [UInt8]) {
    let request: ControlRequest
    do {
        request = try ControlRequest.parse(line, maxLineBytes: fuzzLineBytes)
    } catch {
        check(refusalCodes.contains(error.code), "refused with code \(error.code)")
        check(!error.message.isEmpty, "a refusal without a message")
        return
    }
    check(line.count < fuzzLineBytes, "read a line past the limit")
    check(request.namedApps.count <= ControlRequest.maxApps, "more apps than a request may name")
    check(request.namedApps.allSatisfy { !$0.isEmpty }, "an empty app name")

    // Written the way apsioctl writes it: one line, ending in its only newline.
    let written = request.line
    check(written.last == 0x0A && written.dropLast().firstIndex(of: 0x0A) == nil, "not one line")
    let body = Array(written.dropLast())
    do {
        let again = try ControlRequest.parse(body, maxLineBytes: fuzzLineBytes)
        check(again == request, "\(request) read back as \(again)")
        check(again.line == written, "written twice, the lines differ")
    } catch {
        // Escapes can make the written line longer than the one read (DEL is written as \u007f);
        // then, and only then, it is too large.
        check(body.count >= fuzzLineBytes && error.code == .tooLarge, "\(request) written back is refused: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequests(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (stream, readSize) = pieces(data, size)
    let whole = frame(stream, readSize: max(1, stream.count))
    let cut = frame(stream, readSize: readSize)
    check(whole == expectedFraming(stream), "framed whole, the stream gave other lines")
    check(cut == whole, "framed in reads of \(readSize), the stream gave other lines")
    for line in whole.lines {
        check(line.count < fuzzLineBytes, "a line past the limit")
        checkRequest(line)
    }
    return 0
}
