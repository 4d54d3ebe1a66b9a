import Synchronization

/// The memory a batch's JSON is written into, kept from one batch to the next.
///
/// A batch's JSON is about half a megabyte, written once, compressed, and dropped. Allocated
/// afresh each time, glibc's malloc hands its pages back to the kernel when it is freed
/// (`madvise`, `munmap`) and the next batch faults them in again, zeroed: about 3 % of the CPU of
/// each entry on the ingest benchmark. One buffer serves every app's batches, as they are
/// encoded one at a time on the ingest thread; a caller that finds it taken writes into new memory.
package final class IngestScratch: Sendable {
    static let shared = IngestScratch()

    /// A buffer larger than this (a batch far over the usual limits) is let go rather than kept.
    package static let maxKeptCapacity = 4 << 20

    private let idle = Mutex<[UInt8]>([])

    /// The kept buffer, or an empty one; the caller owns it until `giveBack`.
    func take() -> [UInt8] {
        idle.withLock { kept in
            var taken: [UInt8] = []
            swap(&kept, &taken)
            return taken
        }
    }

    func giveBack(_ buffer: consuming [UInt8]) {
        var returned = buffer
        guard returned.capacity <= Self.maxKeptCapacity else { return }
        idle.withLock { kept in
            if returned.capacity > kept.capacity { swap(&kept, &returned) }
        }
    }

    /// How many bytes the kept buffer can hold (for tests).
    var keptCapacity: Int { idle.withLock { $0.capacity } }
}
