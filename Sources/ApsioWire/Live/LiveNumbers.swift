import ApsioJSON
/// Reading numbers a peer sent, without trusting them.
enum LiveNumbers {
    /// A non-negative whole count; anything else is 0.
    static func count(_ value: JSONValue?) -> Int {
        guard let number = value?.numberValue, number.isFinite, number > 0 else { return 0 }
        return number >= Double(Int32.max) ? Int(Int32.max) : Int(number)
    }

    /// A whole number of milliseconds, or nil when absent, null or not a number.
    static func milliseconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite else { return nil }
        let bound = 9_000_000_000_000_000.0
        return Int64(min(max(number, -bound), bound))
    }
}
