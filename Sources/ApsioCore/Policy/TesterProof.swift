/// The proof and match of a tester entry (16.1), the `live.tester` function of B.2.
///
/// proof = hex SHA-256 of UTF-8(`id` + ":" + installation id); match = hex SHA-256 of the proof.
/// The proof is a secret: it lives in memory and travels only to `live.origin`. Its
/// `description` never shows it, so string interpolation into a log cannot leak it.
package struct TesterProof: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    package let entryID: String
    /// 64 lowercase hex characters. Send it only in a hello's body.
    package let secretHex: String

    package init(entryID: String, installationID: String, hashing: some SHA256Hashing) {
        self.entryID = entryID
        self.secretHex = hashing.sha256Hex(entryID + ":" + installationID)
    }

    /// The value the policy publishes for this proof.
    package func match(hashing: some SHA256Hashing) -> String {
        hashing.sha256Hex(secretHex)
    }

    package var description: String { "TesterProof(\(entryID), <redacted>)" }
    package var debugDescription: String { description }
}
