import ApsioCore

/// The user and password an HTTP proxy asks for (`407 Proxy Authentication Required`), sent in
/// each CONNECT as `Proxy-Authorization: Basic`. Kept in memory only; never described.
package struct ProxyCredentials: Sendable, Equatable, CustomStringConvertible {
    let user: String
    let password: String

    /// Refuses what Basic cannot carry: a colon in the user, control characters anywhere.
    package init(user: String, password: String) throws(ProxyURLError) {
        func printable(_ text: String) -> Bool { text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7f } }
        guard !user.isEmpty, !user.contains(":"), printable(user), printable(password) else { throw .badCredentials }
        self.user = user
        self.password = password
    }

    /// `user:password` on one line, as a credentials file holds them.
    package init(line: String) throws(ProxyURLError) {
        guard let colon = line.firstIndex(of: ":") else { throw .badCredentials }
        try self.init(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
    }

    var authorization: String { "Basic " + Base64.encode(Array("\(user):\(password)".utf8)) }

    package var description: String { "(proxy credentials)" }
}
