import ApsioCore
import ApsioJSON
import Foundation

/// The one check that the wire is OTLP: `Tests/ApsioWireTests/Fixtures/otlp/otlp_check.py` parses a
/// request with the OpenTelemetry protobuf definitions (Python's `json_format.Parse` into
/// `ExportLogsServiceRequest`, unknown fields refused) and prints back what a receiver would store.
///
/// The definitions come from the `opentelemetry-proto` package in `.build/python-otlp`, which
/// `scripts/install-deps.sh` makes, or from the Python named by `APSIO_OTLP_PYTHON`. Without them a
/// test using this fails rather than passing unchecked.
enum OTLPCheck {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("Tests/ApsioWireTests/Fixtures/otlp/otlp_check.py")

    static var python: String {
        ProcessInfo.processInfo.environment["APSIO_OTLP_PYTHON"]
            ?? packageRoot.appendingPathComponent(".build/python-otlp/bin/python3").path
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The check's summary of `request`, or a failure saying what went wrong.
    static func summary(of request: [UInt8], encoding: OTLPEncoding = .json) async throws -> JSONValue {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: """
                \(python) is missing: run scripts/install-deps.sh, which makes a Python environment with \
                opentelemetry-proto for this test (or set APSIO_OTLP_PYTHON to a python3 that has it)
                """)
        }
        let directory = try TemporaryDirectory("otlp-check")
        let input = directory.url.appendingPathComponent(encoding == .protobuf ? "request.pb" : "request.json")
        let output = directory.url.appendingPathComponent("summary.json")
        let errors = directory.url.appendingPathComponent("stderr.txt")
        try Data(request).write(to: input)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer { try? errorHandle.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path] + (encoding == .protobuf ? ["--protobuf"] : []) + [input.path, output.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorHandle
        guard let status = try await runToEnd(process, deadline: .seconds(120)) else {
            throw Failure(description: "otlp_check.py did not finish within 120 seconds")
        }
        guard status == 0 else {
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "otlp_check.py exited \(status): \(stderr)")
        }
        return try JSONParser(maxBytes: 16 << 20).parse(Array(try Data(contentsOf: output)))
    }
}
