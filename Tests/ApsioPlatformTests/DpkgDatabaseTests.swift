import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct DpkgDatabaseTests {
    /// The database and the directory it reads, which lives as long as the value.
    struct Fixture {
        let root: TemporaryDirectory
        let dpkg: DpkgDatabase
    }

    func fixture() throws -> Fixture {
        let root = try TemporaryDirectory("dpkg")
        try root.write(
            "status",
            """
            Package: nginx-core
            Status: install ok installed
            Priority: optional
            Installed-Size: 1234
            Architecture: amd64
            Version: 1.22.1-9
            Description: nginx web/proxy server (standard version)
             nginx ("engine X") is a high-performance web and reverse proxy server
             .
             Package: not-a-field

            Package: libshop1
            Status: install ok installed
            Multi-Arch: same
            Architecture: amd64
            Version: 2.0-1
            Installed-Size: 10

            Package: oldshop
            Status: deinstall ok config-files
            Architecture: all
            Version: 0.9

            """)
        try root.write("info/nginx-core.list", "/.\n/usr\n/usr/sbin\n/usr/sbin/nginx\n")
        try root.write("info/nginx-core.md5sums", "abc  usr/sbin/nginx\n")
        try root.write("info/libshop1:amd64.list", "/usr/lib/x86_64-linux-gnu/libshop.so.1\n")
        try root.write("info/oldshop.list", "/usr/bin/oldshop\n")
        try root.write("info/shopd.list", "/bin/shopd\n")
        return Fixture(root: root, dpkg: DpkgDatabase(root: root.path))
    }

    @Test func theOwnerAndItsVersionAndSize() throws {
        let fixture = try fixture()
        defer { withExtendedLifetime(fixture) {} }
        let dpkg = fixture.dpkg
        #expect(dpkg.owner(of: "/usr/sbin/nginx") == "nginx-core")
        #expect(dpkg.package(owning: "/usr/sbin/nginx") == ExecutableFacts.Package(
            name: "nginx-core", version: "1.22.1-9", installedBytes: 1234 * 1024))
    }

    @Test func multiArchPackagesAreKeyedWithTheirArchitecture() throws {
        let fixture = try fixture()
        defer { withExtendedLifetime(fixture) {} }
        let dpkg = fixture.dpkg
        #expect(dpkg.package(owning: "/usr/lib/x86_64-linux-gnu/libshop.so.1")?.name == "libshop1:amd64")
    }

    @Test func aRemovedPackageOwnsNothingInstalled() throws {
        let fixture = try fixture()
        defer { withExtendedLifetime(fixture) {} }
        let dpkg = fixture.dpkg
        #expect(dpkg.owner(of: "/usr/bin/oldshop") == "oldshop")
        #expect(dpkg.package(owning: "/usr/bin/oldshop") == nil)
        #expect(dpkg.package(owning: "/usr/bin/unknown") == nil)
    }

    @Test func aMergedUsrPathFindsAPackageThatListsBin() throws {
        let fixture = try fixture()
        defer { withExtendedLifetime(fixture) {} }
        let dpkg = fixture.dpkg
        #expect(dpkg.owner(of: "/usr/bin/shopd") == "shopd")
    }

    @Test func theAnswerIsKeptOnceFound() throws {
        let fixture = try fixture()
        defer { withExtendedLifetime(fixture) {} }
        let (root, dpkg) = (fixture.root, fixture.dpkg)
        #expect(dpkg.owner(of: "/usr/sbin/nginx") == "nginx-core")
        try FileManager.default.removeItem(atPath: root.path + "/info/nginx-core.list")
        #expect(dpkg.owner(of: "/usr/sbin/nginx") == "nginx-core")
    }

    @Test func theRealDatabaseAgreesWithDpkgQuery() throws {
        let dpkg = DpkgDatabase()
        let package = try #require(dpkg.package(owning: "/usr/bin/ls"))
        #expect(package.name == "coreutils")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-query")
        process.arguments = ["-W", "-f=${Version} ${Installed-Size}", "coreutils"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let parts = output.split(separator: " ")
        #expect(package.version == String(parts[0]))
        #expect(package.installedBytes == Int64(parts[1]).map { $0 * 1024 })
    }
}
