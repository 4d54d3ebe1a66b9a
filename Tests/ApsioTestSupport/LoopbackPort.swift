import Glibc

/// A TCP port of 127.0.0.1 as the fixtures that start servers on one see it: one free to listen
/// on, whether one is, and whether a server listens on one yet.
package enum LoopbackPort {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A port nothing listens on right now: bound to port 0 and let go. For a server whose address
    /// must be known before it starts (nginx, whose origin the backend publishes).
    package static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether `port` can be bound now, without SO_REUSEADDR: a listener or a connection on it
    /// says no.
    static func isBindable(_ port: Int) -> Bool {
        withSocket(port) { fd, address, length in bind(fd, address, length) == 0 }
    }

    /// Whether a server accepts connections on `port` now.
    static func accepts(_ port: Int) -> Bool {
        withSocket(port) { fd, address, length in connect(fd, address, length) == 0 }
    }

    private static func withSocket(_ port: Int, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
