import Foundation
import Testing

/// The core module is pure: its rules take time, files and the network as parameters. This reads
/// its sources so that a clock read or an `import Glibc` slipped in fails a test, not a review.
@Suite struct CorePurityTests {
    static let coreDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/ApsioCore")

    static func sources() throws -> [(name: String, text: String)] {
        // The folders too: the module groups its files by concern.
        let names = (FileManager.default.subpaths(atPath: coreDirectory.path) ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        return try names.map { ($0, try String(contentsOf: coreDirectory.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func importsNothingThatDoesIO() throws {
        let allowed: Set<String> = ["Synchronization"]
        let sources = try Self.sources()
        #expect(!sources.isEmpty)
        for (name, text) in sources {
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import") else { continue }
                guard words[..<index].allSatisfy({ ["public", "internal", "package", "@testable"].contains($0) })
                else { continue }
                let module = words.count > index + 1 ? String(words[index + 1]) : ""
                #expect(allowed.contains(module), "\(name) imports \(module)")
            }
        }
    }

    @Test func readsNoClock() throws {
        let forbidden = ["ContinuousClock", "SuspendingClock", "Date()", "Date.now", ".now()", "clock_gettime",
                         "gettimeofday", "time(nil)"]
        for (name, text) in try Self.sources() {
            for word in forbidden {
                #expect(!text.contains(word), "\(name) mentions \(word)")
            }
        }
    }
}
