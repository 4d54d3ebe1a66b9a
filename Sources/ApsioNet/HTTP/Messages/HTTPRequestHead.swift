/// A request's line and header fields, as the server parsed them.
package struct HTTPRequestHead: Sendable, Equatable {
    package var method: String
    /// The target as sent: the path and, after `?`, the query.
    package var target: String
    package var minorVersion: Int
    package var headers: HTTPHeaders

    package init(method: String, target: String, minorVersion: Int = 1, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
    }

    /// The target without its query.
    package var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The raw query after `?`, or nil.
    package var rawQuery: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }

    /// Whether the client lets the connection carry another request.
    package var keepsAlive: Bool {
        if headers.hasToken("close", in: "Connection") { return false }
        return minorVersion == 1 || headers.hasToken("keep-alive", in: "Connection")
    }

    /// Checks the request line alone, before the fields arrive.
    static func validate(_ line: [UInt8]) throws(HTTPParseError) {
        _ = try parse(line, headers: [:], checkingHost: false)
    }

    /// `METHOD /target HTTP/1.x`, single spaces; the target in origin form only.
    static func parse(
        _ line: [UInt8], headers: HTTPHeaders, checkingHost: Bool = true
    ) throws(HTTPParseError) -> HTTPRequestHead {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidStartLine }
        let method = parts[0], target = parts[1], version = parts[2]
        guard !method.isEmpty, method.allSatisfy(HTTPSyntax.isTokenByte) else { throw .invalidStartLine }
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)) else { throw .invalidStartLine }
        let minor: Int
        switch Array(version.dropFirst(5)) {
        case Array("1.1".utf8): minor = 1
        case Array("1.0".utf8): minor = 0
        default: throw .unsupportedVersion
        }
        guard target.first == UInt8(ascii: "/"), target.allSatisfy(HTTPSyntax.isTargetByte) else {
            throw .invalidTarget
        }
        if minor == 1 && checkingHost {
            let hosts = headers.values("Host")
            guard hosts.count == 1, hosts[0].utf8.allSatisfy(HTTPSyntax.isTargetByte) else { throw .invalidHost }
        }
        return HTTPRequestHead(
            method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
            minorVersion: minor, headers: headers)
    }
}
