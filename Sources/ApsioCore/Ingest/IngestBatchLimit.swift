/// The most one batch may hold. The caller takes records from the head of its queue up to both
/// bounds, but always at least one record: a record larger than `maxBytes` alone still goes, and the
/// backend's 413 decides its fate.
package struct IngestBatchLimit: Sendable, Hashable, CustomStringConvertible {
    package var maxRecords: Int
    package var maxBytes: Int

    package init(maxRecords: Int, maxBytes: Int) {
        self.maxRecords = maxRecords
        self.maxBytes = maxBytes
    }

    package var description: String { "≤\(maxRecords) records, ≤\(maxBytes) bytes" }
}
