@testable import ApsioPOSIX
import Glibc
import Testing

@Suite struct OwnedFileDescriptorTests {
    static func socketPair() throws -> (OwnedFileDescriptor, OwnedFileDescriptor) {
        var fds: [Int32] = [0, 0]
        try retryingInterrupts("socketpair") {
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        }
        return (OwnedFileDescriptor(taking: fds[0]), OwnedFileDescriptor(taking: fds[1]))
    }

    static func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) >= 0 }

    /// A shutdown after the close must not reach whatever the number names by then.
    @Test func aShutdownAfterTheCloseLeavesTheNumberAlone() throws {
        let (first, firstPeer) = try Self.socketPair()
        first.close()
        // The lowest free number: most likely the one just closed.
        let (second, secondPeer) = try Self.socketPair()
        first.shutdown()
        var byte: UInt8 = 7
        #expect(send(second.rawValue, &byte, 1, Int32(MSG_NOSIGNAL)) == 1)
        #expect(recv(secondPeer.rawValue, &byte, 1, 0) == 1)
        firstPeer.close()
    }

    @Test func closingTwiceClosesOnce() throws {
        let (fd, peer) = try Self.socketPair()
        #expect(fd.close())
        #expect(!fd.close())
        #expect(fd.isClosed)
        peer.close()
    }

    /// Taken, the number is the taker's: the descriptor counts as closed and never closes it.
    @Test func aTakenNumberIsNotClosedByItsFormerOwner() throws {
        let raw = try retryingInterrupts("open") { open("/dev/null", O_RDONLY | O_CLOEXEC) }
        var owned: OwnedFileDescriptor? = OwnedFileDescriptor(taking: raw)
        #expect(owned?.take() == raw)
        #expect(owned?.take() == nil)
        #expect(owned?.isClosed == true)
        owned?.close()
        owned = nil
        #expect(Self.isOpen(raw))
        _ = Glibc.close(raw)
    }

    @Test func aClosedDescriptorCannotBeTaken() throws {
        let (fd, peer) = try Self.socketPair()
        fd.close()
        #expect(fd.take() == nil)
        peer.close()
    }

    /// Shutdowns from many threads while the owner closes: each wakes the peer or does nothing,
    /// and the descriptor ends closed, whichever of them was last to use the number.
    @Test func shutdownsRacingTheCloseEndWithOneClose() async throws {
        for _ in 0..<200 {
            let (fd, peer) = try Self.socketPair()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { fd.shutdown() } }
                group.addTask { fd.close() }
            }
            #expect(fd.isClosed)
            var byte: UInt8 = 0
            // The peer sees the end of the stream: by the shutdown or by the close.
            #expect(recv(peer.rawValue, &byte, 1, 0) == 0)
            peer.close()
        }
    }
}
