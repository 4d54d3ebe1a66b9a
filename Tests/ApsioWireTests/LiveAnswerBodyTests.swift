import ApsioCore
import ApsioWire
import ApsioJSON
import Testing

@Suite struct LiveAnswerBodyTests {
    /// An answer is read with the strict parser every body a backend sends goes through. It was
    /// read with Foundation's JSONDecoder, which takes the first of two equal keys (a backend's own
    /// reader may take the last: the two then disagree about how many viewers there are) and
    /// arrays nested 500 deep. Found while writing the JSON fuzzer, which would have fuzzed a
    /// parser these answers did not go through.
    @Test(arguments: [
        "{\"viewers\":0,\"viewers\":3}",
        String(repeating: "[", count: 33) + String(repeating: "]", count: 33),
        "{\"viewers\":1}\u{0}",
    ])
    func anAnswerThatIsNotStrictJSONHasNoBody(_ body: String) {
        #expect(LiveAnswerBody.parse(Array(body.utf8)) == nil)
        #expect(LiveBodies().helloAnswer(Array(body.utf8), limits: .spec) == HelloAnswer(body: nil))
        #expect(LiveBodies().nextAnswer(Array(body.utf8), limits: .spec) == NextAnswer())
    }

    @Test func anAnswerIsReadWithinItsLimits() {
        let body = Array("{\"viewers\":2,\"interval_s\":20}".utf8)
        #expect(LiveBodies().helloAnswer(body, limits: .spec) == HelloAnswer(viewers: 2, interval: .seconds(20), token: nil))
        var small = Limits.spec
        small.maxLiveAnswerBytes = body.count - 1
        #expect(LiveBodies().helloAnswer(body, limits: small) == HelloAnswer(body: nil))
    }

    /// A field of another JSON type is as good as absent: `"30"` is not a number, a number is not a
    /// token (`HelloAnswerTests` has the spec's vectors of both rules).
    @Test func aFieldOfAnotherTypeIsAbsent() {
        let token = String(repeating: "ab", count: 32)
        let typed = HelloAnswer(body: .object(["viewers": .number(2), "interval_s": .number(20), "device_token": .string(token)]))
        #expect(typed == HelloAnswer(viewers: 2, interval: .seconds(20), token: DeviceToken(token)))
        let mistyped = HelloAnswer(body: .object(["viewers": .string("2"), "interval_s": .string("20"), "device_token": .number(12345)]))
        #expect(mistyped == HelloAnswer(viewers: 0, interval: .seconds(30), token: nil))
        #expect(HelloAnswer(body: .object(["interval_s": .bool(true)])).interval == .seconds(30))
    }

    /// Commands take no arguments (16.6): absent, null, `{}` and `[]` are none; anything else makes
    /// the command unknown, and refused.
    @Test func argumentsOfACommand() {
        for args: JSONValue? in [nil, .null, .object([:]), .array([])] {
            #expect(LiveCommand(id: "c1", name: "screenshot", args: args).known == .screenshot)
        }
        for args: JSONValue in [.object(["path": .string("/etc/shadow")]), .array([.number(1)]), .string(""), .number(0), .bool(false)] {
            #expect(LiveCommand(id: "c1", name: "screenshot", args: args).known == nil)
        }
    }
}
