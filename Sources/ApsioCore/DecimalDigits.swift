/// The decimal digits of an unsigned integer, made right to left at the end of a buffer: the one
/// way `JSONWriter` and `JSONScratch` spell numbers.
enum DecimalDigits {
    /// Writes `value`'s digits so that they end where `buffer` ends (20 bytes always suffice);
    /// returns the index of the first.
    static func write(_ value: UInt64, endingIn buffer: UnsafeMutableRawBufferPointer) -> Int {
        var remaining = value
        var start = buffer.count
        repeat {
            start -= 1
            buffer[start] = UInt8(truncatingIfNeeded: remaining % 10) &+ 0x30
            remaining /= 10
        } while remaining > 0
        return start
    }
}
