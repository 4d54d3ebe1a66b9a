import ApsioTestSupport
import Foundation
import Glibc
import Testing

/// The fixtures run hundreds of children per test run (systemd-journal-remote, apsioctl, the
/// daemon, servers). Each must give its descriptors back once it ended: thousands held open once
/// crashed the whole run inside Foundation's `Process.run()` (ProcessDeadline.swift).
@Suite struct ChildReleaseTests {
    /// The descriptors of this process open on a file under `directory`; other tests' descriptors
    /// (they run at the same time) are never under it.
    static func descriptors(under directory: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry) else { return nil }
            return target.hasPrefix(directory) ? target : nil
        }
    }

    static func child(_ script: String, output: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = Pipe()
        return process
    }

    @Test func aChildRunToItsEndLeavesNothingOpen() async throws {
        let directory = try TemporaryDirectory("apsio-child-release")
        for run in 0..<20 {
            let output = directory.path + "/out-\(run)"
            let status = try await runToEnd(try Self.child("echo run \(run)", output: output), deadline: .seconds(60))
            #expect(status == 0)
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "run \(run)\n")
        }
        #expect(Self.descriptors(under: directory.path) == [])
    }

    @Test func aChildKilledLeavesNothingOpen() async throws {
        let directory = try TemporaryDirectory("apsio-child-release")
        for run in 0..<5 {
            let process = try Self.child("exec sleep 600", output: directory.path + "/out-\(run)")
            try process.run()
            let pid = process.processIdentifier
            killAndRelease(process)
            #expect(!process.isRunning)
            #expect(kill(pid, 0) == -1, "pid \(pid) is gone")
        }
        #expect(Self.descriptors(under: directory.path) == [])
    }
}
