/// `app.installation.id` (LINUX-PROFILE §2): a random UUID (version 4), written lowercase
/// 8-4-4-4-12, made the first time the daemon serves an app.
///
/// Random and nothing else: never derived from `/etc/machine-id`, DMI or a MAC address, and never
/// shared across apps.
package enum InstallationID {
    /// From the system's cryptographic generator (getrandom(2) underneath) unless a test gives one.
    package static func generate<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            let start = hex.index(hex.startIndex, offsetBy: range.lowerBound)
            let end = hex.index(hex.startIndex, offsetBy: range.upperBound)
            return String(hex[start..<end])
        }
        return groups.joined(separator: "-")
    }

    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// Lowercase 8-4-4-4-12 hex: the only shape we write, so anything else on disk is damage.
    package static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }
}
