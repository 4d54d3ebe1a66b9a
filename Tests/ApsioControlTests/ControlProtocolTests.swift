import ApsioCore
import ApsioControl
import ApsioJSON
import Testing

@Suite struct ControlProtocolTests {
    static let requests: [ControlRequest] = [
        .status(apps: []), .status(apps: ["nginx", "api"]), .watch(apps: []), .watch(apps: ["nginx"]), .apps,
        .allowLive(true, apps: []), .allowLive(false, apps: ["nginx"]), .consent(.grant, apps: ["a.b-c_d"]),
        .consent(.deny, apps: []), .dataSaver(true), .dataSaver(false), .reload, .version,
    ]

    @Test(arguments: requests)
    func everyRequestReadsBackAsWritten(_ request: ControlRequest) throws {
        let line = request.line
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A))
        #expect(try ControlRequest.parse(Array(line.dropLast())) == request)
    }

    @Test func onlySettingsAndReloadNeedTheRightToChange() {
        let changing = Self.requests.filter(\.changesSettings).map(\.command)
        #expect(Set(changing) == ["allow-live", "consent", "data-saver", "reload"])
    }

    @Test(arguments: [
        ("", "bad_request"),
        ("not json", "bad_request"),
        ("[\"status\"]", "bad_request"),
        ("{}", "bad_request"),
        ("{\"command\":7}", "bad_request"),
        ("{\"command\":\"sudo\"}", "unknown_command"),
        ("{\"command\":\"status\",\"apps\":\"nginx\"}", "bad_request"),
        ("{\"command\":\"status\",\"apps\":[7]}", "bad_request"),
        ("{\"command\":\"status\",\"apps\":[\"\"]}", "bad_request"),
        ("{\"command\":\"status\",\"app\":[\"nginx\"]}", "bad_request"),
        ("{\"command\":\"allow-live\"}", "bad_request"),
        ("{\"command\":\"allow-live\",\"on\":\"yes\"}", "bad_request"),
        ("{\"command\":\"consent\",\"choice\":\"maybe\"}", "bad_request"),
        ("{\"command\":\"consent\"}", "bad_request"),
        ("{\"command\":\"data-saver\",\"on\":true,\"apps\":[\"x\"]}", "bad_request"),
        ("{\"command\":\"version\",\"command\":\"reload\"}", "bad_request"),
        ("{\"command\":\"version\"} {}", "bad_request"),
        ("{\"command\":\"version\",\"x\":[[[[[[[[1]]]]]]]]}", "bad_request"),
        ("\u{FEFF}{\"command\":\"version\"}", "bad_request"),
    ])
    func malformedRequestsAreRefusedWithTheirCode(_ text: String, _ code: String) {
        #expect(throws: ControlError.self) { try ControlRequest.parse(Array(text.utf8)) }
        do {
            _ = try ControlRequest.parse(Array(text.utf8))
        } catch {
            #expect(error.code.rawValue == code, "\(text): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func aLineAtTheLimitIsTooLarge() throws {
        let padding = String(repeating: " ", count: ControlRequest.maxLineBytes)
        do {
            _ = try ControlRequest.parse(Array("{\"command\":\"version\"}\(padding)".utf8))
            Issue.record("a line past the limit was read")
        } catch {
            #expect(error.code == .tooLarge)
        }
        let fits = "{\"command\":\"version\"}" + String(repeating: " ", count: ControlRequest.maxLineBytes - 23)
        #expect(try ControlRequest.parse(Array(fits.utf8)) == .version)
    }

    @Test func tooManyAppsAreRefused() {
        let names = (0...ControlRequest.maxApps).map { "\"a\($0)\"" }.joined(separator: ",")
        do {
            _ = try ControlRequest.parse(Array("{\"command\":\"status\",\"apps\":[\(names)]}".utf8))
            Issue.record("\(ControlRequest.maxApps + 1) apps were read")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    @Test func randomBytesNeverCrashTheReader() {
        var generator = ControlFuzzGenerator(seed: 7)
        let alphabet = Array("{}[]\":,\\ atrueflsn0123456789-.eE\u{1}\n".utf8) + [0xFF, 0xC3]
        for _ in 0..<2000 {
            let count = Int(generator.next() % 64)
            let bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            _ = try? ControlRequest.parse(bytes)
            _ = try? ControlAnswer.parse(bytes, answering: .status(apps: []))
            _ = try? ControlEvent.parse(bytes)
        }
    }

    static let status = ControlAppStatus(
        name: "nginx", unit: "nginx.service", foreground: .active, allowLive: true, consentGranted: true, viewers: 2,
        viewingSinceUnixMs: 1_764_424_920_000, logLevelRaisedUntilUnixMs: 1_764_426_720_000,
        liveHeldUntilUnixMs: 1_764_424_980_000)

    static let answers: [(ControlRequest, ControlAnswer)] = [
        (.status(apps: []), .status(ControlStatus(apps: [status, ControlAppStatus(name: "api", unit: "api.service")], dataSaver: true))),
        (.status(apps: ["web"]), .status(ControlStatus(apps: [ControlAppStatus(
            name: "web", unit: "web.service",
            ingest: ControlIngestStatus(
                queuedRecords: 12, queuedBytes: 4096, sentRecords: 1234, droppedRecords: 1, journalGaps: 2, filteredRecords: 7,
                lastFailure: "the backend answered 503", sentAs: "json (the backend refused protobuf), gzip"),
            policyProblem: "cannot be fetched: cannot reach the proxy 127.0.0.1:3128: connection refused")], dataSaver: false))),
        (.apps, .apps([
            ControlAppInfo(name: "nginx", unit: "nginx.service", serviceName: "com.example.nginx", serviceVersion: "1.22.1-9",
                           buildID: "8f3c", installationID: "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69"),
            ControlAppInfo(name: "api", unit: "api.service"),
            ControlAppInfo(name: "web", unit: "web.service", installationID: "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69")
                .withholdingInstallationID(),
        ])),
        (.allowLive(true, apps: []), .changed(apps: ["api", "nginx"])),
        (.consent(.deny, apps: ["api"]), .changed(apps: ["api"])),
        (.dataSaver(true), .dataSaver(true)),
        (.reload, .reloaded(problems: ["apps.d/x.conf:4: unknown key `Famlies` in [App]"])),
        (.version, .version("0.1.0")),
        (.watch(apps: []), .watching),
        (.allowLive(true, apps: ["zz"]), .failed(ControlError(.unknownApp, "no app zz"))),
    ]

    @Test func everyAnswerReadsBackAsWritten() throws {
        for (request, answer) in Self.answers {
            let line = answer.line
            #expect(!line.dropLast().contains(0x0A))
            #expect(try ControlAnswer.parse(Array(line.dropLast()), answering: request) == answer)
        }
    }

    @Test func aWithheldInstallationIDIsNullAndFlagged() throws {
        let app = ControlAppInfo(name: "web", unit: "web.service", installationID: "0b6f4a4e-7f55-4a8e-9d7c-2f1d3c4b5a69")
        #expect(app.json["installation_id_hidden"] == .bool(false))
        let withheld = app.withholdingInstallationID().json
        #expect(withheld["installation_id"] == .null)
        #expect(withheld["installation_id_hidden"] == .bool(true))
        #expect(!String(decoding: JSONWriter.encode(withheld), as: UTF8.self).contains("0b6f4a4e"))
    }

    @Test func anAppFromADaemonThatSendsNoHiddenFlagIsShown() throws {
        let line = #"{"ok":true,"apps":[{"name":"web","unit":"web.service","installation_id":"0b6f"}]}"#
        guard case .apps(let apps) = try ControlAnswer.parse(Array(line.utf8), answering: .apps) else {
            Issue.record("apps was not read as apps")
            return
        }
        #expect(apps == [ControlAppInfo(name: "web", unit: "web.service", installationID: "0b6f")])
    }

    @Test func aRefusalCarriesOkFalseErrorAndMessage() throws {
        let line = ControlAnswer.failed(ControlError(.notPermitted, "only root")).line
        let value = try JSONParser().parse(Array(line.dropLast()))
        #expect(value == .object(["ok": .bool(false), "error": .string("not_permitted"), "message": .string("only root")]))
    }

    @Test func anAnswerOfTheWrongShapeIsBadAnswer() {
        do {
            _ = try ControlAnswer.parse(Array("{\"ok\":true}".utf8), answering: .status(apps: []))
            Issue.record("a status without apps was read")
        } catch {
            #expect(error.code == .badAnswer)
        }
    }

    @Test func everyEventReadsBackAsWritten() throws {
        let events: [ControlEvent] = [
            .status(Self.status), .status(ControlAppStatus(name: "api", unit: "api.service")),
            .notice(app: "nginx", command: .screenshot, atUnixMs: 1, untilUnixMs: nil),
            .notice(app: "nginx", command: .raiseLogLevel, atUnixMs: 1, untilUnixMs: 1_800_001),
            .ended(app: "nginx", reason: "until"), .dataSaver(true),
            .ended(app: "nginx", .tokenLost),
        ]
        for event in events {
            #expect(try ControlEvent.parse(Array(event.line.dropLast())) == event)
        }
        #expect(try ControlEvent.parse(Array("{\"event\":\"from_the_future\"}".utf8)) == nil)
    }

    // MARK: The indicator's words

    @Test func theIndicatorNamesTheTeamTheAppTheViewersAndTheTime() {
        #expect(IndicatorText.viewing(app: "nginx", viewers: 2, since: ClockTime(hour: 14, minute: 2))
            == "Your team is viewing nginx live, 2 viewers since 14:02")
        #expect(IndicatorText.viewing(app: "nginx", viewers: 1, since: ClockTime(hour: 9, minute: 5))
            == "Your team is viewing nginx live, 1 viewer since 09:05")
        #expect(IndicatorText.notice(.screenshot, app: "nginx") == "Your team took a screenshot of nginx")
        #expect(IndicatorText.notice(.diagnostics, app: "nginx") == "Your team ran diagnostics on nginx")
        #expect(IndicatorText.notice(.raiseLogLevel, app: "nginx")
            == "Your team raised the log level of nginx to debug for 30 minutes")
        #expect(IndicatorText.viewingEnded(app: "nginx") == "Your team stopped viewing nginx live")
        #expect(IndicatorText.ended(app: "nginx", reason: "until") == "Live viewing of nginx ended: its 30 minutes ran out")
    }

    @Test func theSummaryListsOnlyWatchedAppsAndIsAbsentWhenNobodyWatches() {
        #expect(IndicatorText.summary([IndicatorViewing(app: "api", viewers: 0, since: nil)]) == nil)
        let summary = IndicatorText.summary([
            IndicatorViewing(app: "nginx", viewers: 1, since: ClockTime(hour: 14, minute: 2)),
            IndicatorViewing(app: "api", viewers: 3, since: nil),
            IndicatorViewing(app: "db", viewers: 0, since: nil),
        ])
        #expect(summary == "Your team is viewing api live, 3 viewers\nYour team is viewing nginx live, 1 viewer since 14:02")
    }

    @Test func theStatusSaysWhatIngestSentWaitsAndLost() {
        var status = ControlAppStatus(name: "web", unit: "web.service")
        status.ingest = ControlIngestStatus(
            queuedRecords: 12, queuedBytes: 4096, sentRecords: 1234, droppedRecords: 1, lastFailure: "the backend answered 503")
        let lines = ControlStatusText.lines(status, localTime: { _ in ClockTime(hour: 9, minute: 5) })
        #expect(lines.contains("  Ingest: 1234 sent, 12 waiting (4096 bytes), 1 lost, 0 kept out by the policy"))
        #expect(lines.contains("  Last failure: the backend answered 503"))
        #expect(!lines.contains { $0.contains("journal") }, "no gap, no word of one")
        #expect(!lines.contains { $0.hasPrefix("  Policy:") }, "no problem, no word of one")
        #expect(!lines.contains { $0.hasPrefix("  Sent as:") }, "an older daemon's answer says nothing of it")
        status.ingest?.sentAs = "protobuf, zstd"
        #expect(ControlStatusText.lines(status, localTime: { _ in ClockTime(hour: 9, minute: 5) }).contains("  Sent as: protobuf, zstd"))
    }

    /// Records wait for a policy: why none comes (a proxy that is down, say) is in the status.
    @Test func theStatusSaysWhyThePolicyCannotBeFetched() {
        var status = ControlAppStatus(name: "web", unit: "web.service")
        status.policyProblem = "cannot be fetched: cannot reach the proxy 127.0.0.1:3128: connection refused"
        let lines = ControlStatusText.lines(status, localTime: { _ in ClockTime(hour: 9, minute: 5) })
        #expect(lines.contains("  Policy: cannot be fetched: cannot reach the proxy 127.0.0.1:3128: connection refused"))
    }

    /// A box allowed to go live that says nothing because its backend asked it to wait says until when.
    @Test func theStatusSaysUntilWhenTheLiveBackendAskedForNothing() {
        var status = ControlAppStatus(name: "web", unit: "web.service", allowLive: true)
        let local = { (_: Int64) in ClockTime(hour: 9, minute: 5) }
        #expect(!ControlStatusText.lines(status, localTime: local).contains { $0.contains("asked for nothing") })
        var narrator = WatchNarrator()
        _ = narrator.lines(for: .status(status), localTime: local)
        status.liveHeldUntilUnixMs = 1_764_424_980_000
        #expect(ControlStatusText.lines(status, localTime: local).contains("  The live backend asked for nothing until 09:05"))
        #expect(narrator.lines(for: .status(status), localTime: local) == ["The live backend asked for nothing from web until 09:05"])
    }

    /// How many entries a stretch vacuumed from the journal held cannot be known: the status says
    /// so, rather than a figure that reads as true and is not.
    @Test func theStatusSaysEntriesLostToTheJournalAreUncounted() throws {
        var status = ControlAppStatus(name: "web", unit: "web.service")
        status.ingest = ControlIngestStatus(sentRecords: 50, journalGaps: 1)
        let lines = ControlStatusText.lines(status, localTime: { _ in ClockTime(hour: 9, minute: 5) })
        #expect(lines.contains("  Ingest: 50 sent, 0 waiting (0 bytes), 0 lost, 0 kept out by the policy"))
        #expect(lines.contains("  Lost to the journal: an unknown number of entries in 1 gap, vacuumed before they were sent"))
        status.ingest?.journalGaps = 3
        #expect(ControlStatusText.lines(status, localTime: { _ in ClockTime(hour: 9, minute: 5) }).contains(
            "  Lost to the journal: an unknown number of entries in 3 gaps, vacuumed before they were sent"))

        // An earlier apsiod's answer has no `journal_gaps` (it counted a gap as one lost record).
        let earlier = #"{"ok":true,"apps":[{"name":"web","unit":"web.service","foreground":null,"allow_live":false,"consent":"not_asked","viewers":0,"viewing_since":null,"log_level_raised_until":null,"ingest":{"queued_records":0,"queued_bytes":0,"sent_records":5,"dropped_records":1,"filtered_records":0,"last_failure":null}}],"data_saver":false}"#
        let answer = try ControlAnswer.parse(Array(earlier.utf8), answering: .status(apps: []))
        guard case .status(let parsed) = answer else { Issue.record("\(answer)"); return }
        #expect(parsed.apps.first?.ingest == ControlIngestStatus(sentRecords: 5, droppedRecords: 1))
    }

    /// journald's own count of the lines it dropped is a figure it wrote: the status gives it, apart
    /// from what apsiod lost, and the JSON carries it both ways.
    @Test func theStatusCountsLinesJournaldDropped() throws {
        var status = ControlAppStatus(name: "web", unit: "web.service")
        status.ingest = ControlIngestStatus(sentRecords: 5, journaldDropNotes: 1, journaldDroppedLines: 1)
        let local = { (_: Int64) in ClockTime(hour: 9, minute: 5) }
        #expect(ControlStatusText.lines(status, localTime: local).contains(
            "  Dropped by journald's rate limit: 1 line (1 note, each sent as a record)"))
        status.ingest?.journaldDropNotes = 2
        status.ingest?.journaldDroppedLines = 1234
        #expect(ControlStatusText.lines(status, localTime: local).contains(
            "  Dropped by journald's rate limit: 1234 lines (2 notes, each sent as a record)"))
        status.ingest?.journaldDropNotes = 0
        #expect(!ControlStatusText.lines(status, localTime: local).contains { $0.contains("journald") })

        status.ingest = ControlIngestStatus(sentRecords: 5, journaldDropNotes: 2, journaldDroppedLines: 1234)
        let answer = ControlAnswer.status(ControlStatus(apps: [status], dataSaver: false))
        let text = String(decoding: answer.line, as: UTF8.self)
        #expect(text.contains(#""journald_drop_notes":2"#), "\(text)")
        #expect(text.contains(#""journald_dropped_lines":1234"#), "\(text)")
        #expect(try ControlAnswer.parse(answer.line, answering: .status(apps: [])) == answer)
    }

    /// What the app file's `RateLimit=` dropped is a decision, counted apart from what apsiod lost;
    /// an earlier apsiod's answer, without the field, reads as none.
    @Test func theStatusCountsEntriesRateLimitDropped() throws {
        var status = ControlAppStatus(name: "web", unit: "web.service")
        status.ingest = ControlIngestStatus(sentRecords: 5, droppedRecords: 2, rateLimitedRecords: 1)
        let local = { (_: Int64) in ClockTime(hour: 9, minute: 5) }
        #expect(ControlStatusText.lines(status, localTime: local).contains(
            "  Dropped by RateLimit=: 1 entry (each run of them sent as a record)"))
        #expect(ControlStatusText.lines(status, localTime: local).contains(
            "  Ingest: 5 sent, 0 waiting (0 bytes), 2 lost, 0 kept out by the policy"))
        status.ingest?.rateLimitedRecords = 4321
        #expect(ControlStatusText.lines(status, localTime: local).contains(
            "  Dropped by RateLimit=: 4321 entries (each run of them sent as a record)"))
        status.ingest?.rateLimitedRecords = 0
        #expect(!ControlStatusText.lines(status, localTime: local).contains { $0.contains("RateLimit=") })

        status.ingest?.rateLimitedRecords = 4321
        let answer = ControlAnswer.status(ControlStatus(apps: [status], dataSaver: false))
        let text = String(decoding: answer.line, as: UTF8.self)
        #expect(text.contains(#""rate_limited_records":4321"#), "\(text)")
        #expect(text.contains(#""dropped_records":2"#), "\(text)")
        #expect(try ControlAnswer.parse(answer.line, answering: .status(apps: [])) == answer)

        let earlier = #"{"ok":true,"apps":[{"name":"web","unit":"web.service","foreground":null,"allow_live":false,"consent":"not_asked","viewers":0,"viewing_since":null,"log_level_raised_until":null,"ingest":{"queued_records":0,"queued_bytes":0,"sent_records":5,"dropped_records":1,"filtered_records":0,"last_failure":null}}],"data_saver":false}"#
        guard case .status(let parsed) = try ControlAnswer.parse(Array(earlier.utf8), answering: .status(apps: [])) else {
            Issue.record("not a status")
            return
        }
        #expect(parsed.apps.first?.ingest?.rateLimitedRecords == 0)
    }

    @Test func watchSaysTheWholeStatusOnceThenOnlyWhatChanged() {
        var narrator = WatchNarrator()
        let local = { (ms: Int64) in ClockTime(hour: Int(ms / 3_600_000 % 24), minute: Int(ms / 60_000 % 60)) }
        var status = ControlAppStatus(name: "nginx", unit: "nginx.service", foreground: .active, allowLive: true)
        #expect(narrator.lines(for: .status(status), localTime: local) == [
            "nginx (nginx.service): active, live inspection allowed, consent not asked",
            "  Nobody is viewing nginx live",
        ])
        status.viewers = 1
        status.viewingSinceUnixMs = (14 * 60 + 2) * 60_000
        #expect(narrator.lines(for: .status(status), localTime: local) == ["Your team is viewing nginx live, 1 viewer since 14:02"])
        #expect(narrator.lines(for: .status(status), localTime: local).isEmpty)
        #expect(narrator.lines(for: .notice(app: "nginx", command: .screenshot, atUnixMs: 0, untilUnixMs: nil), localTime: local)
            == ["Your team took a screenshot of nginx"])
        status.viewers = 0
        status.viewingSinceUnixMs = nil
        status.foreground = .background
        #expect(narrator.lines(for: .status(status), localTime: local)
            == ["nginx is now in the background", "Your team stopped viewing nginx live"])
    }

    // MARK: sd_listen_fds

    @Test func socketActivationTakesOnlyWhatWasPassedToThisProcess() {
        let names: Set<String> = ["control", "apsiod.socket"]
        #expect(SocketActivation.descriptor(listenPID: "42", listenFDs: "1", listenFDNames: nil, processID: 42, names: names) == 3)
        #expect(SocketActivation.descriptor(listenPID: "41", listenFDs: "1", listenFDNames: nil, processID: 42, names: names) == nil)
        #expect(SocketActivation.descriptor(listenPID: nil, listenFDs: "1", listenFDNames: nil, processID: 42, names: names) == nil)
        #expect(SocketActivation.descriptor(listenPID: "42", listenFDs: "0", listenFDNames: nil, processID: 42, names: names) == nil)
        #expect(SocketActivation.descriptor(listenPID: "42", listenFDs: "x", listenFDNames: nil, processID: 42, names: names) == nil)
        #expect(SocketActivation.descriptor(
            listenPID: "42", listenFDs: "2", listenFDNames: "other:apsiod.socket", processID: 42, names: names) == 4)
        #expect(SocketActivation.descriptor(listenPID: "42", listenFDs: "2", listenFDNames: "a:b", processID: 42, names: names) == nil)
        #expect(SocketActivation.descriptor(listenPID: "42", listenFDs: "1", listenFDNames: "stdin", processID: 42, names: names) == 3)
    }
}

/// A small deterministic generator, so a failing input can be found again.
struct ControlFuzzGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
