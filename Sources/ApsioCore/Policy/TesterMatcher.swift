/// The device side of 16.1: which `live.testers` entry, if any, this install is.
package enum TesterMatcher {
    /// The first unexpired entry whose match equals the hash of this install's proof for it.
    ///
    /// Called again whenever the policy changes. The proof is computed per entry because it binds
    /// the entry's id; only the matching proof is returned, and only to be sent in a hello.
    package static func match(
        entries: [TesterEntry], installationID: String, nowUnixSeconds: Int64, hashing: some SHA256Hashing
    ) -> TesterProof? {
        for entry in entries where !entry.isExpired(atUnixSeconds: nowUnixSeconds) {
            let proof = TesterProof(entryID: entry.id, installationID: installationID, hashing: hashing)
            if proof.match(hashing: hashing) == entry.match { return proof }
        }
        return nil
    }
}
