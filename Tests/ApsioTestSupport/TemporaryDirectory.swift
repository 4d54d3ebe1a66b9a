package import Foundation

/// A directory of its own for one test, removed when the test is done with it.
package final class TemporaryDirectory: Sendable {
    package let url: URL
    package var path: String { url.path }

    package init(_ label: String = "apsio-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` at `relative`, creating the folders on the way: fixture trees of /sys and /proc.
    @discardableResult
    package func write(_ relative: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Every file and folder under `relative`, sorted: what a test finds a program left behind.
    package func files(under relative: String = "") throws -> [String] {
        let base = relative.isEmpty ? path : path + "/" + relative
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted()
    }

    /// The permission bits of `relative`.
    package func mode(of relative: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + relative)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
