import ApsioControl
import ApsioCore
import ApsioJSON
import ApsioCtl
#if canImport(Glibc)
import Glibc
#endif

/// One run of apsioctl in this process, with its streams in memory: what it exited with and
/// what it wrote.
struct CtlRun {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The first line of stdout, parsed: the answer of a `--json` command.
    var json: JSONValue? { try? JSONParser().parse(Array(stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8)) }

    /// Root as the daemon would see it connect; the tests do not depend on the user running them.
    static let root = ControlPeer(pid: getpid(), uid: 0, gid: 0)
    /// A user outside the admin group who does not own the state.
    static let nobody = ControlPeer(pid: getpid(), uid: 65534, gid: 65534)

    /// Runs apsioctl with `arguments` (no program name) as `caller`, on `clock`.
    static func run(
        _ arguments: [String], caller: ControlPeer = root, clock: any CtlClock = FixedCtlClock(),
        output: CapturedOutput = CapturedOutput()
    ) async -> CtlRun {
        let code = await Apsioctl.main(
            arguments: arguments, environment: CtlEnvironment(output: output, caller: caller, clock: clock))
        return CtlRun(status: code.rawValue, stdout: output.stdout, stderr: output.stderr)
    }
}
