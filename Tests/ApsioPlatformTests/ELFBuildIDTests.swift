import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct ELFBuildIDTests {
    /// What `readelf -n` prints as the file's build-id.
    func readelfBuildID(_ path: String) throws -> String? {
        let output = try run("/usr/bin/readelf", ["-n", path])
        return output.split(separator: "\n").first { $0.contains("Build ID:") }
            .map { String($0.split(separator: ":").last!).trimmingCharacters(in: .whitespaces) }
    }

    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments) failed")
        return String(decoding: data, as: UTF8.self)
    }

    func compile(_ directory: TemporaryDirectory, _ flags: [String]) throws -> String {
        let source = try directory.write("tiny.c", "int main(void) { return 0; }\n").path
        let output = directory.path + "/tiny-\(flags.joined().filter(\.isLetter))"
        try run("/usr/bin/gcc", flags + ["-o", output, source])
        return output
    }

    @Test func aSystemBinaryMatchesReadelf() throws {
        let expected = try #require(try readelfBuildID("/bin/ls"))
        #expect(try ELFBuildID.read(path: "/bin/ls") == expected)
    }

    @Test(arguments: [["-Wl,--build-id=sha1"], ["-Wl,--build-id=md5"], ["-Wl,--build-id=sha1", "-s"],
                      ["-Wl,--build-id=0x0123456789abcdef", "-static"]])
    func aCompiledBinaryMatchesReadelf(flags: [String]) throws {
        let directory = try TemporaryDirectory("elf")
        let binary = try compile(directory, flags)
        let expected = try #require(try readelfBuildID(binary))
        #expect(try ELFBuildID.read(path: binary) == expected)
    }

    @Test func aBinaryWithoutABuildIDHasNone() throws {
        let directory = try TemporaryDirectory("elf")
        let binary = try compile(directory, ["-Wl,--build-id=none"])
        #expect(try readelfBuildID(binary) == nil)
        #expect(try ELFBuildID.read(path: binary) == nil)
    }

    @Test func aScriptIsNotELF() throws {
        let directory = try TemporaryDirectory("elf")
        let script = try directory.write("run.sh", "#!/bin/sh\nexec true\n").path
        #expect(throws: PlatformFileError.self) { try ELFBuildID.read(path: script) }
        #expect(throws: PlatformFileError.self) { try ELFBuildID.read(path: directory.path + "/missing") }
    }

    @Test func aTruncatedELFFileIsNotACrash() throws {
        let directory = try TemporaryDirectory("elf")
        let binary = try compile(directory, ["-Wl,--build-id=sha1"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: binary))
        for length in [4, 20, 64, 100, 300, 700] {
            let cut = try directory.write("cut\(length)", "").path
            try bytes.prefix(length).write(to: URL(fileURLWithPath: cut))
            _ = try? ELFBuildID.read(path: cut)
        }
    }
}
