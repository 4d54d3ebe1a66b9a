#if canImport(Glibc)
package import Glibc
#endif

/// The socket calls of the package, on the descriptor that owns the socket: every socket made
/// close-on-exec from its first instant, every send without SIGPIPE, EINTR retried, and a
/// non-blocking socket's "not now" (EAGAIN) a nil rather than an error.
extension OwnedFileDescriptor {
    /// A new socket; `type` is `SOCK_STREAM`, `SOCK_DGRAM` or `SOCK_RAW`.
    package static func socket(
        family: Int32, type: Int32, protocol: Int32 = 0, nonBlocking: Bool, name: String = "socket"
    ) throws(SystemError) -> OwnedFileDescriptor {
        let flags = SocketFlags.closeOnExec | (nonBlocking ? SocketFlags.nonBlocking : 0)
        let raw = try retryingInterrupts(name) { Glibc.socket(family, type | flags, `protocol`) }
        return OwnedFileDescriptor(taking: raw)
    }

    /// A connected pair of unix sockets (a wake-up channel within the process).
    package static func socketPair(type: Int32, nonBlocking: Bool) throws(SystemError) -> (OwnedFileDescriptor, OwnedFileDescriptor) {
        var fds: [Int32] = [-1, -1]
        let flags = SocketFlags.closeOnExec | (nonBlocking ? SocketFlags.nonBlocking : 0)
        try retryingInterrupts("socketpair") { Glibc.socketpair(AF_UNIX, type | flags, 0, &fds) }
        return (OwnedFileDescriptor(taking: fds[0]), OwnedFileDescriptor(taking: fds[1]))
    }

    package func bind(_ address: UnsafePointer<sockaddr>, length: socklen_t, name: String) throws(SystemError) {
        try retryingInterrupts("bind(\(name))") { Glibc.bind(rawValue, address, length) }
    }

    package func listen(backlog: Int32, name: String) throws(SystemError) {
        try retryingInterrupts("listen(\(name))") { Glibc.listen(rawValue, backlog) }
    }

    /// Starts connecting: true when connected, false when it goes on in the background (a
    /// non-blocking socket, or a signal came): wait until writable, then ask `pendingError()`.
    package func connect(_ address: UnsafePointer<sockaddr>, length: socklen_t, name: String) throws(SystemError) -> Bool {
        if Glibc.connect(rawValue, address, length) == 0 { return true }
        let code = errno
        if code == EINPROGRESS || code == EINTR { return false }
        throw SystemError("connect(\(name))", errno: code)
    }

    /// The error a background connect ended with (`SO_ERROR`), 0 when it connected.
    package func pendingError() -> Int32 {
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(rawValue, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 ? failure : errno
    }

    package func setOption(level: Int32, name: Int32, to value: Int32) throws(SystemError) {
        var value = value
        try retryingInterrupts("setsockopt(\(name))") {
            setsockopt(rawValue, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// How long a blocking receive waits (`SO_RCVTIMEO`) before it fails with EAGAIN.
    package func setReceiveTimeout(_ timeout: Duration) throws(SystemError) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        try retryingInterrupts("setsockopt(SO_RCVTIMEO)") {
            setsockopt(rawValue, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    package func integerOption(level: Int32, name: Int32) throws(SystemError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try retryingInterrupts("getsockopt(\(name))") { getsockopt(rawValue, level, name, &value, &length) }
        return value
    }

    /// The address the socket is bound to, written into `storage`; its length.
    package func localAddress(into storage: inout sockaddr_storage) throws(SystemError) -> socklen_t {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try retryingInterrupts("getsockname") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) }
            }
        }
        return length
    }

    /// Sends what the socket takes now: the count, or nil when it takes nothing yet (EAGAIN).
    package func send(_ bytes: UnsafeRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try notNow("send") { Glibc.send(rawValue, bytes.baseAddress, bytes.count, flags | Int32(MSG_NOSIGNAL)) }
    }

    /// Sends from `bytes[offset...]` what the socket takes now; nil when it takes nothing yet.
    package func send(_ bytes: [UInt8], from offset: Int = 0, flags: Int32 = 0) throws(SystemError) -> Int? {
        try notNow("send") {
            bytes.withUnsafeBytes {
                Glibc.send(rawValue, $0.baseAddress! + offset, $0.count - offset, flags | Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// Receives into `buffer` (up to its count) what is there; nil when nothing is there yet.
    package func receive(into buffer: inout [UInt8], flags: Int32 = 0) throws(SystemError) -> Int? {
        try notNow("recv") { buffer.withUnsafeMutableBytes { recv(rawValue, $0.baseAddress, $0.count, flags) } }
    }

    /// One datagram to `address`.
    package func send(
        _ bytes: UnsafeRawBufferPointer, to address: UnsafePointer<sockaddr>, length: socklen_t
    ) throws(SystemError) -> Int? {
        try notNow("sendto") { sendto(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length) }
    }

    /// Receives what is there: the count (0 at the end of the stream), or nil when nothing is
    /// there yet (EAGAIN; after `SO_RCVTIMEO` on a blocking socket).
    package func receive(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try notNow("recv") { recv(rawValue, buffer.baseAddress, buffer.count, flags) }
    }

    /// Whether reading would not block now: bytes, the end of the stream, or an error wait.
    package var isReadableNow: Bool {
        var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    private func notNow(_ name: String, _ call: () -> Int) throws(SystemError) -> Int? {
        while true {
            let count = call()
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(name, errno: code)
        }
    }
}
