import ApsioCore
import ApsioJSON
import Testing

/// 16.4 and 16.6: commands and their results.
@Suite struct LiveCommandTests {
    /// Starts a session and delivers one `next` answer with these commands.
    @discardableResult
    func deliver(_ commands: [(String, String)], to h: inout LiveHarness) throws -> [LiveAction] {
        let next = try h.openNext()
        return h.send(.answered(next, nextAnswer(commands: commands)))
    }

    @Test func aScreenshotRunsOnceAndItsResultIsPosted() throws {
        var h = LiveHarness()
        h.startSession()
        let actions = try deliver([("c1", "screenshot")], to: &h)
        #expect(actions.commandsRun == ["c1"])
        #expect(actions.notices == [.screenshot])
        let done = h.send(.commandFinished(CommandResult(
            id: "c1", name: "screenshot", outcome: .done, atUnixMs: h.now.wallUnixMs,
            result: .encoded(JSONWriter.encode(.object(["wireframe": .object(["processes": .array([])])]))))))
        let body = try #require(done.results.first?.1)
        #expect(body["id"] == .string("c1") && body["name"] == .string("screenshot"))
        #expect(body["outcome"] == .string("done"))
        #expect(body["install"] == .string(LiveHarness.identity.install))
        #expect(body["result"]?["wireframe"] != nil)
    }

    /// "The device MUST run each command id at most once: it keeps the ids it ran, with their
    /// results, for 2 minutes, in memory, and answers a repeated id by sending the same result
    /// again without running it."
    @Test func aRepeatedIdIsAnsweredFromMemoryWithoutRunningIt() throws {
        var h = LiveHarness()
        h.startSession()
        try deliver([("c1", "diagnostics")], to: &h)
        let result = CommandResult(
            id: "c1", name: "diagnostics", outcome: .done, atUnixMs: 1, result: .encoded(JSONWriter.encode(.object(["apsio.queue.records": .number(3)]))))
        let first = h.send(.commandFinished(result))
        let firstResults = try #require(first.results.first)
        h.send(.answered(firstResults.0, .status(200, body: [], retryAfter: nil)))
        h.run(for: .seconds(1))
        let again = try deliver([("c1", "diagnostics")], to: &h)
        #expect(again.commandsRun.isEmpty)
        #expect(again.notices.isEmpty)
        #expect(again.results.first?.1 == firstResults.1)
    }

    /// The memory outlives the session: the command that comes again in the next session gets its result.
    @Test func theMemoryOutlivesTheSession() throws {
        var h = LiveHarness()
        h.startSession()
        try deliver([("c1", "screenshot")], to: &h)
        // The session ends before the command finished: its result cannot be posted.
        let next = try h.openNext()
        h.send(.answered(next, nextAnswer(stop: "viewers_left")))
        let finished = h.send(.commandFinished(CommandResult(id: "c1", name: "screenshot", outcome: .done, atUnixMs: 1, result: .encoded(Array("{}".utf8)))))
        #expect(finished.results.isEmpty)
        // A new session within 2 minutes: the command comes again and is answered from memory.
        let hello = try #require(h.run(for: .seconds(30)).helloID)
        h.send(.answered(hello, .status(200, json: h.helloBody(viewers: 1), retryAfter: nil)))
        let again = try deliver([("c1", "screenshot")], to: &h)
        #expect(again.commandsRun.isEmpty)
        #expect(again.results.count == 1)
    }

    @Test func afterTwoMinutesAnIdIsForgotten() throws {
        var h = LiveHarness()
        h.startSession()
        try deliver([("c1", "screenshot")], to: &h)
        h.send(.commandFinished(CommandResult(id: "c1", name: "screenshot", outcome: .done, atUnixMs: 1, result: .encoded(Array("{}".utf8)))))
        h.run(for: .seconds(120) - .milliseconds(1))
        #expect(try deliver([("c1", "screenshot")], to: &h).commandsRun.isEmpty)
        h.run(for: .milliseconds(1))
        #expect(try deliver([("c1", "screenshot")], to: &h).commandsRun == ["c1"])
    }

    @Test func aCommandStillRunningIsNotRunAgain() throws {
        var h = LiveHarness()
        h.startSession()
        try deliver([("c1", "diagnostics")], to: &h)
        h.run(for: .seconds(1))
        let again = try deliver([("c1", "diagnostics")], to: &h)
        #expect(again.commandsRun.isEmpty && again.results.isEmpty)
    }

    /// "A device answers an unknown command, or one that does not apply (a log level already raised),
    /// with outcome refused."
    @Test(arguments: ["reboot", "shell", "RAISE_LOG_LEVEL", ""])
    func anUnknownCommandIsRefused(name: String) throws {
        var h = LiveHarness()
        h.startSession()
        let actions = try deliver([("c9", name)], to: &h)
        #expect(actions.commandsRun.isEmpty && actions.notices.isEmpty)
        #expect(actions.results.first?.1["outcome"] == .string("refused"))
    }

    @Test func aCommandWithArgumentsIsRefused() throws {
        var h = LiveHarness()
        h.startSession()
        let next = try h.openNext()
        let body: JSONValue = .object([
            "commands": .array([.object(["id": .string("c1"), "name": .string("screenshot"), "args": .object(["path": .string("/etc/shadow")])])]),
            "viewers": .number(1),
        ])
        let actions = h.send(.answered(next, .status(200, json: body, retryAfter: nil)))
        #expect(actions.commandsRun.isEmpty)
        #expect(actions.results.first?.1["outcome"] == .string("refused"))
    }

    @Test func raiseLogLevelLastsThirtyMinutesAndRefusesASecondRaise() throws {
        var h = LiveHarness()
        h.startSession()
        let actions = try deliver([("r1", "raise_log_level")], to: &h)
        let until = h.now.wallUnixMs + 1_800_000
        #expect(actions.contains(.raiseLogLevel(untilUnixMs: until)))
        #expect(actions.notices == [.raiseLogLevel])
        #expect(actions.results.first?.1["result"]?["until"] == .number(Double(until)))
        h.run(for: .seconds(1))
        let second = try deliver([("r2", "raise_log_level")], to: &h)
        #expect(second.results.first?.1["outcome"] == .string("refused"))
        h.run(for: .seconds(1800) - .seconds(1) - .milliseconds(1))
        #expect(h.channel.isLogLevelRaised)
        #expect(h.advance(.milliseconds(1)).contains(.restoreLogLevel))
    }

    /// "On results, a 409 ... the device treats it as a 2xx for the result it keeps and does not send it again."
    @Test func a409ResultIsNotSentAgain() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        h.startSession()
        let actions = try deliver([("c1", "reboot")], to: &h)
        let posted = try #require(actions.results.first)
        h.send(.answered(posted.0, .status(409, body: [], retryAfter: nil)))
        #expect(h.run(for: .seconds(300)).results.isEmpty)
    }

    /// "Only a results body is sent once more, after the backoff, and only with the current token"
    @Test func aFailedResultIsSentOnceMoreAfterTheBackoff() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        h.startSession()
        let posted = try #require(try deliver([("c1", "reboot")], to: &h).results.first)
        h.send(.answered(posted.0, .status(503, body: [], retryAfter: .seconds(5))))
        #expect(h.run(for: .seconds(5) - .milliseconds(1)).results.isEmpty)
        let retry = try #require(h.advance(.milliseconds(1)).results.first)
        #expect(retry.1 == posted.1)
        h.send(.answered(retry.0, .status(503, body: [], retryAfter: .seconds(5))))
        #expect(h.run(for: .seconds(300)).results.isEmpty)
    }

    @Test func aResultRefusedWith401IsNotSentAgain() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        h.startSession()
        let posted = try #require(try deliver([("c1", "reboot")], to: &h).results.first)
        let actions = h.send(.answered(posted.0, .status(401, body: [], retryAfter: nil)))
        #expect(actions.sessionEnds == [.tokenLost])
        #expect(h.run(for: .seconds(300)).results.isEmpty)
    }

    @Test func oneAnswerCarriesABoundedNumberOfCommands() throws {
        var h = LiveHarness()
        h.startSession()
        let many = (0..<100).map { ("c\($0)", "screenshot") }
        let actions = try deliver(many, to: &h)
        #expect(actions.commandsRun.count == Limits.spec.maxCommandsPerAnswer)
    }
}
