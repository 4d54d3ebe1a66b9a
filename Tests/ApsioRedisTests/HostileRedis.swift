import Foundation
import Glibc

/// A server on a unix socket that answers every connection with the same bytes, whatever was
/// asked: a wrong port, a proxy, a broken Redis. Its thread ends when the test closes it.
final class HostileRedis: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let thread: Thread

    init(answer: [UInt8]) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-hostile-\(UUID().uuidString).sock").path
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        self.listener = listener
        thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                var request = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &request, request.count)
                _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                // Held open: the client must give up on what it read, not on the connection ending.
                usleep(200_000)
                Glibc.close(client)
            }
        }
        thread.start()
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        unlink(path)
    }
}
