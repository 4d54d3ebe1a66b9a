package import ApsioJSON
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

    package init(body: JSONValue?, limits: Limits = .spec) {
        viewers = LiveNumbers.count(body?["viewers"])
        interval = HelloInterval.seconds(from: body?["interval_s"], limits: limits)
        token = DeviceToken(body?["device_token"], limits: limits)
    }
}

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
