/// Which resolved addresses stay on this machine. Plain `http://` may go only to loopback (spec
/// 16.4), and `localhost` is a name: the resolver decides where it leads, and an /etc/hosts line
/// `10.1.2.3 localhost` would send the app key and the device token in clear text off the machine.
/// So the client checks the addresses a name resolved to, not the name.
enum LoopbackAddress {
    /// An address's bytes, 4 for IPv4 and 16 for IPv6: 127.0.0.0/8, `::1`, or 127.0.0.0/8 mapped
    /// into IPv6 (`::ffff:127.0.0.1`), which the kernel delivers over loopback too.
    static func contains(_ address: some Collection<UInt8>) -> Bool {
        let bytes = Array(address)
        switch bytes.count {
        case 4:
            return bytes[0] == 127
        case 16:
            let isIPv6Loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let isMappedIPv4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            return isIPv6Loopback || (isMappedIPv4 && bytes[12] == 127)
        default:
            return false
        }
    }

    /// Refuses plain http to `host` unless every address it resolved to is loopback: one that is
    /// not is named, and nothing is connected to, not even the loopback ones beside it, since a
    /// resolver that lists another machine for a loopback name is misconfigured or tampered with.
    static func requireAll(_ addresses: [SocketAddress], resolvedFrom host: String) throws(HTTPClientError) {
        if let outside = addresses.first(where: { !contains($0.addressBytes) }) {
            throw .plainHTTPResolvedOffLoopback(host: host, address: outside.text)
        }
    }
}
