import ApsioPOSIX

/// Where Redis listens, as an operator writes it: `redis://HOST:PORT/DB` (port 6379 and database 0
/// by default), or the path of its unix socket, with the database after it as `?db=N`.
package struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    package enum Address: Sendable, Hashable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    package let address: Address
    package let database: Int

    package init(_ address: Address, database: Int = 0) {
        self.address = address
        self.database = database
    }

    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package let text: String
        package let reason: String
        package var description: String { "\(text): \(reason)" }
    }

    /// Parses what `--redis` was given. No password in the URL: it would show in `ps` and in the
    /// unit file; a socket's permissions are how a local Redis is kept to its users.
    package init(parsing text: String) throws(Invalid) {
        if text.hasPrefix("/") {
            let parts = text.split(separator: "?", maxSplits: 1).map(String.init)
            guard UnixSocketAddress(path: parts[0]) != nil else { throw Invalid(text: text, reason: "the socket path is too long") }
            var database = 0
            if parts.count == 2 {
                guard parts[1].hasPrefix("db="), let number = Self.database(String(parts[1].dropFirst(3))) else {
                    throw Invalid(text: text, reason: "after the socket path, only ?db=N (0 to 15) is understood")
                }
                database = number
            }
            self.init(.unix(path: parts[0]), database: database)
            return
        }
        guard text.hasPrefix("redis://") else {
            throw Invalid(text: text, reason: "expected redis://HOST:PORT/DB or the path of a unix socket")
        }
        var rest = Substring(text.dropFirst("redis://".count))
        guard !rest.contains("@") else {
            throw Invalid(text: text, reason: "a password in the URL is not accepted; reach Redis over a socket only its users can open")
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Self.database(path) else { throw Invalid(text: text, reason: "the database is a number from 0 to 15") }
                database = number
            }
        }
        var host = String(rest)
        var port = 6379
        if host.hasPrefix("[") {
            // An IPv6 literal: [::1]:6379.
            guard let close = host.firstIndex(of: "]") else { throw Invalid(text: text, reason: "an IPv6 address is closed by ]") }
            let after = host[host.index(after: close)...]
            let literal = String(host[host.index(after: host.startIndex)..<close])
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                    throw Invalid(text: text, reason: "the port is a number from 1 to 65535")
                }
                port = number
            }
            host = literal
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else {
                throw Invalid(text: text, reason: "the port is a number from 1 to 65535")
            }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw Invalid(text: text, reason: "no host") }
        self.init(.tcp(host: host, port: port), database: database)
    }

    private static func database(_ text: String) -> Int? {
        guard let number = Int(text), (0...15).contains(number), String(number) == text else { return nil }
        return number
    }

    package var description: String {
        switch address {
        case .tcp(let host, let port):
            "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
        case .unix(let path):
            database == 0 ? path : "\(path)?db=\(database)"
        }
    }
}
