/// Documents listed in an index and changed together with what the change announces: the
/// fleet's devices, each changed by one atomic step that also keeps its index, publishes what the
/// change told, keeps the latest messages for latecomers and appends to a log. Kept in Redis
/// (`RedisIndexedDocuments`) for a fleet, or in this process (`MemoryIndexedDocuments`); both are
/// held to one contract (`IndexedDocumentStoreTests`).
package protocol IndexedDocumentStore: Sendable {
    /// Lets `decide` choose from the document (nil when there is none) and the store's clock (Unix
    /// milliseconds), and makes the change in one atomic step. `decide` may run several times and
    /// must only compute; the result is that of the run whose change was made.
    ///
    /// `decide` may answer `Change.touch` when `again` is given: a store that keeps its documents
    /// elsewhere may then answer at once from its own copy of the document, when it has one it
    /// trusts (`trustCopy`: the caller hears every change other writers make), and make the write
    /// a moment later with others; if the document moved meanwhile, `again` says what the touch
    /// makes of it as it then is. Without `again`, a touch is a write.
    func update<Result: Sendable>(
        _ key: String, member: String, touching again: IndexedDocuments.TouchAgain?, trustCopy: Bool,
        _ decide: @Sendable (_ bytes: [UInt8]?, _ nowMs: Int64) throws -> (IndexedDocuments.Change, Result)
    ) async throws -> Result
    /// The messages kept in `key` (`Kept`), oldest first.
    func kept(_ key: String) async throws -> [[UInt8]]
    /// Empties a list of kept messages.
    func dropKept(_ key: String) async throws
    /// A log's entries (as appended by a change), oldest first, at most `limit` of the newest.
    func log(_ key: String, limit: Int) async throws -> [[UInt8]]
    /// The members whose score is at most `score`, at most `limit` of each index.
    func due(by score: Int64, limit: Int) async throws -> [String]
    /// Every member of every index.
    func members() async throws -> [String]
    /// Drops a member whose document is gone (expired by its lifetime).
    func forget(member: String) async throws
    /// The documents' bytes (nil for each one missing) and the store's clock.
    func read(_ keys: [String]) async throws -> (documents: [[UInt8]?], nowMs: Int64)
}

extension IndexedDocumentStore {
    /// An update whose changes are all made before it returns.
    package func update<Result: Sendable>(
        _ key: String, member: String, _ decide: @Sendable (_ bytes: [UInt8]?, _ nowMs: Int64) throws -> (IndexedDocuments.Change, Result)
    ) async throws -> Result {
        try await update(key, member: member, touching: nil, trustCopy: false, decide)
    }
}

/// What a change of an indexed document is made of, whichever store keeps it.
package enum IndexedDocuments {
    /// A write nobody waits on and that announces nothing: a device's hello that only says it is
    /// still there. It changes what its writer alone says of the document (when it was last seen),
    /// so that it can be made again on the document as another writer left it (`TouchAgain`).
    package struct Touch: Sendable, Equatable {
        package var document: [UInt8]
        package var lifetime: Duration
        package var score: Int64

        package init(_ document: [UInt8], lifetime: Duration, score: Int64) {
            self.document = document
            self.lifetime = lifetime
            self.score = score
        }
    }

    /// What a touch (`touched`, the document it would have written) decided on an earlier copy
    /// makes of the document as it is now (`bytes`, nil when there is none), at the store's clock:
    /// nil when it writes nothing (the document is another's now, or already says as much).
    package typealias TouchAgain = @Sendable (_ touched: [UInt8], _ bytes: [UInt8]?, _ nowMs: Int64) -> Touch?

    /// A message to publish when, and only when, the change is written.
    package struct Publication: Sendable, Equatable {
        package var channel: String
        package var message: [UInt8]
        /// Where the message is also kept for a while, for subscribers that come later.
        package var kept: Kept?

        package init(channel: String, message: [UInt8], kept: Kept? = nil) {
            self.channel = channel
            self.message = message
            self.kept = kept
        }
    }

    /// A list of a channel's latest messages (`RPUSH`, trimmed to `maxEntries`, gone `lifetime`
    /// after the last): what a subscriber that just arrived reads to catch up on what it could not
    /// hear yet, since pub/sub itself keeps nothing.
    package struct Kept: Sendable, Equatable {
        package var key: String
        /// What is kept in the message's place; nil keeps the message itself.
        package var message: [UInt8]?
        package var maxEntries: Int
        package var lifetime: Duration
        /// The list is emptied before this message goes in: what it held must not outlive it.
        package var clearFirst: Bool

        package init(key: String, message: [UInt8]? = nil, maxEntries: Int, lifetime: Duration, clearFirst: Bool = false) {
            self.key = key
            self.message = message
            self.maxEntries = maxEntries
            self.lifetime = lifetime
            self.clearFirst = clearFirst
        }
    }

    /// Entries appended to a log (a sorted set by time) in the same step as the change: what
    /// must be kept exactly when the change happened, like an audit.
    package struct LogAppend: Sendable, Equatable {
        package var key: String
        /// Entries scored below this go.
        package var oldestScore: Int64
        package var maxEntries: Int
        package var lifetime: Duration
        package var entries: [(score: Int64, entry: [UInt8])]

        package init(key: String, oldestScore: Int64, maxEntries: Int, lifetime: Duration, entries: [(score: Int64, entry: [UInt8])]) {
            self.key = key
            self.oldestScore = oldestScore
            self.maxEntries = maxEntries
            self.lifetime = lifetime
            self.entries = entries
        }

        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.key == rhs.key && lhs.oldestScore == rhs.oldestScore && lhs.maxEntries == rhs.maxEntries
                && lhs.lifetime == rhs.lifetime && lhs.entries.elementsEqual(rhs.entries, by: { $0 == $1 })
        }
    }

    package enum Change: Sendable, Equatable {
        case keep
        /// Writes the document, scores its member in the index, publishes, appends to the log.
        case write([UInt8], lifetime: Duration, score: Int64, publish: [Publication], log: LogAppend? = nil)
        case delete(publish: [Publication], log: LogAppend? = nil)
        /// A write that may be made a moment later (`IndexedDocumentStore.update`).
        case touch(Touch)
    }

    /// A lifetime as the stores count it: whole milliseconds, at least one.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.wholeMilliseconds)
    }
}
