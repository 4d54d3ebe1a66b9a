#if canImport(Glibc)
internal import Glibc
#endif
package import ApsioCore

/// Where requests go: a scheme, a host, a port, and for ingest an optional base path. Plain `http`
/// exists only for the loopback hosts of spec 16.4; anything else is refused here, before any
/// connection is made.
package struct HTTPEndpoint: Sendable, Hashable, CustomStringConvertible {
    package enum Scheme: String, Sendable {
        case https
        /// Loopback only (`127.0.0.1`, `[::1]`, `localhost`).
        case http
    }

    package let scheme: Scheme
    /// Without brackets: `ingest.example.com`, `127.0.0.1`, `::1`.
    package let host: String
    package let port: Int
    /// Empty, or a path such as `/collector` that every request path is appended to.
    package let basePath: String

    package static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "localhost"]

    package init(scheme: Scheme, host: String, port: Int? = nil, basePath: String = "") throws(HTTPClientError) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard Self.isValidHost(bare) else {
            throw .invalidEndpoint("\"\(host)\" is not a lowercase host name or an IP address")
        }
        if scheme == .http && !Self.loopbackHosts.contains(bare) {
            throw .plainHTTPRefused(host: bare)
        }
        if let port, !(1...65535).contains(port) {
            throw .invalidEndpoint("port \(port) is not between 1 and 65535")
        }
        guard basePath.isEmpty || Self.isValidBasePath(basePath) else {
            throw .invalidEndpoint("base path \"\(basePath)\" must be like /collector: letters, digits, -._~ and %XX")
        }
        self.scheme = scheme
        self.host = bare
        self.port = port ?? (scheme == .https ? 443 : 80)
        self.basePath = basePath
    }

    /// The live channel's endpoint; `LiveOrigin` already holds only the forms 16.4 allows.
    package init(origin: LiveOrigin) {
        self.scheme = origin.scheme == .https ? .https : .http
        self.host = origin.connectHost
        self.port = origin.port
        self.basePath = ""
    }

    /// An ingest `Backend=` value: `https://host[:port][/base/path]`, or `http://` to a loopback
    /// host. Userinfo, a query, a fragment, upper case in the scheme or host, `.`/`..` or empty
    /// path segments are refused rather than interpreted: the operator sees why and fixes the line.
    package init(baseURL text: String) throws(HTTPClientError) {
        let scheme: Scheme
        let rest: Substring
        if text.hasPrefix("https://") {
            scheme = .https
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            scheme = .http
            rest = text.dropFirst(7)
        } else {
            throw .invalidEndpoint("\"\(text)\" must start with https:// (or http:// for a loopback host)")
        }
        if rest.contains("@") { throw .invalidEndpoint("\"\(text)\" contains userinfo (@), which is refused") }
        if rest.contains("?") || rest.contains("#") {
            throw .invalidEndpoint("\"\(text)\" contains a query or a fragment, which is refused")
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        if path.hasSuffix("/") { path.removeLast() }

        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidEndpoint("\"\(text)\" has an unclosed IPv6 bracket")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidEndpoint("\"\(text)\" has bytes after the IPv6 address") }
                portText = after.dropFirst()
            }
            guard Self.isIPv6Literal(String(host)) else { throw .invalidEndpoint("\"\(host)\" is not an IPv6 address") }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        if host.isEmpty { throw .invalidEndpoint("\"\(text)\" has no host") }
        var port: Int?
        if let portText {
            guard let first = portText.first, first != "0", portText.count <= 5,
                portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(portText), value <= 65535
            else { throw .invalidEndpoint("\"\(text)\" has an invalid port (1 to 65535, no leading zero)") }
            port = value
        }
        try self.init(scheme: scheme, host: String(host), port: port, basePath: path)
    }

    package var isLoopback: Bool { Self.loopbackHosts.contains(host) }

    package var isIPLiteral: Bool { Self.isIPv4Literal(host) || Self.isIPv6Literal(host) }

    /// The `Host` field: brackets around an IPv6 address, the port only when it is not the default.
    package var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let isDefaultPort = (scheme == .https && port == 443) || (scheme == .http && port == 80)
        return isDefaultPort ? name : "\(name):\(port)"
    }

    package var description: String { "\(scheme.rawValue)://\(hostField)\(basePath)" }

    private static func isValidHost(_ host: String) -> Bool {
        if isIPv6Literal(host) { return true }
        return !host.isEmpty && host.utf8.count <= 253
            && host.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2d }
    }

    static func isIPv4Literal(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    static func isIPv6Literal(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, host, &address) == 1
    }

    private static func isValidBasePath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.hasSuffix("/") else { return false }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return segments.allSatisfy { segment in
            guard !segment.isEmpty, segment != ".", segment != ".." else { return false }
            let bytes = Array(segment.utf8)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else {
                        return false
                    }
                    index += 3
                    continue
                }
                let unreserved = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a)
                    || (byte >= 0x30 && byte <= 0x39) || byte == 0x2d || byte == 0x2e || byte == 0x5f || byte == 0x7e
                guard unreserved else { return false }
                index += 1
            }
            return true
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
