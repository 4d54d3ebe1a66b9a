internal import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The fields of one journal entry that a record may use, copied out of sd-journal's buffers (which
/// are valid only until the next field is read) into one reusable byte buffer.
///
/// Only what can reach a record is copied, and only as far as a record can use it: a body is cut
/// to 4096 bytes and an attribute to 1024, so copying a few bytes more than that is enough to cut
/// at the same character boundary as cutting the whole value would. No String is made here: the
/// follower decides first whether any app wants the entry.
struct JournalEntryFields {
    private(set) var storage: [UInt8] = []
    /// Where each known field's bytes are in `storage`, valid where its bit in `present` is set:
    /// forgetting an entry is then one store.
    private var known: [Range<Int>] = Array(repeating: 0..<0, count: JournalField.allCases.count)
    private var present: UInt64 = 0
    private(set) var user: [(name: Range<Int>, value: Range<Int>)] = []
    /// The app's own fields beyond `maxUserFields` in this entry; not forwarded.
    private(set) var userFieldsOverLimit = 0

    let maxBodyBytes: Int
    let maxAttributeBytes: Int
    let maxUserFields: Int

    /// Lossy UTF-8 decoding turns each byte into at least one byte, and a cut character takes at
    /// most 3 bytes before it is known to be cut: 4 bytes past the limit decide the same cut.
    static let cutSlack = 4

    init(limits: Limits = .spec, maxUserFields: Int = 64) {
        maxBodyBytes = limits.maxBodyBytes
        maxAttributeBytes = limits.maxAttributeStringBytes
        self.maxUserFields = maxUserFields
        storage.reserveCapacity(2 * (maxBodyBytes + Self.cutSlack))
    }

    mutating func reset() {
        storage.removeAll(keepingCapacity: true)
        present = 0
        user.removeAll(keepingCapacity: true)
        userFieldsOverLimit = 0
    }

    /// One `FIELD=value` as sd-journal gives it.
    mutating func add(_ field: UnsafeRawBufferPointer) {
        guard let base = field.baseAddress, field.count > 0,
            let equals = memchr(base, Int32(UInt8(ascii: "=")), field.count)
        else { return }
        let nameLength = base.distance(to: UnsafeRawPointer(equals))
        let name = UnsafeRawBufferPointer(start: base, count: nameLength)
        let value = UnsafeRawBufferPointer(rebasing: field[(nameLength + 1)...])
        switch JournalField.classify(name, in: field) {
        case .dropped:
            return
        case .known(let which):
            // A field given twice keeps its first value, as journalctl shows first.
            let bit: UInt64 = 1 << which.rawValue
            guard present & bit == 0 else { return }
            present |= bit
            let limit = (which == .message ? maxBodyBytes : maxAttributeBytes) + Self.cutSlack
            known[which.rawValue] = append(value, upTo: limit)
            // MESSAGE_ID is also the app's own field, forwarded under its name.
            if which == .messageID { addUser(name: name, value: value) }
        case .user:
            addUser(name: name, value: value)
        }
    }

    private mutating func addUser(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        for existing in user where withBytes(existing.name, { Self.equal(name, $0) }) { return }
        guard user.count < maxUserFields else {
            userFieldsOverLimit += 1
            return
        }
        let nameRange = append(name, upTo: name.count)
        user.append((nameRange, append(value, upTo: maxAttributeBytes + Self.cutSlack)))
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer, upTo limit: Int) -> Range<Int> {
        let start = storage.count
        storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(limit)))
        return start..<storage.count
    }

    // MARK: Reading
    //
    // Everything below reads the copied bytes through pointers: this runs for every entry, and the
    // generic paths over array slices cost more than the reading itself.

    func contains(_ field: JournalField) -> Bool {
        present & (1 << field.rawValue) != 0
    }

    private func range(_ field: JournalField) -> Range<Int>? {
        contains(field) ? known[field.rawValue] : nil
    }

    /// Calls `body` with the field's bytes; nil when the entry does not have the field.
    func withBytes<R>(_ field: JournalField, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard let range = range(field) else { return nil }
        return withBytes(range, body)
    }

    private func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    func has(_ field: JournalField, equalTo expected: [UInt8]) -> Bool {
        withBytes(field) { Self.equal($0, expected) } ?? false
    }

    /// The value decoded as UTF-8 (invalid bytes become U+FFFD, never dropped) and cut to the
    /// attribute limit at a character boundary.
    func string(_ field: JournalField) -> String? {
        range(field).map { text($0, maxBytes: maxAttributeBytes) }
    }

    /// `MESSAGE` decoded and cut to the body limit.
    var body: String? {
        range(.message).map { text($0, maxBytes: maxBodyBytes) }
    }

    /// A decimal integer field (`_PID`, `CODE_LINE`…); nil when it is not one.
    func integer(_ field: JournalField) -> Int64? {
        withBytes(field) { Self.decimal($0) } ?? nil
    }

    /// `PRIORITY` when it is one digit 0–7, as journald writes it.
    var priority: Int? {
        withBytes(.priority) { bytes -> Int? in
            guard bytes.count == 1, bytes[0] >= UInt8(ascii: "0"), bytes[0] <= UInt8(ascii: "7") else { return nil }
            return Int(bytes[0] - UInt8(ascii: "0"))
        } ?? nil
    }

    /// The app's own fields in entry order, names as journald has them (A–Z, 0–9, `_`: ASCII, so
    /// decoding cannot alter them), values decoded and cut like any string attribute.
    func forEachUserField(_ body: (String, String) -> Void) {
        for (name, value) in user {
            body(text(name, maxBytes: Int.max), text(value, maxBytes: maxAttributeBytes))
        }
    }

    private func text(_ range: Range<Int>, maxBytes: Int) -> String {
        withBytes(range) { UTF8Cut.cut(String(decoding: $0, as: UTF8.self), maxBytes: maxBytes) }
    }

    static func equal(_ bytes: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        expected.withUnsafeBytes { equal(bytes, $0) }
    }

    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return left.isEmpty }
        return memcmp(leftBase, rightBase, left.count) == 0
    }

    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
