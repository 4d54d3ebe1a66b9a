import ApsioCore

/// The people signed in now, in memory only: a sign-in's secret token (32 random bytes as hex,
/// sent back as a cookie or a bearer token) maps to the person, their role and a public id the
/// hub names their viewer by.
struct SignInSessions: Sendable {
    struct SignIn: Sendable, Equatable {
        /// Public: names the viewer in the hub; never accepted as a credential.
        let id: String
        let user: String
        let role: AccountRole
        /// The password's `stamp` when the person signed in: another one now ends the sign-in.
        let passwordStamp: String
        let createdAt: MonotonicInstant
        var lastUsed: MonotonicInstant
    }

    private var byToken: [String: SignIn] = [:]
    let limits: BackendLimits

    init(limits: BackendLimits) {
        self.limits = limits
    }

    /// Signs a person in; the oldest sign-in goes when there are too many.
    mutating func create(_ account: Account, token: String, id: String, now: MonotonicInstant) -> SignIn {
        if byToken.count >= limits.maxSignIns, let oldest = byToken.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            byToken[oldest.key] = nil
        }
        let signIn = SignIn(
            id: id, user: account.user, role: account.role, passwordStamp: account.password.stamp, createdAt: now, lastUsed: now)
        byToken[token] = signIn
        return signIn
    }

    /// The sign-in a token names, if it is still valid; using it keeps it alive.
    mutating func find(token: String, now: MonotonicInstant) -> SignIn? {
        guard var signIn = byToken[token] else { return nil }
        guard !isExpired(signIn, now: now) else {
            byToken[token] = nil
            return nil
        }
        signIn.lastUsed = now
        byToken[token] = signIn
        return signIn
    }

    mutating func remove(token: String) -> SignIn? {
        byToken.removeValue(forKey: token)
    }

    /// Forgets the sign-ins `keep` refuses and returns them, so their viewers can leave.
    mutating func removeAll(keeping keep: (SignIn) -> Bool) -> [SignIn] {
        let gone = byToken.filter { !keep($0.value) }
        for token in gone.keys { byToken[token] = nil }
        return Array(gone.values)
    }

    /// Forgets expired sign-ins and returns them, so their viewers can leave.
    mutating func expire(now: MonotonicInstant) -> [SignIn] {
        let gone = byToken.filter { isExpired($0.value, now: now) }
        for token in gone.keys { byToken[token] = nil }
        return Array(gone.values)
    }

    private func isExpired(_ signIn: SignIn, now: MonotonicInstant) -> Bool {
        now >= signIn.createdAt + limits.signInLifetime || now >= signIn.lastUsed + limits.signInIdleTimeout
    }

    var count: Int { byToken.count }
}
