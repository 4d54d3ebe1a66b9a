/// Keeps or drops whole sessions for ingest (LINUX-PROFILE §9), decided once a session.
///
/// The decision is a pure function of `session.id` and the rate: the first 8 bytes of
/// SHA-256(UTF-8 of `session.id`), read as a big-endian unsigned integer `h`, keep the session
/// when `h < rate × 2^64`. Rate 1 keeps every session and 0 none; any machine, and a backend
/// checking an estimate, decides the same session the same way.
///
/// "Once a session": a decision is remembered with the rate it was made at, so a policy that
/// changes the rate mid-session neither splits the session nor changes the rate its records
/// carry. Only the last `Limits.maxRememberedSessions` sessions are remembered; an older one
/// that still writes is decided again at the current rate.
package struct SessionSampler: Sendable {
    package struct Decision: Sendable, Equatable {
        package let keep: Bool
        /// The rate the decision was made at, which kept records carry.
        package let rate: Double

        package init(keep: Bool, rate: Double) {
            self.keep = keep
            self.rate = rate
        }
    }

    private let hashing: any SHA256Hashing
    private let capacity: Int
    private var decisions: [String: Decision] = [:]
    /// Session ids in the order they were first decided, for forgetting the oldest.
    private var order: [String] = []
    private var orderStart = 0
    /// The session decided or looked up last, with its decision: a unit writes long runs of one
    /// session's records, and comparing with the last id is cheaper than hashing it into
    /// `decisions` for each one. It is always still in `decisions`: only an older session is
    /// forgotten, and only when a newer one becomes the last.
    private var last: (sessionID: String, decision: Decision)?

    package init(hashing: some SHA256Hashing, limits: Limits = .spec) {
        self.hashing = hashing
        capacity = max(1, limits.maxRememberedSessions)
    }

    package mutating func decide(sessionID: String, rate: Double) -> Decision {
        if let last, last.sessionID == sessionID { return last.decision }
        if let known = decisions[sessionID] {
            last = (sessionID, known)
            return known
        }
        let decision = Decision(keep: Self.keeps(sessionID: sessionID, rate: rate, hashing: hashing), rate: rate)
        decisions[sessionID] = decision
        last = (sessionID, decision)
        order.append(sessionID)
        if decisions.count > capacity {
            decisions[order[orderStart]] = nil
            orderStart += 1
            if orderStart > capacity {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }
        return decision
    }

    /// The stateless rule.
    package static func keeps(sessionID: String, rate: Double, hashing: some SHA256Hashing) -> Bool {
        guard rate > 0 else { return false }  // also NaN
        guard rate < 1 else { return true }
        let digest = hashing.sha256(Array(sessionID.utf8))
        var point: UInt64 = 0
        for byte in digest.prefix(8) { point = point << 8 | UInt64(byte) }
        // rate × 2^64 is below 2^64 here, and exact in a Double's 53 bits only as far as the
        // rate itself is; the comparison is made on integers so every machine agrees.
        let threshold = UInt64(rate * 18_446_744_073_709_551_616.0)
        return point < threshold
    }
}
