import ApsioCore
import Testing

@testable import ApsioAgent

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
}
