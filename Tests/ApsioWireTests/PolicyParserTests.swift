import ApsioCore
import ApsioWire
import ApsioJSON
import Testing

@Suite struct PolicyParserTests {
    static let match = String(repeating: "0123456789abcdef", count: 4)

    func read(_ text: String, limits: Limits = .spec) throws(PolicyError) -> PolicyReading {
        try PolicyParser.parse(Array(text.utf8), limits: limits)
    }

    func error(_ text: String) -> PolicyError? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error
        }
    }

    /// A policy whose `live` holds `testers` (already JSON), to test what `live` makes of them.
    func live(_ testers: String, extra: String = "") throws -> PolicyReading {
        try read(#"{"live":{"origin":"https://live.example.com","testers":\#(testers)\#(extra)}}"#)
    }

    func tester(_ id: String, match: String = PolicyParserTests.match, expires: String = "1798761600") -> String {
        #"{"id":"\#(id)","match":"\#(match)","expires_at":\#(expires)}"#
    }

    @Test func readsTheProfilesExample() throws {
        let reading = try read(#"""
            {
              "refresh_s": 300,
              "kill_switch": false,
              "capture": { "logs": "always", "errors": "always", "metrics": "always", "replay": "always",
                           "logs_min_severity": 9 },
              "sampling": { "session_rate": 1.0 },
              "live": { "origin": "https://live.example.com", "interval_s": 30,
                        "testers": [ { "id": "qa-box-7", "match": "\#(Self.match)", "expires_at": 1798761600 } ] }
            }
            """#)
        let policy = reading.policy
        #expect(reading.ignoredLive == nil)
        #expect(policy.refresh == .seconds(300))
        #expect(!policy.killSwitch)
        #expect(policy.capture == CapturePolicy(logsMinSeverity: 9))
        #expect(policy.sessionRate == 1)
        #expect(policy.live?.origin.text == "https://live.example.com")
        #expect(policy.live?.interval == .seconds(30))
        #expect(policy.live?.testers == [TesterEntry(id: "qa-box-7", match: Self.match, expiresAt: 1_798_761_600)])
    }

    @Test func anEmptyObjectIsEveryDefault() throws {
        let reading = try read("{}")
        #expect(reading.policy == Policy())
        #expect(reading.policy.refresh == .seconds(300))
        #expect(reading.policy.capture.logs == .always && reading.policy.capture.replay == .always)
        #expect(reading.policy.capture.logsMinSeverity == 9)
        #expect(reading.policy.sessionRate == 1)
        #expect(reading.policy.live == nil && reading.ignoredLive == nil)
    }

    @Test func nullCountsAsAbsent() throws {
        let reading = try read(
            #"{"refresh_s":null,"kill_switch":null,"capture":{"logs":null,"logs_min_severity":null},"sampling":null,"live":null}"#)
        #expect(reading.policy == Policy())
        #expect(reading.ignoredLive == nil)
    }

    @Test func unknownFieldsAreIgnoredAtEveryLevel() throws {
        let reading = try read(#"""
            {"future": {"x": [1]}, "kill_switch": true, "layers": [],
             "capture": {"logs": "never", "spans": "sometimes", "network": 3},
             "sampling": {"session_rate": 0.5, "trigger_rate": "x"},
             "live": {"origin": "https://live.example.com", "mode": 1,
                      "testers": [{"id": "a", "match": "\#(Self.match)", "expires_at": 5, "note": {}}]}}
            """#)
        #expect(reading.policy.killSwitch)
        #expect(reading.policy.capture.logs == .never)
        #expect(reading.policy.sessionRate == 0.5)
        #expect(reading.policy.live?.testers.map(\.id) == ["a"])
    }

    @Test(arguments: [(59.0, 60), (60, 60), (61, 61), (300.9, 300), (3600, 3600), (3601, 3600), (-5, 60), (1e300, 3600)])
    func refreshIsKeptWithin60To3600(_ given: Double, _ kept: Int64) throws {
        #expect(try PolicyParser.parse(.object(["refresh_s": .number(given)])).policy.refresh == .seconds(kept))
    }

    @Test func refreshBoundsFollowLimits() throws {
        var limits = Limits.spec
        limits.minPolicyRefresh = .seconds(10)
        #expect(try read(#"{"refresh_s":10}"#, limits: limits).policy.refresh == .seconds(10))
        #expect(try read(#"{"refresh_s":9}"#, limits: limits).policy.refresh == .seconds(10))
        #expect(try read(#"{}"#, limits: limits).policy.refresh == .seconds(300))
    }

    @Test func captureModes() throws {
        let policy = try read(#"{"capture":{"logs":"never","metrics":"never"}}"#).policy
        #expect(policy.capture.logs == .never)
        #expect(policy.capture.errors == .always)  // a missing family is always
        #expect(policy.capture.metrics == .never)
        #expect(policy.capture.replay == .always)
        #expect(policy.capture.mode(of: .logs) == .never && policy.capture.mode(of: .errors) == .always)
    }

    @Test(arguments: [(0.0, 1), (1, 1), (9.7, 9), (24, 24), (25, 24), (-3, 1)])
    func logsMinSeverityIsKeptWithin1To24(_ given: Double, _ kept: Int) throws {
        let body = JSONValue.object(["capture": .object(["logs_min_severity": .number(given)])])
        #expect(try PolicyParser.parse(body).policy.capture.logsMinSeverity == kept)
    }

    @Test(arguments: [(0.0, 0.0), (0.25, 0.25), (1, 1), (1.5, 1), (-0.5, 0)])
    func sessionRateIsKeptWithin0To1(_ given: Double, _ kept: Double) throws {
        let body = JSONValue.object(["sampling": .object(["session_rate": .number(given)])])
        #expect(try PolicyParser.parse(body).policy.sessionRate == kept)
    }

    @Test(arguments: [
        (#"{"kill_switch":"true"}"#, PolicyError.wrongType(field: "kill_switch", expected: "true or false")),
        (#"{"kill_switch":1}"#, .wrongType(field: "kill_switch", expected: "true or false")),
        (#"{"refresh_s":"300"}"#, .wrongType(field: "refresh_s", expected: "a number")),
        (#"{"capture":"always"}"#, .wrongType(field: "capture", expected: "an object")),
        (#"{"capture":{"logs":true}}"#, .wrongType(field: "capture.logs", expected: "a string")),
        (#"{"capture":{"replay":"on_crash"}}"#, .unknownCaptureMode(field: "capture.replay", value: "on_crash")),
        (#"{"capture":{"logs":"Always"}}"#, .unknownCaptureMode(field: "capture.logs", value: "Always")),
        (#"{"capture":{"logs_min_severity":"9"}}"#, .wrongType(field: "capture.logs_min_severity", expected: "a number")),
        (#"{"sampling":[1]}"#, .wrongType(field: "sampling", expected: "an object")),
        (#"{"sampling":{"session_rate":"0.5"}}"#, .wrongType(field: "sampling.session_rate", expected: "a number")),
        (#"[]"#, .notAnObject),
        (#""policy""#, .notAnObject),
        (#"null"#, .notAnObject),
    ])
    func malformedBodiesAreRefused(_ body: String, _ expected: PolicyError) {
        #expect(error(body) == expected)
    }

    @Test func aBodyThatIsNotJSONIsRefusedWithWhere() {
        guard case .notJSON(let parseError)? = error(#"{"kill_switch": tru"#) else {
            Issue.record("accepted")
            return
        }
        #expect(parseError.reason == .unexpectedEnd)
        #expect(error(#"{"kill_switch":true,"kill_switch":false}"#) == .notJSON(JSONParseError(.duplicateKey("kill_switch"), at: 20)))
    }

    @Test func aBodyPastTheSizeLimitIsRefusedBeforeReading() {
        var limits = Limits.spec
        limits.maxPolicyBytes = 64
        let body = #"{"refresh_s":300,"pad":""# + String(repeating: "x", count: 64) + #""}"#
        #expect(throws: PolicyError.notJSON(JSONParseError(.tooLarge(limit: 64), at: 64))) {
            try PolicyParser.parse(Array(body.utf8), limits: limits)
        }
    }

    @Test func errorMessagesNameTheField() {
        #expect(PolicyError.wrongType(field: "kill_switch", expected: "true or false").description
            == "policy field kill_switch is not true or false")
        #expect(PolicyError.unknownCaptureMode(field: "capture.logs", value: "x").description
            == #"policy field capture.logs is "x", not "always" or "never""#)
    }

    // MARK: live

    @Test(arguments: [
        "https://live.example.com@other.example", "https://Live.example.com", "http://live.example.com",
        "https://live.example.com/", "https://live.example.com:0", "http://127.0.0.2", "",
    ])
    func aLiveOriginOfAnotherFormIgnoresLive(_ origin: String) throws {
        let reading = try read(#"{"kill_switch":true,"live":{"origin":"\#(origin)","testers":[]}}"#)
        #expect(reading.policy.live == nil)
        #expect(reading.ignoredLive == .origin(origin))
        #expect(reading.policy.killSwitch)  // the rest of the policy still applies
    }

    @Test func aMissingOrNonStringOriginIgnoresLive() throws {
        #expect(try read(#"{"live":{"testers":[]}}"#).ignoredLive == .origin(nil))
        #expect(try read(#"{"live":{"origin":7}}"#).ignoredLive == .origin(nil))
        #expect(try read(#"{"live":"https://live.example.com"}"#).ignoredLive == .notAnObject)
    }

    @Test func loopbackOriginsAreAccepted() throws {
        let policy = try read(#"{"live":{"origin":"http://127.0.0.1:8080"}}"#).policy
        #expect(policy.live?.origin.port == 8080)
        #expect(policy.live?.testers == [])
    }

    @Test(arguments: [("14", 15), ("15", 15), ("120", 120), ("121", 120), ("45.9", 45), ("\"60\"", 30), ("null", 30)])
    func liveIntervalKeepsTheHelloBounds(_ given: String, _ kept: Int64) throws {
        let reading = try read(#"{"live":{"origin":"https://live.example.com","interval_s":\#(given)}}"#)
        #expect(reading.policy.live?.interval == .seconds(kept))
    }

    @Test func liveWithoutAnIntervalUses30() throws {
        #expect(try live("[]").policy.live?.interval == .seconds(30))
    }

    @Test func aHundredTestersAreKeptAndAHundredAndOneIgnoreLive() throws {
        let hundred = (0..<100).map { tester("t\($0)") }.joined(separator: ",")
        let kept = try live("[\(hundred)]")
        #expect(kept.policy.live?.testers.count == 100)
        #expect(kept.policy.live?.testers.last?.id == "t99")
        let past = try live("[\(hundred),\(tester("t100"))]")
        #expect(past.policy.live == nil)
        #expect(past.ignoredLive == .tooManyTesters(count: 101, limit: 100))
    }

    @Test func aDuplicateTesterIDIgnoresLive() throws {
        let reading = try live("[\(tester("a")),\(tester("b")),\(tester("a", expires: "1"))]")
        #expect(reading.policy.live == nil)
        #expect(reading.ignoredLive == .duplicateTesterID("a"))
    }

    @Test(arguments: [
        (#"[7]"#, "is not an object"),
        (#"[{"match":"\#(match)","expires_at":1}]"#, "has no id (a non-empty string)"),
        (#"[{"id":"","match":"\#(match)","expires_at":1}]"#, "has no id (a non-empty string)"),
        (#"[{"id":5,"match":"\#(match)","expires_at":1}]"#, "has no id (a non-empty string)"),
        (#"[{"id":"a","match":"\#(match.uppercased())","expires_at":1}]"#, "has no match (64 lowercase hex characters)"),
        (#"[{"id":"a","match":"\#(match.dropLast())","expires_at":1}]"#, "has no match (64 lowercase hex characters)"),
        (#"[{"id":"a","expires_at":1}]"#, "has no match (64 lowercase hex characters)"),
        (#"[{"id":"a","match":"\#(match)"}]"#, "has no expires_at (Unix seconds)"),
        (#"[{"id":"a","match":"\#(match)","expires_at":"1798761600"}]"#, "has no expires_at (Unix seconds)"),
    ])
    func aBadTesterEntryIgnoresLive(_ testers: String, _ why: String) throws {
        let reading = try live(testers)
        #expect(reading.policy.live == nil)
        #expect(reading.ignoredLive == .badTester(index: 0, why: why))
    }

    @Test func theBadEntryIsNamedByItsPlace() throws {
        let reading = try live("[\(tester("a")),\(tester("b", match: "zz"))]")
        #expect(reading.ignoredLive == .badTester(index: 1, why: "has no match (64 lowercase hex characters)"))
        #expect(reading.ignoredLive?.description == "live.testers[1] has no match (64 lowercase hex characters)")
    }

    @Test func testerIDsAreBoundedAtAndPastTheirLimit() throws {
        let atLimit = String(repeating: "é", count: 128)  // 256 bytes
        #expect(try live("[\(tester(atLimit))]").policy.live?.testers.first?.id == atLimit)
        let past = try live("[\(tester(atLimit + "x"))]")
        #expect(past.ignoredLive == .badTester(index: 0, why: "has an id longer than 256 bytes"))
    }

    @Test func testersThatAreNotAListIgnoreLive() throws {
        #expect(try live(#"{"id":"a"}"#).ignoredLive == .testersNotAList)
        #expect(try live("null").policy.live?.testers == [])
    }

    @Test func expiresAtDropsItsFractionAndStaysWithinInt64() throws {
        let testers = try live("[\(tester("a", expires: "1798761600.9")),\(tester("b", expires: "1e30")),\(tester("c", expires: "-1e30"))]")
            .policy.live?.testers
        #expect(testers?.map(\.expiresAt) == [1_798_761_600, .max, .min])
    }

    /// Expired entries stay in the policy: expiry is the matcher's call, at the time it matches.
    @Test func expiredEntriesAreKept() throws {
        #expect(try live("[\(tester("old", expires: "1"))]").policy.live?.testers.map(\.id) == ["old"])
    }

    // MARK: the stored form

    static let samples: [Policy] = [
        Policy(),
        Policy(
            refresh: .seconds(60), killSwitch: true,
            capture: CapturePolicy(logs: .never, errors: .always, metrics: .never, replay: .never, logsMinSeverity: 1),
            sessionRate: 0.1, live: nil),
        Policy(
            refresh: .seconds(3600), sessionRate: 1e-7,
            live: LivePolicy(
                origin: LiveOrigin("https://live.example.com:8443")!, interval: .seconds(15),
                testers: [
                    TesterEntry(id: "qa \"box\" é", match: match, expiresAt: 1_798_761_600),
                    TesterEntry(id: "b", match: String(repeating: "f", count: 64), expiresAt: .max),
                    TesterEntry(id: "c", match: match, expiresAt: -5),
                ])),
        Policy(sessionRate: 0, live: LivePolicy(origin: LiveOrigin("http://[::1]")!, interval: .seconds(120), testers: [])),
    ]

    @Test(arguments: samples)
    func theCanonicalFormReadsBackEqual(_ policy: Policy) throws {
        let bytes = policy.canonicalJSON()
        let reading = try PolicyParser.parse(bytes)
        #expect(reading.policy == policy)
        #expect(reading.ignoredLive == nil)
        #expect(reading.policy.canonicalJSON() == bytes)
    }

    /// Whatever body the parser reads, within its limit, the canonical form of its policy reads back
    /// within the same limit (found by fuzz/JSONFuzz.swift: a body of one origin that filled the
    /// limit gave a canonical form past it).
    @Test func theCanonicalFormOfAnyBodyWithinTheLimitReadsBack() throws {
        var limits = Limits()
        limits.maxPolicyBytes = 2048
        let host = String(repeating: "a", count: 2048 - 30)
        let body = Array(#"{"live":{"origin":"https://\#(host)"}}"#.utf8)
        #expect(body.count <= limits.maxPolicyBytes)
        let reading = try PolicyParser.parse(body, limits: limits)
        #expect(reading.policy.live == nil)
        #expect(try PolicyParser.parse(reading.policy.canonicalJSON(), limits: limits).policy == reading.policy)
    }

    /// The stored form is pinned: a change here is a change of the file format on disk.
    @Test func theCanonicalFormIsPinned() {
        let policy = Policy(
            refresh: .seconds(120), sessionRate: 0.5,
            live: LivePolicy(
                origin: LiveOrigin("https://live.example.com")!, interval: .seconds(30),
                testers: [TesterEntry(id: "qa-box-7", match: Self.match, expiresAt: 1_798_761_600)]))
        let text = String(decoding: policy.canonicalJSON(), as: UTF8.self)
        #expect(text == #"{"refresh_s":120,"kill_switch":false,"capture":{"logs":"always","errors":"always","metrics":"always","replay":"always","logs_min_severity":9},"sampling":{"session_rate":0.5},"live":{"origin":"https://live.example.com","interval_s":30,"testers":[{"id":"qa-box-7","match":"\#(Self.match)","expires_at":1798761600}]}}"#)
    }
}
