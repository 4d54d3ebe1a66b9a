/// Tokens known by their documented shape: a fixed prefix, then characters of a set, as a word.
/// The shapes are the issuers' own (GitHub's, GitLab's, Slack's, Stripe's, … token formats) as
/// the secret scanners of GitHub and gitleaks recognise them; each is checked only where a word
/// starts with the prefix's first letter.
enum TokenPrefixes {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    enum Characters {
        /// `[A-Za-z0-9]`
        case alphanumeric
        /// `[A-Za-z0-9_]`
        case word
        /// `[A-Za-z0-9_-]`, base64url
        case base64URL
        /// `[0-9A-Za-z-]`
        case alphanumericDash
        /// `[A-Z0-9]`
        case upperAlphanumeric
        /// `[0-9a-f]`
        case lowerHex

        @inline(__always)
        func accepts(_ byte: UInt8) -> Bool {
            switch self {
            case .alphanumeric: ScanBytes.isAlphanumeric(byte)
            case .word: ScanBytes.isWord(byte)
            case .base64URL: ScanBytes.isWord(byte) || byte == UInt8(ascii: "-")
            case .alphanumericDash: ScanBytes.isAlphanumeric(byte) || byte == UInt8(ascii: "-")
            case .upperAlphanumeric: (byte >= 0x41 && byte <= 0x5A) || ScanBytes.isDigit(byte)
            case .lowerHex: ScanBytes.isDigit(byte) || (byte >= 0x61 && byte <= 0x66)
            }
        }
    }

    struct Shape {
        let prefix: [UInt8]
        let characters: Characters
        /// How many characters after the prefix: exactly `minimum` when `maximum` equals it.
        let minimum: Int
        let maximum: Int
        let rule: RedactionRule

        /// Exactly `count` characters after the prefix.
        init(_ prefix: String, _ characters: Characters, _ count: Int, _ rule: RedactionRule) {
            self.init(prefix, characters, count, count, rule)
        }

        init(_ prefix: String, _ characters: Characters, _ minimum: Int, _ maximum: Int, _ rule: RedactionRule) {
            self.prefix = Array(prefix.utf8)
            self.characters = characters
            self.minimum = minimum
            self.maximum = maximum
            self.rule = rule
        }
    }

    static let shapes: [Shape] = [
        Shape("AKIA", .upperAlphanumeric, 16, .awsAccessKeyID), Shape("ASIA", .upperAlphanumeric, 16, .awsAccessKeyID),
        Shape("ABIA", .upperAlphanumeric, 16, .awsAccessKeyID), Shape("ACCA", .upperAlphanumeric, 16, .awsAccessKeyID),
        Shape("AIza", .base64URL, 35, .googleAPIKey),
        Shape("ghp_", .alphanumeric, 36, .githubToken), Shape("gho_", .alphanumeric, 36, .githubToken),
        Shape("ghu_", .alphanumeric, 36, .githubToken), Shape("ghs_", .alphanumeric, 36, .githubToken),
        Shape("ghr_", .alphanumeric, 36, .githubToken), Shape("github_pat_", .word, 82, .githubToken),
        Shape("glpat-", .base64URL, 20, 255, .gitlabToken), Shape("glrt-", .base64URL, 20, 255, .gitlabToken),
        Shape("gldt-", .base64URL, 20, 255, .gitlabToken),
        Shape("xoxb-", .alphanumericDash, 10, 255, .slackToken), Shape("xoxp-", .alphanumericDash, 10, 255, .slackToken),
        Shape("xoxa-", .alphanumericDash, 10, 255, .slackToken), Shape("xoxr-", .alphanumericDash, 10, 255, .slackToken),
        Shape("xoxs-", .alphanumericDash, 10, 255, .slackToken), Shape("xapp-", .alphanumericDash, 10, 255, .slackToken),
        Shape("sk_live_", .alphanumeric, 24, 255, .stripeKey), Shape("sk_test_", .alphanumeric, 24, 255, .stripeKey),
        Shape("rk_live_", .alphanumeric, 24, 255, .stripeKey), Shape("rk_test_", .alphanumeric, 24, 255, .stripeKey),
        Shape("SK", .lowerHex, 32, .twilioKey),
        Shape("npm_", .alphanumeric, 36, .npmToken),
        Shape("pypi-AgEIcHlwaS5vcmc", .base64URL, 50, 1024, .pypiToken),
    ]

    /// The letters a shape starts with, and `b`/`B` (Bearer), `e` (a JWT's `ey`), `S` (SendGrid's
    /// `SG.`), `h` (a Slack webhook's `https://hooks.slack.com`).
    static let firstLetters: Set<UInt8> = Set(shapes.map { $0.prefix[0] } + Array("bBeSh".utf8))

    /// Whether a token can start with these two bytes: most words that start with a prefix's first
    /// letter (`server`, `path`, `error`) are turned away here, before any shape is tried.
    @inline(__always)
    static func mayStart(_ first: UInt8, _ second: UInt8) -> Bool {
        switch (first, second) {
        case (UInt8(ascii: "A"), UInt8(ascii: "K")), (UInt8(ascii: "A"), UInt8(ascii: "S")), (UInt8(ascii: "A"), UInt8(ascii: "B")),
            (UInt8(ascii: "A"), UInt8(ascii: "C")), (UInt8(ascii: "A"), UInt8(ascii: "I")),
            (UInt8(ascii: "g"), UInt8(ascii: "h")), (UInt8(ascii: "g"), UInt8(ascii: "i")), (UInt8(ascii: "g"), UInt8(ascii: "l")),
            (UInt8(ascii: "x"), UInt8(ascii: "o")), (UInt8(ascii: "x"), UInt8(ascii: "a")),
            (UInt8(ascii: "s"), UInt8(ascii: "k")), (UInt8(ascii: "r"), UInt8(ascii: "k")),
            (UInt8(ascii: "S"), UInt8(ascii: "K")), (UInt8(ascii: "S"), UInt8(ascii: "G")),
            (UInt8(ascii: "n"), UInt8(ascii: "p")), (UInt8(ascii: "p"), UInt8(ascii: "y")),
            (UInt8(ascii: "e"), UInt8(ascii: "y")), (UInt8(ascii: "h"), UInt8(ascii: "t")):
            true
        default:
            false
        }
    }

    /// The token starting at `start`, where a word starts.
    static func match(_ bytes: Bytes, at start: Int, rules: RedactionRuleSet) -> (Range<Int>, RedactionRule)? {
        guard start + 1 < bytes.count, mayStart(bytes[start], bytes[start + 1]) else { return nil }
        let first = bytes[start]
        for shape in shapes where shape.prefix[0] == first && rules.contains(shape.rule) {
            guard ScanBytes.hasPrefix(bytes, at: start, shape.prefix) else { continue }
            let body = start + shape.prefix.count
            let end = ScanBytes.run(bytes, from: body, limit: shape.maximum + 1, shape.characters.accepts)
            let count = end - body
            guard count >= shape.minimum, count <= shape.maximum, !continuesWord(bytes, end) else { continue }
            return (start..<end, shape.rule)
        }
        switch first {
        case UInt8(ascii: "S") where rules.contains(.sendgridKey): return sendgrid(bytes, at: start)
        case UInt8(ascii: "e") where rules.contains(.jwt): return jwt(bytes, at: start)
        case UInt8(ascii: "h") where rules.contains(.slackWebhook): return slackWebhook(bytes, at: start)
        default: return nil
        }
    }

    @inline(__always)
    private static func continuesWord(_ bytes: Bytes, _ end: Int) -> Bool {
        end < bytes.count && ScanBytes.isAlphanumeric(bytes[end])
    }

    private static let sendgridPrefix = Array("SG.".utf8)

    /// `SG.` + 22 + `.` + 43, base64url.
    private static func sendgrid(_ bytes: Bytes, at start: Int) -> (Range<Int>, RedactionRule)? {
        guard ScanBytes.hasPrefix(bytes, at: start, sendgridPrefix) else { return nil }
        let first = start + sendgridPrefix.count
        let firstEnd = ScanBytes.run(bytes, from: first, limit: 23, Characters.base64URL.accepts)
        guard firstEnd - first == 22, firstEnd < bytes.count, bytes[firstEnd] == UInt8(ascii: ".") else { return nil }
        let second = firstEnd + 1
        let end = ScanBytes.run(bytes, from: second, limit: 44, Characters.base64URL.accepts)
        guard end - second == 43, !continuesWord(bytes, end) else { return nil }
        return (start..<end, .sendgridKey)
    }

    /// A JSON Web Token: a header and a payload of base64url, each starting `ey` (`{"` encoded)
    /// and at least 17 more characters, and a signature that may be empty (an unsigned token).
    private static func jwt(_ bytes: Bytes, at start: Int) -> (Range<Int>, RedactionRule)? {
        guard let headerEnd = jwtPart(bytes, from: start), headerEnd < bytes.count, bytes[headerEnd] == UInt8(ascii: "."),
            let payloadEnd = jwtPart(bytes, from: headerEnd + 1), payloadEnd < bytes.count,
            bytes[payloadEnd] == UInt8(ascii: ".")
        else { return nil }
        let end = ScanBytes.run(bytes, from: payloadEnd + 1, Characters.base64URL.accepts)
        return (start..<end, .jwt)
    }

    private static func jwtPart(_ bytes: Bytes, from start: Int) -> Int? {
        guard start + 2 <= bytes.count, bytes[start] == UInt8(ascii: "e"), bytes[start + 1] == UInt8(ascii: "y") else {
            return nil
        }
        let end = ScanBytes.run(bytes, from: start + 2, Characters.base64URL.accepts)
        return end - start - 2 >= 17 ? end : nil
    }

    private static let slackHooks = ["services", "workflows", "triggers"].map { Array("https://hooks.slack.com/\($0)/".utf8) }

    /// A Slack webhook (incoming, workflow or trigger): its path after the kind is the secret.
    private static func slackWebhook(_ bytes: Bytes, at start: Int) -> (Range<Int>, RedactionRule)? {
        guard let hook = slackHooks.first(where: { ScanBytes.hasPrefix(bytes, at: start, $0) }) else { return nil }
        let path = start + hook.count
        let end = ScanBytes.run(bytes, from: path) { ScanBytes.isAlphanumeric($0) || $0 == UInt8(ascii: "/") }
        return end - path >= 20 ? (path..<end, .slackWebhook) : nil
    }
}
