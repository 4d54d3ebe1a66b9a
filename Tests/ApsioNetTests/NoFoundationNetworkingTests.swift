import Foundation
import Testing

/// URLSession follows redirects and keeps cookies and a cache behind the caller's back (spec 16.4
/// forbids all three), so nothing in Sources/ may import FoundationNetworking.
@Suite struct NoFoundationNetworkingTests {
    @Test func sourcesNeverImportFoundationNetworking() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var scanned = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("import") && line.contains("FoundationNetworking") {
                Issue.record("\(file.lastPathComponent) imports FoundationNetworking: \(line)")
            }
        }
        #expect(scanned > 20, "the scan found the sources")
    }
}
