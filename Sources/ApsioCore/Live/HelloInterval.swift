/// `interval_s` of a hello answer (16.4): 30 seconds when absent or not a number, otherwise kept
/// within 15 to 120. A fraction is dropped (whole seconds are what the backend means).
package enum HelloInterval {
    /// `number`: the field when it is a JSON number, nil when it is absent or of another type.
    package static func seconds(from number: Double?, limits: Limits = .spec) -> Duration {
        guard let number, number.isFinite else { return limits.defaultHelloInterval }
        let low = Double(limits.minHelloInterval.components.seconds)
        let high = Double(limits.maxHelloInterval.components.seconds)
        let kept = min(max(number, low), high).rounded(.down)
        return .seconds(Int64(kept))
    }
}
