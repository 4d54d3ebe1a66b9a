/// The decimal digits of an unsigned integer, made right to left at the end of a buffer: the one
/// way `JSONWriter` and `JSONScratch` spell numbers.
enum DecimalDigits {
    /// Writes `value`'s digits so that they end where `buffer` ends (20 bytes always suffice);
    /// returns the index of the first.
    static func write(_ value: UInt64, endingIn buffer: UnsafeMutableRawBufferPointer) -> Int {
        var remaining = value
        var start = buffer.count
        // Two digits a step: a record's times have nineteen, and each step is a division.
        pairs.withUnsafeBufferPointer { pairs in
            while remaining >= 100 {
                let pair = Int(remaining % 100) * 2
                remaining /= 100
                start -= 2
                buffer[start] = pairs[pair]
                buffer[start + 1] = pairs[pair + 1]
            }
        }
        if remaining >= 10 {
            start -= 2
            buffer[start] = UInt8(truncatingIfNeeded: remaining / 10) &+ 0x30
            buffer[start + 1] = UInt8(truncatingIfNeeded: remaining % 10) &+ 0x30
        } else {
            start -= 1
            buffer[start] = UInt8(truncatingIfNeeded: remaining) &+ 0x30
        }
        return start
    }

    /// How many digits `value` has: 1 to 20.
    static func count(_ value: UInt64) -> Int {
        var digits = 1
        var bound: UInt64 = 10
        // Comparisons rather than divisions; the last power (10^19) is below UInt64.max.
        while digits < 20, value >= bound {
            digits += 1
            if digits < 20 { bound &*= 10 }
        }
        return digits
    }

    /// "00", "01", … "99", back to back.
    private static let pairs: [UInt8] = {
        var pairs: [UInt8] = []
        for value in 0..<100 {
            pairs.append(UInt8(value / 10) + 0x30)
            pairs.append(UInt8(value % 10) + 0x30)
        }
        return pairs
    }()
}
