/// Reads what `BinaryWriter` wrote, checking every length against what is left, so damaged bytes
/// end in `nil` rather than a trap or a huge allocation.
struct BinaryReader {
    private let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - offset }
    var isAtEnd: Bool { remaining == 0 }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() -> UInt32? {
        guard let raw = take(4) else { return nil }
        return raw.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() -> UInt64? {
        guard let raw = take(8) else { return nil }
        return raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// nil when the length runs past the end or the bytes are not UTF-8.
    mutating func string() -> String? {
        guard let length = u32(), let raw = take(Int(length)) else { return nil }
        return String(validating: raw, as: UTF8.self)
    }

    /// `.some(nil)` for an absent string, nil for damage.
    mutating func optionalString() -> String?? {
        switch u8() {
        case 0: return .some(nil)
        case 1: return string().map { .some($0) }
        default: return nil
        }
    }
}
