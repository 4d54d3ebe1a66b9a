@testable import ApsioPOSIX
import Glibc
import Testing

/// The socket calls of the funnel: EAGAIN as nil, the end of a stream as 0, unix addresses.
@Suite struct SocketCallsTests {
    @Test func notNowIsNilAndTheEndIsZero() throws {
        let (one, other) = try OwnedFileDescriptor.socketPair(type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(try one.receive(into: &buffer) == nil)
        #expect(try other.send(Array("hello".utf8), from: 1) == 4)
        #expect(try one.receive(into: &buffer) == 4)
        #expect(buffer.prefix(4) == Array("ello".utf8)[...])
        other.close()
        #expect(one.isReadableNow)
        #expect(try one.receive(into: &buffer) == 0)
        // A peer gone: EPIPE, not SIGPIPE (which would end the test run).
        #expect(throws: SystemError("send", errno: EPIPE)) { try one.send([1]) }
    }

    @Test func aUnixListenerTakesAConnection() throws {
        var template = Array("/tmp/apsio-sock-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileSystem.removeTree(directory) }
        let address = try #require(UnixSocketAddress(path: directory + "/s"))
        let listener = try OwnedFileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        try listener.bind(address)
        try listener.listen(backlog: 4, name: address.path)
        #expect(try listener.integerOption(level: SOL_SOCKET, name: SO_ACCEPTCONN) == 1)
        #expect(try FileSystem.status(address.path)?.kind == .socket)
        let client = try OwnedFileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: false)
        #expect(try client.connect(address))
        #expect(client.pendingError() == 0)
        let peer = try PeerCredentials.of(client.rawValue)
        #expect(peer.pid == getpid())
        #expect(peer.uid == geteuid())
    }

    @Test func aPathTooLongIsNoAddress() {
        #expect(UnixSocketAddress(path: String(repeating: "x", count: 108)) == nil)
        #expect(UnixSocketAddress(path: String(repeating: "x", count: 107)) != nil)
    }

    @Test func everySocketIsCloseOnExec() throws {
        let socket = try OwnedFileDescriptor.socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        #expect(fcntl(socket.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        let (one, _) = try OwnedFileDescriptor.socketPair(type: Int32(SOCK_STREAM.rawValue), nonBlocking: false)
        #expect(fcntl(one.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        let file = try FileSystem.open("/dev/null", O_RDONLY)
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }
}
