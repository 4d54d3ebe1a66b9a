import ApsioCore
package import ApsioPOSIX

/// Documents listed in an index and changed together with what the change announces: the
/// fleet hub's devices. The change is computed in Swift on what was read, and written by
/// compare-and-set; Redis's clock comes with the document, and the write keeps the index and
/// publishes in the same atomic step (`apsio_fleet_cas`).
package struct RedisIndexedDocuments: IndexedDocumentStore {
    package typealias Publication = IndexedDocuments.Publication
    package typealias Kept = IndexedDocuments.Kept
    package typealias LogAppend = IndexedDocuments.LogAppend
    package typealias Change = IndexedDocuments.Change

    let client: RedisClient
    /// The sorted sets listing the documents, together every one. On a cluster each must share
    /// the slot of the documents it lists (a hash tag), so that one master changes both at once.
    package let indexes: [String]
    /// The index listing `member`.
    let index: @Sendable (_ member: String) -> String
    let maxTries: Int
    /// Where an update starts when this instance read or wrote the document last.
    package let cache: RedisDocumentCache
    /// Touches answered and not yet written (`writeTouches`).
    package let touches: RedisTouchQueue
    private let clock: any AgentClock

    package init(
        client: RedisClient, indexes: [String], index: @escaping @Sendable (_ member: String) -> String, maxTries: Int = 16,
        cacheBytes: Int = 4 << 20, maxTouches: Int = 10_000, clock: some AgentClock = SystemAgentClock()
    ) {
        self.client = client
        self.indexes = indexes
        self.index = index
        self.maxTries = maxTries
        self.cache = RedisDocumentCache(maxBytes: cacheBytes)
        self.touches = RedisTouchQueue(maxPending: maxTouches)
        self.clock = clock
    }

    /// A document as an update starts from, and Redis's clock then (Unix milliseconds).
    private struct Base {
        var entry: RedisDocumentCache.Entry
        /// Read from Redis for this update, not taken from the cache.
        var confirmed: Bool
    }

    /// Lets `decide` choose from the document and Redis's clock (Unix milliseconds), and writes
    /// by compare-and-set, publishing and logging in the same step. `decide` may run several times
    /// and must only compute.
    ///
    /// It starts from what this instance last read or wrote of the document (`cache`), with
    /// Redis's clock carried on from then, and writes at once: one round trip. When the document
    /// moved meanwhile, the write's answer brings it as it is, and `decide` runs again on that. A
    /// decision to change nothing is taken as final only on a document read for this update.
    ///
    /// A touch decided on a document read for this update, or on a copy the caller trusts, is
    /// answered at once and written by the next `writeTouches()`: no round trip at all.
    package func update<Result: Sendable>(
        _ key: String, member: String, touching again: IndexedDocuments.TouchAgain?, trustCopy: Bool,
        _ decide: @Sendable (_ bytes: [UInt8]?, _ nowMs: Int64) throws -> (Change, Result)
    ) async throws -> Result {
        var base = cache.entry(key).map { Base(entry: $0, confirmed: false) }
        for _ in 0..<maxTries {
            if base == nil { base = Base(entry: try await read(key), confirmed: true) }
            let start = base!
            let now = clock.now().mono
            let nowMs = start.confirmed ? start.entry.redisMs : start.entry.redisMs(at: now)
            var (change, result) = try decide(start.entry.bytes, nowMs)
            if case .touch(let touch) = change {
                if let again, start.confirmed || trustCopy, start.entry.bytes != nil,
                    touches.add(
                        key, .init(member: member, version: start.entry.version, touch: touch, again: again, redisMs: nowMs, at: now))
                {
                    // The copy now says what Redis will once the touch is written; a request
                    // deciding on it meanwhile writes the touch with its own change. Unless the
                    // copy was forgotten while this decided (another instance changed the
                    // document): then it stays forgotten.
                    cache.replace(
                        key, ifHolding: start.entry.version, start.entry.bytes,
                        with: .init(version: start.entry.version, bytes: touch.document, redisMs: nowMs, at: now))
                    return result
                }
                change = .write(touch.document, lifetime: touch.lifetime, score: touch.score, publish: [])
            }
            let command: RESPCommand
            let written: (version: String, bytes: [UInt8]?)
            switch change {
            case .keep, .touch:
                if start.confirmed { return result }
                base = nil
                continue
            case .delete(let publications, let append):
                guard start.entry.bytes != nil else {
                    if start.confirmed { return result }
                    base = nil
                    continue
                }
                command = compareAndSet(key, member: member, expected: start.entry.version, writing: nil, publish: publications, log: append)
                written = ("", nil)
            case .write(let document, let lifetime, let score, let publications, let append):
                let version = RedisDocuments.newVersion()
                command = compareAndSet(
                    key, member: member, expected: start.entry.version, writing: (version, document, lifetime, score), publish: publications,
                    log: append)
                written = (version, document)
            }
            // Redis's clock comes back with the answer, for the next update to start from.
            let replies = try await client.send([command, RESPCommand("TIME")], on: key)
            let redisMs = try RedisTime.milliseconds(replies[1])
            let at = clock.now().mono
            guard let parts = replies[0].elements, let status = parts.first?.integer else {
                cache.forget(key)
                throw RedisDocuments.UpdateError.unexpectedReply("\(replies[0])")
            }
            if status == 1 {
                cache.keep(key, .init(version: written.version, bytes: written.bytes, redisMs: redisMs, at: at))
                return result
            }
            guard parts.count == 3 else {
                cache.forget(key)
                throw RedisDocuments.UpdateError.unexpectedReply("\(replies[0])")
            }
            let current = RedisDocumentCache.Entry(
                version: parts[1].text ?? "", bytes: parts[1].isNull ? nil : (parts[2].bytes ?? []), redisMs: redisMs, at: at)
            cache.keep(key, current)
            base = Base(entry: current, confirmed: true)
        }
        throw RedisDocuments.UpdateError.contended(key: key, tries: maxTries)
    }

    /// `apsio_fleet_cas` of `key` from `expected` ("" for none) to `writing` (nil deletes),
    /// publishing and logging in the same step.
    private func compareAndSet(
        _ key: String, member: String, expected: String,
        writing: (version: String, document: [UInt8], lifetime: Duration, score: Int64)?, publish: [Publication], log: LogAppend?
    ) -> RESPCommand {
        var arguments: [[UInt8]] = [
            Array("FCALL".utf8), Array(RedisDocumentLibrary.compareAndSetOrRead.utf8), Array("2".utf8), Array(key.utf8),
            Array(index(member).utf8), Array(expected.utf8),
        ]
        if let writing {
            arguments += [
                Array(writing.version.utf8), writing.document, Array(String(IndexedDocuments.milliseconds(writing.lifetime)).utf8),
                Array(member.utf8), Array(String(writing.score).utf8),
            ]
        } else {
            arguments += [[], [], Array("0".utf8), Array(member.utf8), []]
        }
        arguments.append(Array(String(publish.count).utf8))
        for publication in publish {
            arguments += [Array(publication.channel.utf8), publication.message]
            if let kept = publication.kept {
                arguments += [
                    Array(kept.key.utf8), kept.message ?? [], Array(String(max(kept.maxEntries, 1)).utf8),
                    Array(String(IndexedDocuments.milliseconds(kept.lifetime)).utf8), kept.clearFirst ? Array("1".utf8) : [],
                ]
            } else {
                arguments += [[], [], [], [], []]
            }
        }
        if let log, !log.entries.isEmpty {
            arguments += [
                Array(log.key.utf8), Array(String(log.oldestScore).utf8), Array(String(log.maxEntries).utf8),
                Array(String(IndexedDocuments.milliseconds(log.lifetime)).utf8),
            ]
            for (score, entry) in log.entries { arguments += [Array(String(score).utf8), entry] }
        }
        return RESPCommand(arguments)
    }

    /// Writes the touches waiting, each by compare-and-set on the version it was decided on, in
    /// one pipelined write to each node. A document that moved meanwhile (another instance
    /// changed it) is touched again as it now is (`TouchAgain`), up to `maxTries` rounds. Returns
    /// how many were written.
    ///
    /// When Redis cannot be reached, the touches are lost and every copy is forgotten: this
    /// instance's next answers come from Redis again, not from copies it can no longer keep true.
    /// A lost touch is a hello not counted: the device's presence runs out only after two more
    /// intervals without one.
    package func writeTouches() async throws -> Int {
        var round = touches.take()
        var written = 0
        for _ in 0..<maxTries {
            guard !round.isEmpty else { return written }
            let versions = round.map { _ in RedisDocuments.newVersion() }
            let commands = zip(round, versions).map { item, version in
                let touch = item.pending.touch
                return (
                    key: Optional(item.key),
                    command: compareAndSet(
                        item.key, member: item.pending.member, expected: item.pending.version,
                        writing: (version, touch.document, touch.lifetime, touch.score), publish: [], log: nil)
                )
            }
            let replies: [RESPValue]
            do {
                replies = try await client.sendEach(commands)
            } catch {
                cache.forgetAll()
                throw error
            }
            let at = clock.now().mono
            var again: [(key: String, pending: RedisTouchQueue.Pending)] = []
            for ((item, version), reply) in zip(zip(round, versions), replies) {
                let (key, pending) = item
                let redisMs = pending.redisMs(at: at)
                guard let parts = reply.elements, let status = parts.first?.integer, status == 1 || parts.count == 3 else {
                    cache.forget(key)
                    continue
                }
                if status == 1 {
                    written += 1
                    cache.replace(
                        key, ifHolding: pending.version, pending.touch.document,
                        with: .init(version: version, bytes: pending.touch.document, redisMs: redisMs, at: at))
                    continue
                }
                let current = RedisDocumentCache.Entry(
                    version: parts[1].text ?? "", bytes: parts[1].isNull ? nil : (parts[2].bytes ?? []), redisMs: redisMs, at: at)
                guard let touch = pending.again(pending.touch.document, current.bytes, redisMs) else {
                    cache.replace(key, ifHolding: pending.version, pending.touch.document, with: current)
                    continue
                }
                cache.replace(
                    key, ifHolding: pending.version, pending.touch.document,
                    with: .init(version: current.version, bytes: touch.document, redisMs: redisMs, at: at))
                var next = pending
                next.version = current.version
                next.touch = touch
                again.append((key, next))
            }
            round = again
        }
        // Contended past every round: the copies are not to be trusted.
        for (key, _) in round { cache.forget(key) }
        return written
    }

    /// Returns once touches wait to be written, or when the task is cancelled.
    package func touchesWaiting() async { await touches.waiting() }

    /// Forgets this instance's copy of `key`: another instance changed it.
    package func forgetCopy(_ key: String) { cache.forget(key) }

    /// Forgets every copy: this instance may have missed what others said of their changes.
    package func forgetCopies() { cache.forgetAll() }

    /// The document and Redis's clock, in one round trip; kept in the cache.
    private func read(_ key: String) async throws -> RedisDocumentCache.Entry {
        let replies = try await client.send([RESPCommand("HMGET", key, "v", "d"), RESPCommand("TIME")], on: key)
        guard let fields = replies[0].elements, fields.count == 2 else {
            throw RedisDocuments.UpdateError.unexpectedReply("\(replies[0])")
        }
        let entry = RedisDocumentCache.Entry(
            version: fields[0].text ?? "", bytes: fields[0].text == nil ? nil : (fields[1].bytes ?? []),
            redisMs: try RedisTime.milliseconds(replies[1]), at: clock.now().mono)
        cache.keep(key, entry)
        return entry
    }


    /// The messages kept in `key` (`Kept`), oldest first.
    package func kept(_ key: String) async throws -> [[UInt8]] {
        let reply = try await client.send(RESPCommand("LRANGE", key, "0", "-1"), on: key)
        return (reply.elements ?? []).compactMap(\.bytes)
    }

    package func dropKept(_ key: String) async throws {
        _ = try await client.send(RESPCommand("DEL", key), on: key)
    }

    /// A log's entries (as appended by a change), oldest first, at most `limit` of the newest.
    package func log(_ key: String, limit: Int) async throws -> [[UInt8]] {
        let reply = try await client.send(RESPCommand("ZRANGE", key, "0", String(limit - 1), "REV"), on: key)
        return (reply.elements ?? []).compactMap(\.bytes).reversed()
    }

    /// The members whose score is at most `score`, at most `limit` of each index.
    package func due(by score: Int64, limit: Int) async throws -> [String] {
        let replies = try await client.sendEach(
            indexes.map { (key: $0, command: RESPCommand("ZRANGE", $0, "-inf", String(score), "BYSCORE", "LIMIT", "0", String(limit))) })
        return replies.flatMap { ($0.elements ?? []).compactMap(\.text) }
    }

    /// Every member of every index.
    package func members() async throws -> [String] {
        let replies = try await client.sendEach(indexes.map { (key: $0, command: RESPCommand("ZRANGE", $0, "0", "-1")) })
        return replies.flatMap { ($0.elements ?? []).compactMap(\.text) }
    }

    /// Drops a member whose document is gone (expired by its lifetime).
    package func forget(member: String) async throws {
        let index = index(member)
        _ = try await client.send(RESPCommand("ZREM", index, member), on: index)
    }

    /// The documents' bytes (nil for each one missing) and Redis's clock, in one round trip to
    /// each node that holds some.
    package func read(_ keys: [String]) async throws -> (documents: [[UInt8]?], nowMs: Int64) {
        let replies = try await client.sendEach(keys.map { (key: $0, command: RESPCommand("HGET", $0, "d")) } + [(key: keys.first, command: RESPCommand("TIME"))])
        return (replies.dropLast().map { $0.isNull ? nil : ($0.bytes ?? []) }, try RedisTime.milliseconds(replies[replies.count - 1]))
    }
}
