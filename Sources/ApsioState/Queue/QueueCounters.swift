/// What a record queue holds and what it lost, for `apsio.queue.records`, `apsio.queue.bytes` and
/// `apsio.queue.dropped`.
package struct QueueCounters: Sendable, Equatable {
    /// Entries appended and not yet acknowledged.
    package var records: Int
    /// Their bytes on disk, entry headers included.
    package var bytes: Int
    /// Entries lost since the queue was opened: pushed out by the byte bound, expired by the age
    /// bound, or cut out as damage (a torn or corrupt stretch counts as one: how many entries it
    /// held cannot be known). Entries removed by `dropAll` are not in it: that is a decision, not a loss.
    package var dropped: Int

    package init(records: Int, bytes: Int, dropped: Int) {
        self.records = records
        self.bytes = bytes
        self.dropped = dropped
    }
}
