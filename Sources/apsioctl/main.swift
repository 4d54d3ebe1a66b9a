#if canImport(Glibc)
import Glibc
#endif

// The operator's command: LINUX-PROFILE §R, docs/control.md.

let invocation: Invocation
do {
    invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Output.error("\(error.message); see 'apsioctl --help'")
    exit(ExitCode.badCommandLine.rawValue)
}
exit(await Apsioctl(invocation: invocation).run().rawValue)
