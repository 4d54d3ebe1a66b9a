import ApsioCore
import ApsioWire
import ApsioJSON
import Foundation
import Testing

@testable import ApsioTestSupport

/// The encoder's output as the OpenTelemetry protobuf definitions read it: Python's
/// `google.protobuf.json_format.Parse` into `ExportLogsServiceRequest`, refusing unknown fields
/// (`Fixtures/otlp/otlp_check.py`). What an OTLP/HTTP receiver would store is compared, field by
/// field, with what was encoded.
///
/// `OTLPCheck` (ApsioTestSupport) says where the definitions come from; without them this test
/// fails: it is the one check that the wire is OTLP.
@Suite struct OTLPProtobufCheckTests {
    /// Runs the check on `request` and returns its summary, or fails with what went wrong.
    static func check(_ request: [UInt8], _ encoding: OTLPEncoding = .json) async throws -> JSONValue {
        try await OTLPCheck.summary(of: request, encoding: encoding)
    }

    /// The groups as `encoding` writes them.
    static func encoded(_ groups: [OTLPResourceLogs], _ encoding: OTLPEncoding, encoder: OTLPLogsEncoder = OTLPLogsEncoder(hashing: sha256)) -> [UInt8] {
        switch encoding {
        case .json: encoder.encode(groups)
        case .protobuf: encoder.encodeProtobuf(groups)
        }
    }

    // MARK: The request

    static let installA = "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31"
    static let sessionA1 = "0b5c2a8e-3f1d-4c1d-9f00-5e6d7c8b9a01"
    static let sessionA2 = "1c6d3b9f-4a2e-4d2e-8a11-6f7e8d9cab12"
    static let sessionB = "2d7e4caa-5b3f-4e3f-9b22-7a8f9eadbc23"
    static let appA = OTLPResource(
        serviceName: "com.example.nginx", serviceVersion: "1.22.1-9", appBuildID: "3c2f5e8d41",
        facts: ResourceFacts(
            osName: "Debian GNU/Linux", osVersion: "12", osBuildID: "6.1.0-28-amd64", deviceManufacturer: "LENOVO",
            deviceModelIdentifier: "ThinkPad X1 «Carbon»", hostName: "edge-7"),
        installationID: installA)
    static let appB = OTLPResource(
        serviceName: "com.example.worker", serviceVersion: "unknown", appBuildID: "com.example.worker@unknown",
        facts: ResourceFacts(osName: "Debian GNU/Linux", osVersion: "12"), installationID: nil)

    static let longBody = String(repeating: "ログ", count: 833) + "xx"  // 4998 + 2 = 5000 bytes, 3-byte characters

    static func record(
        _ body: String, priority: Int, session: String?, cursor: String?, attributes: [Attribute] = [], time: UInt64
    ) -> LogRecord {
        LogRecord(
            timeUnixNano: time, severity: JournalSeverity(priority: priority), body: body, attributes: attributes,
            sessionID: session, journalCursor: cursor)
    }

    static var groups: [OTLPResourceLogs] {
        let a = [
            IngestRecord(
                record(
                    "GET /index.html 200 — café ☕ 😀", priority: 6, session: sessionA1, cursor: "s=739a;i=1;b=9f;m=1;t=5;x=e",
                    attributes: [
                        .string("systemd.unit", "nginx.service"), .int("_PID", 4242), .int("big", .max), .int("neg", .min),
                        .double("ratio", 0.1), .double("whole", 42), .double("tiny", .leastNonzeroMagnitude), .double("nan", .nan),
                        .double("inf", -.infinity), .bool("ok", true), .string("multi", "ß∂ƒ 日本 🇫🇷"),
                        .string("long", String(repeating: "é", count: 700)),
                    ], time: 1_764_000_000_123_456_789),
                mark: .sessionRate(0.25), observedTimeUnixNano: 1_764_000_000_200_000_000),
            IngestRecord(
                record(longBody, priority: 3, session: sessionA1, cursor: "s=739a;i=2;b=9f;m=2;t=6;x=f", time: 1_764_000_000_300_000_000),
                mark: .sessionRate(0.25)),
            IngestRecord(
                record("debug while raised", priority: 7, session: sessionA2, cursor: "s=739a;i=3;b=9f;m=3;t=7;x=a",
                       time: 1_764_000_001_000_000_000),
                mark: .releasedLive),
        ]
        let b = [
            IngestRecord(
                record("diagnostics", priority: 6, session: sessionB, cursor: nil,
                       attributes: [.string("apsio.live.command.id", "cmd-1"), .int("apsio.queue.records", 12)],
                       time: 1_764_000_002_000_000_000),
                mark: .unsampled),
            IngestRecord(record("no session", priority: 0, session: nil, cursor: "s=11;i=9", time: 1), mark: .unsampled),
        ]
        // A group whose Resource names session A1 but holds a late line of A2 (2.4: on the record).
        let lateLine = OTLPResourceLogs(
            resource: { var r = appA; r.sessionID = sessionA1; return r }(),
            records: [IngestRecord(record("late", priority: 4, session: sessionA2, cursor: "s=739a;i=4", time: 2), mark: .sessionRate(1))])
        return OTLPResourceLogs.grouped(app: appA, records: a) + OTLPResourceLogs.grouped(app: appB, records: b) + [lateLine]
    }

    // MARK: What a receiver must read

    /// `[key, type, text]` as the check prints them.
    static func expected(_ attribute: Attribute) -> [String] {
        switch attribute.value {
        case .string(let text): [attribute.key, "string", UTF8Cut.cutAttribute(text)]
        case .int(let number): [attribute.key, "int", String(number)]
        case .double(let number): [attribute.key, "double", number.isNaN ? "nan" : String(number)]
        case .bool(let flag): [attribute.key, "bool", flag ? "true" : "false"]
        }
    }

    static func uid(_ namespace: String, _ cursor: String) -> String {
        Hex.lowercase(sha256.sha256(Array("\(namespace):\(cursor)".utf8)).prefix(16))
    }

    static func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// Doubles compared by value, as Python's repr and Swift's description may spell one differently.
    static func sameAttribute(_ got: [String], _ want: [String]) -> Bool {
        guard got.count == 3, want.count == 3, got[0] == want[0], got[1] == want[1] else { return false }
        guard want[1] == "double" else { return got[2] == want[2] }
        guard let a = Double(got[2]), let b = Double(want[2]) else { return false }
        return (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
    }

    @Test(arguments: OTLPEncoding.allCases)
    func aReceiverReadsExactlyWhatWasEncoded(encoding: OTLPEncoding) async throws {
        let encoder = OTLPLogsEncoder(hashing: sha256)
        let groups = Self.groups
        let summary = try await Self.check(Self.encoded(groups, encoding, encoder: encoder), encoding)
        let resourceLogs = summary["resourceLogs"]?.arrayValue ?? []
        #expect(groups.count == 5)  // A1, A2, B, B without a session, and the late line
        #expect(resourceLogs.count == groups.count)

        for (group, got) in zip(groups, resourceLogs) {
            let gotResource = got["resource"]?.arrayValue?.map(Self.strings) ?? []
            #expect(gotResource == group.resource.attributes.map(Self.expected))
            let scopes = got["scopes"]?.arrayValue ?? []
            #expect(scopes.count == 1)
            #expect(scopes.first?["name"] == .string("apsiod"))
            #expect(scopes.first?["version"] == .string(ApsioVersion.current))
            let gotRecords = scopes.first?["records"]?.arrayValue ?? []
            #expect(gotRecords.count == group.records.count)
            for (entry, gotRecord) in zip(group.records, gotRecords) {
                let record = entry.record
                #expect(gotRecord["time"] == .string(String(record.timeUnixNano)))
                #expect(gotRecord["observed"] == .string(String(entry.observedTimeUnixNano ?? record.timeUnixNano)))
                #expect(gotRecord["severityNumber"] == .number(Double(record.severityNumber)))
                #expect(gotRecord["severityText"] == .string(record.severityText))
                #expect(Self.strings(gotRecord["body"]) == ["string", UTF8Cut.cutBody(record.body)])
                #expect(gotRecord["traceIdBytes"] == .number(0))

                var want = record.attributes.map(Self.expected)
                if let session = record.sessionID, session != group.resource.sessionID {
                    want.append(["session.id", "string", session])
                }
                let namespace = group.resource.installationID ?? group.resource.serviceName
                want.append(["log.record.uid", "string", encoder.recordUID(record, namespace: namespace)])
                if let mark = entry.mark.attribute { want.append(Self.expected(mark)) }
                let gotAttributes = gotRecord["attributes"]?.arrayValue?.map(Self.strings) ?? []
                #expect(gotAttributes.count == want.count)
                for (g, w) in zip(gotAttributes, want) {
                    #expect(Self.sameAttribute(g, w), "\(g) is not \(w)")
                }
            }
        }
    }

    /// The values that are easiest to get wrong, spelled out rather than derived.
    @Test(arguments: OTLPEncoding.allCases)
    func theTrickyValuesSurviveTheSchema(encoding: OTLPEncoding) async throws {
        let summary = try await Self.check(Self.encoded(Self.groups, encoding), encoding)
        let groups = summary["resourceLogs"]?.arrayValue ?? []
        let first = groups.first?["scopes"]?.arrayValue?.first?["records"]?.arrayValue ?? []
        #expect(first.count == 2)
        let attributes = first.first?["attributes"]?.arrayValue?.map(Self.strings) ?? []
        #expect(attributes.contains(["big", "int", "9223372036854775807"]))
        #expect(attributes.contains(["neg", "int", "-9223372036854775808"]))
        #expect(attributes.contains(["nan", "double", "nan"]))
        #expect(attributes.contains(["inf", "double", "-inf"]))
        #expect(attributes.contains(["multi", "string", "ß∂ƒ 日本 🇫🇷"]))
        #expect(attributes.contains(["long", "string", String(repeating: "é", count: 512)]))
        #expect(attributes.contains(["log.record.uid", "string", Self.uid(Self.installA, "s=739a;i=1;b=9f;m=1;t=5;x=e")]))
        #expect(attributes.contains(["apsio.sampling.session.rate", "double", "0.25"]))
        #expect(first.first?["time"] == .string("1764000000123456789"))
        #expect(first.first?["observed"] == .string("1764000000200000000"))

        // The 5000-byte body arrives cut to 4096 bytes at a character boundary: 1365 whole
        // three-byte characters, 4095 bytes.
        let body = Self.strings(first.last?["body"]).last ?? ""
        #expect(body.utf8.count == 4095)
        #expect(body == String(Self.longBody.prefix(1365)))
        #expect(first.last?["severityNumber"] == .number(17))

        // The late line names its own session; the Resource names the other.
        let late = groups.last
        #expect(late?["resource"]?.arrayValue?.map(Self.strings).last == ["session.id", "string", Self.sessionA1])
        let lateAttributes = late?["scopes"]?.arrayValue?.first?["records"]?.arrayValue?.first?["attributes"]?.arrayValue?
            .map(Self.strings) ?? []
        #expect(lateAttributes.first == ["session.id", "string", Self.sessionA2])

        // App B turned the installation id off: no such attribute, and uids hashed with its name.
        let noSession = groups[3]
        #expect(!(noSession["resource"]?.arrayValue?.map(Self.strings).contains { $0.first == "app.installation.id" } ?? true))
        #expect(!(noSession["resource"]?.arrayValue?.map(Self.strings).contains { $0.first == "session.id" } ?? true))
        let uid = noSession["scopes"]?.arrayValue?.first?["records"]?.arrayValue?.first?["attributes"]?.arrayValue?
            .map(Self.strings).first { $0.first == "log.record.uid" }
        #expect(uid == ["log.record.uid", "string", Self.uid("com.example.worker", "s=11;i=9")])
    }

    /// The check itself refuses what is not OTLP, so the tests above cannot pass by accident.
    @Test func theCheckRefusesAnUnknownField() async throws {
        let bad = Array(#"{"resourceLogs":[{"resource":{"attributes":[]},"scopeLogs":[],"sessionId":"x"}]}"#.utf8)
        do {
            _ = try await Self.check(bad)
            Issue.record("an unknown field was accepted")
        } catch let failure as OTLPCheck.Failure {
            #expect(failure.description.contains("exited 2"), "\(failure)")
            #expect(failure.description.contains("sessionId"), "\(failure)")
        }
    }

    @Test func theCheckRefusesAnIntegerWhereTheSchemaWantsAString() async throws {
        let bad = Array(#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"intValue":"x"}}]}]}]}"#.utf8)
        await #expect(throws: OTLPCheck.Failure.self) { _ = try await Self.check(bad) }
    }

    /// A field the schema does not have, deep in a binary request, or bytes that are not a message.
    @Test(arguments: [
        [0x0a, 0x03, 0xf8, 0x06, 0x01],  // resourceLogs[0] holding field 111
        [0x08, 0x01],  // resourceLogs as a varint
        [0x0a, 0x05, 0x12],  // a length past the end
    ] as [[UInt8]])
    func theCheckRefusesABinaryRequestTheSchemaDoesNotRead(bad: [UInt8]) async throws {
        do {
            _ = try await Self.check(bad, .protobuf)
            Issue.record("\(bad) was read as a request")
        } catch let failure as OTLPCheck.Failure {
            #expect(failure.description.contains("exited 2: not an ExportLogsServiceRequest"), "\(failure)")
        }
    }

    /// A receiver stores the same thing whichever encoding it was sent, grouped by the caller or
    /// by session from the exporter's runs.
    @Test func bothEncodingsCarryTheSameRequest() async throws {
        let encoder = OTLPLogsEncoder(hashing: sha256)
        let json = try await Self.check(encoder.encode(Self.groups), .json)
        let protobuf = try await Self.check(encoder.encodeProtobuf(Self.groups), .protobuf)
        #expect(json == protobuf)
        #expect(json["resourceLogs"]?.arrayValue?.count == 5)

        // Two runs, three sessions interleaved, as the exporter hands a batch over.
        let records = Self.groups.flatMap(\.records)
        let runs = [records[0..<3], records[3...]]
        let fromRuns = try await Self.check(encoder.encode(app: Self.appA, runs: runs), .json)
        let fromRunsBinary = try await Self.check(encoder.encodeProtobuf(app: Self.appA, runs: runs), .protobuf)
        #expect(fromRuns == fromRunsBinary)
        #expect(fromRuns["resourceLogs"]?.arrayValue?.count == 4)
    }
}
