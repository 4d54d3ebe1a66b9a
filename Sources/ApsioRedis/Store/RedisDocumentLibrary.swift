/// The Redis functions the backend loads: a compare-and-set of a document (a hash of a version
/// and the bytes), so one device's state is changed atomically by whichever instance holds its
/// request, on the shared pipelined connection.
///
/// Why a function and not WATCH/MULTI: WATCH belongs to a connection, and every request of an
/// instance shares one pipelined connection; a transaction per request would need a connection per
/// request. The function only compares and writes, which keeps the time Redis is blocked by it
/// short; the rules themselves run in Swift, on the document read just before.
///
/// Versions are random tokens chosen by the writer, not counters: a document deleted (or expired)
/// and made again cannot come back at a version a slow writer read before (no ABA).
enum RedisDocumentLibrary {
    /// In a library of its own name (`apsio_fleet`), so that an instance of an earlier release,
    /// which loads its `apsio` library again (`REPLACE`) on each new connection, never takes it
    /// away mid-upgrade; and this release leaves `apsio` alone for the same reason.
    static let compareAndSetOrRead = "apsio_fleet_cas"

    /// `apsio_fleet_cas`: compares the document's version with the one its writer read or wrote
    /// last, and writes only if it has not moved: a hash of a version and the bytes (the key),
    /// the document's member in an index (a sorted set scored by when the document next needs
    /// attention), and the messages the change produced, published in the same step, so that no
    /// instance hears of a change that lost its compare-and-set. When the version has moved, the
    /// answer carries the document as it is, `{0, version, bytes}` (both nil when there is none),
    /// so trying again needs no read of its own; `{1}` when written.
    ///
    /// The messages go on sharded channels (`SPUBLISH`): on a cluster they must share the
    /// document's slot, and the index and the log too. keys: the document, the index. args: the
    /// version read ("" when absent), the new version ("" to delete), the new bytes, the lifetime
    /// in milliseconds (0: none), the member, its score, the number of messages and, for each,
    /// its channel, the message, and where it is also kept (a list of the channel's latest
    /// messages, or '' for nowhere), what is kept ('' for the message itself), how many the list
    /// keeps, its lifetime in milliseconds, and '1' to empty the list first; and optionally a log
    /// to append to in the same step (a sorted set by time): its key, the oldest score kept, the
    /// most entries kept, its lifetime in milliseconds, and pairs of score and entry.
    static let fleetSource = """
        #!lua name=apsio_fleet
        \(writeIndexed)
        redis.register_function('apsio_fleet_cas', function(keys, args)
          local current = redis.call('HMGET', keys[1], 'v', 'd')
          if (current[1] or '') ~= args[1] then return {0, current[1], current[2]} end
          write_indexed(keys, args)
          return {1}
        end)
        """

    /// The write, once the version check passed.
    private static let writeIndexed = """
        local function write_indexed(keys, args)
          if args[2] == '' then
            redis.call('DEL', keys[1])
            redis.call('ZREM', keys[2], args[5])
          else
            redis.call('HSET', keys[1], 'v', args[2], 'd', args[3])
            local ttl = tonumber(args[4])
            if ttl > 0 then redis.call('PEXPIRE', keys[1], ttl) else redis.call('PERSIST', keys[1]) end
            redis.call('ZADD', keys[2], args[6], args[5])
          end
          local i = 8
          for n = 1, tonumber(args[7]) do
            redis.call('SPUBLISH', args[i], args[i + 1])
            local list, kept = args[i + 2], args[i + 3]
            if list ~= '' then
              if args[i + 6] == '1' then redis.call('DEL', list) end
              if kept == '' then kept = args[i + 1] end
              redis.call('RPUSH', list, kept)
              redis.call('LTRIM', list, -tonumber(args[i + 4]), -1)
              redis.call('PEXPIRE', list, args[i + 5])
            end
            i = i + 7
          end
          if args[i] ~= nil then
            local log, cutoff, cap, ttl = args[i], args[i + 1], tonumber(args[i + 2]), args[i + 3]
            i = i + 4
            while args[i] ~= nil do
              redis.call('ZADD', log, args[i], args[i + 1])
              i = i + 2
            end
            redis.call('ZREMRANGEBYSCORE', log, '-inf', '(' .. cutoff)
            redis.call('ZREMRANGEBYRANK', log, 0, -(cap + 1))
            redis.call('PEXPIRE', log, ttl)
          end
        end
        """
}
