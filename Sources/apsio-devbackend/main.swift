// apsio-devbackend: the development backend of live inspection (spec 16.4 and 16.7). The same
// program as apsio-backend (ApsioBackend's BackendMain), but it reads no configuration directory
// unless --config names one: the demo, the browser test and a developer's laptop run it on flags.
import ApsioBackend
#if canImport(Glibc)
import Glibc
#endif

exit(await BackendMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), program: "apsio-devbackend", defaultConfigDirectory: nil))
