/// The device token of a hello answer (16.4): 64 lowercase hex characters, or none at all.
///
/// It is a secret like the tester proof: kept in memory while the channel is not closed, sent only
/// in `Apsio-Live-Token` to `live.origin`. Its `description` never shows it.
package struct DeviceToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Send it only in the `Apsio-Live-Token` header.
    package let secretHex: String

    /// `text`: the answer's `device_token` when it is a string, nil when it is absent or of another
    /// type. A token of any other shape, or none, is not kept.
    package init?(_ text: String?, limits: Limits = .spec) {
        guard let text, Hex.isLowercase(text, length: limits.deviceTokenHexLength) else { return nil }
        secretHex = text
    }

    package var description: String { "DeviceToken(<redacted>)" }
    package var debugDescription: String { description }
}
