/// Whether a key names a secret, and which: the key of `key=value`, `"key": "value"`, `key: value`,
/// `--key value`, and of a structured journal field (`DB_PASSWORD=` sent with `sd_journal_send`).
///
/// A key names a secret when it *ends with* one of the keywords, compared without regard to ASCII
/// case and with `_`, `-` and `.` left out, so `DB_PASSWORD`, `x-api-key`, `refresh_token`,
/// `client_secret`, `secretKey`, `SecretAccessKey` (AWS STS's output) and `fs.s3a.secret.key` are
/// caught, and `tokens`, `secretary`, `password_changed` or `api_key_id` are not. `pwd` counts only
/// after a separator (`admin_pwd`, `DB-PWD`): a bare `PWD=/home/alice` is the working directory in
/// every sudo line.
enum SecretKeyName {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    private struct Keyword {
        /// Lowercase, without separators.
        let letters: [UInt8]
        let rule: RedactionRule
        /// Only when a separator comes just before it.
        let afterSeparator: Bool
    }

    /// Most specific first: `aws_secret_access_key` before `secret_key` before `secret`.
    private static let keywords: [Keyword] = ([
        ("aws_secret_access_key", .awsSecretAccessKey), ("secret_access_key", .awsSecretAccessKey),
        ("aws_secret_key", .awsSecretAccessKey),
        ("accountkey", .azureStorageKey), ("sharedaccesskey", .azureStorageKey),
        ("password", .password), ("passwd", .password), ("passphrase", .password),
        ("client_secret", .secret), ("secret_key_base", .secret), ("secret_key", .secret), ("secret", .secret),
        ("token", .token),
        ("api_key", .apiKey), ("access_key", .apiKey), ("private_key", .apiKey), ("auth_key", .apiKey),
    ] as [(String, RedactionRule)]).map {
        Keyword(letters: Array($0.0.utf8).filter { !isSeparator($0) }, rule: $0.1, afterSeparator: false)
    } + [Keyword(letters: Array("pwd".utf8), rule: .password, afterSeparator: true)]

    /// An attribute named `authorization` (an HTTP header recorded whole) is a credential too.
    private static let authorization = Array("authorization".utf8)

    /// Keys are short; a longer run is not a key.
    static let maxKeyBytes = 64

    /// The rule of the key in `bytes[start..<end]`, if it names a secret the set turns on.
    static func rule(_ bytes: Bytes, _ start: Int, _ end: Int, rules: RedactionRuleSet) -> RedactionRule? {
        guard end > start, end - start <= maxKeyBytes else { return nil }
        for keyword in keywords {
            guard let first = endMatch(bytes, start, end, keyword.letters) else { continue }
            if keyword.afterSeparator, first == start || !isSeparator(bytes[first - 1]) { continue }
            return rules.contains(keyword.rule) ? keyword.rule : nil
        }
        return nil
    }

    /// The rule of an attribute's key: as above, and `…authorization` (the whole value is the
    /// credential).
    static func attributeRule(_ key: String, rules: RedactionRuleSet) -> RedactionRule? {
        var key = key
        return key.withUTF8 { bytes in
            if let rule = rule(bytes, 0, bytes.count, rules: rules) { return rule }
            guard endMatch(bytes, 0, bytes.count, authorization) != nil, rules.contains(.authorizationHeader) else { return nil }
            return .authorizationHeader
        }
    }

    /// A byte of a key: letters, digits, `_`, `-` and `.` (`spring.datasource.password`).
    @inline(__always)
    static func isKeyByte(_ byte: UInt8) -> Bool {
        ScanBytes.isWord(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    @inline(__always)
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Where the key ending at `end` starts.
    static func keyStart(_ bytes: Bytes, before end: Int) -> Int {
        var start = end
        while start > 0, end - start < maxKeyBytes + 1, isKeyByte(bytes[start - 1]) { start -= 1 }
        return start
    }

    /// Where the key's last letters spell `letters` (separators skipped), nil when they do not.
    private static func endMatch(_ bytes: Bytes, _ start: Int, _ end: Int, _ letters: [UInt8]) -> Int? {
        var index = end
        var remaining = letters.count
        while remaining > 0 {
            guard index > start else { return nil }
            index -= 1
            let byte = bytes[index]
            if isSeparator(byte) {
                // A separator at the very end belongs to no keyword (`token_`).
                if remaining == letters.count { return nil }
                continue
            }
            remaining -= 1
            guard ScanBytes.lowercase(byte) == letters[remaining] else { return nil }
        }
        return index
    }
}
