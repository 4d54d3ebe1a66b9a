import Foundation

/// A directory of its own for one test, removed when the test is done with it.
final class TestDirectory: Sendable {
    let path: String

    init(_ label: String = "apsio-agent") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func files(under relative: String = "") throws -> [String] {
        let base = relative.isEmpty ? path : path + "/" + relative
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted()
    }

    func mode(of relative: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + relative)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
