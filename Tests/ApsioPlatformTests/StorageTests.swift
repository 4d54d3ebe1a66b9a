import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

@Suite struct StorageTests {
    /// What `du -s -x -B1` says the directories take.
    func du(_ paths: [String]) throws -> Int64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/du")
        process.arguments = ["-s", "-x", "-B1", "-c"] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let total = try #require(output.split(separator: "\n").last?.split(separator: "\t").first)
        return try #require(Int64(total))
    }

    func stateTree() throws -> TemporaryDirectory {
        let root = try TemporaryDirectory("storage")
        try root.write("lib/shop/orders.db", String(repeating: "x", count: 100_000))
        try root.write("lib/shop/queue/0001", String(repeating: "y", count: 5000))
        try root.write("lib/shop/queue/deep/er/still/0002", "z")
        try root.write("lib/shop/empty.log", "")
        try root.write("outside/huge.bin", String(repeating: "h", count: 300_000))
        // A hard link is counted once; a symbolic link is not followed out of the directory.
        try FileManager.default.linkItem(atPath: root.path + "/lib/shop/orders.db", toPath: root.path + "/lib/shop/orders.bak")
        try FileManager.default.createSymbolicLink(atPath: root.path + "/lib/shop/big", withDestinationPath: root.path + "/outside/huge.bin")
        try root.write("cache/shop/thumb/1.png", String(repeating: "p", count: 20_000))
        return root
    }

    @Test func stateAndCacheMatchDu() throws {
        let root = try stateTree()
        let reader = StorageReader(stateBase: root.path + "/lib", cacheBase: root.path + "/cache")
        let usage = reader.usage(executable: nil, stateDirectories: ["shop"], cacheDirectories: ["shop"])
        #expect(usage.data == (try du([root.path + "/lib/shop"])))
        #expect(usage.cache == (try du([root.path + "/cache/shop"])))
        #expect(usage.app == nil)
        // Several directories add up, as systemd allows `StateDirectory=a b`.
        #expect(reader.diskUsage([root.path + "/lib/shop", root.path + "/cache/shop"])
                == (try du([root.path + "/lib/shop", root.path + "/cache/shop"])))
    }

    @Test func noDirectoryOrAMissingOneIsAbsent() throws {
        let root = try stateTree()
        let reader = StorageReader(stateBase: root.path + "/lib", cacheBase: root.path + "/cache")
        let usage = reader.usage(executable: nil, stateDirectories: [], cacheDirectories: ["gone"])
        #expect(usage.data == nil)
        #expect(usage.cache == nil)
        #expect(reader.diskUsage([root.path + "/lib/shop", root.path + "/lib/gone"]) == nil)
    }

    @Test func pastTheEntryOrDepthLimitTheSizeIsUnknownNotGuessed() throws {
        let root = try stateTree()
        var limits = ReadLimits()
        limits.maxStorageEntries = 3
        #expect(StorageReader(limits: limits).diskUsage([root.path + "/lib/shop"]) == nil)
        limits = ReadLimits()
        limits.maxStorageDepth = 3
        #expect(StorageReader(limits: limits).diskUsage([root.path + "/lib/shop"]) == nil)
        limits.maxStorageDepth = 5
        #expect(StorageReader(limits: limits).diskUsage([root.path + "/lib/shop"]) != nil)
    }

    @Test func anUnreadableSubdirectoryMakesTheSizeAbsent() throws {
        // Root reads through any mode bits, so only an unprivileged run can see this case.
        guard getuid() != 0 else { return }
        let root = try stateTree()
        let locked = root.path + "/lib/shop/queue"
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
        #expect(StorageReader().diskUsage([root.path + "/lib/shop"]) == nil)
    }

    @Test func appIsThePackagesInstalledSizeElseTheExecutable() {
        let packaged = ExecutableFacts(
            path: "/usr/sbin/nginx", package: .init(name: "nginx-core", version: "1", installedBytes: 1_263_616),
            fileSize: 1_200_000)
        #expect(StorageReader().usage(executable: packaged, stateDirectories: [], cacheDirectories: []).app == 1_263_616)
        let bare = ExecutableFacts(path: "/opt/shop/shopd", fileSize: 48_000)
        #expect(StorageReader().usage(executable: bare, stateDirectories: [], cacheDirectories: []).app == 48_000)
    }

    @Test func executableFactsOfARealBinary() throws {
        let facts = ResourceFactsReader().executable(path: "/usr/bin/ls", dpkg: DpkgDatabase())
        let size = try FileManager.default.attributesOfItem(atPath: "/usr/bin/ls")[.size] as? Int
        #expect(facts.fileSize == size.map(Int64.init))
        #expect(facts.package?.name == "coreutils")
        #expect(facts.gnuBuildID?.count == 40)
        #expect(facts.appBuildID(serviceName: "ls", serviceVersion: facts.serviceVersion) == facts.gnuBuildID)
        let none = ExecutableFacts(path: "/opt/x")
        #expect(none.serviceVersion == "unknown")
        #expect(none.appBuildID(serviceName: "com.example.x", serviceVersion: "unknown") == "com.example.x@unknown")
    }
}
