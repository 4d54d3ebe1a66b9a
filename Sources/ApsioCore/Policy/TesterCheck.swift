/// The backend's check of a hello's tester (16.7), the backend half of `live.tester` (B.2).
///
/// One rule for installs and users: the id is listed, the entry has not expired, the proof has the
/// proof's shape, and its hash is the entry's match. A tester that does not count is not an error
/// (not a 400): the hello is answered with `viewers` 0 and no token.
package enum TesterCheck {
    package static func counts(
        tester: String?, proof: String?, entries: [TesterEntry], nowUnixSeconds: Int64,
        hashing: some SHA256Hashing, limits: Limits = .spec
    ) -> Bool {
        guard let tester, let proof, Hex.isLowercase(proof, length: limits.proofHexLength) else { return false }
        guard let entry = entries.first(where: { $0.id == tester }),
            !entry.isExpired(atUnixSeconds: nowUnixSeconds)
        else { return false }
        return hashing.sha256Hex(proof) == entry.match
    }
}
