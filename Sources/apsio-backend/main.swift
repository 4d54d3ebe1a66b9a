// apsio-backend: the backend of live inspection as operators run it (docs/backend.md). It reads
// /etc/apsio-backend (or --config DIR) and reads it again on SIGHUP; the program is ApsioBackend's
// BackendMain, so that the tests run it in process.
import ApsioBackend
import ApsioPOSIX
#if canImport(Glibc)
import Glibc
#endif

// App keys, device tokens and viewers' sessions live in this process's memory only: before any of
// them is read, keep them out of core files and out of reach of other processes of the same user.
// Here and not in BackendMain, which the tests also run inside their own process.
do {
    try ProcessHardening.disableCoreDumps()
} catch {
    StandardStream.error.write("apsio-backend: core dumps cannot be turned off (\(error)): a crash may write what it holds in memory to disk\n")
}

exit(await BackendMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), program: "apsio-backend",
    defaultConfigDirectory: "/etc/apsio-backend"))
