/// Writes JSON straight into a byte buffer.
///
/// Bodies on the hot path (ingest batches, live frames) are written here field by field instead
/// of going through an intermediate tree and a general encoder. Keys of `JSONValue` objects are
/// written sorted, so that the same value always makes the same bytes.
package struct JSONWriter: Sendable {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current container needs a comma before it.
    private var needsComma = false

    package init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes into `buffer`'s storage, emptied first: a caller that writes large documents one
    /// after another keeps the pages of one buffer instead of having fresh ones faulted in each time.
    package init(reusing buffer: consuming [UInt8], reservingCapacity capacity: Int) {
        bytes = buffer
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() { prefix(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    package mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    package mutating func beginArray() { prefix(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    package mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// An object member's key; the value follows with any of the value methods.
    package mutating func key(_ key: String) {
        prefix()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ value: String) { prefix(); appendQuoted(value); needsComma = true }
    package mutating func bool(_ value: Bool) { prefix(); bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes); needsComma = true }
    package mutating func null() { prefix(); bytes.append(contentsOf: Self.nullBytes); needsComma = true }

    package mutating func int(_ value: Int64) {
        prefix()
        appendDecimal(value)
        needsComma = true
    }

    package mutating func uint(_ value: UInt64) {
        prefix()
        appendDecimal(value, negative: false)
        needsComma = true
    }

    /// Integral values within ±2^53 are written without a fraction, as a reader expects an
    /// integer; NaN and infinities, which JSON cannot spell, become null.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { null(); return }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            int(Int64(value))
            return
        }
        prefix()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    package mutating func value(_ value: JSONValue) {
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
    package mutating func raw(_ json: some Sequence<UInt8>) {
        prefix()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// The same, from memory the caller lends.
    package mutating func raw(_ json: UnsafeBufferPointer<UInt8>) {
        prefix()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// More of the value the last `raw` began, for a value written in parts: no comma before it.
    package mutating func append(_ json: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: json)
    }

    package mutating func append(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    package static func encode(_ value: JSONValue) -> [UInt8] {
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
    private mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        withUnsafeTemporaryAllocation(byteCount: 21, alignment: 1) { buffer in
            var start = DecimalDigits.write(magnitude, endingIn: buffer)
            if negative {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    /// Runs of bytes that need no escape, which is nearly all of a log line, are copied whole.
    private mutating func appendQuoted(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONEscaping.quotedBound(utf8Count: utf8.count)) { buffer in
                let written = JSONEscaping.writeQuoted(utf8, into: buffer.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<written]))
            }
        }
    }
}
