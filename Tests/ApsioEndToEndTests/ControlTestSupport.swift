import ApsioCore
import ApsioJSON
import Foundation
import ApsioTestSupport

/// The apsioctl binary of this build, run as a separate process the way an operator runs it.
enum Apsioctl {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: JSONValue? { try? JSONParser().parse(Array(stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8)) }
    }

    static var binary: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [beside, beside.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("apsioctl")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/apsioctl")
    }

    /// Runs apsioctl with `arguments`; `as user` drops to that user first with setpriv (the test
    /// runs as root), keeping only `groups` as supplementary groups.
    static func run(_ arguments: [String], asUser user: String? = nil, groups: [String] = []) async throws -> Result {
        let output = try TemporaryDirectory("apsioctl-output")
        let stdoutPath = output.path + "/stdout"
        let stderrPath = output.path + "/stderr"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            let groupArgument = groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.joined(separator: ",")]
            process.arguments = ["--reuid=" + user, "--regid=nogroup"] + groupArgument + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        guard let status = try await runToEnd(process, deadline: .seconds(60)) else {
            throw WaitTimedOut(what: "apsioctl \(arguments.joined(separator: " "))")
        }
        return Result(
            status: status, stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }
}
