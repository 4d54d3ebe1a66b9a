import ApsioCore

#if canImport(Glibc)
import Glibc
#endif

// The operator's command. Each command arrives with the control socket; until then the binary
// answers --help and --version and says plainly that a command is not in this build.

let usage = """
    Usage: apsioctl [--runtime-dir DIR] [--state-dir DIR] [--config-dir DIR] [--json] COMMAND ...

    Commands:
      status [APP...]              who is watching, and what each app is doing
      watch [APP...]               stream every change and command notice
      apps                         list configured apps with their installation ids
      allow-live on|off [APP...]   allow or forbid live inspection on this machine
      consent grant|deny [APP...]  grant or withdraw consent
      data-saver on|off            hold uploads and live traffic on paid links
      reload                       re-read configuration and fetch the policy again
      version                      show the version

    Options:
      --help                       show this help
      --version                    show the version

    Exit codes: 0 done, 1 refused or failed, 2 bad command line, 3 the daemon is not running.

    """

func writeError(_ text: String) {
    // write(2) rather than fputs(stderr): the C global is shared mutable state to Swift 6.
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty {
    writeError("apsioctl: no command given; see 'apsioctl --help'")
    exit(2)
}
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(0)
}
if arguments.contains("--version") || arguments.first == "version" {
    print("apsioctl \(ApsioVersion.current)")
    exit(0)
}
writeError("apsioctl: '\(arguments[0])' is not available in this build; see 'apsioctl --help'")
exit(1)
