import ApsioCore
import ApsioRedaction
import Testing

@Suite struct RedactorTests {
    let redactor = try! Redactor()

    func redacted(_ text: String) -> String { redactor.redact(text) }

    // MARK: Authorization

    @Test(arguments: [
        ("GET / Authorization: Basic dXNlcjpwYXNz", "GET / Authorization: [REDACTED:authorization-header]"),
        ("authorization:Bearer abc", "authorization:[REDACTED:authorization-header]"),
        ("AUTHORIZATION:   Negotiate YII=  ", "AUTHORIZATION:   [REDACTED:authorization-header]  "),
        ("Proxy-Authorization: Basic Zm9v", "Proxy-Authorization: [REDACTED:authorization-header]"),
        (#"headers={"Authorization": "Bearer abc", "Accept": "*/*"}"#, #"headers={"Authorization": "[REDACTED:authorization-header]", "Accept": "*/*"}"#),
        ("Authorization: Basic Zm9v\nnext line", "Authorization: [REDACTED:authorization-header]\nnext line"),
    ])
    func authorizationValues(_ text: String, _ expected: String) {
        #expect(redacted(text) == expected)
    }

    @Test(arguments: ["authorization failed for user bob", "Authorization:", "Authorization:   ", "no auth here: none",
                      "unauthorized: retry"])
    func authorizationNegatives(_ text: String) {
        #expect(redacted(text) == text)
    }

    // MARK: Bearer

    @Test(arguments: [
        ("sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc-def_ghi", "sent Bearer [REDACTED:bearer-token]"),
        ("bearer  dGhpcyBpcyBhIHRva2Vu== rest", "bearer  [REDACTED:bearer-token] rest"),
        ("(BEARER abcd1234)", "(BEARER [REDACTED:bearer-token])"),
    ])
    func bearerTokens(_ text: String, _ expected: String) {
        #expect(redacted(text) == expected)
    }

    @Test(arguments: ["the bearer of bad news", "Bearer", "Bearer short", "forbearer abcd1234efgh", "Bearer\tabc",
                      "token_type bearer", "Bearer authentication failed for client 7", "sent the Bearer tokens."])
    func bearerNegatives(_ text: String) {
        #expect(redacted(text) == text)
    }

    // MARK: key=value

    @Test(arguments: [
        ("login password=hunter2 ok", "login password=[REDACTED:password] ok"),
        ("passwd=x", "passwd=[REDACTED:password]"),
        ("secret=s3cr3t;next", "secret=[REDACTED:secret];next"),
        ("GET /cb?access_token=abc.def&state=1", "GET /cb?access_token=[REDACTED:token]&state=1"),
        ("DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED:password]"),
        ("Token=abc,Secret=def", "Token=[REDACTED:token],Secret=[REDACTED:secret]"),
        (#"password="correct horse battery" user=bob"#, #"password="[REDACTED:password]" user=bob"#),
        ("password='a b' x", "password='[REDACTED:password]' x"),
        ("args(password=xyz)", "args(password=[REDACTED:password])"),
        ("client_secret=abc}", "client_secret=[REDACTED:secret]}"),
    ])
    func secretValues(_ text: String, _ expected: String) {
        #expect(redacted(text) == expected)
    }

    @Test(arguments: ["tokens=5", "password= x", "password=", "passwords are rotated", "token expired", "secretary=alice",
                      "the key is token", #"password="""#])
    func secretNegatives(_ text: String) {
        #expect(redacted(text) == text)
    }

    // MARK: PEM private keys

    static let rsaKey = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MQszH2Ch3D5q0q8u
        -----END RSA PRIVATE KEY-----
        """

    @Test(arguments: ["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    func privateKeyBlocks(_ label: String) {
        let text = "key follows\n-----BEGIN \(label)-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8w\nYWJj\n-----END \(label)-----\ndone"
        #expect(redacted(text) == "key follows\n[REDACTED:private-key]\ndone")
    }

    @Test func aPrivateKeyWithoutItsEndIsRedactedToTheEnd() {
        #expect(redacted("x -----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBg") == "x [REDACTED:private-key]")
    }

    @Test func certificatesAndPublicKeysAreNotSecrets() {
        let text = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"
        #expect(redacted(text) == text)
        #expect(redacted("-----BEGIN private key-----") == "-----BEGIN private key-----")
        #expect(redacted("--- a - b -----") == "--- a - b -----")
    }

    @Test func anEndOfAnotherKindDoesNotCloseAPrivateKey() {
        let text = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END CERTIFICATE-----\nBBBB\n-----END PRIVATE KEY----- tail"
        #expect(redacted(text) == "[REDACTED:private-key] tail")
    }

    // MARK: URL userinfo

    @Test(arguments: [
        ("postgres://app:s3cret@db.internal:5432/app", "postgres://[REDACTED:url-userinfo]@db.internal:5432/app"),
        ("fetching https://user@example.com/x", "fetching https://[REDACTED:url-userinfo]@example.com/x"),
        ("https://a:b@c@host/x?y=1", "https://[REDACTED:url-userinfo]@host/x?y=1"),
        ("redis://:pa55@cache", "redis://[REDACTED:url-userinfo]@cache"),
        ("<amqp://guest:guest@rabbit>", "<amqp://[REDACTED:url-userinfo]@rabbit>"),
    ])
    func urlUserinfo(_ text: String, _ expected: String) {
        #expect(redacted(text) == expected)
    }

    @Test(arguments: ["https://example.com/users/a@b.com", "mailto:a@b.com", "https://example.com?from=a@b", "://@host",
                      "see https://example.com and mail bob@example.com", "https://@host"])
    func urlNegatives(_ text: String) {
        #expect(redacted(text) == text)
    }

    // MARK: Together

    @Test func severalSecretsInOneLine() {
        let text = "curl https://u:p@h.example/x?token=abc&password=def -H 'X-Key: y' Bearer abcd-efgh-ijkl secret=zz"
        #expect(redacted(text)
            == "curl https://[REDACTED:url-userinfo]@h.example/x?token=[REDACTED:token]&password=[REDACTED:password] -H 'X-Key: y' Bearer [REDACTED:bearer-token] secret=[REDACTED:secret]")
    }

    @Test func multibyteTextAroundSecrets() {
        #expect(redacted("mot de passe: password=pässwörd🔑 ok ✓") == "mot de passe: password=[REDACTED:password] ok ✓")
        #expect(redacted("東京 token=秘密 大阪") == "東京 token=[REDACTED:token] 大阪")
        #expect(redacted("🔐 https://ユーザー:秘密@例え.jp/パス") == "🔐 https://[REDACTED:url-userinfo]@例え.jp/パス")
        #expect(redacted("日本語のログ、秘密なし") == "日本語のログ、秘密なし")
    }

    @Test func textWithoutSecretsIsUnchanged() {
        for text in ["", "plain", "Started nginx.service - A high performance web server.", "a=b c:d -e b"] {
            #expect(redacted(text) == text)
        }
    }

    // MARK: Redact= patterns

    @Test func customPatternsReplaceEachMatch() throws {
        let redactor = try Redactor(patterns: ["card=[0-9 ]{12,19}", #"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b"#])
        #expect(redactor.redact("paid card=4111 1111 1111 1111 ok") == "paid [REDACTED] ok")
        #expect(redactor.redact("ssn 123-45-6789 and 987-65-4321.") == "ssn [REDACTED] and [REDACTED].")
        #expect(redactor.redact("card=12 too short") == "card=12 too short")
    }

    @Test func customAndBuiltInMatchesThatOverlapBecomeOneMarker() throws {
        let redactor = try Redactor(patterns: ["user=[a-z]+ password"])
        #expect(redactor.redact("user=bob password=x end") == "[REDACTED]=[REDACTED:password] end")
        let touching = try Redactor(patterns: ["ab"])
        #expect(touching.redact("xababy") == "x[REDACTED]y")
    }

    @Test func customPatternsSeeMultibyteText() throws {
        let redactor = try Redactor(patterns: ["名前=[^ ]+", "(?i)pin:[0-9]+"])
        #expect(redactor.redact("顧客 名前=山田太郎 様 PIN:1234") == "顧客 [REDACTED] 様 [REDACTED]")
    }

    /// The quick literal check never hides a match the pattern would find: a precomposed é in the
    /// pattern matches a decomposed one in the text (canonical equivalence).
    @Test func theLiteralPrefilterNeverMissesAMatch() throws {
        let redactor = try Redactor(patterns: ["caf\u{e9}=[0-9]+"])
        #expect(redactor.redact("x cafe\u{301}=42 y") == "x [REDACTED] y")
    }

    /// A pattern wrapped in a group has no literal prefix, so it always runs: with and without
    /// the prefilter, every text comes out the same.
    @Test(arguments: [
        "caf\u{e9}=[0-9]+", "Kelvin=[0-9]+", "key;[a-z]+", "ab+c", "ab?c", "id`[0-9]", "x{2}y", "Ω=[0-9]",
        // A combining mark makes one character of the letter before it: "cafe\u{301}" is the text's
        // precomposed "caf\u{e9}", and a quantifier after the mark applies to both (found by the
        // pattern fuzzer).
        "cafe\u{301}=[0-9]+", "e\u{301}?c",
    ])
    func thePrefilterAgreesWithThePatternAlone(_ pattern: String) throws {
        let filtered = try Redactor(patterns: [pattern])
        let unfiltered = try Redactor(patterns: ["(?:\(pattern))"])
        let texts = ["cafe\u{301}=1", "caf\u{e9}=2", "\u{212A}elvin=3", "Kelvin=4", "key\u{37E}abc", "key;abc", "ac abc abbbc",
                     "id\u{1FEF}1 id`2", "xxy xy", "\u{2126}=5 \u{3A9}=6", "nothing", " ahc"]
        for text in texts {
            #expect(filtered.redact(text) == unfiltered.redact(text), "\(pattern) on \(text)")
        }
    }

    @Test func anInvalidPatternIsATypedErrorWithThePattern() {
        #expect(throws: RedactionError.self) { try Redactor(patterns: ["ok", "a(b"]) }
        do {
            _ = try Redactor(patterns: ["ok", "a(b"])
        } catch {
            #expect(error.pattern == "a(b")
            guard case .invalid = error.reason else { Issue.record("\(error.reason)"); return }
            #expect(error.description.hasPrefix("Redact=a(b is not a valid regular expression: "))
        }
    }

    @Test(arguments: ["", "x*", "(a|)", "[0-9]{0,3}"])
    func aPatternThatMatchesNothingAtAllIsRefused(_ pattern: String) {
        #expect(throws: RedactionError(pattern: pattern, reason: .matchesEmpty)) { try Redactor(patterns: [pattern]) }
    }

    @Test func emptyMatchesInsideTextAreSkipped() throws {
        // Matches only a position before "a", never a character: nothing is replaced.
        let redactor = try Redactor(patterns: ["(?=a)"])
        #expect(redactor.redact("banana") == "banana")
    }

    // MARK: Records

    @Test func aRecordsBodyAndStringAttributesAreRedacted() {
        let record = LogRecord(
            timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "login password=hunter2",
            attributes: [.string("url", "https://a:b@host/"), .int("password", 5), .string("token=", "plain"),
                         .bool("secret=x", true)],
            sessionID: "s", journalCursor: "c")
        let out = redactor.redact(record)
        #expect(out.body == "login password=[REDACTED:password]")
        #expect(out.attributes == [.string("url", "https://[REDACTED:url-userinfo]@host/"), .int("password", 5),
                                   .string("token=", "plain"), .bool("secret=x", true)])
        #expect(out.sessionID == "s" && out.journalCursor == "c" && out.timeUnixNano == 1)
    }

    @Test func aRecordWithoutSecretsIsUnchanged() {
        let record = LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 3), body: "connection reset",
                               attributes: [.string("peer", "10.0.0.1")])
        #expect(redactor.redact(record) == record)
    }

    // MARK: A private key printed line by line

    func lines(_ bodies: [String]) -> [LogRecord] {
        bodies.map { LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: $0) }
    }

    @Test func aKeySpreadOverEntriesIsRedactedEntryByEntry() {
        var stream = RedactionStream(redactor: redactor)
        let bodies = ["loading key", "[tls] -----BEGIN EC PRIVATE KEY-----", "[tls] MHcCAQEEIO8n", "", "[tls] AwEHoUQDQgAE",
                      "[tls] -----END EC PRIVATE KEY----- loaded", "listening on :443"]
        let out = lines(bodies).map { stream.redact($0).body }
        #expect(out == ["loading key", "[tls] [REDACTED:private-key]", "[REDACTED:private-key]", "", "[REDACTED:private-key]", "[REDACTED:private-key] loaded",
                        "listening on :443"])
        #expect(!stream.isInsidePrivateKey)
    }

    @Test func aBlockThatNeverClosesEndsAfterItsLimit() {
        var limits = Limits.spec
        limits.maxPrivateKeyLines = 3
        var stream = RedactionStream(redactor: redactor, limits: limits)
        let out = lines(["-----BEGIN PRIVATE KEY-----", "a", "b", "c", "d", "e"]).map { stream.redact($0).body }
        #expect(out == Array(repeating: "[REDACTED:private-key]", count: 4) + ["d", "e"])
    }

    @Test func aStreamStillAppliesEveryOtherRule() {
        var stream = RedactionStream(redactor: try! Redactor(patterns: ["card=[0-9]+"]))
        let out = lines(["password=x card=1234", "ok"]).map { stream.redact($0).body }
        #expect(out == ["password=[REDACTED:password] [REDACTED]", "ok"])
    }

    /// A unit's records share one attribute array, redacted once for all of them: each still comes
    /// out redacted, a record with other attributes is redacted on its own, and nothing is mixed up.
    @Test func recordsSharingAttributesAreEachRedacted() {
        var stream = RedactionStream(redactor: redactor)
        let shared: [Attribute] = [.string("url", "https://a:b@host/"), .string("unit", "web.service")]
        let own: [Attribute] = [.string("auth", "Bearer abcdefgh12345678"), .string("unit", "web.service")]
        let records = [shared, shared, own, shared, []].map {
            LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "x", attributes: $0)
        }
        let out = records.map { stream.redact($0).attributes }
        let redactedShared: [Attribute] = [.string("url", "https://[REDACTED:url-userinfo]@host/"), .string("unit", "web.service")]
        #expect(out == [redactedShared, redactedShared, [.string("auth", "Bearer [REDACTED:bearer-token]"), .string("unit", "web.service")],
                        redactedShared, []])
    }
}
