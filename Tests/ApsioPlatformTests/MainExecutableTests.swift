import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// The unit's main executable, whose package and build-id fill `service.version` and `app.build_id`
/// (LINUX-PROFILE §2).
@Suite struct MainExecutableTests {
    @Test func theMainExecutableIsFoundFromTheCommandLineWhenTheLinkCannotBeRead() throws {
        let proc = try TemporaryDirectory()
        try proc.write("4242/cmdline", "/bin/sh\u{0}-c\u{0}sleep 1\u{0}")
        #expect(MainExecutable.path(pid: 4242, roots: SysfsRoots(procfs: proc.path)) == "/bin/sh")
        try proc.write("4243/cmdline", "sh\u{0}-c\u{0}")
        #expect(MainExecutable.path(pid: 4243, roots: SysfsRoots(procfs: proc.path)) == nil, "a relative argv[0] says nothing")
        try proc.write("4244/cmdline", "/nonexistent/web\u{0}")
        #expect(MainExecutable.path(pid: 4244, roots: SysfsRoots(procfs: proc.path)) == nil)
        // The real /proc: this process's own executable, through the link.
        let own = MainExecutable.path(pid: getpid())
        #expect(own == (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
    }
}
