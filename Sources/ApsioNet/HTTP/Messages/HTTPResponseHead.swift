/// A response's status line and header fields, as parsed.
package struct HTTPResponseHead: Sendable, Equatable {
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders

    package init(minorVersion: Int = 1, status: Int, reason: String, headers: HTTPHeaders) {
        self.minorVersion = minorVersion
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// Whether the connection may carry another exchange after this response.
    package var allowsReuse: Bool {
        if headers.hasToken("close", in: "Connection") { return false }
        return minorVersion == 1 || headers.hasToken("keep-alive", in: "Connection")
    }

    /// `HTTP/1.x NNN reason`: three digits, a reason of visible characters that may be empty
    /// (and the space before it may be missing, as some servers write it).
    static func parse(_ line: [UInt8], headers: HTTPHeaders) throws(HTTPParseError) -> HTTPResponseHead {
        guard line.starts(with: Array("HTTP/".utf8)), line.count >= 8 else { throw .invalidStartLine }
        guard line[5] == UInt8(ascii: "1"), line[6] == UInt8(ascii: ".") else { throw .unsupportedVersion }
        let minor: Int
        switch line[7] {
        case UInt8(ascii: "0"): minor = 0
        case UInt8(ascii: "1"): minor = 1
        default: throw .unsupportedVersion
        }
        guard line.count >= 12 else { throw .invalidStartLine }
        guard line[8] == 0x20 else { throw .invalidStartLine }
        let code = line[9..<12]
        guard code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), code.first != UInt8(ascii: "0") else {
            throw .invalidStartLine
        }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        var reason: ArraySlice<UInt8> = []
        if line.count > 12 {
            guard line[12] == 0x20 else { throw .invalidStartLine }
            reason = line[13...]
            guard reason.allSatisfy(HTTPSyntax.isFieldValueByte) else { throw .invalidStartLine }
        }
        return HTTPResponseHead(
            minorVersion: minor, status: status, reason: String(decoding: reason, as: UTF8.self), headers: headers)
    }
}
