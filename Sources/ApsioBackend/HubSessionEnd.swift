/// How a device's latest session ended: its number, the reason its viewers were told, and when
/// (Unix ms). The fleet carries it with every event of the device, so an instance that missed the
/// `session_ended` of the session it was showing still tells its viewers how that one ended.
package struct HubSessionEnd: Sendable, Equatable {
    package let number: UInt64
    package let reason: String
    package let atUnixMs: Int64

    package init(number: UInt64, reason: String, atUnixMs: Int64) {
        self.number = number
        self.reason = reason
        self.atUnixMs = atUnixMs
    }
}
