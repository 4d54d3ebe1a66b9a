#if canImport(Glibc)
internal import Glibc
#endif

/// The address of a unix socket by its path, checked to fit `sun_path` with its terminating NUL.
package struct UnixSocketAddress: Sendable {
    package let path: String
    private let address: sockaddr_un

    /// nil when the path is too long for a unix socket.
    package init?(path: String) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        self.path = path
        self.address = address
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> T) throws(SystemError) -> T {
        var copy = address
        return try withUnsafePointer(to: &copy) { (pointer) throws(SystemError) -> T in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(SystemError) -> T in
                try body(raw, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

extension OwnedFileDescriptor {
    package func bind(_ address: UnixSocketAddress) throws(SystemError) {
        try address.withSockaddr { (raw, length) throws(SystemError) in try bind(raw, length: length, name: address.path) }
    }

    package func connect(_ address: UnixSocketAddress) throws(SystemError) -> Bool {
        try address.withSockaddr { (raw, length) throws(SystemError) in try connect(raw, length: length, name: address.path) }
    }
}
