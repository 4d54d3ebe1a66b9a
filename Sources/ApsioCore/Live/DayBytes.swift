/// The bytes of `frames` and `results` bodies sent in one UTC calendar day (16.3): kept on disk
/// across launches, so a restart is no way around the day's cap.
package struct DayBytes: Sendable, Equatable {
    /// Days since 1970-01-01, UTC.
    package var day: Int64
    package var bytes: Int

    package init(day: Int64, bytes: Int) {
        self.day = day
        self.bytes = bytes
    }

    /// The count for `day`: a count kept from an earlier day is spent.
    package func bytes(on day: Int64) -> Int { day == self.day ? bytes : 0 }

    /// The count to start from when the kept one cannot be read: nobody knows what the day spent,
    /// and 0 would let a damaged file undo the cap, so the day counts as spent until it ends.
    package static func spent(on day: Int64, limits: Limits) -> DayBytes {
        DayBytes(day: day, bytes: limits.maxDayBytes)
    }

    package mutating func add(_ count: Int, on day: Int64) {
        if day != self.day {
            self.day = day
            bytes = 0
        }
        bytes += count
    }
}
