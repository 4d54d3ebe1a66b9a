import ApsioAgent
import ApsioCore
import ApsioRedaction
import Foundation
@testable import ApsioTestSupport
import Testing

/// Redaction on the built `apsiod`: a line with one secret of each family, and structured journal
/// fields named for secrets, reach `/v1/logs` and the live channel's `frames` with
/// `[REDACTED:rule]` in the secret's place, and the secret is in neither.
@Suite(.serialized) struct DaemonRedactionTests {
    /// One secret a line, each of another family; the part after `⟦` … `⟧` is the secret.
    static let lines: [(rule: RedactionRule, line: String)] = [
        (.password, #"login failed {"user":"ann","password":"⟦correct-horse-7⟧"}"#),
        (.token, "GET /oauth/callback?code=1&access_token=⟦ya29.a0AfH6SMB⟧ 200"),
        (.apiKey, "calling billing with --api-key ⟦k_9f8e7d6c5b4a⟧"),
        (.authorizationHeader, "upstream sent Authorization: ⟦Basic YWxhZGRpbjpvcGVuc2VzYW1l⟧"),
        (.urlUserinfo, "connecting to postgres://⟦app:s3cr3t⟧@db.internal:5432/orders"),
        (.privateKey, "key ⟦-----BEGIN EC PRIVATE KEY----- MHcCAQEEIO8n2o -----END EC PRIVATE KEY-----⟧ loaded"),
        (.jwt, "invalid id token ⟦eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9.c2lnbmF0dXJl⟧"),
        (.awsAccessKeyID, "assumed role with ⟦AKIAIOSFODNN7EXAMPLE⟧ in eu-west-1"),
        (.googleAPIKey, "maps quota for key ⟦AIzaSyD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4y⟧ exceeded"),
        (.githubToken, "cloning with ⟦ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8⟧"),
        (.slackToken, "notify via ⟦xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx⟧"),
        (.stripeKey, "stripe client ready: ⟦sk_live_4eC39HqLyjWDarjtT1zdp7dc⟧"),
        (.cardNumber, "charged card ⟦4111 1111 1111 1111⟧ for 12.00 EUR"),
    ]

    @Test func secretsOfEveryFamilyAreRedactedInIngestAndLive() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy())
            try await h.startLiveSession()

            var entries: [JournalFixture.Entry] = []
            var expected: [(secret: String, redacted: String)] = []
            for (rule, line) in Self.lines {
                let open = try #require(line.firstIndex(of: "⟦")), close = try #require(line.firstIndex(of: "⟧"))
                let secret = String(line[line.index(after: open)..<close])
                let input = String(line[..<open]) + secret + String(line[line.index(after: close)...])
                entries.append(h.journal.entry(unit: AgentHarness.unit, message: input))
                expected.append((secret, String(line[..<open]) + rule.marker + String(line[line.index(after: close)...])))
            }
            // A structured entry, as `sd_journal_send` writes one: the fields are named for secrets.
            entries.append(h.journal.entry(
                unit: AgentHarness.unit, message: "structured login",
                extra: [("TOKEN", .text("tok-51d2c0ffee")), ("DB_PASSWORD", .text("pw-8b1f2")), ("REQUEST_ID", .text("r-77"))]))
            try await h.journal.write(entries)

            let bodies = expected.map(\.redacted)
            try await poll("every line at /v1/logs and streamed", seconds: 60, every: .milliseconds(100)) {
                let sent = Set(h.backend.records.map(\.body))
                let streamed = Set(h.streamedLines)
                return bodies.allSatisfy { sent.contains($0) && streamed.contains($0) }
                    && sent.contains("structured login") && streamed.contains("structured login")
            }
            let structured = try #require(h.backend.records.first { $0.body == "structured login" })
            #expect(structured.attributes["TOKEN"]?["stringValue"] == .string("[REDACTED:token]"))
            #expect(structured.attributes["DB_PASSWORD"]?["stringValue"] == .string("[REDACTED:password]"))
            #expect(structured.attributes["REQUEST_ID"]?["stringValue"] == .string("r-77"))
            let line = try #require(h.framesBodies.flatMap { $0["lines"]?.arrayValue ?? [] }.first {
                $0["body"] == .string("structured login")
            })
            #expect(line["attributes"]?["TOKEN"] == .string("[REDACTED:token]"))
            #expect(line["attributes"]?["DB_PASSWORD"] == .string("[REDACTED:password]"))

            // No secret anywhere in what left: bodies, attributes, every frames body as JSON.
            let everything = h.backend.records.map { "\($0.body) \($0.attributes)" }.joined(separator: "\n")
                + h.framesBodies.map { "\($0)" }.joined(separator: "\n")
            for secret in expected.map(\.secret) + ["tok-51d2c0ffee", "pw-8b1f2"] {
                #expect(!everything.contains(secret), "\(secret) left the machine")
            }
        }
    }

    /// `RedactRules=`: a rule turned off lets its value through, and personal data, off by
    /// default, is hidden when the app file turns it on.
    @Test func redactRulesTurnsRulesOffAndPersonalDataOn() async throws {
        try await AgentHarness.with { h in
            try await h.serve(try h.policy(live: false), appFile: "RedactRules=-aws-access-key-id +personal")
            try await h.journal.write([
                h.journal.entry(unit: AgentHarness.unit, message: "public key id AKIAIOSFODNN7EXAMPLE in use"),
                h.journal.entry(unit: AgentHarness.unit, message: "mail to ann@example.com from 10.1.2.3"),
            ])
            try await poll("both lines at /v1/logs", seconds: 60, every: .milliseconds(100)) { h.backend.records.count >= 2 }
            let bodies = h.backend.records.map(\.body)
            #expect(bodies.contains("public key id AKIAIOSFODNN7EXAMPLE in use"))
            #expect(bodies.contains("mail to [REDACTED:email] from [REDACTED:ipv4]"))
        }
    }

    /// A `RedactRules=` word that names nothing is a problem at its line, and the app is not
    /// served half-configured.
    @Test func anUnknownRuleNameIsAProblemAtItsLine() async throws {
        try await AgentHarness.with { h in
            try h.writeApp("RedactRules=-gihub-token")
            h.backend.setPolicy(try h.policy(live: false))
            try h.start()
            try await poll("the problem in the log", seconds: 60, every: .milliseconds(100)) { h.log.contains("demo.conf:8: RedactRules=-gihub-token") }
            #expect(h.log.contains("did you mean github-token?"))
        }
    }
}
