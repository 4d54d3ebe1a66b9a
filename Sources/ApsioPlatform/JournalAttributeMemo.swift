import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The attributes of each unit's last log record, with the field bytes they were made from.
///
/// A service's lines mostly carry the same attributes one after another (its pid, command,
/// executable, user, syslog identifier): when the bytes a record's attributes come from are those
/// of the unit's previous record, that record's array is shared (one retain) rather than built
/// again, which saves allocating it, making its strings, and freeing them all later. Records stay
/// values: an array shared this way is copied by whoever changes it.
///
/// Not copyable: it owns the buffer each entry's source bytes are written to.
struct JournalAttributeMemo: ~Copyable {
    private struct Last {
        var source: [UInt8]
        var attributes: [Attribute]
    }

    /// Indexed by the reader's unit index.
    private var lastByUnit: [Last?] = []
    private let scratch: UnsafeMutableRawPointer

    /// Sources longer than this (many or long own fields) are not compared or kept, so that the
    /// memory held stays small whatever the entries carry.
    static let maxSourceBytes = 4096

    init() {
        scratch = .allocate(byteCount: Self.maxSourceBytes, alignment: 8)
    }

    deinit { scratch.deallocate() }

    /// The attributes of a record of `unit` made from `sources` and the app's own fields of
    /// `fields`: the unit's previous record's when those bytes are the same, else `make()`'s.
    mutating func attributes(
        unit: Int, fields: borrowing JournalEntryFields, sources: [JournalField], make: () -> [Attribute]
    ) -> [Attribute] {
        if lastByUnit.count <= unit { lastByUnit += repeatElement(nil, count: unit + 1 - lastByUnit.count) }
        guard let count = fields.writeSource(of: sources, to: scratch, capacity: Self.maxSourceBytes) else {
            lastByUnit[unit] = nil
            return make()
        }
        let source = UnsafeRawBufferPointer(start: scratch, count: count)
        if let last = lastByUnit[unit], JournalEntryFields.equal(source, last.source) { return last.attributes }
        let attributes = make()
        lastByUnit[unit] = Last(source: Array(source), attributes: attributes)
        return attributes
    }
}
