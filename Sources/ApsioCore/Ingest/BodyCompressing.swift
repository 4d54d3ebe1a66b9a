/// Compresses a request body as it will go on the wire.
///
/// The live channel counts bodies "as sent (compressed)" (16.3) against its caps, so the pure
/// state machine compresses them itself through this, injected like `SHA256Hashing`, and hands the
/// runtime the exact bytes to send.
package protocol BodyCompressing: Sendable {
    func compress(_ bytes: [UInt8]) -> [UInt8]
}
