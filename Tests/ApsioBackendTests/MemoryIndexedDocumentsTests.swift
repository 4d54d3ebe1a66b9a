import ApsioBackend
import ApsioCore
import ApsioPOSIX
import ApsioRedis
import ApsioTestSupport
import Testing

/// What the in-process store bounds that Redis bounds by its own memory: the number of devices and
/// the audit of all of them together.
@Suite struct MemoryIndexedDocumentsTests {
    static func store(maxDocuments: Int = .max, maxLogEntries: Int = .max, clock: ManualAgentClock = ManualAgentClock()) -> MemoryIndexedDocuments {
        MemoryIndexedDocuments(
            indexes: ["index"], index: { _ in "index" }, clock: clock, maxDocuments: maxDocuments, maxLogEntries: maxLogEntries)
    }

    static func write(log: IndexedDocuments.LogAppend? = nil) -> @Sendable ([UInt8]?, Int64) -> (IndexedDocuments.Change, Void) {
        { _, _ in (.write(Array("doc".utf8), lifetime: .seconds(600), score: 1, publish: [], log: log), ()) }
    }

    @Test func aNewDeviceBeyondTheBoundIsRefusedAndTheOthersGoOn() async throws {
        let store = Self.store(maxDocuments: 2)
        try await store.update("doc:1", member: "1", Self.write())
        try await store.update("doc:2", member: "2", Self.write())
        await #expect(throws: MemoryIndexedDocuments.Full.self) { try await store.update("doc:3", member: "3", Self.write()) }
        // The devices it has are changed as before, and one that goes makes room.
        try await store.update("doc:2", member: "2", Self.write())
        try await store.update("doc:2", member: "2") { _, _ in (.delete(publish: []), ()) }
        try await store.update("doc:3", member: "3", Self.write())
        #expect(try await store.members().sorted() == ["1", "3"])
    }

    /// A document that ran out makes room for a new one at once, not only at the next sweep.
    @Test func aDocumentThatRanOutMakesRoomWithoutASweep() async throws {
        let clock = ManualAgentClock()
        let store = Self.store(maxDocuments: 1, clock: clock)
        try await store.update("doc:1", member: "1", Self.write())
        await #expect(throws: MemoryIndexedDocuments.Full.self) { try await store.update("doc:2", member: "2", Self.write()) }
        _ = clock.advance(by: .seconds(601))
        try await store.update("doc:2", member: "2", Self.write())
        #expect(try await store.read(["doc:1", "doc:2"]).documents.map { $0 != nil } == [false, true])
    }

    @Test func theAuditOfAllDevicesTogetherStaysWithinItsBoundTheLongestLogGivingWay() async throws {
        let store = Self.store(maxLogEntries: 10)
        func log(_ key: String, _ scores: ClosedRange<Int64>) -> IndexedDocuments.LogAppend {
            .init(key: key, oldestScore: 0, maxEntries: 100, lifetime: .seconds(600), entries: scores.map { ($0, Array("\($0)".utf8)) })
        }
        try await store.update("doc:1", member: "1", Self.write(log: log("audit:busy", 1...9)))
        try await store.update("doc:2", member: "2", Self.write(log: log("audit:quiet", 1...3)))
        let busy = try await store.log("audit:busy", limit: 100)
        let quiet = try await store.log("audit:quiet", limit: 100)
        #expect(busy.count + quiet.count == 10)
        #expect(quiet.count == 3)
        // The busy device's oldest went; its newest stay.
        #expect(busy.map { String(decoding: $0, as: UTF8.self) } == (3...9).map(String.init))
    }
}
