import ApsioCore
import ApsioRedaction
import Testing

/// The built-in rules' edges: which syntax counts, what a value is, which rule names it, and
/// what `RedactRules=` turns on and off. The corpus (`RedactionCorpusTests`) holds the bulk.
@Suite struct RedactionRulesTests {
    let standard = try! Redactor()
    let everything = try! Redactor(rules: .all)

    static let github = "ghp_" + String(repeating: "aB3", count: 12)

    @Test func aValueOfAKnownShapeIsNamedForItsShape() {
        #expect(standard.redact("GITHUB_TOKEN=\(Self.github) next") == "GITHUB_TOKEN=[REDACTED:github-token] next")
        #expect(standard.redact(#"{"token": "\#(Self.github)"}"#) == #"{"token": "[REDACTED:github-token]"}"#)
        #expect(standard.redact("token=abc123") == "token=[REDACTED:token]")
    }

    @Test(arguments: [
        (#"{"user":"bob","password":"hunter2"}"#, #"{"user":"bob","password":"[REDACTED:password]"}"#),
        (#"{'api_key': 'abc123'}"#, #"{'api_key': '[REDACTED:api-key]'}"#),
        (#"payload={\"client_secret\":\"s3\",\"id\":1}"#, #"payload={\"client_secret\":\"[REDACTED:secret]\",\"id\":1}"#),
        (#"{"refresh_token": 123456}"#, #"{"refresh_token": [REDACTED:token]}"#),
        (#"{"password": "with \"quote\" inside"}"#, #"{"password": "[REDACTED:password]"}"#),
    ])
    func jsonValues(_ text: String, _ expected: String) {
        #expect(standard.redact(text) == expected)
    }

    @Test(arguments: [#"{"token": null}"#, #"{"password_changed": false}"#, #"{"token_count": 3}"#, #"{"api_key_id": "k-1"}"#])
    func jsonThatHoldsNoSecret(_ text: String) {
        #expect(standard.redact(text) == text)
    }

    @Test func aKeyColonValueCountsOnlyWhenTheKeyStartsTheLine() {
        #expect(standard.redact("password: hunter2") == "password: [REDACTED:password]")
        #expect(standard.redact("  db_password: hunter2  ") == "  db_password: [REDACTED:password]  ")
        #expect(standard.redact("- token: abc") == "- token: [REDACTED:token]")
        #expect(standard.redact("x-api-key: k1\nnext") == "x-api-key: [REDACTED:api-key]\nnext")
        #expect(standard.redact("could not read password: permission denied") == "could not read password: permission denied")
        #expect(standard.redact("password:hunter2") == "password:hunter2", "no space after the colon: not YAML")
    }

    @Test func aFlagsValueIsTheNextWord() {
        #expect(standard.redact("exec pg_dump --password hunter2 --verbose") == "exec pg_dump --password [REDACTED:password] --verbose")
        #expect(standard.redact("run --api-key=abc --x") == "run --api-key=[REDACTED:api-key] --x")
        #expect(standard.redact("usage: --password --verbose") == "usage: --password --verbose")
        #expect(standard.redact("use --token to log in") == "use --token [REDACTED:token] log in", "fail closed on prose after a flag")
    }

    @Test func cardNumbersNeedAnIssuerAndTheCheckDigit() {
        #expect(standard.redact("card 4111111111111111 ok") == "card [REDACTED:card-number] ok")
        #expect(standard.redact("card 4111 1111 1111 1111 ok") == "card [REDACTED:card-number] ok")
        #expect(standard.redact("amex 3782-822463-10005") == "amex [REDACTED:card-number]")
        for text in ["order 4111111111111112", "ts 1700000000000000", "id 1234567812345670", "v 4111.1111111111111",
                     "4111 11 1111 1111 1111", "x4111111111111111", "4111111111111111abc"] {
            #expect(standard.redact(text) == text, "\(text)")
        }
    }

    @Test func personalDataWhenTheAppTurnsItOn() {
        #expect(everything.redact("mail sent to ann.lee+qa@example.co.uk.") == "mail sent to [REDACTED:email].")
        #expect(everything.redact("from 10.1.2.3:443") == "from [REDACTED:ipv4]:443")
        #expect(everything.redact("peer 2001:db8::1 up") == "peer [REDACTED:ipv6] up")
        #expect(everything.redact("peer fe80::1ff:fe23:4567:890a%eth0") == "peer [REDACTED:ipv6]%eth0")
        for text in ["at 12:30:45", "mac 00:1a:2b:3c:4d:5e", "version 1.2.3.4.5", "std::vector<int>", "a@b", "build 10.1.2"] {
            #expect(everything.redact(text) == text, "\(text)")
        }
        #expect(standard.redact("from 10.1.2.3 to ann@example.com") == "from 10.1.2.3 to ann@example.com")
    }

    @Test func anAttributeNamedForASecretIsReplacedWhole() {
        let record = LogRecord(
            timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "login",
            attributes: [.string("DB_PASSWORD", "hunter2"), .string("TOKEN", "abc"), .string("REQUEST_ID", "r-1"),
                         .string("http.request.header.authorization", "Basic Zm9v"), .string("API_KEY", "")])
        let out = standard.redact(record)
        #expect(out.attributes == [.string("DB_PASSWORD", "[REDACTED:password]"), .string("TOKEN", "[REDACTED:token]"),
                                   .string("REQUEST_ID", "r-1"),
                                   .string("http.request.header.authorization", "[REDACTED:authorization-header]"),
                                   .string("API_KEY", "")])
    }

    @Test func redactRulesTurnsRulesAndGroupsOnAndOff() {
        let (off, unknownOff) = RedactionRuleSet.standard(changedBy: ["-github-token", "-cloud"])
        #expect(unknownOff.isEmpty)
        #expect(!off.contains(.githubToken) && !off.contains(.awsAccessKeyID) && off.contains(.password))
        let (on, _) = RedactionRuleSet.standard(changedBy: ["+personal", "-ipv4"])
        #expect(on.contains(.email) && on.contains(.ipv6) && !on.contains(.ipv4))
        #expect(RedactionRuleSet.standard(changedBy: ["gihub-token", "-nope"]).unknown == ["gihub-token", "-nope"])
        #expect(!RedactionRuleSet.standard.contains(.email))
        let relaxed = try! Redactor(rules: off)
        #expect(relaxed.redact("key id \(Self.github)") == "key id \(Self.github)")
    }

    @Test func theCasesTheCorpusLeftToTheScanner() {
        // A service account's private key in JSON is a private key, not merely an API key.
        #expect(standard.redact(#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n"}"#)
            == #"{"type": "service_account", "private_key": "[REDACTED:private-key]"}"#)
        // A header quoted whole ends at its quote; the URL after it stays.
        #expect(standard.redact(#"curl -H "Authorization: Basic Zm9vOmJhcg==" https://api.example.com/v1"#)
            == #"curl -H "Authorization: [REDACTED:authorization-header]" https://api.example.com/v1"#)
        // CamelCase keys, dotted keys, Rails' secret_key_base.
        #expect(standard.redact(#"{"AccessKeyId": "ASIA", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG"}"#)
            == #"{"AccessKeyId": "ASIA", "SecretAccessKey": "[REDACTED:aws-secret-access-key]"}"#)
        #expect(standard.redact("fs.s3a.secret.key=abc123") == "fs.s3a.secret.key=[REDACTED:secret]")
        #expect(standard.redact("SECRET_KEY_BASE=9f8e7d") == "SECRET_KEY_BASE=[REDACTED:secret]")
        #expect(standard.redact("sudo: bob : TTY=pts/0 ; PWD=/home/bob ; USER=root ; COMMAND=/bin/ls")
            == "sudo: bob : TTY=pts/0 ; PWD=/home/bob ; USER=root ; COMMAND=/bin/ls")
        #expect(standard.redact("db_pwd=hunter2") == "db_pwd=[REDACTED:password]")
        // A PGP private key block.
        #expect(standard.redact("-----BEGIN PGP PRIVATE KEY BLOCK----- lQOYBF -----END PGP PRIVATE KEY BLOCK----- ok")
            == "[REDACTED:private-key] ok")
        // A trace id is an identifier, even when it looks like a card.
        #expect(standard.redact("dd.trace_id=4111111111111111 dd.span_id=1") == "dd.trace_id=4111111111111111 dd.span_id=1")
        #expect(standard.redact("rejected Bearer abcd1234efgh.") == "rejected Bearer [REDACTED:bearer-token].")
        #expect(standard.redact("posting to https://hooks.slack.com/workflows/T0123/A0456/789/AbCdEfGhIjKlMnOpQr")
            == "posting to https://hooks.slack.com/workflows/[REDACTED:slack-webhook]")
    }

    @Test func noRuleAtAllChangesNothing() throws {
        let none = try Redactor(rules: .none)
        #expect(none.redact("password=hunter2 \(Self.github)") == "password=hunter2 \(Self.github)")
    }
}
