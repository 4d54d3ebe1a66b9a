/// A local time of day as the indicator shows it ("14:02"). The caller turns a Unix time into
/// it with the machine's time zone; the words stay pure.
package struct ClockTime: Sendable, Equatable, CustomStringConvertible {
    package var hour: Int
    package var minute: Int

    package init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    package var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
