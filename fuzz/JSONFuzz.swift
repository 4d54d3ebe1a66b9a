// libFuzzer entry point for the JSON a backend sends (see docs/fuzzing.md): the strict parser, the
// policy body, and the hello and `next` answers of the live channel (LiveAnswerBody, then
// HelloAnswer and NextAnswer), read as the daemon reads them.
//
// Besides "no crash", it checks: the parser's size and depth limits are exact (a value parses at
// its own size and depth and not one below); a parsed value written by JSONWriter parses back to an
// equal value, and writing that gives the same bytes; a policy body is a policy whose canonical
// JSON reads back to the same policy, or a typed error; hello and `next` answers keep their bounds.
import ApsioCore
import ApsioJSON
import ApsioWire

/// Small limits so that short inputs reach every check. The policy's byte limit is large enough
/// for the canonical JSON of any policy the other limits allow (4 testers of at most 8-byte ids,
/// an origin of at most 267 bytes), so reading it back can only fail for a reason of its own.
let fuzzJSONLimits: Limits = {
    var limits = Limits()
    limits.maxPolicyBytes = 2048
    limits.maxLiveAnswerBytes = 2048
    limits.maxJSONDepth = 6
    limits.maxTesters = 4
    limits.maxTesterIDBytes = 8
    limits.maxCommandsPerAnswer = 3
    limits.maxCommandIDBytes = 8
    return limits
}()

/// Arrays and objects along the deepest path: what `JSONParser.maxDepth` bounds.
func nesting(_ value: JSONValue) -> Int {
    switch value {
    case .array(let items): 1 + (items.map(nesting).max() ?? 0)
    case .object(let members): 1 + (members.values.map(nesting).max() ?? 0)
    case .null, .bool, .number, .string: 0
    }
}

func checkParser(_ bytes: [UInt8]) -> JSONValue? {
    let limits = fuzzJSONLimits
    let value: JSONValue
    do {
        value = try JSONParser(maxBytes: limits.maxPolicyBytes, maxDepth: limits.maxJSONDepth).parse(bytes)
    } catch {
        check((0...bytes.count).contains(error.offset), "an error's offset is outside the body")
        if case .tooLarge = error.reason {
            check(bytes.count > limits.maxPolicyBytes, "refused a body within the limit")
        }
        return nil
    }
    let depth = nesting(value)
    check(bytes.count <= limits.maxPolicyBytes && depth <= limits.maxJSONDepth, "a value past the limits was read")
    // The limits are exact: the value fits limits of its own size and depth, and not one less.
    check((try? JSONParser(maxBytes: bytes.count, maxDepth: depth).parse(bytes)) == value, "refused at its own limits")
    if depth > 0 {
        do {
            _ = try JSONParser(maxBytes: bytes.count, maxDepth: depth - 1).parse(bytes)
            fatalError("read \(depth) levels with a limit of \(depth - 1)")
        } catch {
            check(error.reason == .tooDeep(limit: depth - 1), "too deep was \(error)")
        }
    }
    if !bytes.isEmpty {
        do {
            _ = try JSONParser(maxBytes: bytes.count - 1, maxDepth: depth).parse(bytes)
            fatalError("read \(bytes.count) bytes with a limit of \(bytes.count - 1)")
        } catch {
            check(error.reason == .tooLarge(limit: bytes.count - 1), "too large was \(error)")
        }
    }
    // Written and read back, the value is the same; written again, the same bytes (escapes can make
    // the written form longer than the input, so it is read without the byte limit).
    let written = JSONWriter.encode(value)
    let again: JSONValue
    do {
        again = try JSONParser(maxBytes: .max, maxDepth: depth).parse(written)
    } catch {
        fatalError("JSONWriter wrote what the parser refuses: \(error)")
    }
    check(again == value, "a value changed when written and read back")
    check(JSONWriter.encode(again) == written, "writing a value twice gave different bytes")
    return value
}

func checkPolicy(_ bytes: [UInt8]) {
    let limits = fuzzJSONLimits
    let reading: PolicyReading
    do {
        reading = try PolicyParser.parse(bytes, limits: limits)
    } catch {
        // Typed throws make every failure a PolicyError; it must still say something.
        check(!error.description.isEmpty, "a refusal that says nothing")
        return
    }
    let policy = reading.policy
    check((60...3600).contains(policy.refresh.components.seconds), "refresh_s out of bounds")
    check((0...1).contains(policy.sessionRate), "session_rate out of bounds")
    check((1...24).contains(policy.capture.logsMinSeverity), "logs_min_severity out of bounds")
    if let live = policy.live {
        check((15...120).contains(live.interval.components.seconds), "live.interval_s out of bounds")
        check(live.testers.count <= limits.maxTesters, "more testers than the limit")
        check(Set(live.testers.map(\.id)).count == live.testers.count, "a tester id twice")
        check(live.testers.allSatisfy { !$0.id.isEmpty && $0.id.utf8.count <= limits.maxTesterIDBytes },
              "a tester id past its bounds")
        check(LiveOrigin(live.origin.text) == live.origin, "the origin does not read as itself")
    }
    let canonical = policy.canonicalJSON()
    let again: PolicyReading
    do {
        again = try PolicyParser.parse(canonical, limits: limits)
    } catch {
        fatalError("the canonical JSON of a policy is refused: \(error)")
    }
    check(again.policy == policy && again.ignoredLive == nil, "the canonical JSON reads as another policy")
    check(again.policy.canonicalJSON() == canonical, "the canonical JSON is not a fixed point")
}

func checkLiveAnswers(_ body: JSONValue?) {
    let limits = fuzzJSONLimits
    let hello = HelloAnswer(body: body, limits: limits)
    check(hello.viewers >= 0, "negative viewers")
    check((15...120).contains(hello.interval.components.seconds), "hello interval out of bounds")
    if let token = hello.token {
        check(token.secretHex.utf8.count == limits.deviceTokenHexLength, "a token of the wrong length")
        check(token.secretHex.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
              "a token not of lowercase hex")
    }

    let next = NextAnswer(body: body, limits: limits)
    check(next.commands.count <= limits.maxCommandsPerAnswer, "more commands than one answer may carry")
    check(next.commandsLeftOver >= 0, "a negative count of commands left over")
    check(next.commands.allSatisfy {
        !$0.id.isEmpty && $0.id.utf8.count <= limits.maxCommandIDBytes && $0.name.utf8.count <= limits.maxCommandIDBytes
    }, "a command id or name past its bounds")
    check(next.viewers.map { $0 >= 0 } ?? true, "negative viewers")
    if let stop = next.stop { check(stop.utf8.count <= 64, "a stop reason longer than 64 bytes") }
    let bound: Int64 = 9_000_000_000_000_000
    for milliseconds in [next.untilUnixMs, next.remainingMs].compactMap({ $0 }) {
        check((-bound...bound).contains(milliseconds), "milliseconds out of bounds")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let value = checkParser(bytes)
    checkPolicy(bytes)
    // The live channel reads its answers with the same parser, at the same limits here.
    let body = LiveAnswerBody.parse(bytes, limits: fuzzJSONLimits)
    check(body == value, "an answer body read otherwise than the parser reads it")
    checkLiveAnswers(body)
    return 0
}
