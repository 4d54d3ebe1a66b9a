/// The built-in redaction rules of `Redactor`, as one scan over a text's UTF-8 bytes for all of
/// them at once: a byte table says what each byte may start (`ScanBytes.Trigger`), and only there
/// is a rule confirmed. Most bytes of a log line start nothing, so the common case is two table
/// loads a byte; no regular expression is involved.
///
/// Every byte the rules look for is ASCII, and no byte of a multibyte UTF-8 character is, so a
/// range always starts and ends on a character boundary.
enum BuiltInRules {
    struct Match: Equatable {
        var range: Range<Int>
        var rule: RedactionRule
    }

    struct Scan {
        var matches: [Match] = []
        /// A private key block began and did not end in this text.
        var privateKeyOpen = false
    }

    typealias Bytes = UnsafeBufferPointer<UInt8>


    static func scan(_ bytes: Bytes, rules: RedactionRuleSet, continuingPrivateKey: Bool) -> Scan {
        var scan = Scan()
        var index = 0
        if continuingPrivateKey {
            guard let end = privateKeyEnd(bytes, from: 0) else {
                if !bytes.isEmpty { scan.matches.append(Match(range: 0..<bytes.count, rule: .privateKey)) }
                scan.privateKeyOpen = true
                return scan
            }
            scan.matches.append(Match(range: 0..<end, rule: .privateKey))
            index = end
        }
        guard !rules.isEmpty else { return scan }
        return ScanBytes.withTriggers { triggers in
            scanRules(bytes, from: index, rules: rules, triggers: triggers, into: scan)
        }
    }

    /// A word (letters, digits, `_`) is looked at once, where it starts, and then skipped whole:
    /// the bytes inside words, most of a line, cost one table load each.
    private static func scanRules(
        _ bytes: Bytes, from start: Int, rules: RedactionRuleSet, triggers: UnsafeBufferPointer<ScanBytes.Trigger>,
        into scan: consuming Scan
    ) -> Scan {
        var scan = scan
        var index = start
        let keyValues = rules.contains(.password) || rules.contains(.secret) || rules.contains(.token)
            || rules.contains(.apiKey) || rules.contains(.awsSecretAccessKey) || rules.contains(.azureStorageKey)
        let ipv6 = rules.contains(.ipv6)
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            let trigger = triggers[Int(byte)]
            // Tested most likely first, as branches the processor learns, rather than a jump table
            // through which every byte would go.
            if trigger == .none {
                index += 1
                continue
            }
            var found: Match?
            if trigger.isWord {
                // A word starts here: the byte before it is none of a word's.
                found = wordStart(bytes, at: index, byte: byte, trigger: trigger, rules: rules, ipv6: ipv6)
                if found == nil {
                    index += 1
                    while index < count, triggers[Int(bytes[index])].isWord { index += 1 }
                    continue
                }
            }
            switch trigger {
            case .none, .word, .tokenLetter, .digit:
                break
            case .equals:
                if keyValues { found = keyValue(bytes, equals: index, rules: rules) }
            case .colon:
                found = colon(bytes, at: index, rules: rules, keyValues: keyValues)
                if found == nil, ipv6, let range = PersonalData.ipv6(bytes, at: index) { found = Match(range: range, rule: .ipv6) }
            case .dash:
                found = dash(bytes, at: index, rules: rules, keyValues: keyValues, scan: &scan)
            case .at:
                if rules.contains(.email), let range = PersonalData.email(bytes, at: index) {
                    found = Match(range: range, rule: .email)
                }
            }
            guard let found else {
                index += 1
                continue
            }
            scan.matches.append(found)
            index = max(found.range.upperBound, index + 1)
            // What follows a match inside a word is no word's start.
            if index < count, index > 0, triggers[Int(bytes[index - 1])].isWord {
                while index < count, triggers[Int(bytes[index])].isWord { index += 1 }
            }
        }
        return scan
    }

    /// What a word can start: a token of a known shape, a Bearer token, a card number, an address.
    @inline(__always)
    private static func wordStart(
        _ bytes: Bytes, at index: Int, byte: UInt8, trigger: ScanBytes.Trigger, rules: RedactionRuleSet, ipv6: Bool
    ) -> Match? {
        switch trigger {
        case .tokenLetter:
            if byte == UInt8(ascii: "b") || byte == UInt8(ascii: "B") {
                if rules.contains(.bearerToken), let found = bearer(bytes, at: index) { return found }
            } else if let (range, rule) = TokenPrefixes.match(bytes, at: index, rules: rules) {
                return Match(range: range, rule: rule)
            }
        case .digit:
            if rules.contains(.cardNumber), let range = CardNumber.match(bytes, at: index), !isIdentifierValue(bytes, at: index) {
                return Match(range: range, rule: .cardNumber)
            }
            if rules.contains(.ipv4), let range = PersonalData.ipv4(bytes, at: index) { return Match(range: range, rule: .ipv4) }
        default:
            break
        }
        if ipv6, ScanBytes.isHex(byte), let range = PersonalData.ipv6(bytes, at: index) { return Match(range: range, rule: .ipv6) }
        return nil
    }

    /// A number that is the value of a key ending in `id` (`dd.trace_id=…`, `"order_id": …`) is an
    /// identifier: a random 19-digit trace id passes a card's prefix and check one time in thirty.
    private static func isIdentifierValue(_ bytes: Bytes, at start: Int) -> Bool {
        var index = start
        if index > 0, bytes[index - 1] == UInt8(ascii: "\"") || bytes[index - 1] == UInt8(ascii: "'") { index -= 1 }
        while index > 0, ScanBytes.isSpace(bytes[index - 1]) { index -= 1 }
        guard index > 0, bytes[index - 1] == UInt8(ascii: "=") || bytes[index - 1] == UInt8(ascii: ":") else { return false }
        index -= 1
        while index > 0, ScanBytes.isSpace(bytes[index - 1]) { index -= 1 }
        if index > 0, bytes[index - 1] == UInt8(ascii: "\"") || bytes[index - 1] == UInt8(ascii: "'") { index -= 1 }
        return ScanBytes.endsWith(bytes, at: index, lowercased: "id")
    }

    // MARK: key=value

    /// `key=value`: the key before `=` names a secret. The value is up to a space, `&`, `;`, `,`,
    /// a quote, a closing bracket or `<`/`>`, or inside its quotes when quoted.
    private static func keyValue(_ bytes: Bytes, equals: Int, rules: RedactionRuleSet) -> Match? {
        guard equals > 0, SecretKeyName.mayEndAKeyword(bytes[equals - 1]) else { return nil }
        let keyStart = SecretKeyName.keyStart(bytes, before: equals)
        guard let rule = SecretKeyName.rule(bytes, keyStart, equals, rules: rules),
            let value = value(bytes, from: equals + 1, toEndOfLine: false)
        else { return nil }
        return Match(range: value, rule: specific(bytes, value, rules: rules) ?? rule)
    }

    /// A value that is itself a token of a known shape (`GITHUB_TOKEN=ghp_…`), or a private key
    /// (a service account's `"private_key": "-----BEGIN PRIVATE KEY-----\n…"`), is named for it.
    private static func specific(_ bytes: Bytes, _ value: Range<Int>, rules: RedactionRuleSet) -> RedactionRule? {
        if rules.contains(.privateKey), privateKeyBegin(bytes, at: value.lowerBound) != nil { return .privateKey }
        guard let (range, rule) = TokenPrefixes.match(bytes, at: value.lowerBound, rules: rules), range == value else {
            return nil
        }
        return rule
    }

    /// A value from `start`: inside its quotes (`"`, `'`, or JSON's escaped `\"`) when quoted,
    /// else to the end of the line or to the first delimiter. nil when empty.
    private static func value(_ bytes: Bytes, from start: Int, toEndOfLine: Bool) -> Range<Int>? {
        guard start < bytes.count else { return nil }
        let first = bytes[start]
        if first == UInt8(ascii: "\\"), start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "\"") {
            // `{\"password\":\"x\"}`, a JSON text inside a JSON string.
            var end = start + 2
            while end < bytes.count, !(bytes[end] == UInt8(ascii: "\\") && end + 1 < bytes.count
                && bytes[end + 1] == UInt8(ascii: "\"")), !ScanBytes.isLineBreak(bytes[end]) { end += 1 }
            return end > start + 2 ? (start + 2)..<end : nil
        }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            var end = start + 1
            while end < bytes.count, bytes[end] != first, !ScanBytes.isLineBreak(bytes[end]) {
                // A backslash keeps an escaped quote inside the value.
                end += bytes[end] == UInt8(ascii: "\\") && end + 1 < bytes.count ? 2 : 1
            }
            end = min(end, bytes.count)
            return end > start + 1 ? (start + 1)..<end : nil
        }
        let end = toEndOfLine
            ? ScanBytes.run(bytes, from: start) { !ScanBytes.isLineBreak($0) }
            : ScanBytes.run(bytes, from: start) { !isValueDelimiter($0) }
        var trimmed = end
        while trimmed > start, ScanBytes.isSpace(bytes[trimmed - 1]) { trimmed -= 1 }
        return trimmed > start ? start..<trimmed : nil
    }

    @inline(__always)
    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "<"),
            UInt8(ascii: ">"):
            true
        default: false
        }
    }

    // MARK: At a colon

    /// `scheme://user:pass@host`, `Authorization: …`, `"key": "value"`, and `key: value` where the
    /// key starts the line (a YAML or header dump: mid-line, `read password: permission denied`
    /// is prose).
    private static func colon(_ bytes: Bytes, at colon: Int, rules: RedactionRuleSet, keyValues: Bool) -> Match? {
        if rules.contains(.urlUserinfo), let range = userinfo(bytes, colon: colon) {
            return Match(range: range, rule: .urlUserinfo)
        }
        if rules.contains(.authorizationHeader), let range = authorization(bytes, colon: colon) {
            return Match(range: range, rule: .authorizationHeader)
        }
        guard keyValues else { return nil }
        return quotedKey(bytes, colon: colon, rules: rules) ?? lineStartKey(bytes, colon: colon, rules: rules)
    }

    /// `"key": value` and `'key': value` (JSON, Python's repr), `\"key\":` inside a JSON string.
    private static func quotedKey(_ bytes: Bytes, colon: Int, rules: RedactionRuleSet) -> Match? {
        var close = colon
        while close > 0, ScanBytes.isSpace(bytes[close - 1]) { close -= 1 }
        guard close > 1 else { return nil }
        let quote = bytes[close - 1]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        var keyEnd = close - 1
        if keyEnd > 0, bytes[keyEnd - 1] == UInt8(ascii: "\\") { keyEnd -= 1 }
        guard keyEnd > 0, SecretKeyName.mayEndAKeyword(bytes[keyEnd - 1]) else { return nil }
        let keyStart = SecretKeyName.keyStart(bytes, before: keyEnd)
        guard keyStart > 0, bytes[keyStart - 1] == quote, let rule = SecretKeyName.rule(bytes, keyStart, keyEnd, rules: rules)
        else { return nil }
        var start = colon + 1
        while start < bytes.count, ScanBytes.isSpace(bytes[start]) { start += 1 }
        guard let value = value(bytes, from: start, toEndOfLine: false), !isJSONLiteral(bytes, value) else { return nil }
        return Match(range: value, rule: specific(bytes, value, rules: rules) ?? rule)
    }

    /// `"token": null` holds no secret.
    private static func isJSONLiteral(_ bytes: Bytes, _ value: Range<Int>) -> Bool {
        let quoted = value.lowerBound > 0 && (bytes[value.lowerBound - 1] == UInt8(ascii: "\"")
            || bytes[value.lowerBound - 1] == UInt8(ascii: "'"))
        guard !quoted else { return false }
        func literal(_ text: StaticString) -> Bool {
            value.count == text.utf8CodeUnitCount && ScanBytes.hasPrefix(bytes, at: value.lowerBound, text)
        }
        return literal("null") || literal("true") || literal("false")
    }

    /// `key: value` with the key first on its line (after spaces and a YAML list's `- `).
    private static func lineStartKey(_ bytes: Bytes, colon: Int, rules: RedactionRuleSet) -> Match? {
        guard colon > 0, SecretKeyName.mayEndAKeyword(bytes[colon - 1]) else { return nil }
        let keyStart = SecretKeyName.keyStart(bytes, before: colon)
        guard let rule = SecretKeyName.rule(bytes, keyStart, colon, rules: rules) else { return nil }
        var before = keyStart
        if before >= 2, bytes[before - 1] == 0x20, bytes[before - 2] == UInt8(ascii: "-") { before -= 2 }
        while before > 0, ScanBytes.isSpace(bytes[before - 1]) { before -= 1 }
        guard before == 0 || ScanBytes.isLineBreak(bytes[before - 1]) else { return nil }
        var start = colon + 1
        guard start < bytes.count, ScanBytes.isSpace(bytes[start]) else { return nil }
        while start < bytes.count, ScanBytes.isSpace(bytes[start]) { start += 1 }
        guard let value = value(bytes, from: start, toEndOfLine: true) else { return nil }
        return Match(range: value, rule: specific(bytes, value, rules: rules) ?? rule)
    }

    // MARK: Authorization: value

    private static func authorization(_ bytes: Bytes, colon: Int) -> Range<Int>? {
        var end = colon
        while end > 0, ScanBytes.isSpace(bytes[end - 1]) { end -= 1 }
        if end > 0, bytes[end - 1] == UInt8(ascii: "\"") || bytes[end - 1] == UInt8(ascii: "'") { end -= 1 }
        guard ScanBytes.endsWith(bytes, at: end, lowercased: "authorization") else { return nil }
        var start = colon + 1
        while start < bytes.count, ScanBytes.isSpace(bytes[start]) { start += 1 }
        guard let found = value(bytes, from: start, toEndOfLine: true) else { return nil }
        // A header quoted whole (`curl -H "Authorization: Basic …" https://…`) ends at its quote.
        let keyStart = SecretKeyName.keyStart(bytes, before: end)
        if keyStart > 0, found.lowerBound == start, bytes[keyStart - 1] == UInt8(ascii: "\"") || bytes[keyStart - 1] == UInt8(ascii: "'"),
            let close = UnsafeBufferPointer(rebasing: bytes[found]).firstIndex(of: bytes[keyStart - 1])
        {
            return close > 0 ? start..<(start + close) : nil
        }
        return found
    }

    // MARK: At a dash

    /// A PEM private key's BEGIN line, or a command-line flag `--password value`.
    private static func dash(
        _ bytes: Bytes, at index: Int, rules: RedactionRuleSet, keyValues: Bool, scan: inout Scan
    ) -> Match? {
        if rules.contains(.privateKey), let headerEnd = privateKeyBegin(bytes, at: index) {
            if let end = privateKeyEnd(bytes, from: headerEnd) { return Match(range: index..<end, rule: .privateKey) }
            scan.privateKeyOpen = true
            return Match(range: index..<bytes.count, rule: .privateKey)
        }
        guard keyValues, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "-"),
            index == 0 || ScanBytes.isSpace(bytes[index - 1]) || bytes[index - 1] == UInt8(ascii: "\"")
                || bytes[index - 1] == UInt8(ascii: "'")
        else { return nil }
        let keyStart = index + 2
        let keyEnd = ScanBytes.run(bytes, from: keyStart, limit: SecretKeyName.maxKeyBytes + 1, SecretKeyName.isKeyByte)
        // `--password=value` is the `=` rule's; here, the value is the next word.
        guard keyEnd < bytes.count, ScanBytes.isSpace(bytes[keyEnd]),
            let rule = SecretKeyName.rule(bytes, keyStart, keyEnd, rules: rules)
        else { return nil }
        var start = keyEnd
        while start < bytes.count, ScanBytes.isSpace(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] != UInt8(ascii: "-"), let value = value(bytes, from: start, toEndOfLine: false)
        else { return nil }
        return Match(range: value, rule: specific(bytes, value, rules: rules) ?? rule)
    }

    // MARK: Bearer token

    /// "the bearer of the letter" is prose, not a token: real tokens are long, and a short one
    /// in a header is still caught by the Authorization rule.
    static let minBearerTokenBytes = 8

    private static func bearer(_ bytes: Bytes, at start: Int) -> Match? {
        let wordEnd = start + 6
        guard wordEnd < bytes.count, ScanBytes.endsWith(bytes, at: wordEnd, lowercased: "bearer") else { return nil }
        var tokenStart = wordEnd
        while tokenStart < bytes.count, ScanBytes.isSpace(bytes[tokenStart]) { tokenStart += 1 }
        guard tokenStart > wordEnd else { return nil }
        var end = ScanBytes.run(bytes, from: tokenStart, isTokenByte)
        // A sentence's full stop is not the token's.
        while end > tokenStart, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        guard end - tokenStart >= minBearerTokenBytes else { return nil }
        // A token is random: it has a digit or a symbol. "Bearer authentication failed" is prose.
        guard UnsafeBufferPointer(rebasing: bytes[tokenStart..<end]).contains(where: { !ScanBytes.isAlphanumeric($0) || ScanBytes.isDigit($0) })
        else { return nil }
        let range = tokenStart..<end
        return Match(range: range, rule: specific(bytes, range, rules: .all) ?? .bearerToken)
    }

    /// RFC 6750's b64token characters, without the trailing `=`.
    @inline(__always)
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        ScanBytes.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "/")
    }

    // MARK: URL userinfo

    private static func userinfo(_ bytes: Bytes, colon: Int) -> Range<Int>? {
        let start = colon + 3
        guard start <= bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/"),
            colon > 0, isSchemeByte(bytes[colon - 1])
        else { return nil }
        // The authority ends at the path, query, fragment or anything a URL in a log line ends
        // with; userinfo is what comes before its last `@`.
        var lastAt: Int?
        var index = start
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""),
                UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                break scan
            case UInt8(ascii: "@"): lastAt = index
            default: break
            }
            index += 1
        }
        guard let lastAt, lastAt > start else { return nil }
        return start..<lastAt
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        ScanBytes.isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    // MARK: PEM private keys

    private static var beginMarker: StaticString { "-----BEGIN " }
    private static var endMarker: StaticString { "-----END " }
    private static var dashes: StaticString { "-----" }
    private static var privateKeyLabel: StaticString { "PRIVATE KEY" }
    private static var pgpLabel: StaticString { "PRIVATE KEY BLOCK" }
    /// `ENCRYPTED PRIVATE KEY`, `OPENSSH PRIVATE KEY`: a label is short.
    private static let maxLabelBytes = 40

    /// The index after `-----BEGIN <label>PRIVATE KEY-----` at `start`.
    private static func privateKeyBegin(_ bytes: Bytes, at start: Int) -> Int? {
        guard ScanBytes.hasPrefix(bytes, at: start, beginMarker) else { return nil }
        return privateKeyLabelEnd(bytes, from: start + beginMarker.utf8CodeUnitCount)
    }

    /// The index after the first `-----END <label>PRIVATE KEY-----` from `start`.
    static func privateKeyEnd(_ bytes: Bytes, from start: Int) -> Int? {
        var index = start
        while let found = ScanBytes.firstIndex(of: endMarker, in: bytes, from: index) {
            if let end = privateKeyLabelEnd(bytes, from: found + endMarker.utf8CodeUnitCount) { return end }
            index = found + 1
        }
        return nil
    }

    /// A label of capitals, digits and spaces ending in `PRIVATE KEY` (or PGP's `PRIVATE KEY
    /// BLOCK`), then `-----`.
    private static func privateKeyLabelEnd(_ bytes: Bytes, from start: Int) -> Int? {
        var index = start
        while index < bytes.count, index - start <= maxLabelBytes {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-") {
                guard ScanBytes.hasPrefix(bytes, at: index, dashes),
                    ScanBytes.hasPrefix(bytes, at: index - privateKeyLabel.utf8CodeUnitCount, privateKeyLabel)
                        || ScanBytes.hasPrefix(bytes, at: index - pgpLabel.utf8CodeUnitCount, pgpLabel)
                else { return nil }
                return index + dashes.utf8CodeUnitCount
            }
            guard (byte >= 0x41 && byte <= 0x5A) || ScanBytes.isDigit(byte) || byte == 0x20 else { return nil }
            index += 1
        }
        return nil
    }

    static func contains(_ bytes: Bytes, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        return needle.withUnsafeBufferPointer { needle in
            var index = 0
            while index <= bytes.count - needle.count {
                if bytes[index] == first, ScanBytes.hasPrefix(bytes, at: index, needle) { return true }
                index += 1
            }
            return false
        }
    }
}
