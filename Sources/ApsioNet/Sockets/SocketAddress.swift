#if canImport(Glibc)
internal import Glibc
#endif

/// One resolved address, copied out of getaddrinfo's list so that nothing points into freed memory.
struct SocketAddress: Sendable, Equatable {
    let family: Int32
    let bytes: [UInt8]

    init(family: Int32, pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        self.family = family
        self.bytes = Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
    }

    /// The address of an IPv4 or IPv6 literal (no name is looked up) and a port; nil for any other
    /// text. The family's structure is filled as the kernel reads it: family, port in network
    /// order, address.
    static func literal(_ text: String, port: UInt16) -> SocketAddress? {
        func filled<Address>(_ empty: Address, _ family: Int32, _ fill: (inout Address) -> Int32) -> SocketAddress? {
            var address = empty
            guard fill(&address) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { raw in
                SocketAddress(family: family, pointer: raw.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                              length: socklen_t(raw.count))
            }
        }
        if HTTPEndpoint.isIPv4Literal(text) {
            return filled(sockaddr_in(), AF_INET) { address in
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(port.bigEndian)
                return inet_pton(AF_INET, text, &address.sin_addr)
            }
        }
        if HTTPEndpoint.isIPv6Literal(text) {
            return filled(sockaddr_in6(), AF_INET6) { address in
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(port.bigEndian)
                return inet_pton(AF_INET6, text, &address.sin6_addr)
            }
        }
        return nil
    }

    func withSockaddr<T, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = bytes.withUnsafeBytes { raw in
            do throws(E) {
                return .success(try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The address without family or port: 4 bytes for IPv4, 16 for IPv6, none for another family.
    var addressBytes: ArraySlice<UInt8> {
        let (offset, count) = switch family {
        case AF_INET: (MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, 4)
        case AF_INET6: (MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!, 16)
        default: (0, 0)
        }
        guard offset + count <= bytes.count else { return [] }
        return bytes[offset..<offset + count]
    }

    /// `127.0.0.1` or `::1`, for messages.
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return bytes.withUnsafeBytes { raw -> String in
            let source: UnsafeRawPointer? = switch family {
            case AF_INET: raw.baseAddress.map { $0 + MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)! }
            case AF_INET6: raw.baseAddress.map { $0 + MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)! }
            default: nil
            }
            guard let source, inet_ntop(family, source, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
