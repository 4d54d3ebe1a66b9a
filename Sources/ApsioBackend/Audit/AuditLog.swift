/// The audit of the in-memory hub: in this process only, gone with it, as the hub's state is.
/// Bounded by count and by the retention.
package struct AuditLog: Sendable {
    private var entries: [AuditEntry] = []
    private var start = 0
    let capacity: Int
    let retentionMs: Int64

    package init(capacity: Int, retention: Duration) {
        self.capacity = capacity
        retentionMs = retention.components.seconds * 1000
    }

    package mutating func append(_ new: [AuditEntry], nowUnixMs: Int64) {
        entries += new
        let cutoff = nowUnixMs - retentionMs
        while start < entries.count, entries.count - start > capacity || entries[start].atUnixMs < cutoff { start += 1 }
        if start > 1024, start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
    }

    /// The device's entries, oldest first.
    package func entries(of device: DeviceKey) -> [AuditEntry] {
        entries[start...].filter { $0.device == device }
    }
}
