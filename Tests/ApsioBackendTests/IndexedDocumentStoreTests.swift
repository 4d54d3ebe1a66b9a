import ApsioBackend
import ApsioCore
import ApsioPOSIX
import ApsioRedis
import ApsioTestSupport
import Synchronization
import Testing

/// One contract for the fleet's device documents, wherever they are kept: a real `redis-server`
/// (`RedisIndexedDocuments`) and this process (`MemoryIndexedDocuments`) run the same checks, so
/// that what is tried in process holds in a fleet.
@Suite struct IndexedDocumentStoreTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, redis
        var testDescription: String { rawValue }
    }

    /// What a store published, in order.
    final class Published: Sendable {
        private let messages = Mutex<[String]>([])
        func append(_ message: String) { messages.withLock { $0.append(message) } }
        var all: [String] { messages.withLock { $0 } }
    }

    /// A store of one kind, and a way to let its clock pass a lifetime.
    final class Store: Sendable {
        let documents: any IndexedDocumentStore
        let published = Published()
        private let server: RedisServerFixture?
        private let client: RedisClient?
        private let clock: ManualAgentClock?

        init(_ kind: Kind) throws {
            let published = published
            let indexes = ["index:a", "index:b"]
            let index: @Sendable (String) -> String = { $0.hasPrefix("a") ? "index:a" : "index:b" }
            switch kind {
            case .memory:
                let clock = ManualAgentClock()
                self.clock = clock
                (server, client) = (nil, nil)
                documents = MemoryIndexedDocuments(indexes: indexes, index: index, clock: clock) { _, message in
                    published.append(String(decoding: message, as: UTF8.self))
                }
            case .redis:
                let server = try RedisServerFixture()
                let client = RedisClient(
                    endpoint: try RedisEndpoint(parsing: server.endpoint), clock: SystemAgentClock(), timeout: .seconds(60),
                    prepare: RedisDocuments.prepare)
                (self.server, self.client, clock) = (server, client, nil)
                documents = RedisIndexedDocuments(client: client, indexes: indexes, index: index)
            }
        }

        /// Returns once `lifetime` has passed on the store's clock.
        func pass(_ lifetime: Duration, until gone: @escaping @Sendable () async throws -> Bool) async throws {
            if let clock {
                clock.advance(by: lifetime + .milliseconds(1))
            } else {
                try await poll("the lifetime to pass in Redis", gone)
            }
        }

        func close() { client?.close() }
    }

    static func write(_ text: String, score: Int64 = 100, lifetime: Duration = .seconds(600), publish: [IndexedDocuments.Publication] = [], log: IndexedDocuments.LogAppend? = nil)
        -> @Sendable ([UInt8]?, Int64) -> (IndexedDocuments.Change, String?)
    {
        { bytes, _ in (.write(Array(text.utf8), lifetime: lifetime, score: score, publish: publish, log: log), bytes.map { String(decoding: $0, as: UTF8.self) }) }
    }

    static func text(_ list: [[UInt8]]) -> [String] { list.map { String(decoding: $0, as: UTF8.self) } }

    @Test(arguments: Kind.allCases)
    func aDocumentIsReadBackListedAndDueByItsScore(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        #expect(try await store.documents.update("doc:a1", member: "a1", Self.write("one", score: 500)) == nil)
        #expect(try await store.documents.update("doc:a1", member: "a1", Self.write("two", score: 500)) == "one")
        _ = try await store.documents.update("doc:b1", member: "b1", Self.write("three", score: 900))
        let (read, nowMs) = try await store.documents.read(["doc:a1", "doc:b1", "doc:none"])
        #expect(read.map { $0.map { String(decoding: $0, as: UTF8.self) } } == ["two", "three", nil])
        #expect(nowMs > 0)
        #expect(Set(try await store.documents.members()) == ["a1", "b1"])
        #expect(try await store.documents.due(by: 499, limit: 10).isEmpty)
        #expect(try await store.documents.due(by: 500, limit: 10) == ["a1"])
        #expect(Set(try await store.documents.due(by: 900, limit: 10)) == ["a1", "b1"])
        try await store.documents.forget(member: "a1")
        #expect(try await store.documents.members() == ["b1"])
    }

    @Test(arguments: Kind.allCases)
    func nothingToChangeChangesNothingAndADeleteTakesTheMemberToo(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("one"))
        try await store.documents.update("doc:a1", member: "a1") { _, _ in (.keep, ()) }
        #expect(try await store.documents.read(["doc:a1"]).documents == [Array("one".utf8)])
        try await store.documents.update("doc:a1", member: "a1") { _, _ in (.delete(publish: [.init(channel: "gone", message: Array("bye".utf8))]), ()) }
        #expect(try await store.documents.read(["doc:a1"]).documents == [nil])
        #expect(try await store.documents.members().isEmpty)
        // A delete of nothing publishes nothing.
        try await store.documents.update("doc:a1", member: "a1") { _, _ in (.delete(publish: [.init(channel: "gone", message: Array("again".utf8))]), ()) }
        if kind == .memory { #expect(store.published.all == ["bye"]) }
    }

    @Test(arguments: Kind.allCases)
    func theLatestMessagesAreKeptForLatecomersAndGoWithAClearingOne(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        func publish(_ message: String, standIn: String? = nil, clear: Bool = false) -> IndexedDocuments.Publication {
            .init(
                channel: "events", message: Array(message.utf8),
                kept: .init(key: "recent", message: standIn.map { Array($0.utf8) }, maxEntries: 3, lifetime: .seconds(600), clearFirst: clear))
        }
        for (number, message) in ["e1", "e2", "e3", "e4"].enumerated() {
            _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v\(number)", publish: [publish(message)]))
        }
        #expect(Self.text(try await store.documents.kept("recent")) == ["e2", "e3", "e4"])
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v5", publish: [publish("big", standIn: "gap")]))
        #expect(Self.text(try await store.documents.kept("recent")) == ["e3", "e4", "gap"])
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v6", publish: [publish("ended", clear: true)]))
        #expect(Self.text(try await store.documents.kept("recent")) == ["ended"])
        try await store.documents.dropKept("recent")
        #expect(try await store.documents.kept("recent").isEmpty)
        if kind == .memory {
            #expect(store.published.all == ["e1", "e2", "e3", "e4", "big", "ended"])
        }
    }

    @Test(arguments: Kind.allCases)
    func aLogKeepsItsNewestEntriesWithinItsAgeAndCount(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        func log(_ entries: [(Int64, String)], oldest: Int64) -> IndexedDocuments.LogAppend {
            .init(key: "audit", oldestScore: oldest, maxEntries: 4, lifetime: .seconds(600), entries: entries.map { ($0.0, Array($0.1.utf8)) })
        }
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v1", log: log([(10, "a"), (20, "b"), (30, "c")], oldest: 0)))
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v2", log: log([(40, "d"), (50, "e")], oldest: 15)))
        #expect(Self.text(try await store.documents.log("audit", limit: 10)) == ["b", "c", "d", "e"])
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("v3", log: log([(60, "f")], oldest: 35)))
        #expect(Self.text(try await store.documents.log("audit", limit: 10)) == ["d", "e", "f"])
        #expect(Self.text(try await store.documents.log("audit", limit: 2)) == ["e", "f"])
    }

    @Test(arguments: Kind.allCases)
    func aDocumentGoesAtTheEndOfItsLifetime(_ kind: Kind) async throws {
        let store = try Store(kind)
        defer { store.close() }
        _ = try await store.documents.update("doc:a1", member: "a1", Self.write("brief", lifetime: .milliseconds(50)))
        let documents = store.documents
        try await store.pass(.milliseconds(50)) { try await documents.read(["doc:a1"]).documents == [nil] }
        #expect(try await store.documents.read(["doc:a1"]).documents == [nil])
        // Its member stays listed until forgotten, as the sweep that finds it gone does.
        #expect(try await store.documents.members() == ["a1"])
        #expect(try await store.documents.update("doc:a1", member: "a1", Self.write("again")) == nil)
    }
}
