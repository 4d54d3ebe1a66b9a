@testable import ApsioPOSIX
import Glibc
import Testing

/// Telling whether a process holds an exclusive flock on a file: by a probe where the file may be
/// opened, by the kernel's table of locks where it may not.
@Suite struct FlockProbeTests {
    @Test func aLockHeldIsSeenAndOneLetGoIsNot() throws {
        var template = Array("/tmp/apsio-flock-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { try? FileSystem.removeTree(directory) }
        let path = directory + "/apsiod.lock"
        #expect(try FlockProbe.exclusiveLock(on: path) == .missing)
        let lock = try #require(try FileLock.acquire(path, mode: 0o600, timeout: .zero))
        #expect(try FlockProbe.exclusiveLock(on: path) == .held)
        // As the kernel lists it, for a user who may not open the file.
        let status = try #require(try FileSystem.status(path))
        let table = try #require(try FileSystem.readAll(ProcLocks.path, maxBytes: ProcLocks.maxBytes))
        #expect(ProcLocks.holdsExclusiveFlock(table, device: status.device, inode: status.inode))
        lock.release()
        #expect(try FlockProbe.exclusiveLock(on: path) == .free)
        // The probe kept nothing: the lock may be taken at once.
        #expect(try FileLock.acquire(path, mode: 0o600, timeout: .zero) != nil)
    }

    @Test func onlyAnExclusiveFlockHeldOnThatFileCounts() {
        // st_dev 0xfe00 is major 0xfe, minor 0, which the kernel prints "fe:00".
        let table = Array("""
            1: POSIX  ADVISORY  WRITE 10054 fe:00:5383315 1073741824 1073742335
            2: FLOCK  ADVISORY  READ 10054 fe:00:777 0 EOF
            3: FLOCK  ADVISORY  WRITE 9547 fe:00:16223243 0 EOF
            3: -> FLOCK  ADVISORY  WRITE 9548 fe:00:888 0 EOF
            4: FLOCK  ADVISORY  WRITE 1 103:05:999 0 EOF
            5: FLOCK  ADVISORY  WRITE 1 1234:567:42 0 EOF

            """.utf8)
        #expect(ProcLocks.holdsExclusiveFlock(table, device: 0xfe00, inode: 16_223_243))
        #expect(!ProcLocks.holdsExclusiveFlock(table, device: 0xfe00, inode: 5_383_315), "a POSIX lock")
        #expect(!ProcLocks.holdsExclusiveFlock(table, device: 0xfe00, inode: 777), "a shared lock")
        #expect(!ProcLocks.holdsExclusiveFlock(table, device: 0xfe00, inode: 888), "only waited for")
        #expect(!ProcLocks.holdsExclusiveFlock(table, device: 0xfe01, inode: 16_223_243), "another device")
        // Numbers past 8 bits, in glibc's encoding of a dev_t (makedev(3)).
        #expect(ProcLocks.holdsExclusiveFlock(table, device: (0x103 << 8) | 5, inode: 999))
        let large: UInt64 = (0x234 << 8) | (0x1000 << 32) | 0x67 | (0x500 << 12)
        #expect(ProcLocks.major(large) == 0x1234 && ProcLocks.minor(large) == 0x567)
        #expect(ProcLocks.holdsExclusiveFlock(table, device: large, inode: 42))
    }
}
