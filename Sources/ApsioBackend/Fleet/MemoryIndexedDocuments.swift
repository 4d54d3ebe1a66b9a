import ApsioCore
package import ApsioPOSIX
package import ApsioRedis
import Synchronization

/// The fleet's device documents kept in this process, to the contract Redis keeps them to
/// (`IndexedDocumentStoreTests` runs the same checks on both): every change one atomic step under
/// a lock, lifetimes judged by the injected clock when a document or list is next looked at, and
/// each publication handed to `published` in the order the changes were made.
package final class MemoryIndexedDocuments: IndexedDocumentStore {
    /// What runs out: gone once the store's clock reaches `expiresMs`, whenever it is looked at.
    private protocol Expiring {
        var expiresMs: Int64? { get }
    }

    private struct Document: Expiring {
        var bytes: [UInt8]
        var expiresMs: Int64?
    }

    private struct List: Expiring {
        var entries: [[UInt8]] = []
        var expiresMs: Int64?
    }

    private struct Log: Expiring {
        /// By score, in the order they were appended within a score.
        var entries: [(score: Int64, entry: [UInt8])] = []
        var expiresMs: Int64?
    }

    private struct State {
        var documents: [String: Document] = [:]
        /// Index → member → score.
        var indexes: [String: [String: Int64]] = [:]
        var lists: [String: List] = [:]
        var logs: [String: Log] = [:]
    }

    /// Refused past this many documents: the process's memory is the store's whole room.
    package struct Full: Error, CustomStringConvertible {
        package let limit: Int
        package var description: String { "the hub keeps as many devices as it can (\(limit))" }
    }

    package let indexes: [String]
    private let maxDocuments: Int
    /// All the logs' entries together, at most.
    private let maxLogEntries: Int
    private let index: @Sendable (_ member: String) -> String
    private let clock: any AgentClock
    private let published: @Sendable (_ channel: String, _ message: [UInt8]) -> Void
    private let state = Mutex(State())

    package init(
        indexes: [String], index: @escaping @Sendable (_ member: String) -> String, clock: some AgentClock, maxDocuments: Int = .max,
        maxLogEntries: Int = .max, published: @escaping @Sendable (_ channel: String, _ message: [UInt8]) -> Void = { _, _ in }
    ) {
        self.indexes = indexes
        self.maxDocuments = maxDocuments
        self.maxLogEntries = maxLogEntries
        self.index = index
        self.clock = clock
        self.published = published
    }

    private var nowMs: Int64 { clock.now().wallUnixMs }

    /// A touch is written at once, as every change here is: nothing is saved by waiting.
    package func update<Result: Sendable>(
        _ key: String, member: String, touching again: IndexedDocuments.TouchAgain?, trustCopy: Bool,
        _ decide: @Sendable (_ bytes: [UInt8]?, _ nowMs: Int64) throws -> (IndexedDocuments.Change, Result)
    ) async throws -> Result {
        let nowMs = nowMs
        // Published under the lock, so that subscribers hear changes in the order they were made.
        return try state.withLock { state in
            let current = Self.live(state.documents[key], nowMs: nowMs)
            var (change, result) = try decide(current?.bytes, nowMs)
            if case .touch(let touch) = change {
                change = .write(touch.document, lifetime: touch.lifetime, score: touch.score, publish: [])
            }
            let publish: [IndexedDocuments.Publication]
            let log: IndexedDocuments.LogAppend?
            switch change {
            case .keep, .touch:
                return result
            case .delete(let publications, let append):
                guard current != nil else { return result }
                state.documents[key] = nil
                state.indexes[index(member)]?[member] = nil
                (publish, log) = (publications, append)
            case .write(let bytes, let lifetime, let score, let publications, let append):
                if current == nil {
                    state.documents[key] = nil
                    // What has run out makes room before a new device is refused, not only at
                    // the next sweep, which an idle instance runs every few seconds.
                    if state.documents.count >= maxDocuments { Self.dropExpired(&state.documents, nowMs: nowMs) }
                    guard state.documents.count < maxDocuments else { throw Full(limit: maxDocuments) }
                }
                state.documents[key] = Document(bytes: bytes, expiresMs: nowMs + IndexedDocuments.milliseconds(lifetime))
                state.indexes[index(member), default: [:]][member] = score
                (publish, log) = (publications, append)
            }
            for publication in publish {
                published(publication.channel, publication.message)
                guard let kept = publication.kept else { continue }
                var list = Self.live(state.lists[kept.key], nowMs: nowMs) ?? List()
                if kept.clearFirst { list.entries = [] }
                list.entries.append(kept.message ?? publication.message)
                list.entries.removeFirst(max(0, list.entries.count - max(kept.maxEntries, 1)))
                list.expiresMs = nowMs + IndexedDocuments.milliseconds(kept.lifetime)
                state.lists[kept.key] = list
            }
            if let log, !log.entries.isEmpty {
                var entries = Self.live(state.logs[log.key], nowMs: nowMs)?.entries ?? []
                for entry in log.entries {
                    let place = entries.firstIndex { $0.score > entry.score } ?? entries.endIndex
                    entries.insert(entry, at: place)
                }
                entries.removeAll { $0.score < log.oldestScore }
                entries.removeFirst(max(0, entries.count - log.maxEntries))
                state.logs[log.key] = Log(entries: entries, expiresMs: nowMs + IndexedDocuments.milliseconds(log.lifetime))
                Self.trimLogs(&state, to: maxLogEntries)
            }
            return result
        }
    }

    package func kept(_ key: String) async throws -> [[UInt8]] {
        let nowMs = nowMs
        return state.withLock { Self.live($0.lists[key], nowMs: nowMs)?.entries ?? [] }
    }

    package func dropKept(_ key: String) async throws {
        state.withLock { $0.lists[key] = nil }
    }

    package func log(_ key: String, limit: Int) async throws -> [[UInt8]] {
        let nowMs = nowMs
        return state.withLock { state in
            Self.live(state.logs[key], nowMs: nowMs)?.entries.suffix(limit).map(\.entry) ?? []
        }
    }

    /// Every sweep asks what is due: what has run out goes then, so nothing that is never looked
    /// at again stays in memory.
    package func due(by score: Int64, limit: Int) async throws -> [String] {
        let nowMs = nowMs
        return state.withLock { state in
            Self.dropExpired(&state.documents, nowMs: nowMs)
            Self.dropExpired(&state.lists, nowMs: nowMs)
            Self.dropExpired(&state.logs, nowMs: nowMs)
            return indexes.flatMap { name in
                (state.indexes[name] ?? [:]).filter { $0.value <= score }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                    .prefix(limit).map(\.key)
            }
        }
    }

    package func members() async throws -> [String] {
        state.withLock { state in
            indexes.flatMap { name in (state.indexes[name] ?? [:]).sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key) }
        }
    }

    package func forget(member: String) async throws {
        let name = index(member)
        state.withLock { _ = $0.indexes[name]?.removeValue(forKey: member) }
    }

    package func read(_ keys: [String]) async throws -> (documents: [[UInt8]?], nowMs: Int64) {
        let nowMs = nowMs
        return (state.withLock { state in keys.map { Self.live(state.documents[$0], nowMs: nowMs)?.bytes } }, nowMs)
    }

    /// Past `limit` entries in all the logs together, the oldest of the longest log go: each
    /// log keeps its own bound, and all of them one for the process.
    private static func trimLogs(_ state: inout State, to limit: Int) {
        var total = state.logs.values.reduce(0) { $0 + $1.entries.count }
        while total > limit, let longest = state.logs.max(by: { $0.value.entries.count < $1.value.entries.count })?.key {
            let excess = min(total - limit, state.logs[longest]!.entries.count)
            state.logs[longest]!.entries.removeFirst(max(excess, 1))
            total -= max(excess, 1)
        }
    }

    private static func live<Value: Expiring>(_ value: Value?, nowMs: Int64) -> Value? {
        guard let value, value.expiresMs.map({ nowMs < $0 }) ?? true else { return nil }
        return value
    }

    /// Takes out what ran out, without copying the rest when nothing did.
    private static func dropExpired<Value: Expiring>(_ values: inout [String: Value], nowMs: Int64) {
        for key in values.compactMap({ live($0.value, nowMs: nowMs) == nil ? $0.key : nil }) { values[key] = nil }
    }
}
