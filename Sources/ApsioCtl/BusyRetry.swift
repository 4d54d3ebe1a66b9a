/// How long apsioctl keeps asking a daemon that answers `busy` (docs/control.md, "Connections"):
/// waits growing from 50 ms to 1 s, 15 s in all. The operator's places are kept for them, so a
/// `busy` is short-lived; giving up at once would leave `allow-live off` undone for a moment's
/// crowd, and asking forever would hang a script.
struct BusyRetry {
    static let budget: Duration = .seconds(15)
    static let firstWait: Duration = .milliseconds(50)
    static let longestWait: Duration = .seconds(1)

    private(set) var waited: Duration = .zero
    private var nextWait = firstWait

    /// How long to wait before asking again; nil once the budget is spent.
    mutating func next() -> Duration? {
        guard waited < Self.budget else { return nil }
        let wait = min(nextWait, Self.budget - waited)
        waited += wait
        nextWait = min(nextWait * 2, Self.longestWait)
        return wait
    }
}
