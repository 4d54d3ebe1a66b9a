/// A 2xx answer to a hello (16.4), read defensively: whatever the body, it yields a viewer count,
/// an interval within bounds and a token of the right shape or none.
package struct HelloAnswer: Sendable, Equatable {
    package let viewers: Int
    package let interval: Duration
    package let token: DeviceToken?

    package init(viewers: Int, interval: Duration, token: DeviceToken?) {
        self.viewers = viewers
        self.interval = interval
        self.token = token
    }
}
