import Foundation
import Glibc
import Synchronization

/// A fake server on 127.0.0.1 that writes exact bytes, for responses no real server would send.
/// Each connection is served on a thread of its own with blocking sockets; `acceptedCount` says
/// how many connections reached it.
final class RawServer: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Counter()
    private let closed = Counter()
    private let done = DispatchSemaphore(value: 0)

    var acceptedCount: Int { accepted.value.load(ordering: .sequentiallyConsistent) }
    /// How many connections the server has closed, after `serve` returned for them.
    var closedCount: Int { closed.value.load(ordering: .sequentiallyConsistent) }

    /// `serve` runs once per connection with its fd and its index (0 for the first); the fd is
    /// closed when it returns.
    init(serve: @escaping @Sendable (_ connection: Int32, _ index: Int) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let counter = accepted
        let closedCounter = closed
        let finished = done
        Thread.detachNewThread { [counter] in
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 { break }
                let index = counter.value.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
                Thread.detachNewThread {
                    serve(connection, index)
                    close(connection)
                    _ = closedCounter.value.wrappingAdd(1, ordering: .sequentiallyConsistent)
                }
            }
            finished.signal()
        }
    }

    /// Stops accepting; connections being served finish on their own. The wait for the accept
    /// thread happens off the cooperative pool.
    func stop() async {
        let listener = listener
        let done = done
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                shutdown(listener, Int32(SHUT_RDWR))
                done.wait()
                close(listener)
                continuation.resume()
            }
        }
    }

    /// Reads a request head (up to the blank line) so the client is not reset mid-write.
    static func readHead(_ fd: Int32) -> String {
        RawClient.setReceiveTimeout(fd)
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) && recv(fd, &byte, 1, 0) == 1 {
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Writes everything it can; a client that hung up is not an error here.
    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    static func write(_ fd: Int32, _ text: String) { write(fd, Array(text.utf8)) }
}

final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// A client socket to 127.0.0.1 for sending the server exact bytes.
struct RawClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        Self.setReceiveTimeout(fd)
    }

    func send(_ text: String) { RawServer.write(fd, Array(text.utf8)) }
    func send(_ bytes: [UInt8]) { RawServer.write(fd, bytes) }

    /// Everything until the server closes (or 60 s pass, so that a bug fails instead of hanging).
    /// The blocking reads run on a thread of their own, never on the test's cooperative pool.
    func readToEnd() async -> String {
        await Self.offPool { readToEndBlocking() }
    }

    private func readToEndBlocking() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads until `text` has arrived (or the connection ends).
    func read(until text: String) async -> String {
        await Self.offPool { readBlocking(until: text) }
    }

    private func readBlocking(until text: String) -> String {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !String(decoding: received, as: UTF8.self).contains(text) && recv(fd, &byte, 1, 0) == 1 {
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }

    private static func offPool(_ work: @escaping @Sendable () -> String) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    static func setReceiveTimeout(_ fd: Int32) {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}

