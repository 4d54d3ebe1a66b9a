@testable import ApsioPOSIX
import Glibc
import Testing

/// The file calls of the funnel: the capped read, the write loops, status and the directory stream.
@Suite struct FileFunnelTests {
    /// A directory of the test's own, removed with it.
    final class Scratch {
        let path: String
        init() throws {
            var template = Array("/tmp/apsio-posix-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw SystemError.last("mkdtemp") }
            path = String(cString: made)
        }
        deinit { try? FileSystem.removeTree(path) }
    }

    @Test func theReadIsCappedAndTellsAFileTooLarge() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/f"
        try AtomicFile.write(Array(repeating: 7, count: 100), to: path)
        #expect(try FileSystem.readAll(path, maxBytes: 100)?.count == 100)
        #expect(throws: SystemError("read(\(path))", errno: EFBIG)) { try FileSystem.readAll(path, maxBytes: 99) }
        #expect(try FileSystem.readAll(scratch.path + "/missing", maxBytes: 10) == nil)
    }

    /// procfs files say their size is 0: the read goes to the end of file, not by the size.
    @Test func aFileOfSizeZeroIsReadToItsEnd() throws {
        let status = try #require(try FileSystem.status("/proc/self/status"))
        #expect(status.size == 0)
        let text = try #require(try FileSystem.readAll("/proc/self/status", maxBytes: 1 << 20))
        #expect(String(decoding: text, as: UTF8.self).contains("Pid:"))
    }

    @Test func writesAtAnOffsetLeaveTheRestAlone() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/slots"
        let file = try FileSystem.open(path, O_RDWR | O_CREAT, mode: 0o600)
        try FileSystem.writeAll(file, path: path, Array("aaaa".utf8))
        try FileSystem.writeAll(file, path: path, Array("bb".utf8), at: 1)
        #expect(try FileSystem.read(file, path: path, at: 0, count: 10) == Array("abba".utf8))
        file.close()
        #expect(try FileSystem.status(path)?.permissions == 0o600)
    }

    @Test func statusSaysMissingAndKinds() throws {
        let scratch = try Scratch()
        #expect(try FileSystem.status(scratch.path + "/none") == nil)
        #expect(try FileSystem.status(scratch.path)?.kind == .directory)
        try #require(symlink("/nonexistent", scratch.path + "/link") == 0)
        #expect(try FileSystem.status(scratch.path + "/link", followingLinks: false)?.kind == .symbolicLink)
        #expect(try FileSystem.status(scratch.path + "/link") == nil)
        #expect(!FileSystem.exists(scratch.path + "/link"))
        #expect(FileSystem.linkTarget(scratch.path + "/link") == "/nonexistent")
    }

    /// A walk sees the entries with their kinds and never opens a link as a directory.
    @Test func theDirectoryStreamDoesNotFollowLinks() throws {
        let scratch = try Scratch()
        try FileSystem.makeDirectory(scratch.path + "/sub", mode: 0o700)
        try AtomicFile.write([1], to: scratch.path + "/file")
        try #require(symlink(scratch.path + "/sub", scratch.path + "/link") == 0)
        let stream = try #require(try DirectoryStream.open(scratch.path))
        var kinds: [String: FileStatus.Kind] = [:]
        while let entry = try stream.next() { kinds[entry.name] = try stream.status(of: entry.name)?.kind }
        #expect(kinds == ["sub": .directory, "file": .regular, "link": .symbolicLink])
        #expect(try stream.opening("sub") != nil)
        #expect(try stream.opening("gone") == nil)
        #expect(throws: SystemError.self) { try stream.opening("link") }
        #expect(try FileSystem.names(in: scratch.path) == ["file", "link", "sub"])
        #expect(try DirectoryStream.open(scratch.path + "/none") == nil)
    }

    @Test func removeTreeTakesTheTreeButNotWhatALinkPointsTo() throws {
        let outside = try Scratch()
        try AtomicFile.write([1], to: outside.path + "/kept")
        let scratch = try Scratch()
        try FileSystem.makeDirectory(scratch.path + "/a/", mode: 0o700)
        try FileSystem.makeDirectory(scratch.path + "/a/b", mode: 0o700)
        try #require(symlink(outside.path, scratch.path + "/a/b/out") == 0)
        try FileSystem.removeTree(scratch.path + "/a")
        #expect(try FileSystem.status(scratch.path + "/a") == nil)
        #expect(FileSystem.exists(outside.path + "/kept"))
    }
}
