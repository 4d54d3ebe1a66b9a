/// The bytes of `frames` and `results` bodies sent in one UTC calendar day (16.3): kept on disk
/// across launches, so a restart is no way around the day's cap.
public struct DayBytes: Sendable, Equatable, Codable {
    /// Days since 1970-01-01, UTC.
    public var day: Int64
    public var bytes: Int

    public init(day: Int64, bytes: Int) {
        self.day = day
        self.bytes = bytes
    }

    /// The count for `day`: a count kept from an earlier day is spent.
    public func bytes(on day: Int64) -> Int { day == self.day ? bytes : 0 }

    public mutating func add(_ count: Int, on day: Int64) {
        if day != self.day {
            self.day = day
            bytes = 0
        }
        bytes += count
    }
}
