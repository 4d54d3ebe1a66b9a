/// The one Redis function the backend loads: a compare-and-set of a document (a hash of a version
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
    static let name = "apsio"
    static let compareAndSet = "apsio_cas"

    /// keys: the document. args: the version read ("" when absent), the new version ("" to
    /// delete), the new bytes, the lifetime in milliseconds (0: none). Returns 1 when written, 0
    /// when the version had moved.
    static let source = """
        #!lua name=apsio
        redis.register_function('apsio_cas', function(keys, args)
          local current = redis.call('HGET', keys[1], 'v') or ''
          if current ~= args[1] then return 0 end
          if args[2] == '' then
            redis.call('DEL', keys[1])
            return 1
          end
          redis.call('HSET', keys[1], 'v', args[2], 'd', args[3])
          local ttl = tonumber(args[4])
          if ttl > 0 then redis.call('PEXPIRE', keys[1], ttl) else redis.call('PERSIST', keys[1]) end
          return 1
        end)
        """
}
