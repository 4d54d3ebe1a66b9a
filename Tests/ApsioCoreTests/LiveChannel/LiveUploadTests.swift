import ApsioCore
import Testing

/// 16.5: what goes in `frames`, and how often.
@Suite struct LiveUploadTests {
    @Test func linesGoAtMostOnceASecond() throws {
        var h = LiveHarness()
        h.startSession()
        h.log.removeAll()
        for second in 0..<10 {
            for i in 0..<5 { h.send(.record(record("s\(second) l\(i)"))) }
            h.advance(.milliseconds(250))
            h.send(.record(record("s\(second) late")))
            h.advance(.milliseconds(750))
        }
        let frames = h.log.frames
        #expect(frames.count == 10)
        let lines = frames.flatMap { $0.1["lines"]?.arrayValue ?? [] }
        #expect(lines.count == 60)
        // Nothing is sent that is not new.
        #expect(h.run(for: .seconds(30)).frames.isEmpty)
    }

    @Test func aLineIsCopiedWithItsTimeSeverityAndAttributes() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.record(record("hello", severity: 17, atMs: 1_800_000_000_123)))
        let frames = try #require(h.advance(.seconds(1)).frames.first)
        let line = try #require(frames.1["lines"]?.arrayValue?.first)
        #expect(line["t"] == .number(1_800_000_000_123))
        #expect(line["severity"] == .number(17))
        #expect(line["body"] == .string("hello"))
        #expect(line["attributes"]?["process.pid"] == .number(42))
    }

    /// "lines, at most 200 a body": the oldest go past that, and the body says how many.
    @Test(arguments: [200, 201, 450])
    func atMost200LinesABody(written: Int) throws {
        var h = LiveHarness()
        h.startSession()
        for i in 0..<written { h.send(.record(record("line \(i)"))) }
        let frames = try #require(h.advance(.seconds(1)).frames.first)
        let lines = try #require(frames.1["lines"]?.arrayValue)
        #expect(lines.count == min(written, 200))
        #expect(lines.last?["body"] == .string("line \(written - 1)"))
        #expect(frames.1["lines_dropped"] == (written > 200 ? .number(Double(written - 200)) : nil))
    }

    @Test func bodiesAreCutTo4096Bytes() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.record(record(String(repeating: "é", count: 3000))))
        let frames = try #require(h.advance(.seconds(1)).frames.first)
        let body = try #require(frames.1["lines"]?.arrayValue?.first?["body"]?.stringValue)
        #expect(body.utf8.count == 4096)
    }

    /// "Metrics ride along; an upload of metrics alone goes at most every 5 seconds."
    @Test func metricsAloneGoAtMostEveryFiveSeconds() throws {
        var h = LiveHarness()
        h.startSession()
        h.log.removeAll()
        for i in 0..<20 {
            h.send(.metrics(Array("{\"t\":\(i),\"apsio.memory.footprint\":\(1000 + i)}".utf8)))
            h.advance(.seconds(1))
        }
        #expect(h.log.frames.count == 4)
        #expect(h.log.frames.allSatisfy { $0.1["metrics"] != nil && $0.1["lines"] == .array([]) })
    }

    @Test func metricsRideAlongWithLines() throws {
        var h = LiveHarness()
        h.startSession()
        h.send(.metrics(Array("{\"t\":1}".utf8)))
        h.send(.record(record("x")))
        let frames = try #require(h.advance(.seconds(1)).frames.first)
        #expect(frames.1["metrics"]?["t"] == .number(1))
    }

    /// Wireframes are sent only when they changed.
    @Test func anUnchangedWireframeIsNotSentAgain() throws {
        var h = LiveHarness()
        h.startSession()
        h.log.removeAll()
        let frame = Array("{\"processes\":[{\"pid\":1}]}".utf8)
        for _ in 0..<5 {
            h.send(.wireframe(frame))
            h.advance(.seconds(1))
        }
        #expect(h.log.frames.count == 1)
        // A changed frame goes at once, since the last upload was more than a second ago.
        let changed = h.send(.wireframe(Array("{\"processes\":[{\"pid\":2}]}".utf8)))
        #expect(changed.frames.first?.1["wireframe"]?["processes"]?.arrayValue?.first?["pid"] == .number(2))
    }

    @Test func nothingIsSentWhileAFramesBodyIsInFlight() throws {
        var h = LiveHarness()
        h.acceptsBodies = false
        h.startSession()
        let live = try #require(h.log.frames.first)
        h.send(.answered(live.0, .status(200, body: [], retryAfter: nil)))
        h.send(.record(record("a")))
        let first = try #require(h.advance(.seconds(1)).frames.first)
        h.send(.record(record("b")))
        #expect(h.advance(.seconds(5)).frames.isEmpty)
        let after = h.send(.answered(first.0, .status(200, body: [], retryAfter: nil)))
        #expect(after.frames.count == 1)
    }

    @Test func bytesAreCountedAsSentAndSavedForTheDay() throws {
        var h = LiveHarness()
        let start = h.startSession()
        let sent = start.compactMap { if case .sendFrames(_, let body, _) = $0 { return body.count } else { return nil } }
        let saved = start.compactMap { if case .saveDayBytes(let d) = $0 { return d } else { return nil } }
        #expect(saved.last == DayBytes(day: h.now.utcDay, bytes: sent.reduce(0, +)))
    }
}
