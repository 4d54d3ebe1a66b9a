// apsio-backend: the backend of live inspection as operators run it (docs/backend.md). It reads
// /etc/apsio-backend (or --config DIR) and reads it again on SIGHUP; the program is ApsioBackend's
// BackendMain, so that the tests run it in process.
import ApsioBackend
#if canImport(Glibc)
import Glibc
#endif

exit(await BackendMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), program: "apsio-backend",
    defaultConfigDirectory: "/etc/apsio-backend"))
