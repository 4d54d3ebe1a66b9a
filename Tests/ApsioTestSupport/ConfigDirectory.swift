import Foundation

/// A configuration directory of its own for one test, removed when the test is done with it.
package final class ConfigDirectory: Sendable {
    package let path: String

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("apsio-backend-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/apps.d", withIntermediateDirectories: true)
    }

    package func write(_ relative: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + relative))
    }

    package func remove(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + relative)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
