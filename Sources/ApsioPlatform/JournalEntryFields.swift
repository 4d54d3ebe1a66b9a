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
    private var known: [Range<Int>?] = Array(repeating: nil, count: JournalField.allCases.count)
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
        for index in known.indices { known[index] = nil }
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
        switch JournalField.classify(name) {
        case .dropped:
            return
        case .known(let which):
            // A field given twice keeps its first value, as journalctl shows first.
            guard known[which.rawValue] == nil else { return }
            let limit = (which == .message ? maxBodyBytes : maxAttributeBytes) + Self.cutSlack
            known[which.rawValue] = append(value, upTo: limit)
            // MESSAGE_ID is also the app's own field, forwarded under its name.
            if which == .messageID { addUser(name: name, value: value) }
        case .user:
            addUser(name: name, value: value)
        }
    }

    private mutating func addUser(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        for existing in user where storage[existing.name].elementsEqual(name) { return }
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

    func bytes(_ field: JournalField) -> ArraySlice<UInt8>? {
        known[field.rawValue].map { storage[$0] }
    }

    func has(_ field: JournalField, equalTo expected: [UInt8]) -> Bool {
        guard let range = known[field.rawValue] else { return false }
        return storage[range].elementsEqual(expected)
    }

    /// The value decoded as UTF-8 (invalid bytes become U+FFFD, never dropped) and cut to the
    /// attribute limit at a character boundary.
    func string(_ field: JournalField) -> String? {
        bytes(field).map { Self.text($0, maxBytes: maxAttributeBytes) }
    }

    /// A decimal integer field (`_PID`, `CODE_LINE`…); nil when it is not one.
    func integer(_ field: JournalField) -> Int64? {
        bytes(field).flatMap(Self.decimal)
    }

    static func text(_ bytes: ArraySlice<UInt8>, maxBytes: Int) -> String {
        UTF8Cut.cut(String(decoding: bytes, as: UTF8.self), maxBytes: maxBytes)
    }

    static func decimal(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
