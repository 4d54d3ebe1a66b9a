import ApsioCore
import ApsioRedaction
import ApsioJSON
import ApsioNet
import ApsioPOSIX
import ApsioPlatform
import Foundation
import Synchronization
@testable import ApsioTestSupport
import Testing
import ApsioIngest
import ApsioWire

/// A backend for ingest that answers from a script (then 200) and keeps every body it accepted.
final class ScriptedIngestSink: IngestTransport {
    struct State {
        var script: [LiveResponse] = []
        var attempts = 0
        var accepted: [JSONValue] = []
        /// Answered 415, whatever the script says (a receiver that reads one encoding only).
        var refused: OTLPEncoding?
        /// Each body's encoding, in order.
        var encodings: [OTLPEncoding] = []
        /// Each body's compression, in order.
        var compressions: [OTLPCompression] = []
        /// zstd bodies are answered with this status (400 or 415), whatever the script says: a
        /// receiver that does not read zstd.
        var refusedZstd: Int?
        /// Said with the next accepted batches, one each: what the receiver did not keep of them.
        var partialSuccesses: [OTLPPartialSuccess] = []
        /// The threads bodies were posted from, by name.
        var threads: Set<String> = []
    }

    let state = Mutex(State())

    func answer(_ responses: [LiveResponse]) { state.withLock { $0.script += responses } }

    var attempts: Int { state.withLock { $0.attempts } }
    var accepted: [JSONValue] { state.withLock { $0.accepted } }
    var threads: Set<String> { state.withLock { $0.threads } }
    var encodings: [OTLPEncoding] { state.withLock { $0.encodings } }
    var compressions: [OTLPCompression] { state.withLock { $0.compressions } }
    func refuseZstd(with status: Int) { state.withLock { $0.refusedZstd = status } }
    func refuse(_ encoding: OTLPEncoding) { state.withLock { $0.refused = encoding } }
    func acceptPartially(_ partials: [OTLPPartialSuccess]) { state.withLock { $0.partialSuccesses += partials } }

    func post(_ body: [UInt8], encoding: OTLPEncoding, compression: OTLPCompression) async throws(CancellationError) -> IngestAnswer {
        let plain = switch compression {
        case .gzip: try? Gzip.decompress(body, maxOutput: 64 << 20)
        case .zstd: try? Zstd.decompress(body, maxOutput: 64 << 20)
        }
        let json = plain.flatMap { try? JSONParser(maxBytes: 64 << 20).parse($0) }
        let thread = currentThreadName()
        return state.withLock { state in
            state.threads.insert(thread)
            state.attempts += 1
            state.encodings.append(encoding)
            state.compressions.append(compression)
            if compression == .zstd, let status = state.refusedZstd { return IngestAnswer(.status(status, body: [], retryAfter: nil)) }
            if state.refused == encoding { return IngestAnswer(.status(415, body: [], retryAfter: nil)) }
            let answer = state.script.isEmpty ? .status(200, body: [], retryAfter: nil) : state.script.removeFirst()
            guard case .status(let code, _, _) = answer, (200..<300).contains(code) else { return IngestAnswer(answer) }
            if let json { state.accepted.append(json) }
            let partial = state.partialSuccesses.isEmpty ? nil : state.partialSuccesses.removeFirst()
            return IngestAnswer(answer, partialSuccess: partial)
        }
    }
}


enum IngestFixture {
    static let installationID = "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31"
    static let unit = "demo.service"
    static let appKey = "apsio_app_ingest_secret_7c1d"

    static let resource = OTLPResource(
        serviceName: "com.example.demo", serviceVersion: "2.4.1-1", appBuildID: "3c2f5e8d41aa",
        facts: ResourceFacts(
            osName: "Debian GNU/Linux", osVersion: "12", osBuildID: "6.1.0-28-amd64", deviceManufacturer: "LENOVO",
            deviceModelIdentifier: "21HM", hostName: "edge-7"),
        installationID: installationID)

    static func configuration(journal: JournalFixture, limits: Limits = .spec) throws -> AppExporterConfiguration {
        AppExporterConfiguration(
            app: try AppName("demo"), unit: unit, firstStart: .oldest,
            resource: resource, redactor: try Redactor(patterns: ["card=[0-9 ]{12,19}"]), limits: limits,
            // The scripted sinks here read the JSON mapping; protobuf is AppExporterTests' own case.
            encoding: .json)
    }

    /// The shared reader an exporter pulls from, as the daemon has it, following the app, started.
    /// The test stops it.
    static func reader(_ journal: JournalFixture) async throws -> JournalHub {
        let hub = try JournalHub(source: .directory(journal.path), apps: [JournalApp(id: "demo", unit: unit, start: .now)])
        await hub.start()
        return hub
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A test fixture of the core's, by name (the spec's vectors, the protobuf check).
    static func coreFixture(_ relative: String) -> URL {
        packageRoot.appendingPathComponent("Tests/ApsioCoreTests/Fixtures/" + relative)
    }
}
