import ApsioCore

/// The attributes of each unit's last log record, with the field bytes they were made from.
///
/// A service's lines mostly carry the same attributes one after another (its pid, command,
/// executable, user, syslog identifier): when the bytes a record's attributes come from are those
/// of the unit's previous record, that record's array is shared (one retain) rather than built
/// again, which saves allocating it, making its strings, and freeing them all later. Records stay
/// values: an array shared this way is copied by whoever changes it.
///
/// Not copyable: it owns the buffer a source is written to before it is kept.
struct JournalAttributeMemo: ~Copyable {
    private struct Last {
        /// The pieces `JournalEntryFields.forEachSourcePiece` gave, each length as 4 bytes
        /// (little-endian) before its bytes.
        var source: [UInt8]
        var attributes: [Attribute]
    }

    /// Indexed by the reader's unit index.
    private var lastByUnit: [Last?] = []
    private let scratch: UnsafeMutableRawPointer

    /// Sources longer than this (many or long own fields) are not kept, so that the memory held
    /// stays small whatever the entries carry.
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
        if let last = lastByUnit[unit], Self.matches(last.source, fields, sources) { return last.attributes }
        let attributes = make()
        lastByUnit[unit] = source(fields, sources).map { Last(source: $0, attributes: attributes) }
        return attributes
    }

    /// Compared piece by piece where they are, rather than written out first: this runs for
    /// every record.
    private static func matches(_ stored: [UInt8], _ fields: borrowing JournalEntryFields, _ sources: [JournalField])
        -> Bool
    {
        stored.withUnsafeBytes { stored in
            var offset = 0
            let same = fields.forEachSourcePiece(of: sources) { length, bytes in
                guard stored.count - offset >= 4 + bytes.count,
                    UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == length,
                    equal(UnsafeRawBufferPointer(rebasing: stored[(offset + 4)..<(offset + 4 + bytes.count)]), bytes)
                else { return false }
                offset += 4 + bytes.count
                return true
            }
            return same && offset == stored.count
        }
    }

    /// The source as bytes to keep; nil when it is longer than `maxSourceBytes`.
    private func source(_ fields: borrowing JournalEntryFields, _ sources: [JournalField]) -> [UInt8]? {
        var written = 0
        let fits = fields.forEachSourcePiece(of: sources) { length, bytes in
            guard Self.maxSourceBytes - written >= 4 + bytes.count else { return false }
            scratch.storeBytes(of: length.littleEndian, toByteOffset: written, as: UInt32.self)
            if let base = bytes.baseAddress { (scratch + written + 4).copyMemory(from: base, byteCount: bytes.count) }
            written += 4 + bytes.count
            return true
        }
        return fits ? Array(UnsafeRawBufferPointer(start: scratch, count: written)) : nil
    }

    /// Most pieces are a few bytes: compared a word at a time here, without a call.
    private static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        var index = 0
        while left.count - index >= 8 {
            guard left.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            else { return false }
            index += 8
        }
        while index < left.count {
            guard left[index] == right[index] else { return false }
            index += 1
        }
        return true
    }
}
