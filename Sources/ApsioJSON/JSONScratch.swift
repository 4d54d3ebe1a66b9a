/// JSON written with plain stores into memory sized for it beforehand: one ingest record at a time,
/// appended to the request in one go. Appending a record's two dozen pieces to the request's array
/// one by one checked its capacity and uniqueness each time.
///
/// `reset(reserving:)` takes an upper bound of what follows; every `put` checks that it stays within
/// the memory, so a bound computed wrong stops the process rather than writing past it.
package struct JSONScratch: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    package init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    package var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Empties it, with room for at least `bound` bytes.
    package mutating func reset(reserving bound: Int) {
        count = 0
        guard bound > capacity else { return }
        base.deallocate()
        capacity = max(bound, capacity * 2)
        base = .allocate(capacity: capacity)
    }

    private func ensure(_ more: Int) {
        precondition(count + more <= capacity, "a JSON fragment outgrew the bound it was sized for")
    }

    package mutating func put(_ byte: UInt8) {
        ensure(1)
        base[count] = byte
        count += 1
    }

    package mutating func put(_ fragment: [UInt8]) {
        fragment.withUnsafeBufferPointer { put($0) }
    }

    package mutating func put(_ fragment: UnsafeBufferPointer<UInt8>) {
        guard let source = fragment.baseAddress, !fragment.isEmpty else { return }
        ensure(fragment.count)
        (base + count).update(from: source, count: fragment.count)
        count += fragment.count
    }

    /// Digits of `value`, made right to left where they go: counted first, so that no buffer on
    /// the stack and no copy are needed (that stack buffer showed as a few percent of ingest's
    /// time, for three numbers a record).
    package mutating func putDecimal(_ value: UInt64) {
        let digits = DecimalDigits.count(value)
        ensure(digits)
        _ = DecimalDigits.write(value, endingIn: UnsafeMutableRawBufferPointer(start: base + count, count: digits))
        count += digits
    }

    /// Lowercase hex of the first `count` bytes of `digest`.
    package mutating func putHex(_ digest: UnsafeRawBufferPointer, count bytes: Int) {
        let bytes = min(bytes, digest.count)
        ensure(bytes * 2)
        JSONEscaping.hexDigits.withUnsafeBufferPointer { hex in
            for index in 0..<bytes {
                base[count + index * 2] = hex[Int(digest[index] >> 4)]
                base[count + index * 2 + 1] = hex[Int(digest[index] & 0x0F)]
            }
        }
        count += bytes * 2
    }

    /// `text` in quotes, escaped: at most `JSONEscaping.quotedBound` bytes.
    package mutating func putQuoted(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            ensure(JSONEscaping.quotedBound(utf8Count: utf8.count))
            count += JSONEscaping.writeQuoted(utf8, into: base + count)
        }
    }
}
