import ApsioNet
import Foundation
import Testing

@Suite struct GzipTests {
    @Test(arguments: [0, 1, 100, 65_536, 300_000])
    func roundTrip(size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        // Half random, half repetitive: both paths of deflate.
        let input = (0..<size).map { i in i % 2 == 0 ? UInt8.random(in: 0...255, using: &generator) : 0x41 }
        let packed = try Gzip.compress(input)
        #expect(packed.starts(with: [0x1f, 0x8b]))
        #expect(try Gzip.decompress(packed, maxOutput: size) == input)
    }

    /// What the `gzip` command writes is what a collector or a peer may send us.
    @Test func readsTheGzipCommandsOutput() throws {
        let text = String(repeating: "{\"resourceLogs\":[]}\n", count: 500)
        let packed = try runGzip(Array(text.utf8))
        #expect(try Gzip.decompress(packed, maxOutput: 1 << 20) == Array(text.utf8))
    }

    @Test func truncatedStreamIsTyped() throws {
        let packed = try Gzip.compress(Array(String(repeating: "line of log\n", count: 1000).utf8))
        for cut in [1, 10, packed.count / 2, packed.count - 1] {
            #expect(throws: GzipError.truncated) { try Gzip.decompress(Array(packed.prefix(cut)), maxOutput: 1 << 20) }
        }
        #expect(throws: GzipError.truncated) { try Gzip.decompress([], maxOutput: 1 << 20) }
    }

    /// A gzip bomb: 10 MiB of zeros packs into about 10 KiB; the cap stops it.
    @Test func bombStopsAtTheLimit() throws {
        let packed = try Gzip.compress([UInt8](repeating: 0, count: 10 << 20))
        #expect(packed.count < 64 * 1024)
        #expect(throws: GzipError.tooLarge(limit: 1 << 20)) { try Gzip.decompress(packed, maxOutput: 1 << 20) }
        // At the limit exactly it passes; one byte under, it does not.
        #expect(try Gzip.decompress(packed, maxOutput: 10 << 20).count == 10 << 20)
        #expect(throws: GzipError.tooLarge(limit: (10 << 20) - 1)) {
            try Gzip.decompress(packed, maxOutput: (10 << 20) - 1)
        }
    }

    @Test func corruptAndTrailingDataAreTyped() throws {
        var packed = try Gzip.compress(Array("hello hello hello".utf8))
        let good = packed
        packed[packed.count - 6] ^= 0xff  // the CRC32 of the trailer
        #expect {
            try Gzip.decompress(packed, maxOutput: 1024)
        } throws: { error in
            if case .corrupt = error as? GzipError { return true }
            return false
        }
        #expect(throws: GzipError.trailingData) { try Gzip.decompress(good + [0x00], maxOutput: 1024) }
        #expect {
            try Gzip.decompress(Array("not gzip at all".utf8), maxOutput: 1024)
        } throws: { error in
            if case .corrupt = error as? GzipError { return true }
            return false
        }
    }

    private func runGzip(_ input: [UInt8]) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("body")
        try Data(input).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-9", file.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(try Data(contentsOf: dir.appendingPathComponent("body.gz")))
    }
}
