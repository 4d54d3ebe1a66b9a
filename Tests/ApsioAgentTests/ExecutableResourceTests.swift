import ApsioCore
import ApsioPlatform
import Foundation
import Testing

@testable import ApsioAgent
@testable import ApsioTestSupport

/// LINUX-PROFILE §2: `service.version` and `app.build_id` from the unit's main executable.
@Suite struct ExecutableResourceTests {
    static let base = OTLPResource(serviceName: "com.example.web", serviceVersion: "unknown", appBuildID: "com.example.web@unknown")

    @Test func thePackageVersionAndBuildIDFillWhatTheAppFileLeavesOut() {
        let facts = ExecutableFacts(
            path: "/usr/sbin/web", gnuBuildID: "9f86d081884c7d65",
            package: ExecutableFacts.Package(name: "web", version: "1.4.2-1", installedBytes: nil))
        let resource = ServedApp.resource(Self.base, configured: nil, executable: facts)
        #expect(resource.serviceVersion == "1.4.2-1")
        #expect(resource.appBuildID == "9f86d081884c7d65")
        #expect(ServedApp.resource(Self.base, configured: "2.0", executable: facts).serviceVersion == "2.0", "Version= wins")
    }

    @Test func withoutPackageOrBuildIDTheNamesStandIn() {
        let resource = ServedApp.resource(Self.base, configured: "2.0", executable: ExecutableFacts(path: "/opt/web/web"))
        #expect(resource.serviceVersion == "2.0")
        #expect(resource.appBuildID == "com.example.web@2.0")
        let unknown = ServedApp.resource(Self.base, configured: nil, executable: ExecutableFacts(path: "/opt/web/web"))
        #expect(unknown.appBuildID == "com.example.web@unknown")
    }

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
