/// The policy's `live.origin`, accepted only in the forms spec 16.4 allows (the `live.origin`
/// function of B.2).
///
/// Anything else — userinfo, a path, a query, upper case, a stray space, plain `http` to anything
/// but loopback — is refused, and the caller then behaves as if the policy had no `live` object.
/// The check is a scan of bytes, not a URL parser's opinion: `https://a@b` names `b` to a parser,
/// and that is exactly the trick this refuses.
package struct LiveOrigin: Sendable, Hashable, CustomStringConvertible {
    package enum Scheme: String, Sendable {
        case https
        /// Only ever with a loopback host (16.4).
        case http
    }

    package let scheme: Scheme
    /// The host as written: `live.example.com`, `127.0.0.1`, `[::1]` or `localhost`.
    package let host: String
    /// The explicit port, when the origin names one.
    package let explicitPort: Int?
    /// The origin exactly as the policy gave it; accepted origins are returned unchanged.
    package let text: String

    package var description: String { text }

    /// The port to connect to.
    package var port: Int { explicitPort ?? (scheme == .https ? 443 : 80) }

    /// The host to resolve or connect to: IPv6 literals lose their brackets.
    package var connectHost: String {
        host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    private static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "localhost"]

    /// The longest host name DNS can carry (RFC 1035: 255 bytes on the wire). A longer one names
    /// nothing to connect to; refused, it also bounds what an origin makes the device keep and
    /// write back (the policy's canonical form must fit the body limit it was read within).
    package static let maxHostBytes = 253

    /// `nil` unless `text` is an origin the live channel may use.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        let scheme: Scheme
        let rest: ArraySlice<UInt8>
        if bytes.starts(with: "https://".utf8) {
            scheme = .https
            rest = bytes.dropFirst(8)
        } else if bytes.starts(with: "http://".utf8) {
            scheme = .http
            rest = bytes.dropFirst(7)
        } else {
            return nil
        }

        // The host ends at the port's colon; a bracketed IPv6 literal keeps its own colons.
        let hostBytes: ArraySlice<UInt8>
        let portBytes: ArraySlice<UInt8>?
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostBytes = rest[rest.startIndex...close]
            let after = rest[(close + 1)...]
            if after.isEmpty {
                portBytes = nil
            } else {
                guard after.first == UInt8(ascii: ":") else { return nil }
                portBytes = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = rest[..<colon]
            portBytes = rest[(colon + 1)...]
        } else {
            hostBytes = rest
            portBytes = nil
        }

        let host = String(decoding: hostBytes, as: UTF8.self)
        switch scheme {
        case .https:
            guard !hostBytes.isEmpty, hostBytes.count <= Self.maxHostBytes, hostBytes.allSatisfy(Self.isHostByte)
            else { return nil }
        case .http:
            guard Self.loopbackHosts.contains(host) else { return nil }
        }

        var port: Int?
        if let portBytes {
            guard let parsed = Self.parsePort(portBytes) else { return nil }
            port = parsed
        }

        self.scheme = scheme
        self.host = host
        self.explicitPort = port
        self.text = text
    }

    /// Letters, digits, `.` and `-`, lowercase only.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// 1 to 65535 in decimal, no sign and no leading zero.
    private static func parsePort(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard let first = bytes.first, first != UInt8(ascii: "0"), bytes.count <= 5 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return (1...65535).contains(value) ? value : nil
    }
}
