import ApsioCore

/// An HTTP proxy that https requests reach their backend through, in a CONNECT tunnel: the TLS
/// session is still made with the backend, which the proxy only relays. Written as curl and the
/// peers read `HTTPS_PROXY`: `http://host:port`, `host:port`, or with `user:password@` (the
/// environment only; apsiod.conf takes credentials from a file).
package struct HTTPProxy: Sendable, Equatable, CustomStringConvertible {
    /// Without brackets: `proxy.example.com`, `10.0.0.8`, `fd00::8`.
    package let host: String
    package let port: Int
    /// Sent as `Proxy-Authorization: Basic`; never part of `description`.
    package var credentials: ProxyCredentials?

    /// curl's default when the URL names no port.
    package static let defaultPort = 1080

    package init(host: String, port: Int, credentials: ProxyCredentials? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy URL. Only plain `http://` proxies are spoken to: a TLS connection to the
    /// proxy itself (`https://`) and SOCKS are refused with the reason rather than ignored.
    package init(url text: String) throws(ProxyURLError) {
        var rest = Substring(text.trimmingSpaces)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let scheme = rest[..<colon].lowercased()
            guard scheme == "http" else { throw .unsupportedScheme(scheme) }
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else { throw .notAnOrigin }
        var credentials: ProxyCredentials?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let colon = userinfo.firstIndex(of: ":") ?? userinfo.endIndex
            guard let user = Self.percentDecoded(userinfo[..<colon]),
                let password = Self.percentDecoded(colon == userinfo.endIndex ? "" : userinfo[userinfo.index(after: colon)...]),
                !user.isEmpty
            else { throw .badCredentials }
            credentials = try ProxyCredentials(user: user, password: password)
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .badHost }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badHost }
                portText = after.dropFirst()
            }
            guard HTTPEndpoint.isIPv6Literal(String(host)) else { throw .badHost }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        let name = host.lowercased()
        guard !name.isEmpty, name.utf8.count <= 253,
            HTTPEndpoint.isIPv6Literal(name)
                || name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2d })
        else { throw .badHost }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value), portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { throw .badPort(String(portText)) }
            port = value
        }
        self.init(host: name, port: port, credentials: credentials)
    }

    /// `host:port`, as a log line or an error names the proxy: never the credentials.
    package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package var description: String { "http://\(address)" }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex, let high = Hex.value(of: utf8[first]), let low = Hex.value(of: utf8[second]) else {
                    return nil
                }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// Why a proxy URL was not taken. None repeats the URL: it may hold a password.
package enum ProxyURLError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsupportedScheme(String)
    case notAnOrigin
    case badCredentials
    case badHost
    case badPort(String)

    package var description: String {
        switch self {
        case .unsupportedScheme(let scheme):
            "\(scheme):// proxies are not supported: apsiod speaks to an http:// proxy, and TLS to the backend inside its tunnel"
        case .notAnOrigin: "a proxy is http://host:port, with no path, query or fragment"
        case .badCredentials: "the user:password before @ is not percent-encoded UTF-8 with a user"
        case .badHost: "the proxy's host is not a host name or an IP address"
        case .badPort(let port): "port \(port) is not between 1 and 65535"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
