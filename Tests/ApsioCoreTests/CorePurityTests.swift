import Foundation
import Testing

/// The pure modules are pure: the core's rules take time, files and the network as parameters,
/// and JSON is bytes in and out. This reads their sources so that a clock read or an
/// `import Glibc` slipped in fails a test, not a review.
@Suite struct CorePurityTests {
    /// Each pure module and what it may import: the core nothing but Synchronization, the JSON
    /// module nothing, the wire forms the core and the JSON module, redaction the core.
    static let pure: [(module: String, allowed: Set<String>)] = [
        ("ApsioCore", ["Synchronization"]),
        ("ApsioJSON", []),
        ("ApsioWire", ["ApsioCore", "ApsioJSON"]),
        ("ApsioRedaction", ["ApsioCore"]),
    ]

    static func sources(of module: String) throws -> [(name: String, text: String)] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/\(module)")
        // The folders too: the module groups its files by concern.
        let names = (FileManager.default.subpaths(atPath: directory.path) ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        return try names.map { ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test(arguments: pure.map(\.module))
    func importsNothingThatDoesIO(module: String) throws {
        let allowed = Self.pure.first { $0.module == module }?.allowed ?? []
        let sources = try Self.sources(of: module)
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

    @Test(arguments: pure.map(\.module))
    func readsNoClock(module: String) throws {
        let forbidden = ["ContinuousClock", "SuspendingClock", "Date()", "Date.now", ".now()", "clock_gettime",
                         "gettimeofday", "time(nil)"]
        for (name, text) in try Self.sources(of: module) {
            for word in forbidden {
                #expect(!text.contains(word), "\(name) mentions \(word)")
            }
        }
    }
}
