import ApsioCore
import ApsioPOSIX
@testable import ApsioRedis
import ApsioTestSupport
import Testing

/// Touches: a change nobody waits on (a device's hello that only renews its presence), answered
/// from the instance's copy and written a moment later, together with the others of that moment.
/// Here a document is "v=VALUE;seen=SEEN": requests change the value, touches the seen.
@Suite struct RedisTouchesTests {
    typealias Docs = RedisIndexedDocumentsTests

    struct Parsed: Equatable {
        var value: Int
        var seen: Int

        init(value: Int, seen: Int) {
            self.value = value
            self.seen = seen
        }

        init?(_ bytes: [UInt8]?) {
            guard let bytes else { return nil }
            let fields = String(decoding: bytes, as: UTF8.self).split(separator: ";").map { $0.split(separator: "=") }
            guard fields.count == 2, fields.allSatisfy({ $0.count == 2 }), let value = Int(fields[0][1]), let seen = Int(fields[1][1]) else {
                return nil
            }
            self.init(value: value, seen: seen)
        }

        var bytes: [UInt8] { Array("v=\(value);seen=\(seen)".utf8) }
    }

    /// A request that changes the value, written at once.
    static func increment(_ bytes: [UInt8]?, _ nowMs: Int64) -> (IndexedDocuments.Change, Int) {
        var document = Parsed(bytes) ?? Parsed(value: 0, seen: 0)
        document.value += 1
        return (.write(document.bytes, lifetime: .seconds(60), score: nowMs, publish: []), document.value)
    }

    /// A touch saying the document was seen at `seen`; answers the value it decided on.
    static func touch(_ seen: Int) -> @Sendable ([UInt8]?, Int64) -> (IndexedDocuments.Change, Int?) {
        { bytes, nowMs in
            guard var document = Parsed(bytes) else { return (.keep, nil) }
            document.seen = seen
            return (.touch(.init(document.bytes, lifetime: .seconds(60), score: nowMs)), document.value)
        }
    }

    /// The touch made again on the document as it is: its seen, on whatever value it holds now.
    static let again: IndexedDocuments.TouchAgain = { touched, bytes, nowMs in
        guard let seen = Parsed(touched)?.seen, var current = Parsed(bytes), current.seen < seen else { return nil }
        current.seen = seen
        return .init(current.bytes, lifetime: .seconds(60), score: nowMs)
    }

    static func stored(_ server: RedisServerFixture, _ key: String) throws -> Parsed? {
        Parsed(Array(try server.cli("HGET", key, "d").utf8))
    }

    @Test func aTouchOnATrustedCopyCostsNoRoundTripAndIsWrittenWithTheOthers() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Docs.documents(server)
        defer { client.close() }
        let keys = (0..<5).map { "doc-\($0)" }
        for key in keys { _ = try await documents.update(key, member: key, Self.increment) }
        let (fcalls, times) = (try Docs.calls(server, "fcall"), try Docs.calls(server, "time"))

        for key in keys {
            let value = try await documents.update(key, member: key, touching: Self.again, trustCopy: true, Self.touch(1))
            #expect(value == 1)
        }
        // Answered, and nothing asked of Redis yet.
        #expect(try Docs.calls(server, "fcall") == fcalls)
        #expect(try Docs.calls(server, "time") == times)
        #expect(try keys.map { try Self.stored(server, $0) } == Array(repeating: Parsed(value: 1, seen: 0), count: 5))
        #expect(documents.touches.count == 5)

        #expect(try await documents.writeTouches() == 5)
        #expect(try keys.map { try Self.stored(server, $0) } == Array(repeating: Parsed(value: 1, seen: 1), count: 5))
        #expect(try Docs.calls(server, "fcall") == fcalls + 5)
        #expect(documents.touches.count == 0)

        // The copy is what was written: the next change goes in one round trip, without a read
        // (a read is an HMGET of its own; the function's are counted too).
        let reads = try Docs.calls(server, "hmget") - Docs.calls(server, "fcall")
        #expect(try await documents.update("doc-0", member: "doc-0", Self.increment) == 2)
        #expect(try Docs.calls(server, "hmget") - Docs.calls(server, "fcall") == reads)
        #expect(try Docs.calls(server, "fcall") == fcalls + 6)
        #expect(try Self.stored(server, "doc-0") == Parsed(value: 2, seen: 1))
    }

    @Test func aTouchOnADocumentAnotherInstanceChangedIsMadeAgainOnIt() async throws {
        let server = try RedisServerFixture()
        let (firstClient, first) = try Docs.documents(server)
        let (secondClient, second) = try Docs.documents(server)
        defer { firstClient.close(); secondClient.close() }
        _ = try await first.update("doc", member: "m", Self.increment)
        #expect(try await first.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(7)) == 1)
        #expect(try await second.update("doc", member: "m", Self.increment) == 2)

        #expect(try await first.writeTouches() == 1)
        // Neither change lost: the other's value, and the touch.
        #expect(try Self.stored(server, "doc") == Parsed(value: 2, seen: 7))
        // A touch already made elsewhere writes nothing.
        #expect(try await second.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(7)) == 2)
        let fcalls = try Docs.calls(server, "fcall")
        #expect(try await second.writeTouches() == 0)
        #expect(try Docs.calls(server, "fcall") == fcalls + 1, "one refused write, none after")
        #expect(try Self.stored(server, "doc") == Parsed(value: 2, seen: 7))
    }

    @Test func aCopyNotTrustedIsCheckedBeforeATouchIsAnswered() async throws {
        let server = try RedisServerFixture()
        let (firstClient, first) = try Docs.documents(server)
        let (secondClient, second) = try Docs.documents(server)
        defer { firstClient.close(); secondClient.close() }
        _ = try await first.update("doc", member: "m", Self.increment)
        _ = try await second.update("doc", member: "m", Self.increment)
        // The first instance's copy says 1: untrusted, it is written against Redis at once, refused,
        // and the touch is decided again on what came back.
        #expect(try await first.update("doc", member: "m", touching: Self.again, trustCopy: false, Self.touch(3)) == 2)
        #expect(try await first.writeTouches() == 1)
        #expect(try Self.stored(server, "doc") == Parsed(value: 2, seen: 3))

        // A copy forgotten (another instance announced a change) is read before a touch.
        first.forgetCopies()
        _ = try await second.update("doc", member: "m", Self.increment)
        let reads = try Docs.reads(server)
        #expect(try await first.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(4)) == 3)
        #expect(try Docs.reads(server) == reads + 1)
    }

    /// Another instance's change is announced while a touch is being decided on the copy: the
    /// touch is queued, but the copy stays forgotten, and the next request reads Redis.
    @Test func aCopyForgottenWhileATouchIsDecidedStaysForgotten() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Docs.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Self.increment)
        let touch = Self.touch(1)
        _ = try await documents.update("doc", member: "m", touching: Self.again, trustCopy: true) { bytes, nowMs in
            documents.forgetCopy("doc")
            return touch(bytes, nowMs)
        }
        #expect(documents.touches.count == 1)
        #expect(documents.cache.entry("doc") == nil)
        #expect(try await documents.writeTouches() == 1)
        #expect(documents.cache.entry("doc") == nil)
        #expect(try Self.stored(server, "doc") == Parsed(value: 1, seen: 1))
    }

    @Test func aTouchOfADocumentGoneMeanwhileWritesNothing() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Docs.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Self.increment)
        _ = try await documents.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(1))
        _ = try server.cli("DEL", "doc")
        #expect(try await documents.writeTouches() == 0)
        #expect(try server.cli("EXISTS", "doc") == "0")
        // The copy now says there is none: the next request starts from that.
        #expect(try await documents.update("doc", member: "m", Self.increment) == 1)
    }

    @Test func touchesThatCannotBeWrittenTakeTheCopiesWithThem() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try RedisIndexedDocumentsTests.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Self.increment)
        _ = try await documents.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(1))
        server.stop()
        await #expect(throws: (any Error).self) { try await documents.writeTouches() }
        #expect(documents.touches.count == 0)
        #expect(documents.cache.count == 0, "answers from copies stop with the writes")
    }

    @Test func aNewerTouchOfOneDocumentTakesTheOlderOnesPlace() async throws {
        let server = try RedisServerFixture()
        let (client, documents) = try Docs.documents(server)
        defer { client.close() }
        _ = try await documents.update("doc", member: "m", Self.increment)
        for seen in 1...4 {
            _ = try await documents.update("doc", member: "m", touching: Self.again, trustCopy: true, Self.touch(seen))
        }
        #expect(documents.touches.count == 1)
        let fcalls = try Docs.calls(server, "fcall")
        #expect(try await documents.writeTouches() == 1)
        #expect(try Docs.calls(server, "fcall") == fcalls + 1)
        #expect(try Self.stored(server, "doc") == Parsed(value: 1, seen: 4))
    }

    @Test func pastTheirBoundTouchesAreWrittenAtOnce() async throws {
        let server = try RedisServerFixture()
        let client = RedisClient(
            endpoint: try RedisEndpoint(parsing: server.endpoint), clock: SystemAgentClock(), timeout: .seconds(60),
            prepare: RedisDocuments.prepare)
        defer { client.close() }
        let documents = RedisIndexedDocuments(client: client, indexes: ["index"], index: { _ in "index" }, maxTouches: 1)
        for key in ["a", "b"] { _ = try await documents.update(key, member: key, Self.increment) }
        _ = try await documents.update("a", member: "a", touching: Self.again, trustCopy: true, Self.touch(1))
        _ = try await documents.update("b", member: "b", touching: Self.again, trustCopy: true, Self.touch(1))
        #expect(documents.touches.count == 1)
        #expect(try Self.stored(server, "a") == Parsed(value: 1, seen: 0))
        #expect(try Self.stored(server, "b") == Parsed(value: 1, seen: 1))
    }
}
