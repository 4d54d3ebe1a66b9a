import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioNet
import ApsioWire
import Testing

/// The sink reads OTLP/HTTP's binary encoding as well as JSON, and keeps the same request from
/// either: what apsiod's `Encoding=protobuf` sends arrives as its `Encoding=json` would.
@Suite struct OTLPProtobufIngestTests {
    static let resource = OTLPResource(
        serviceName: "com.example.web", serviceVersion: "2.0.1-1", appBuildID: "9a8b7c",
        facts: ResourceFacts(osName: "Debian GNU/Linux", osVersion: "12", hostName: "edge-9"),
        installationID: "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31")

    static let runs: [ArraySlice<IngestRecord>] = {
        let records = [
            IngestRecord(
                LogRecord(
                    timeUnixNano: 1_764_000_000_123_456_789, severity: JournalSeverity(priority: 6), body: "GET / 200 — café ☕",
                    attributes: [
                        .string("systemd.unit", "web.service"), .int("big", .max), .int("neg", .min), .double("nan", .nan),
                        .double("inf", -.infinity), .double("ratio", 0.1), .bool("ok", true),
                    ],
                    sessionID: "0b5c2a8e-3f1d-4c1d-9f00-5e6d7c8b9a01", journalCursor: "s=1;i=1"),
                mark: .sessionRate(0.5), observedTimeUnixNano: 1_764_000_000_200_000_000),
            IngestRecord(
                LogRecord(timeUnixNano: 2, severity: JournalSeverity(priority: 0), body: String(repeating: "é", count: 3000),
                          sessionID: "1c6d3b9f-4a2e-4d2e-8a11-6f7e8d9cab12", journalCursor: "s=1;i=2"),
                mark: .releasedLive),
            IngestRecord(LogRecord(timeUnixNano: 3, severity: JournalSeverity(priority: 3), body: "no session"), mark: .unsampled),
        ]
        return [records[0..<2], records[2...]]
    }()

    static func parse(_ bytes: [UInt8]) throws -> JSONValue { try JSONParser(maxBytes: 1 << 20).parse(bytes) }

    @Test func aBinaryRequestIsKeptAsTheSameRequestInJSON() throws {
        let encoder = OTLPLogsEncoder(hashing: sha256)
        let json = encoder.encode(app: Self.resource, runs: Self.runs)
        let binary = encoder.encodeProtobuf(app: Self.resource, runs: Self.runs)
        #expect(try Self.parse(OTLPProtobufLogs.json(from: binary)) == Self.parse(json))
    }

    /// A peer's bytes: each way of being wrong is a 400's reason, none a trap.
    @Test(arguments: [
        ([0x0a, 0x05, 0x12], "past the end"),  // a length past the end
        ([0x0a], "past the end"),  // a key and nothing after
        ([0x08, 0x01], "not a message"),  // resourceLogs as a varint
        ([0x0a, 0x02, 0x1a, 0x80], "past the end"),  // a schema URL cut in its length
        ([0x0b], "wire type 3"),  // a group, which OTLP never uses
        (Array(repeating: 0xff, count: 10) + [0x01], "ten bytes"),  // an endless varint
        ([0x0a, 0x04, 0x1a, 0x02, 0xc3, 0x28], "not UTF-8"),  // a schema URL of invalid UTF-8
    ] as [([UInt8], String)])
    func anUnreadableRequestSaysWhy(bytes: [UInt8], reason: String) {
        #expect(throws: OTLPProtobufLogs.Unreadable.self) { _ = try OTLPProtobufLogs.json(from: bytes) }
        do {
            _ = try OTLPProtobufLogs.json(from: bytes)
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    /// Arrays of arrays as deep as a peer likes are refused past the bound, not recursed into.
    @Test func valuesNestedTooDeepAreRefused() {
        var value: [UInt8] = [0x0a, 0x01, 0x78]  // AnyValue{string_value: "x"}
        for _ in 0..<(OTLPProtobufLogs.maxDepth + 1) {
            let array: [UInt8] = [0x0a] + Self.length(value.count) + value  // ArrayValue{values: value}
            value = [0x2a] + Self.length(array.count) + array  // AnyValue{array_value: array}
        }
        let record: [UInt8] = [0x2a] + Self.length(value.count) + value  // LogRecord{body: value}
        let scope: [UInt8] = [0x12] + Self.length(record.count) + record
        let resource: [UInt8] = [0x12] + Self.length(scope.count) + scope
        let request: [UInt8] = [0x0a] + Self.length(resource.count) + resource
        #expect(throws: OTLPProtobufLogs.Unreadable.self) { _ = try OTLPProtobufLogs.json(from: request) }
    }

    /// Fields the schema does not have are skipped, as a proto3 reader does.
    @Test func unknownFieldsAreSkipped() throws {
        let json = try Self.parse(OTLPProtobufLogs.json(from: [0xf8, 0x06, 0x01, 0x0a, 0x03, 0xf8, 0x06, 0x01]))
        #expect(json == .object(["resourceLogs": .array([.object(["scopeLogs": .array([])])])]))
    }

    static func length(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var value = count
        while value >= 0x80 {
            out.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
        return out
    }

    /// Over HTTP: each media type read as itself, another refused with 415, a broken binary body 400.
    @Test func theSinkTakesBothEncodingsByTheirMediaType() async throws {
        try await BackendHTTPTests.withBackend { backend, client async throws in
            let encoder = OTLPLogsEncoder(hashing: sha256)
            let key = BackendHTTPTests.appKey
            func post(_ body: [UInt8], type: String) async throws -> Int {
                try await client.send(.postJSON("/v1/logs", json: body, headers: ["Apsio-App-Key": key, "Content-Type": type])).status
            }
            #expect(try await post(encoder.encodeProtobuf(app: Self.resource, runs: Self.runs), type: "application/x-protobuf") == 200)
            #expect(try await post(encoder.encode(app: Self.resource, runs: Self.runs), type: "application/json; charset=utf-8") == 200)
            #expect(try await post([0x0a, 0x05], type: "application/x-protobuf") == 400)
            #expect(try await post(Array("{}".utf8), type: "text/plain") == 415)
            let kept = await backend.service.ingested()
            #expect(kept.total == 2)
            #expect(try Self.parse(kept.requests[0].json) == Self.parse(kept.requests[1].json))
        }
    }

    /// `Compression=zstd`'s bodies: kept as the same request as a gzip one, and a zstd bomb is
    /// refused with 413 under the same bound as a gzip one, before the sink sees it.
    @Test func theSinkReadsZstdBodiesWithinTheSameBound() async throws {
        try await BackendHTTPTests.withBackend { backend, client async throws in
            let encoder = OTLPLogsEncoder(hashing: sha256)
            let request = encoder.encodeProtobuf(app: Self.resource, runs: Self.runs)
            func post(_ body: [UInt8], coding: String) async throws -> Int {
                let headers: HTTPHeaders = [
                    "Apsio-App-Key": BackendHTTPTests.appKey, "Content-Type": "application/x-protobuf", "Content-Encoding": coding,
                ]
                return try await client.send(.postJSON("/v1/logs", json: body, headers: headers, gzip: false)).status
            }
            #expect(try await post(Zstd.compress(request), coding: "zstd") == 200)
            #expect(try await post(Gzip.compress(request), coding: "gzip") == 200)
            let bomb = try Zstd.compress([UInt8](repeating: 0x0a, count: 64 << 20))
            #expect(try await post(bomb, coding: "zstd") == 413)
            #expect(try await post(Gzip.compress([UInt8](repeating: 0x0a, count: 64 << 20)), coding: "gzip") == 413)
            let kept = await backend.service.ingested()
            #expect(kept.total == 2)
            #expect(try Self.parse(kept.requests[0].json) == Self.parse(kept.requests[1].json))
        }
    }
}
