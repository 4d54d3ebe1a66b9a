#if canImport(Glibc)
import Glibc
#endif
import ApsioCtl

// The operator's command: LINUX-PROFILE §R, docs/control.md. Everything but the process itself
// is in ApsioCtl, where the tests run it.
let code = await Apsioctl.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: .thisProcess())
exit(code.rawValue)
