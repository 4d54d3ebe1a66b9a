internal import ApsioCore
#if canImport(Glibc)
internal import Glibc
#endif

/// The fields of one journal entry that a record may use, copied out of sd-journal's buffers (which
/// are valid only until the next field is read) into memory the reader allocates once.
///
/// Only what can reach a record is copied, and only as far as a record can use it: a body is cut
/// to 4096 bytes and an attribute to 1024, so copying a few bytes more than that is enough to cut
/// at the same character boundary as cutting the whole value would. No String is made here: the
/// follower decides first whether any app wants the entry.
///
/// Not copyable: it owns its memory, and every entry of a reader goes through the same buffer
/// (this runs for every field of every entry, so the copy is a `memcpy` into memory that is
/// already there, not an array append).
struct JournalEntryFields: ~Copyable {
    /// Where one copied value sits in `bytes`.
    private struct Span {
        var start = 0
        var count = 0
    }

    private struct UserField {
        var name: Span
        var value: Span
    }

    /// Every field copied so far for this entry, back to back. Sized for the largest entry a record
    /// can use (each known field at its limit, each of the app's own fields with its name): it is
    /// never grown.
    private let bytes: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 0
    /// Where each known field is, valid where its bit in `present` is set: forgetting an entry is
    /// then one store.
    private let known: UnsafeMutablePointer<Span>
    private var present: UInt64 = 0
    private let user: UnsafeMutablePointer<UserField>
    /// The app's own fields kept in this entry, at most `maxUserFields`.
    private(set) var userCount = 0
    /// The app's own fields beyond `maxUserFields` in this entry; not forwarded.
    private(set) var userFieldsOverLimit = 0
    private let names = JournalField.names

    let maxBodyBytes: Int
    let maxAttributeBytes: Int
    let maxUserFields: Int

    /// Lossy UTF-8 decoding turns each byte into at least one byte, and a cut character takes at
    /// most 3 bytes before it is known to be cut: 4 bytes past the limit decide the same cut.
    static let cutSlack = 4

    init(limits: Limits = .spec, maxUserFields: Int = 64) {
        maxBodyBytes = max(0, limits.maxBodyBytes)
        maxAttributeBytes = max(0, limits.maxAttributeStringBytes)
        self.maxUserFields = max(0, maxUserFields)
        let attributeRoom = maxAttributeBytes + Self.cutSlack
        capacity = (maxBodyBytes + Self.cutSlack) + (JournalField.allCases.count - 1) * attributeRoom
            + self.maxUserFields * (JournalField.maxNameLength + attributeRoom)
        bytes = .allocate(byteCount: max(1, capacity), alignment: 8)
        known = .allocate(capacity: JournalField.allCases.count)
        known.initialize(repeating: Span(), count: JournalField.allCases.count)
        user = .allocate(capacity: max(1, self.maxUserFields))
    }

    deinit {
        bytes.deallocate()
        known.deallocate()
        user.deallocate()
    }

    mutating func reset() {
        used = 0
        present = 0
        userCount = 0
        userFieldsOverLimit = 0
    }

    /// One `FIELD=value` as sd-journal gives it.
    mutating func add(_ field: UnsafeRawBufferPointer) {
        guard let (nameLength, kind) = names.split(field) else { return }
        let name = UnsafeRawBufferPointer(start: field.baseAddress, count: nameLength)
        let value = UnsafeRawBufferPointer(rebasing: field[(nameLength + 1)...])
        switch kind {
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
        for index in 0..<userCount where Self.equal(name, bytes(user[index].name)) { return }
        guard userCount < maxUserFields else {
            userFieldsOverLimit += 1
            return
        }
        let nameSpan = append(name, upTo: name.count)
        user[userCount] = UserField(name: nameSpan, value: append(value, upTo: maxAttributeBytes + Self.cutSlack))
        userCount += 1
    }

    private mutating func append(_ source: UnsafeRawBufferPointer, upTo limit: Int) -> Span {
        let count = min(source.count, limit)
        // Each known field is copied once and each of the app's own at most `maxUserFields` times,
        // within the limits `capacity` was sized for.
        precondition(used + count <= capacity, "an entry's fields outgrew the buffer sized for them")
        if count > 0, let base = source.baseAddress { (bytes + used).copyMemory(from: base, byteCount: count) }
        defer { used += count }
        return Span(start: used, count: count)
    }

    private func bytes(_ span: Span) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + span.start, count: span.count)
    }

    // MARK: Reading

    func contains(_ field: JournalField) -> Bool {
        present & (1 << field.rawValue) != 0
    }

    /// Calls `body` with the field's bytes; nil when the entry does not have the field.
    func withBytes<R>(_ field: JournalField, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard contains(field) else { return nil }
        return body(bytes(known[field.rawValue]))
    }

    /// Calls `body` with the value of the app's own field `name`; nil when the entry has none.
    func withOwnField<R>(_ name: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        for index in 0..<userCount where Self.equal(bytes(user[index].name), name) {
            return body(bytes(user[index].value))
        }
        return nil
    }

    func has(_ field: JournalField, equalTo expected: [UInt8]) -> Bool {
        withBytes(field) { Self.equal($0, expected) } ?? false
    }

    /// The value decoded as UTF-8 (invalid bytes become U+FFFD, never dropped) and cut to the
    /// attribute limit at a character boundary.
    func string(_ field: JournalField) -> String? {
        withBytes(field) { Self.text($0, maxBytes: maxAttributeBytes) }
    }

    /// `MESSAGE` decoded and cut to the body limit.
    var body: String? {
        withBytes(.message) { Self.text($0, maxBytes: maxBodyBytes) }
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
        for index in 0..<userCount {
            let field = user[index]
            let name = Self.text(bytes(field.name), maxBytes: Int.max)
            body(name, Self.text(bytes(field.value), maxBytes: maxAttributeBytes))
        }
    }

    /// Calls `piece` with each part of the source of `known` (present or not) and of the app's own
    /// fields, in order, until it returns false (and then returns false): a length (all ones for
    /// an absent field, the number of own fields before them) with the bytes it counts. Two
    /// entries with the same pieces have the same values in all of these fields.
    func forEachSourcePiece(
        of known: [JournalField], _ piece: (_ length: UInt32, _ bytes: UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        func span(_ span: Span) -> Bool {
            piece(UInt32(truncatingIfNeeded: span.count), bytes(span))
        }
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        for field in known {
            guard contains(field) ? span(self.known[field.rawValue]) : piece(UInt32.max, none) else { return false }
        }
        guard piece(UInt32(truncatingIfNeeded: userCount), none) else { return false }
        for index in 0..<userCount {
            guard span(user[index].name), span(user[index].value) else { return false }
        }
        return true
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, maxBytes: Int) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding turns a byte into at most three (U+FFFD): most values cannot need a cut.
        return bytes.count <= maxBytes / 3 ? text : UTF8Cut.cut(text, maxBytes: maxBytes)
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
