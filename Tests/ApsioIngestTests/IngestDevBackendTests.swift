import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioPOSIX
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing
import ApsioIngest
import ApsioState

/// The exporter against the development backend's `/v1/logs` over loopback HTTP: what arrives is
/// OTLP as the OpenTelemetry protobuf definitions read it, under the app's Resource, with the
/// severities of the spec's vectors, bodies cut at 4096 bytes, secrets redacted, and the app key in
/// no log line and no state file.
@Suite(.serialized) struct IngestDevBackendTests {
    struct SeverityCase: Decodable {
        let priority: Int?
        var label: String { "priority \(priority.map(String.init) ?? "absent")" }
        let severity: Int
        let family: String
    }

    struct BodyCutCase: Decodable {
        let why: String
        let body: String
        let result: String
    }

    struct Vectors<Case: Decodable>: Decodable { let cases: [Case] }

    static func vectors<Case: Decodable>(_ name: String, as: Case.Type) throws -> [Case] {
        try JSONDecoder().decode(Vectors<Case>.self, from: Data(contentsOf: IngestFixture.coreFixture("vectors/" + name))).cases
    }

    static func backend() throws -> BackendServer {
        let configuration = BackendConfiguration(
            listenHost: "127.0.0.1", listenPort: 0,
            hub: HubConfiguration(
                origin: LiveOrigin("http://127.0.0.1:8787")!, apps: [HubApp(name: "demo", appKey: IngestFixture.appKey)]),
            development: true)
        return try BackendServer(configuration: configuration, accounts: AccountsFile(accounts: []))
    }

    @Test func recordsReachTheDevelopmentBackendAsOTLP() async throws {
        let severities = try Self.vectors("journal-severity.json", as: SeverityCase.self)
        let cuts = try Self.vectors("body-cut.json", as: BodyCutCase.self)
        let journal = try JournalFixture()
        let state = try TemporaryDirectory("apsio-ingest-state")
        let backend = try Self.backend()
        let port = try await backend.start()
        let log = LogLines()
        let clock = ManualAgentClock()
        do {
            var entries = severities.map {
                journal.entry(unit: IngestFixture.unit, message: $0.label, priority: $0.priority)
            }
            entries += cuts.map { journal.entry(unit: IngestFixture.unit, message: $0.body) }
            entries.append(journal.entry(unit: IngestFixture.unit, message: "GET /login Authorization: Bearer abcdefgh12345678"))
            entries.append(journal.entry(unit: IngestFixture.unit, message: "paid with card=4111 1111 1111 1111"))
            entries.append(journal.entry(unit: "other.service", message: "not this app's"))
            try await journal.write(entries)

            let endpoint = try HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)")
            let reader = try await IngestFixture.reader(journal)
            let exporter = try AppExporter(
                configuration: try IngestFixture.configuration(journal: journal), journal: reader, state: StateLayout(root: state.path),
                clock: clock,
                transport: HTTPIngestTransport(client: try HTTPClient(), backend: endpoint, appKey: AppKey(IngestFixture.appKey)),
                hashing: OpenSSLSHA256(), log: log.logger())
            await exporter.consent(granted: true)
            await exporter.policyChanged(Policy(capture: CapturePolicy(logsMinSeverity: 1)))
            try await exporter.start()
            let expected = severities.count + cuts.count + 2
            try await until("\(expected) records queued", on: [exporter, clock]) { await exporter.status.queuedRecords == expected }
            clock.advance(by: .seconds(5))
            try await until("the batch accepted", on: [exporter, clock]) { await exporter.status.sentRecords == expected }
            await exporter.stop()
            await reader.stop()

            let requests = await backend.service.ingested().requests
            #expect(requests.allSatisfy { $0.app == "demo" })
            var sent: [SentRecord] = []
            for request in requests {
                // The definitions themselves read every request: a field they lack fails here.
                let summary = try await ProtobufCheck.run(request.json)
                let parsed = try JSONParser(maxBytes: 16 << 20).parse(request.json)
                let records = SentRecord.all(in: parsed)
                let groups: [JSONValue] = summary["resourceLogs"]?.arrayValue ?? []
                let scopes: [JSONValue] = groups.flatMap { $0["scopes"]?.arrayValue ?? [] }
                let parsedCount = scopes.reduce(0) { $0 + ($1["records"]?.arrayValue?.count ?? 0) }
                #expect(parsedCount == records.count)
                sent += records
            }
            #expect(sent.count == expected)

            // The Resource of §2 and the session of the journal entries, on every record.
            let resource = try #require(sent.first?.resource)
            #expect(resource["service.name"] == "com.example.demo")
            #expect(resource["service.version"] == "2.4.1-1")
            #expect(resource["app.build_id"] == "3c2f5e8d41aa")
            #expect(resource["os.name"] == "Debian GNU/Linux" && resource["os.version"] == "12")
            #expect(resource["device.model.identifier"] == "21HM")
            #expect(resource["app.installation.id"] == IngestFixture.installationID)
            #expect(resource["session.id"] == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
            #expect(resource["device.id"] == nil)
            #expect(sent.allSatisfy { $0.resource == resource })

            // Severities as the vectors say, each record with a 32-hex uid of its own.
            for vector in severities {
                let record = try #require(sent.first { $0.body == vector.label })
                #expect(record.severityNumber == vector.severity, "\(vector.label)")
            }
            let uids = sent.compactMap(\.uid)
            #expect(uids.count == sent.count && Set(uids).count == sent.count)
            #expect(uids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })

            // Bodies cut at 4096 bytes on a character boundary, as the vectors say.
            let bodies = sent.map(\.body)
            for vector in cuts {
                #expect(bodies.contains(vector.result), "\(vector.why)")
            }
            #expect(bodies.allSatisfy { $0.utf8.count <= 4096 })
            // Redacted on the machine: the built-in rules and the app's Redact=.
            #expect(bodies.contains("GET /login Authorization: [REDACTED:authorization-header]"))
            #expect(bodies.contains("paid with [REDACTED]"))
            #expect(!bodies.contains("not this app's"))

            // The app key: in no log line, in no file of the state directory.
            try Self.expectNoSecret(IngestFixture.appKey, in: state, log: log)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// A key the backend does not know: 401, said in a log line that names no key.
    @Test func anUnknownKeyIsReportedWithoutTheKey() async throws {
        let journal = try JournalFixture()
        let state = try TemporaryDirectory("apsio-ingest-state")
        let backend = try Self.backend()
        let port = try await backend.start()
        let log = LogLines()
        let clock = ManualAgentClock()
        let wrongKey = "apsio_app_not_known_3f9e"
        do {
            try await journal.write([journal.entry(unit: IngestFixture.unit, message: "hello")])
            let reader = try await IngestFixture.reader(journal)
            let exporter = try AppExporter(
                configuration: try IngestFixture.configuration(journal: journal), journal: reader, state: StateLayout(root: state.path),
                clock: clock,
                transport: HTTPIngestTransport(
                    client: try HTTPClient(), backend: try HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)"),
                    appKey: AppKey(wrongKey)),
                hashing: OpenSSLSHA256(), log: log.logger())
            await exporter.consent(granted: true)
            await exporter.policyChanged(Policy())
            try await exporter.start()
            try await until("queued", on: [exporter, clock]) { await exporter.status.queuedRecords == 1 }
            clock.advance(by: .seconds(5))
            try await until("the 401", on: [exporter, clock]) { await exporter.status.stopped == .appKeyUnknown }
            await exporter.stop()
            await reader.stop()
            #expect(log.all.contains { $0.contains("401") })
            #expect(await backend.service.ingested().total == 0)
            try Self.expectNoSecret(wrongKey, in: state, log: log)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    static func expectNoSecret(_ secret: String, in state: TemporaryDirectory, log: LogLines) throws {
        #expect(!log.all.contains { $0.contains(secret) })
        let files = try state.files()
        #expect(!files.isEmpty)
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: state.path + "/" + file, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: state.path + "/" + file))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the app key")
        }
    }
}

/// The OTLP wire check, as the core's encoder tests run it.
enum ProtobufCheck {
    static func run(_ request: [UInt8]) async throws -> JSONValue {
        try await OTLPCheck.summary(of: request)
    }
}
