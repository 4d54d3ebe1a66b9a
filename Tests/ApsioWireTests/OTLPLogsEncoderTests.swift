import ApsioCore
import ApsioWire
import ApsioJSON
import Testing

/// The encoder's output read back with the strict JSON parser. The protobuf schema's own reading
/// of it is `OTLPProtobufCheckTests`.
@Suite struct OTLPLogsEncoderTests {
    let encoder = OTLPLogsEncoder(hashing: sha256)
    static let install = "4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31"
    static let session = "0b5c2a8e-3f1d-4c1d-9f00-5e6d7c8b9a01"
    static let resource = OTLPResource(
        serviceName: "com.example.nginx", serviceVersion: "1.22.1-9", appBuildID: "3c2f5e",
        facts: ResourceFacts(osName: "Debian GNU/Linux", osVersion: "12", hostName: "edge-7"),
        installationID: install, sessionID: session)

    /// A request written into the memory of a larger one before it holds only its own records.
    @Test func aRequestWrittenIntoAnEarlierOnesMemoryIsTheSameAsAFreshOne() {
        let large = (0..<200).map { IngestRecord(record("request \($0) of a long batch", cursor: "s=abc;i=\($0)"), mark: .unsampled) }
        let small = [IngestRecord(record("one line", cursor: "s=abc;i=999"), mark: .unsampled)]
        let first = encoder.encode(app: Self.resource, runs: [large[...]])
        let capacity = first.capacity
        let reused = encoder.encode(app: Self.resource, runs: [small[...]], reusing: first)
        #expect(reused == encoder.encode(app: Self.resource, runs: [small[...]]))
        // The earlier request's storage, not new memory.
        #expect(reused.capacity == capacity)
    }

    func record(
        _ body: String = "GET /", cursor: String? = "s=abc;i=1", session: String? = OTLPLogsEncoderTests.session,
        attributes: [Attribute] = []
    ) -> LogRecord {
        LogRecord(
            timeUnixNano: 1_764_000_000_123_456_789, severity: JournalSeverity(priority: 6), body: body,
            attributes: attributes, sessionID: session, journalCursor: cursor)
    }

    func decode(_ groups: [OTLPResourceLogs]) throws -> JSONValue {
        try JSONParser().parse(encoder.encode(groups))
    }

    func records(_ json: JSONValue, group: Int = 0) -> [JSONValue] {
        json["resourceLogs"]?.arrayValue?[group]["scopeLogs"]?.arrayValue?[0]["logRecords"]?.arrayValue ?? []
    }

    /// Attributes as key → the value object, e.g. `["stringValue": "x"]`.
    func attributes(_ list: JSONValue?) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for item in list?.arrayValue ?? [] {
            if let key = item["key"]?.stringValue { out[key] = item["value"] }
        }
        return out
    }

    func keys(_ list: JSONValue?) -> [String] {
        (list?.arrayValue ?? []).compactMap { $0["key"]?.stringValue }
    }

    func uid(_ input: String) -> String {
        Hex.lowercase(sha256.sha256(Array(input.utf8)).prefix(16))
    }

    @Test func writesTheOTLPShape() throws {
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [IngestRecord(record(), mark: .sessionRate(0.5))])])
        let group = json["resourceLogs"]?.arrayValue?.first
        #expect(json["resourceLogs"]?.arrayValue?.count == 1)
        #expect(keys(group?["resource"]?["attributes"]) == [
            "service.name", "service.version", "app.build_id", "os.name", "os.version", "app.installation.id",
            "host.name", "session.id",
        ])
        let scope = group?["scopeLogs"]?.arrayValue?.first?["scope"]
        #expect(scope == .object(["name": .string("apsiod"), "version": .string(ApsioVersion.current)]))
        let logRecord = records(json).first
        #expect(logRecord?["timeUnixNano"] == .string("1764000000123456789"))
        #expect(logRecord?["observedTimeUnixNano"] == .string("1764000000123456789"))
        #expect(logRecord?["severityNumber"] == .number(9))
        #expect(logRecord?["severityText"] == .string("INFO"))
        #expect(logRecord?["body"] == .object(["stringValue": .string("GET /")]))
        #expect(logRecord?["traceId"] == nil)
        let attrs = attributes(logRecord?["attributes"])
        #expect(attrs["log.record.uid"] == .object(["stringValue": .string(uid(Self.install + ":s=abc;i=1"))]))
        #expect(attrs["apsio.sampling.session.rate"] == .object(["doubleValue": .number(0.5)]))
        #expect(attrs["session.id"] == nil)  // the Resource says it
    }

    @Test func eachAttributeTypeHasItsMapping() throws {
        let attributesIn: [Attribute] = [
            .string("s", "x"), .int("i", .max), .int("n", -3), .double("d", 1.5), .double("w", 3), .bool("b", false),
            .double("nan", .nan), .double("inf", .infinity), .double("ninf", -.infinity),
        ]
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [IngestRecord(record(attributes: attributesIn), mark: .unsampled)])])
        let attrs = attributes(records(json).first?["attributes"])
        #expect(attrs["s"] == .object(["stringValue": .string("x")]))
        #expect(attrs["i"] == .object(["intValue": .string("9223372036854775807")]))
        #expect(attrs["n"] == .object(["intValue": .string("-3")]))
        #expect(attrs["d"] == .object(["doubleValue": .number(1.5)]))
        #expect(attrs["w"] == .object(["doubleValue": .number(3)]))
        #expect(attrs["b"] == .object(["boolValue": .bool(false)]))
        #expect(attrs["nan"] == .object(["doubleValue": .string("NaN")]))
        #expect(attrs["inf"] == .object(["doubleValue": .string("Infinity")]))
        #expect(attrs["ninf"] == .object(["doubleValue": .string("-Infinity")]))
        #expect(attrs["apsio.sampling.session.rate"] == nil && attrs["apsio.sampling.released"] == nil)
    }

    /// The record's attributes are written with plain stores, apart from the writer; byte for
    /// byte what the writer makes of the same members.
    @Test func attributesAreTheBytesTheWriterWouldMake() {
        let attributesIn: [Attribute] = [
            .string("quote\"d\tkey", "line\u{1}with \"escapes\" and é"), .int("min", .min), .int("n", -3), .int("zero", 0),
            .bool("b", true), .double("d", 0.25), .string("", ""),
        ]
        let request = encoder.encode([OTLPResourceLogs(resource: Self.resource, records: [IngestRecord(record(attributes: attributesIn), mark: .unsampled)])])
        var writer = JSONWriter()
        for attribute in attributesIn {
            writer.beginObject()
            writer.key("key")
            writer.string(attribute.key)
            writer.key("value")
            writer.beginObject()
            switch attribute.value {
            case .string(let text): writer.key("stringValue"); writer.string(text)
            case .int(let number): writer.key("intValue"); writer.string(String(number))
            case .double(let number): writer.key("doubleValue"); writer.double(number)
            case .bool(let flag): writer.key("boolValue"); writer.bool(flag)
            }
            writer.endObject()
            writer.endObject()
        }
        let expected = Array(#""attributes":["#.utf8) + writer.bytes + Array(#",{"key":"log.record.uid""#.utf8)
        #expect(request.firstRange(of: expected) != nil)
    }

    @Test func bodiesAndStringAttributesAreCutAtACharacterBoundary() throws {
        let body = String(repeating: "a", count: 4095) + "é" + String(repeating: "b", count: 900)  // é straddles 4096
        let value = String(repeating: "€", count: 400)  // 1200 bytes; 341 whole euros are 1023
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [IngestRecord(record(body, attributes: [.string("v", value)]), mark: .unsampled)])])
        let logRecord = records(json).first
        #expect(logRecord?["body"]?["stringValue"]?.stringValue == String(repeating: "a", count: 4095))
        #expect(attributes(logRecord?["attributes"])["v"]?["stringValue"]?.stringValue == String(repeating: "€", count: 341))
    }

    @Test func sessionIDIsOnTheRecordOnlyWhenItDiffers() throws {
        let late = "77777777-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [
            IngestRecord(record(), mark: .unsampled), IngestRecord(record(session: late), mark: .unsampled),
        ])])
        #expect(attributes(records(json)[0]["attributes"])["session.id"] == nil)
        #expect(attributes(records(json)[1]["attributes"])["session.id"] == .object(["stringValue": .string(late)]))
    }

    /// A record that describes another instance (2.5) keeps its own `session.id` attribute.
    @Test func aRecordsOwnSessionAttributeIsNotWrittenTwice() throws {
        let other = "88888888-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [
            IngestRecord(record(session: nil, attributes: [.string("session.id", other)]), mark: .unsampled),
        ])])
        #expect(keys(records(json)[0]["attributes"]).filter { $0 == "session.id" }.count == 1)
    }

    @Test func attributesTheEncoderSetsAreNotTakenFromTheRecord() throws {
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [
            IngestRecord(
                record(attributes: [.string("log.record.uid", "forged"), .string("apsio.sampling.released", "live"), .string("k", "v")]),
                mark: .sessionRate(1)),
        ])])
        let list = records(json)[0]["attributes"]
        #expect(keys(list) == ["k", "log.record.uid", "apsio.sampling.session.rate"])
        #expect(attributes(list)["log.record.uid"]?["stringValue"] == .string(uid(Self.install + ":s=abc;i=1")))
    }

    @Test func releasedRecordsSayLive() throws {
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [IngestRecord(record(), mark: .releasedLive)])])
        let attrs = attributes(records(json)[0]["attributes"])
        #expect(attrs["apsio.sampling.released"] == .object(["stringValue": .string("live")]))
        #expect(attrs["apsio.sampling.session.rate"] == nil)
    }

    @Test func theUIDOfAJournalEntryIsItsInstallAndCursor() {
        let uid = encoder.recordUID(record(cursor: "s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7"), namespace: Self.install)
        #expect(uid == self.uid(Self.install + ":s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7"))
        #expect(Hex.isLowercase(uid, length: 32))
    }

    @Test func withoutAnInstallationIDTheUIDUsesTheServiceName() throws {
        var resource = Self.resource
        resource.installationID = nil
        let json = try decode([OTLPResourceLogs(resource: resource, records: [IngestRecord(record(), mark: .unsampled)])])
        let resourceKeys = keys(json["resourceLogs"]?.arrayValue?[0]["resource"]?["attributes"])
        #expect(!resourceKeys.isEmpty && !resourceKeys.contains("app.installation.id"))
        #expect(attributes(records(json)[0]["attributes"])["log.record.uid"]?["stringValue"]
            == .string(uid("com.example.nginx:s=abc;i=1")))
    }

    /// A record that is no journal entry gets the same uid each time it is sent, and another
    /// record another uid.
    @Test func theUIDOfARecordWithoutACursorFollowsItsContent() {
        let diagnostics = record("diagnostics", cursor: nil, attributes: [.string("apsio.live.command.id", "c1")])
        let uid = encoder.recordUID(diagnostics, namespace: Self.install)
        #expect(uid == encoder.recordUID(diagnostics, namespace: Self.install))
        var second = diagnostics
        second.attributes = [.string("apsio.live.command.id", "c2")]
        #expect(uid != encoder.recordUID(second, namespace: Self.install))
        var later = diagnostics
        later.timeUnixNano += 1
        #expect(uid != encoder.recordUID(later, namespace: Self.install))
        #expect(uid != encoder.recordUID(diagnostics, namespace: "other-install"))
        #expect(Hex.isLowercase(uid, length: 32))
    }

    @Test func observedTimeIsTheCallersWhenGiven() throws {
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [
            IngestRecord(record(), mark: .unsampled, observedTimeUnixNano: 1_764_000_001_000_000_000),
        ])])
        #expect(records(json)[0]["observedTimeUnixNano"] == .string("1764000001000000000"))
    }

    @Test func groupsFollowSessionsInTheOrderTheyAppear() {
        let a = "aaaaaaaa-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let b = "bbbbbbbb-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let entries = [record("1", session: b), record("2", session: a), record("3", session: nil), record("4", session: b)]
            .map { IngestRecord($0, mark: .unsampled) }
        let groups = OTLPResourceLogs.grouped(app: Self.resource, records: entries)
        #expect(groups.map(\.resource.sessionID) == [b, a, nil])
        #expect(groups.map { $0.records.map(\.record.body) } == [["1", "4"], ["2"], ["3"]])
        #expect(groups[2].resource.attributes.allSatisfy { $0.key != "session.id" })
    }

    /// The exporter hands over slices of the records it keeps: the request is byte for byte the one
    /// the same records grouped by session make, whatever runs they come in.
    @Test func runsOfRecordsEncodeAsTheirGroupsDo() {
        let a = "aaaaaaaa-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let b = "bbbbbbbb-3f1d-4c1d-9f00-5e6d7c8b9a01"
        let entries = [record("1", session: b), record("2", session: a), record("3", session: nil), record("4", session: b),
                       record("5", session: a), record("6", session: b)]
            .map { IngestRecord($0, mark: .sessionRate(0.5)) }
        let grouped = encoder.encode(OTLPResourceLogs.grouped(app: Self.resource, records: entries))
        let runs = [entries[0..<1], entries[1..<4], entries[4..<4], entries[4..<6]]
        #expect(encoder.encode(app: Self.resource, runs: runs) == grouped)
        let oneSession = entries.filter { $0.record.sessionID == b }
        #expect(encoder.encode(app: Self.resource, runs: [oneSession[0..<2], oneSession[2...]])
            == encoder.encode(OTLPResourceLogs.grouped(app: Self.resource, records: oneSession)))
        #expect(String(decoding: encoder.encode(app: Self.resource, runs: []), as: UTF8.self) == #"{"resourceLogs":[]}"#)
    }

    @Test func emptyGroupsAreLeftOutAndAnEmptyRequestIsValid() throws {
        #expect(String(decoding: encoder.encode([]), as: UTF8.self) == #"{"resourceLogs":[]}"#)
        let json = try decode([OTLPResourceLogs(resource: Self.resource, records: [])])
        #expect(json["resourceLogs"]?.arrayValue?.isEmpty == true)
    }

    /// Records of a unit share one attribute array, whose JSON the encoder writes once: each record
    /// still gets its own uid, session and mark, and the bytes are those of arrays stored apart.
    /// Bodies that need escaping come back as they were, the longest (a cut body of control
    /// characters, six bytes each in JSON) included.
    @Test func bodiesNeedingEscapesReadBackWhole() throws {
        let bodies = [
            "tab\t quote\" backslash\\ nl\n cr\r bell\u{7} del\u{7f} é 😀 \u{1}",
            String(repeating: "\u{1}", count: 4096), "", "\"",
        ]
        let entries = bodies.map { IngestRecord(record($0), mark: .unsampled) }
        let json = try JSONParser().parse(encoder.encode(app: Self.resource, runs: [entries[...]]))
        #expect(records(json).map { $0["body"]?["stringValue"] } == bodies.map { JSONValue.string($0) })
    }

    @Test func recordsSharingAnAttributeArrayAreWrittenAsIfEachHadItsOwn() throws {
        let shared: [Attribute] = [.int("process.pid", 812), .string("syslog.identifier", "nginx \"edge\""), .string("session.id", "x")]
        func entries(sharing: Bool) -> [IngestRecord] {
            (0..<6).map { index in
                // Built element by element, so that each array has storage of its own.
                let attributes = sharing ? shared : shared.map { $0 }
                let session = index == 3 ? "99999999-3f1d-4c1d-9f00-5e6d7c8b9a01" : Self.session
                let mark: SamplingMark = index % 2 == 0 ? .sessionRate(0.5) : .releasedLive
                return IngestRecord(
                    record("line \(index)", cursor: index == 4 ? nil : "s=abc;i=\(index)", session: session,
                        attributes: index == 2 ? [] : attributes),
                    mark: mark)
            }
        }
        let sharedJSON = encoder.encode([OTLPResourceLogs(resource: Self.resource, records: entries(sharing: true))])
        #expect(sharedJSON == encoder.encode([OTLPResourceLogs(resource: Self.resource, records: entries(sharing: false))]))
        let written = records(try JSONParser().parse(sharedJSON))
        #expect(Set(written.compactMap { attributes($0["attributes"])["log.record.uid"]?["stringValue"]?.stringValue }).count == 6)
        #expect(written.map { attributes($0["attributes"])["process.pid"] != nil } == [true, true, false, true, true, true])
        #expect(written.map { keys($0["attributes"]).last } == [
            "apsio.sampling.session.rate", "apsio.sampling.released", "apsio.sampling.session.rate",
            "apsio.sampling.released", "apsio.sampling.session.rate", "apsio.sampling.released",
        ])
    }

    @Test func neverADeviceID() {
        #expect(!Self.resource.attributes.contains { $0.key == "device.id" })
    }
}
