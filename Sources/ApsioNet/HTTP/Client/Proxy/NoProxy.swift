#if canImport(Glibc)
internal import Glibc
#endif

/// The hosts reached directly even when a proxy is set, read as curl reads `NO_PROXY`: a list
/// separated by commas (or spaces); `*` alone for every host; a name for itself and every name
/// under it (`example.com` and `.example.com` both match `api.example.com`); an IP address, or a
/// network in CIDR form (`10.0.0.0/8`, `fd00::/8`), for a backend named by its address. Names are
/// not resolved to be compared with addresses, as curl does not.
package struct NoProxy: Sendable, Equatable {
    enum Entry: Sendable, Equatable {
        case everything
        case domain(String)
        case network(bytes: [UInt8], prefix: Int)
    }

    let entries: [Entry]
    /// Entries that are none of these, said once where the list was read; the others still count.
    package let ignored: [String]

    package static let none = NoProxy("")

    package init(_ text: String) {
        var entries: [Entry] = []
        var ignored: [String] = []
        for raw in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            let item = raw.lowercased()
            if item == "*" {
                entries.append(.everything)
            } else if let network = Self.network(item) {
                entries.append(network)
            } else {
                let name = item.hasPrefix(".") ? String(item.dropFirst()) : item
                let isName = !name.isEmpty && name.utf8.allSatisfy {
                    ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2d || $0 == 0x5f
                }
                if isName { entries.append(.domain(name)) } else { ignored.append(String(raw)) }
            }
        }
        self.entries = entries
        self.ignored = ignored
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// Whether `host` (lowercase, an IPv6 address without brackets) is reached directly.
    package func bypasses(_ host: String) -> Bool {
        let address = Self.addressBytes(host)
        return entries.contains { entry in
            switch entry {
            case .everything: true
            case .domain(let name): address == nil && (host == name || host.hasSuffix("." + name))
            case .network(let bytes, let prefix): address.map { Self.within($0, bytes, prefix: prefix) } ?? false
            }
        }
    }

    private static func network(_ item: String) -> Entry? {
        let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let text = parts[0].hasPrefix("[") && parts[0].hasSuffix("]") ? String(parts[0].dropFirst().dropLast()) : String(parts[0])
        guard let bytes = addressBytes(text) else { return nil }
        var prefix = bytes.count * 8
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...prefix).contains(value) else { return nil }
            prefix = value
        }
        return .network(bytes: bytes, prefix: prefix)
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func within(_ address: [UInt8], _ network: [UInt8], prefix: Int) -> Bool {
        guard address.count == network.count else { return false }
        var remaining = prefix
        for index in 0..<address.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if address[index] & mask != network[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}
