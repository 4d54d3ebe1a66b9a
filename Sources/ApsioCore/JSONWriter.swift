/// Writes JSON straight into a byte buffer.
///
/// Bodies on the hot path (ingest batches, live frames) are written here field by field instead
/// of going through an intermediate tree and a general encoder. Keys of `JSONValue` objects are
/// written sorted, so that the same value always makes the same bytes.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current container needs a comma before it.
    private var needsComma = false

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() { prefix(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { prefix(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// An object member's key; the value follows with any of the value methods.
    public mutating func key(_ key: String) {
        prefix()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) { prefix(); appendQuoted(value); needsComma = true }
    public mutating func bool(_ value: Bool) { prefix(); bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes); needsComma = true }
    public mutating func null() { prefix(); bytes.append(contentsOf: Self.nullBytes); needsComma = true }

    public mutating func int(_ value: Int64) {
        prefix()
        appendDecimal(value)
        needsComma = true
    }

    public mutating func uint(_ value: UInt64) {
        prefix()
        appendDecimal(value, negative: false)
        needsComma = true
    }

    /// Integral values within ±2^53 are written without a fraction, as a reader expects an
    /// integer; NaN and infinities, which JSON cannot spell, become null.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { null(); return }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            int(Int64(value))
            return
        }
        prefix()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): double(number)
        case .string(let text): string(text)
        case .array(let items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted() {
                key(name)
                self.value(members[name]!)
            }
            endObject()
        }
    }

    /// Bytes that are already a complete JSON value (a pre-encoded frame, for example).
    public mutating func raw(_ json: some Sequence<UInt8>) {
        prefix()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes
    }

    private mutating func prefix() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendDecimal(_ value: Int64) {
        appendDecimal(value.magnitude, negative: value < 0)
    }

    /// Digits are made right to left in a small buffer and appended in one go.
    mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var magnitude = magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
            } while magnitude > 0
            if negative {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    // MARK: Pieces for the OTLP encoder, which knows where commas go

    /// Bytes that are valid JSON where the caller puts them; no comma is put before them.
    mutating func appendFragment(_ fragment: [UInt8]) {
        // Through a buffer pointer: a plain memcpy, where appending the array as a sequence
        // retained and released its storage on every record.
        fragment.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    /// A string's quoted and escaped JSON, with no comma before it.
    mutating func appendQuotedString(_ text: String) {
        appendQuoted(text)
    }

    /// Lowercase hex of `digest`'s first `count` bytes, with no quotes and no comma.
    mutating func appendHex(_ digest: [UInt8], count: Int) {
        digest.withUnsafeBytes { appendHex($0, count: count) }
    }

    mutating func appendHex(_ digest: UnsafeRawBufferPointer, count: Int) {
        let count = min(count, digest.count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count * 2) { buffer in
            for index in 0..<count {
                let byte = digest[index]
                buffer[index * 2] = Self.hexDigits[Int(byte >> 4)]
                buffer[index * 2 + 1] = Self.hexDigits[Int(byte & 0x0F)]
            }
            bytes.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Runs of bytes that need no escape, which is nearly all of a log line, are copied whole.
    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else {
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscaped(byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30])
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
