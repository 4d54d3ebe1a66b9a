import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct ResourceFactsTests {
    func reader(_ machine: SysfsFixture) throws -> ResourceFactsReader {
        try machine.file(
            "etc/os-release",
            """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            VERSION="12 (bookworm)"
            ID=debian
            # a comment
            HOME_URL="https://www.debian.org/"

            """)
        return ResourceFactsReader(roots: machine.roots, osReleasePaths: [machine.path + "/etc/os-release"])
    }

    @Test func laptopFromDMI() throws {
        let laptop = try SysfsFixture.laptop()
        let facts = try reader(laptop).machine()
        #expect(facts == ResourceFacts(
            osName: "Debian GNU/Linux", osVersion: "12", osBuildID: "6.1.0-21-amd64", deviceManufacturer: "LENOVO",
            deviceModelIdentifier: "20XW0055GE", hostName: "qa-laptop-7"))
    }

    @Test func nothingThatIdentifiesTheMachineIsRead() throws {
        let laptop = try SysfsFixture.laptop()
        let json = String(decoding: try JSONEncoder().encode(try reader(laptop).machine()), as: UTF8.self)
        for identifier in ["4c4c4544", "PF2XYZ01", "L1HF15X01AB", "0123456789abcdef", "00:00:00", "SN-BATTERY"] {
            #expect(!json.contains(identifier))
        }
        #expect(!json.contains("device.id"))
    }

    @Test func raspberryPiFromTheDeviceTree() throws {
        let pi = try SysfsFixture.raspberryPi()
        let facts = try reader(pi).machine()
        #expect(facts.deviceModelIdentifier == "Raspberry Pi 4 Model B Rev 1.4")  // trailing NUL gone
        #expect(facts.deviceManufacturer == "raspberrypi")
        #expect(facts.osBuildID == "6.6.31+rpt-rpi-v8")
        let json = String(decoding: try JSONEncoder().encode(facts), as: UTF8.self)
        #expect(!json.contains("10000000abcdef01"))
    }

    @Test func unfilledDMIStringsAreNoModel() throws {
        let server = try SysfsFixture.server()
        try server.attribute("sys/class/dmi/id/sys_vendor", "To Be Filled By O.E.M.")
        try server.attribute("sys/class/dmi/id/product_name", "Default string")
        let facts = try reader(server).machine()
        #expect(facts.deviceManufacturer == nil)
        #expect(facts.deviceModelIdentifier == nil)
        #expect(facts.attributes["os.name"] == .string("Debian GNU/Linux"))
        #expect(facts.attributes["device.manufacturer"] == nil)
    }

    @Test func osReleaseQuotingAndTheSecondPlace() throws {
        let machine = try SysfsFixture("osrelease")
        try machine.file("usr/lib/os-release", "NAME='Ubuntu'\nVERSION_ID=\"24.04\"\nVARIANT=\"say \\\"hi\\\" \\$HOME\"\n")
        let reader = ResourceFactsReader(
            roots: machine.roots, osReleasePaths: [machine.path + "/etc/os-release", machine.path + "/usr/lib/os-release"])
        let facts = reader.machine()
        #expect(facts.osName == "Ubuntu")
        #expect(facts.osVersion == "24.04")
    }

    /// A machine whose only os-release is the given text at `/etc/os-release`.
    func machine(osRelease text: String) throws -> ResourceFacts {
        let machine = try SysfsFixture("osrelease")
        try machine.file("etc/os-release", text)
        return ResourceFactsReader(roots: machine.roots, osReleasePaths: [machine.path + "/etc/os-release"]).machine()
    }

    @Test func debianSidHasNoVersionSoTheVersionIsUnknown() throws {
        let facts = try machine(
            osRelease: """
                PRETTY_NAME="Debian GNU/Linux trixie/sid"
                NAME="Debian GNU/Linux"
                VERSION_CODENAME=trixie
                ID=debian
                HOME_URL="https://www.debian.org/"

                """)
        #expect(facts.osName == "Debian GNU/Linux")
        #expect(facts.osVersion == "unknown")
    }

    @Test func archIsVersionedByItsBuildID() throws {
        let facts = try machine(
            osRelease: """
                NAME="Arch Linux"
                PRETTY_NAME="Arch Linux"
                ID=arch
                BUILD_ID=rolling
                ANSI_COLOR="38;2;23;147;209"
                LOGO=archlinux-logo

                """)
        #expect(facts.osName == "Arch Linux")
        #expect(facts.osVersion == "rolling")
    }

    @Test func versionIsTakenBeforeBuildIDWhenThereIsNoVersionID() throws {
        let facts = try machine(osRelease: "NAME=Custom\nVERSION=\"7 (field build)\"\nBUILD_ID=2024-05-01\n")
        #expect(facts.osVersion == "7 (field build)")
    }

    @Test(arguments: ["ID=custom\nVERSION_ID=3.2\n", "NAME=\nVERSION_ID=3.2\n"])
    func aFileWithoutANameIsLinux(osRelease: String) throws {
        let facts = try machine(osRelease: osRelease)
        #expect(facts.osName == "Linux")
        #expect(facts.osVersion == "3.2")
        #expect(facts.attributes["os.name"] == .string("Linux"))
    }

    @Test func withNoOSReleaseAtAllTheOSIsStillNamed() throws {
        let machine = try SysfsFixture("no-osrelease")
        let reader = ResourceFactsReader(
            roots: machine.roots, osReleasePaths: [machine.path + "/etc/os-release", machine.path + "/usr/lib/os-release"])
        let facts = reader.machine()
        #expect(facts.attributes["os.name"] == .string("Linux"))
        #expect(facts.attributes["os.version"] == .string("unknown"))
    }

    @Test func theRealMachine() throws {
        let facts = ResourceFactsReader().machine()
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(facts.osBuildID == release)
        let osRelease = try String(contentsOfFile: "/etc/os-release", encoding: .utf8)
        if let name = facts.osName { #expect(osRelease.contains("NAME=\"\(name)\"") || osRelease.contains("NAME=\(name)")) }
    }
}
