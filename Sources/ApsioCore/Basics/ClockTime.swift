/// A local time of day as the indicator shows it ("14:02"). The caller turns a Unix time into
/// it with the machine's time zone; the words stay pure.
public struct ClockTime: Sendable, Equatable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
