import ApsioCore
import ApsioPlatform
import Foundation
@testable import ApsioTestSupport
import Testing

/// What a journal entry becomes: the record an operator sees in their backend.
@Suite struct JournalEntryMappingTests {
    static let app = JournalApp(id: "nginx", unit: "nginx.service", start: .oldest)

    func firstRecord(_ entry: (JournalFixture) -> JournalFixture.Entry) async throws -> LogRecord {
        let journal = try JournalFixture()
        try await journal.write([entry(journal)])
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.app])
        return try #require(try await drain(follower).records.first?.record)
    }

    @Test func wellKnownFieldsBecomeOpenTelemetryAttributesAndTheAppsOwnFieldsKeepTheirNames() async throws {
        var realtime: UInt64 = 0
        let record = try await firstRecord { journal in
            let entry = journal.entry(
                unit: "nginx.service", message: "upstream timed out", priority: 3,
                extra: [
                    ("CODE_FILE", .text("src/http/ngx_http_upstream.c")),
                    ("CODE_LINE", .text("4512")),
                    ("CODE_FUNC", .text("ngx_http_upstream_next")),
                    ("TID", .text("4243")),
                    ("SYSLOG_FACILITY", .text("3")),
                    ("SYSLOG_PID", .text("4242")),
                    ("MESSAGE_ID", .text("8d45620c1a4348dbb17410da57c60c66")),
                    ("REQUEST_ID", .text("r-81f2")),
                    ("UPSTREAM", .text("10.0.0.7:8080")),
                ])
            realtime = entry.realtime
            return entry
        }
        #expect(record.timeUnixNano == realtime * 1000)
        #expect(record.severityNumber == 17)
        #expect(record.severityText == "ERROR")
        #expect(record.family == .errors)
        #expect(record.body == "upstream timed out")
        #expect(record.sessionID == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
        #expect(record.journalCursor?.hasPrefix("s=") == true)
        #expect(
            record.attributes == [
                .int("process.pid", 4242),
                .string("process.executable.name", "demo"),
                .string("process.executable.path", "/usr/bin/demo"),
                .int("process.user.id", 998),
                .int("thread.id", 4243),
                .string("code.filepath", "src/http/ngx_http_upstream.c"),
                .int("code.lineno", 4512),
                .string("code.function", "ngx_http_upstream_next"),
                .string("syslog.identifier", "demo"),
                .int("syslog.facility", 3),
                .string("systemd.unit", "nginx.service"),
                .string("MESSAGE_ID", "8d45620c1a4348dbb17410da57c60c66"),
                .string("REQUEST_ID", "r-81f2"),
                .string("UPSTREAM", "10.0.0.7:8080"),
            ])
    }

    @Test func machineIdentityCommandLineAndJournaldsOtherTrustedFieldsAreNeverForwarded() async throws {
        let record = try await firstRecord { journal in
            journal.entry(
                unit: "nginx.service", message: "hello",
                extra: [("_AUDIT_LOGINUID", .text("1000")), ("_SELINUX_CONTEXT", .text("system_u"))])
        }
        let text = record.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        for secret in ["hunter2", "a3b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5", JournalFixture.bootID, "box-7", "system_u", "1000"] {
            #expect(!text.contains(secret), "\(secret) reached the record")
        }
        #expect(record.attributes.allSatisfy { !$0.key.hasPrefix("_") })
    }

    @Test func entryWithoutPriorityIsInfoAndWithoutInvocationHasNoSession() async throws {
        let record = try await firstRecord { journal in
            journal.entry(unit: "nginx.service", message: "plain", priority: nil)
                .replacing("_SYSTEMD_INVOCATION_ID", with: .text("00000000000000000000000000000000"))
        }
        #expect(record.severityText == "INFO")
        #expect(record.family == .logs)
        #expect(record.sessionID == nil)
    }

    @Test func manyOwnFieldsAreCappedAndARepeatedFieldKeepsItsFirstValue() async throws {
        let journal = try JournalFixture()
        let own: [(String, JournalFixture.Value)] = (1...80).map { ("FIELD_\($0)", .text("v\($0)")) }
        try await journal.write([
            journal.entry(
                unit: "nginx.service", message: "wide",
                extra: own + [("FIELD_1", .text("again"))])
        ])
        var limits = JournalReadLimits()
        limits.maxUserFields = 10
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.app], limits: limits)
        let record = try #require(try await drain(follower).records.first?.record)
        let ownKeys = record.attributes.map(\.key).filter { $0.hasPrefix("FIELD_") }
        #expect(ownKeys == (1...10).map { "FIELD_\($0)" })
        #expect(record.attributes["FIELD_1"] == .string("v1"))
    }

    @Test func anEntryWithEveryFieldAtItsLargestIsCutNotRefused() async throws {
        // Two-byte characters, so that every cut falls inside one.
        let long = String(repeating: "é", count: 1500)
        let known = [
            "MESSAGE_ID", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "TID", "SYSLOG_IDENTIFIER", "SYSLOG_FACILITY",
            "_PID", "_COMM", "_EXE", "_UID", "_SYSTEMD_INVOCATION_ID", "COREDUMP_UNIT", "COREDUMP_EXE", "COREDUMP_COMM",
            "COREDUMP_PID", "COREDUMP_UID", "COREDUMP_SIGNAL", "COREDUMP_SIGNAL_NAME", "COREDUMP_TIMESTAMP",
            "COREDUMP_RLIMIT", "COREDUMP_FILENAME", "COREDUMP_TRUNCATED", "COREDUMP_PACKAGE_NAME",
            "COREDUMP_PACKAGE_VERSION",
        ]
        // Names as long as journald allows.
        let own = (1...80).map { index in "F\(index)_" + String(repeating: "X", count: 64 - "F\(index)_".count) }
        let record = try await firstRecord { journal in
            var entry = journal.entry(
                unit: "nginx.service", message: String(repeating: "é", count: 5000),
                extra: (known + own).map { ($0, .text(long)) })
            // The fixture's own trusted fields come first, and the first value is the one kept.
            for name in known { entry = entry.replacing(name, with: .text(long)) }
            entry.fields += known.map { ($0, .text("again")) }
            return entry
        }
        #expect(record.body == String(repeating: "é", count: 2048))
        let cut = String(repeating: "é", count: 512)
        #expect(record.attributes["code.filepath"] == .string(cut))
        #expect(record.attributes["MESSAGE_ID"] == .string(cut))
        #expect(record.attributes["process.pid"] == nil, "not a number")
        // MESSAGE_ID is one of the 64 own fields forwarded.
        let ownKeys = record.attributes.map(\.key).filter { $0.hasPrefix("F") }
        #expect(ownKeys == Array(own.prefix(63)))
        #expect(record.attributes.filter { $0.key.hasPrefix("F") }.allSatisfy { $0.value == .string(cut) })
    }

    @Test func eachLineKeepsItsOwnAttributesWhenTheUnitsLinesDifferInOneField() async throws {
        let journal = try JournalFixture()
        try await journal.write([
            journal.entry(unit: "nginx.service", message: "a", extra: [("CODE_LINE", .text("10")), ("REQUEST_ID", .text("r-1"))]),
            journal.entry(unit: "nginx.service", message: "b", extra: [("CODE_LINE", .text("10")), ("REQUEST_ID", .text("r-1"))]),
            journal.entry(unit: "worker.service", message: "other unit", extra: [("CODE_LINE", .text("99"))]),
            journal.entry(unit: "nginx.service", message: "c", extra: [("CODE_LINE", .text("11")), ("REQUEST_ID", .text("r-1"))]),
            journal.entry(unit: "nginx.service", message: "d", extra: [("CODE_LINE", .text("11")), ("REQUEST_ID", .text("r-2"))]),
            // The same bytes as d's own field, split differently.
            journal.entry(unit: "nginx.service", message: "f", extra: [("CODE_LINE", .text("11")), ("REQUEST", .text("_IDr-2"))]),
            journal.entry(unit: "nginx.service", message: "e", extra: [("CODE_LINE", .text("11"))]),
            journal.entry(unit: "nginx.service", message: "g", extra: [("REQUEST_ID", .text("r-2"))]),
        ])
        let worker = JournalApp(id: "worker", unit: "worker.service", start: .oldest)
        let follower = try JournalFollower(source: .directory(journal.path), apps: [Self.app, worker])
        let records = try await drain(follower).records
        func own(_ body: String) -> [String] {
            let attributes = records.first { $0.record.body == body }?.record.attributes ?? []
            return attributes.filter { ["code.lineno", "REQUEST_ID", "REQUEST", "systemd.unit"].contains($0.key) }
                .map { "\($0.key)=\($0.value)" }
        }
        #expect(own("a") == ["code.lineno=int(10)", "systemd.unit=string(\"nginx.service\")", "REQUEST_ID=string(\"r-1\")"])
        #expect(own("b") == own("a"))
        #expect(own("other unit") == ["code.lineno=int(99)", "systemd.unit=string(\"worker.service\")"])
        #expect(own("c") == ["code.lineno=int(11)", "systemd.unit=string(\"nginx.service\")", "REQUEST_ID=string(\"r-1\")"])
        #expect(own("d") == ["code.lineno=int(11)", "systemd.unit=string(\"nginx.service\")", "REQUEST_ID=string(\"r-2\")"])
        #expect(own("e") == ["code.lineno=int(11)", "systemd.unit=string(\"nginx.service\")"])
        #expect(own("f") == ["code.lineno=int(11)", "systemd.unit=string(\"nginx.service\")", "REQUEST=string(\"_IDr-2\")"])
        #expect(own("g") == ["systemd.unit=string(\"nginx.service\")", "REQUEST_ID=string(\"r-2\")"])
    }
}
