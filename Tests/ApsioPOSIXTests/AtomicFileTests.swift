import ApsioPOSIX
import Foundation
import Testing

@Suite struct AtomicFileTests {
    func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writesReplacesAndReads() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        #expect(try AtomicFile.read(path) == nil)
        try AtomicFile.write(Array("one".utf8), to: path)
        try AtomicFile.write(Array("two".utf8), to: path)
        #expect(try AtomicFile.read(path) == Array("two".utf8))
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aFileTooLargeIsRefused() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFile.write([UInt8](repeating: 0x41, count: 2048), to: dir + "/big")
        #expect(throws: SystemError.self) { try AtomicFile.read(dir + "/big", maxBytes: 1024) }
    }

    @Test func aMissingDirectoryIsATypedError() {
        #expect(throws: SystemError.self) { try AtomicFile.write([1], to: "/nonexistent-apsio-dir/x") }
    }
}
