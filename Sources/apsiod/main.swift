import ApsioCore

#if canImport(Glibc)
import Glibc
#endif

// The daemon's entry point. The serving loop arrives with the runtime; until then the binary
// answers the questions packaging and operators ask of it, and refuses anything else plainly.

let usage = """
    Usage: apsiod [OPTIONS]

    Watches the systemd services configured in /etc/apsio/apps.d as Apsio app installs: exports
    their journal to the backend and, when the operator allows it, opens the live channel.

    Options:
      --config-dir DIR     configuration directory (default /etc/apsio)
      --state-dir DIR      state directory (default $STATE_DIRECTORY, else /var/lib/apsio)
      --runtime-dir DIR    runtime directory (default $RUNTIME_DIRECTORY, else /run/apsio)
      --journal-dir DIR    read the journal files in DIR instead of the system journal
      --sysfs DIR          sysfs root (default /sys)
      --procfs DIR         procfs root (default /proc)
      --log-level LEVEL    debug, info, notice, warning or err (default info)
      --help               show this help
      --version            show the version

    """

func writeError(_ text: String) {
    // write(2) rather than fputs(stderr): the C global is shared mutable state to Swift 6.
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(0)
}
if arguments.contains("--version") {
    print("apsiod \(ApsioVersion.current)")
    exit(0)
}
writeError("apsiod: this build cannot serve yet; see 'apsiod --help'")
exit(1)
