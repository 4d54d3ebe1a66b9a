import ApsioCore
import Testing

/// 16.5: "The live channel sends every record the SDK writes for a family that is not off", and
/// nothing of a family that is: lines follow the capture floor, metrics and frames their families.
@Suite struct LiveCaptureTests {
    static let floorAtWarn = CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: CapturePolicy(logsMinSeverity: 13))

    func lines(_ actions: [LiveAction]) -> [String] {
        actions.frames.flatMap { $0.1["lines"]?.arrayValue ?? [] }.compactMap { $0["body"]?.stringValue }
    }

    @Test func aLineBelowThePolicysFloorIsNotStreamed() throws {
        var h = LiveHarness()
        h.send(.capture(Self.floorAtWarn))
        h.startSession()
        h.send(.record(record("an info line", severity: 9)))
        h.send(.record(record("a warning", severity: 13)))
        #expect(lines(h.run(for: .seconds(2))) == ["a warning"])
    }

    /// A viewer shows which invocation of the unit wrote a line: its session, as its record has it.
    @Test func aLineCarriesTheSessionOfItsUnitsInvocation() throws {
        var h = LiveHarness()
        h.startSession()
        var line = record("after a restart")
        line.sessionID = "0f4c3a2e-9b1d-4e8f-a6c5-2d7b3e1f4a90"
        h.send(.record(line))
        h.send(.record(record("no session known")))
        let sent = h.run(for: .seconds(2)).frames.flatMap { $0.1["lines"]?.arrayValue ?? [] }
        #expect(sent.map { $0["attributes"]?["session.id"]?.stringValue } == ["0f4c3a2e-9b1d-4e8f-a6c5-2d7b3e1f4a90", nil])
        #expect(sent.first?["attributes"]?["process.pid"]?.numberValue == 42)
    }

    /// "from DEBUG up, whatever capture.logs_min_severity says"
    @Test func aRaisedLevelStreamsFromDebugUpAndEndsWithIt() throws {
        var h = LiveHarness()
        h.send(.capture(Self.floorAtWarn))
        h.startSession()
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(commands: [("r1", "raise_log_level")])))
        h.send(.record(record("a debug line", severity: 5)))
        #expect(lines(h.run(for: .seconds(2))) == ["a debug line"])

        // Consent withdrawn and given again: the raise is over, and so are the low lines.
        h.send(.consent(false))
        h.send(.consent(true))
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        h.send(.record(record("another debug line", severity: 5)))
        h.send(.record(record("a warning", severity: 13)))
        #expect(lines(h.run(for: .seconds(2))) == ["a warning"])
    }

    @Test(arguments: [
        CaptureScope(appFamilies: [.errors, .metrics, .replay], policy: CapturePolicy()),
        CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: CapturePolicy(logs: .never)),
    ])
    func aLogsFamilyThatIsOffStreamsOnlyErrors(_ scope: CaptureScope) throws {
        var h = LiveHarness()
        h.send(.capture(scope))
        h.startSession()
        h.send(.record(record("an info line", severity: 9)))
        var error = record("it failed", severity: 17)
        error.family = .errors
        h.send(.record(error))
        #expect(lines(h.run(for: .seconds(2))) == ["it failed"])
    }

    @Test(arguments: [
        CaptureScope(appFamilies: [.logs, .errors, .metrics], policy: CapturePolicy()),
        CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: CapturePolicy(replay: .never)),
    ])
    func replayThatIsOffSendsNoFrameAndRefusesAScreenshot(_ scope: CaptureScope) throws {
        var h = LiveHarness()
        h.send(.capture(scope))
        h.startSession()
        h.send(.wireframe(Array(#"{"processes":[]}"#.utf8)))
        h.send(.metrics(Array(#"{"t":1}"#.utf8)))
        h.send(.record(record("a line")))
        let sent = h.run(for: .seconds(2)).frames.map(\.1)
        #expect(!sent.isEmpty)
        #expect(sent.allSatisfy { $0["wireframe"] == nil })
        #expect(sent.contains { $0["metrics"] != nil })

        let next = try h.openNext()
        let answered = h.send(.answered(next, nextAnswer(commands: [("s1", "screenshot")])))
        #expect(answered.commandsRun.isEmpty, "nothing is read for a family that is off")
        let result = try #require(answered.results.first?.1)
        #expect(result["outcome"] == .string("refused"))
    }

    @Test(arguments: [
        CaptureScope(appFamilies: [.logs, .errors, .replay], policy: CapturePolicy()),
        CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: CapturePolicy(metrics: .never)),
    ])
    func metricsThatAreOffAreNeverSent(_ scope: CaptureScope) throws {
        var h = LiveHarness()
        h.send(.capture(scope))
        h.startSession()
        for second in 0..<8 {
            h.send(.metrics(Array(#"{"t":\#(second)}"#.utf8)))
            h.send(.wireframe(Array(#"{"processes":[\#(second)]}"#.utf8)))
            h.run(for: .seconds(1))
        }
        let sent = h.log.frames.map(\.1)
        #expect(sent.contains { $0["wireframe"] != nil })
        #expect(sent.allSatisfy { $0["metrics"] == nil })
    }

    /// A policy that turns replay off during a session drops the frame already waiting.
    @Test func turningReplayOffDropsTheFrameWaitingToGo() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.wireframe(Array(#"{"processes":[1]}"#.utf8)))
        h.send(.capture(CaptureScope(appFamilies: Set(CaptureFamily.allCases), policy: CapturePolicy(replay: .never))))
        h.send(.record(record("a line")))
        #expect(h.run(for: .seconds(2)).frames.allSatisfy { $0.1["wireframe"] == nil })
    }

    @Test func diagnosticsIsRefusedWhileLogsAreOff() throws {
        var h = LiveHarness()
        h.send(.capture(CaptureScope(appFamilies: [.errors, .metrics, .replay], policy: CapturePolicy())))
        h.startSession()
        let next = try h.openNext()
        let answered = h.send(.answered(next, nextAnswer(commands: [("d1", "diagnostics")])))
        #expect(answered.commandsRun.isEmpty)
        #expect(answered.results.first?.1["outcome"] == .string("refused"))
    }
}
