import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the kernel may dump a running process, seen from outside it, by root.
///
/// PR_GET_DUMPABLE answers only the process itself; from outside, the flag shows in who owns
/// `/proc/PID`: the kernel gives a process's /proc entries to root while it is not dumpable
/// (proc(5), "/proc/pid": "if the process's dumpable attribute is not 1, ownership is root"), and to
/// its effective user otherwise. So a process run as `nobody` whose /proc entries belong to uid 0
/// has cleared the flag. `Max core file size` in `/proc/PID/limits` is RLIMIT_CORE.
package struct ProcessDumpability: Sendable {
    package static let nobody: UInt32 = 65534
    package static let nogroup: UInt32 = 65534

    /// A wrapper command line that runs a program as `nobody`, with no group of root's, and with
    /// core dumps allowed up to any size: whatever limits the process ends up with, it set itself.
    package static let asNobodyWithCoreDumps = [
        "/usr/bin/prlimit", "--core=unlimited:unlimited", "--",
        "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
    ]

    package let effectiveUserID: UInt32
    package let procOwner: UInt32
    /// The soft and hard RLIMIT_CORE as `/proc/PID/limits` spells them: `0 0`, `unlimited unlimited`.
    package let coreLimit: String
    package let threadNames: [String]

    package init(pid: Int32) throws {
        let directory = "/proc/\(pid)"
        let status = try String(contentsOfFile: directory + "/status", encoding: .utf8)
        // "Uid:\treal\teffective\tsaved\tfilesystem"
        let uids = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(whereSeparator: \.isWhitespace)
        effectiveUserID = uids.flatMap { $0.count > 2 ? UInt32($0[2]) : nil } ?? UInt32.max
        var info = stat()
        procOwner = stat(directory + "/status", &info) == 0 ? info.st_uid : UInt32.max
        let limits = try String(contentsOfFile: directory + "/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        coreLimit = core.map { line in
            line.dropFirst("Max core file size".count).split(whereSeparator: \.isWhitespace).prefix(2).joined(separator: " ")
        } ?? "?"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/task")) ?? []
        threadNames = tasks.compactMap { task in
            (try? String(contentsOfFile: directory + "/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }
}
