/// `Retry-After` (RFC 9110 10.2.3) as a wait: delta seconds, or an HTTP-date read against the wall
/// clock the caller passes (the only clock this module's pure parts ever see).
package enum RetryAfter {
    /// Waits longer than this are cut to it: a server cannot overflow a deadline with 20 digits.
    package static let longest: Duration = .seconds(365 * 86_400)

    /// The wait the value asks for, `.zero` for a date already past, nil when it is neither form.
    package static func parse(_ value: String, nowUnixSeconds: Int) -> Duration? {
        let trimmed = Substring(value).trimmingASCIISpaces()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard trimmed.count <= 9, let seconds = Int(trimmed) else { return longest }
            return min(.seconds(seconds), longest)
        }
        guard let date = HTTPDate.unixSeconds(trimmed) else { return nil }
        return min(.seconds(max(0, date - nowUnixSeconds)), longest)
    }
}
