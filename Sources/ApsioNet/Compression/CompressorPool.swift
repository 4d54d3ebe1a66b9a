internal import Synchronization

/// A compressor whose state (tables, buffers) is allocated once for one level and serves every
/// body it compresses: ISA-L's igzip (`DeflateCompressor`) and Zstandard's (`ZstdCompressor`).
/// Not for two threads at once; a `CompressorPool` lends it to one caller at a time. Its type (not
/// its instances) may cross threads, so that the pool can make a new one for any caller.
protocol PooledCompressor: AnyObject, SendableMetatype {
    associatedtype Failure: Error
    var level: Int32 { get }
    init(level: Int32) throws(Failure)
}

/// Idle compressors kept between bodies, so that compressing a batch reuses tables whose pages are
/// already mapped instead of allocating (and faulting in) new ones each time. A caller takes one
/// out for the length of one body, so two callers never share one; there are as many as callers
/// compressing at once, and at most `capacity` stay behind when they are done.
final class CompressorPool<Compressor: PooledCompressor>: Sendable {
    let capacity: Int
    /// Oldest given back first: when full, the one idle longest goes, whatever its level.
    private let idle: Mutex<[Idle]>

    init(capacity: Int) {
        self.capacity = capacity
        self.idle = Mutex([])
    }

    /// An idle compressor at `level`, or a new one.
    func take(level: Int32) throws(Compressor.Failure) -> sending Compressor {
        let reused = idle.withLock { idle -> Idle? in
            guard let index = idle.lastIndex(where: { $0.compressor.level == level }) else { return nil }
            return idle.remove(at: index)
        }
        if let reused { return reused.compressor }
        return try Compressor(level: level)
    }

    /// Keeps `compressor` for the next caller; the caller gives it up (`sending`).
    func giveBack(_ compressor: sending Compressor) {
        let returned = Idle(compressor: compressor)
        let evicted = idle.withLock { idle -> Idle? in
            idle.append(returned)
            return idle.count > capacity ? idle.removeFirst() : nil
        }
        // Freed here, outside the lock.
        _ = evicted
    }

    /// How many compressors wait idle (for tests).
    var idleCount: Int { idle.withLock { $0.count } }

    /// A compressor nobody holds: it came in through `giveBack`'s `sending` and leaves through
    /// `take` to exactly one caller, so crossing threads inside the lock is safe although a
    /// compressor itself is not for two threads at once.
    private struct Idle: @unchecked Sendable {
        let compressor: Compressor
    }
}
