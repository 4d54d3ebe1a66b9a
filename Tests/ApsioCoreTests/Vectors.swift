import ApsioCore
import ApsioNet
import Foundation
import Testing

/// The spec's vectors, copied unchanged from the shared set into `Fixtures/vectors`.
enum Vectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vectors")

    /// Every file a test in this target runs; `VectorFileTests` checks that none is left out.
    static let filesRun: Set<String> = [
        "body-cut.json", "journal-severity.json", "live-interval.json", "live-open.json",
        "live-origin.json", "live-stop.json", "live-tester-check.json", "live-tester.json",
        "live-token.json",
    ]

    struct File<Case: Decodable & Sendable>: Decodable, Sendable {
        let cases: [Case]
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Test arguments cannot throw, so a file that fails to load yields no cases here and
    /// `VectorFileTests` reports the failure instead.
    static func cases<Case: Decodable & Sendable>(_ name: String, as type: Case.Type = Case.self) -> [Case] {
        (try? JSONDecoder().decode(File<Case>.self, from: data(name)).cases) ?? []
    }

    static func decode<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: data(name))
    }
}

/// OpenSSL's SHA-256, the one the daemon uses.
let sha256 = OpenSSLSHA256()
