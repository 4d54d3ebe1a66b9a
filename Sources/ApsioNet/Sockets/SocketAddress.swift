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

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
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
