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

    /// Keys are short; a longer run is not a key.
    static let maxKeyBytes = 64

    /// Whether a key ending with this byte can name a secret: every keyword ends in d, e, n, t or
    /// y, so a caller looks at the byte before `=` or `:` before it looks for the key's start.
    @inline(__always)
    static func mayEndAKeyword(_ byte: UInt8) -> Bool {
        switch ScanBytes.lowercase(byte) {
        case UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "y"): true
        default: false
        }
    }

    /// The rule of the key in `bytes[start..<end]`, if it names a secret the set turns on.
    ///
    /// The keywords, by the letter they end with, most specific first (`aws_secret_access_key`
    /// before `secret_key`); every keyword ends in d, e, n, t or y, so the other keys of
    /// `key=value` and JSON, which is most of them, stop at the switch.
    static func rule(_ bytes: Bytes, _ start: Int, _ end: Int, rules: RedactionRuleSet) -> RedactionRule? {
        guard end > start, end - start <= maxKeyBytes else { return nil }
        func ends(_ letters: StaticString) -> Bool { endMatch(bytes, start, end, letters) != nil }
        let rule: RedactionRule?
        switch ScanBytes.lowercase(bytes[end - 1]) {
        case UInt8(ascii: "d"):
            if ends("password") || ends("passwd") {
                rule = .password
            } else if let first = endMatch(bytes, start, end, "pwd"), first > start, isSeparator(bytes[first - 1]) {
                rule = .password
            } else {
                rule = nil
            }
        case UInt8(ascii: "e"):
            rule = ends("passphrase") ? .password : ends("secretkeybase") ? .secret : nil
        case UInt8(ascii: "t"):
            rule = ends("secret") ? .secret : nil
        case UInt8(ascii: "n"):
            rule = ends("token") ? .token : nil
        case UInt8(ascii: "y"):
            if ends("secretaccesskey") || ends("awssecretkey") {
                rule = .awsSecretAccessKey
            } else if ends("accountkey") || ends("sharedaccesskey") {
                rule = .azureStorageKey
            } else if ends("secretkey") {
                rule = .secret
            } else if ends("apikey") || ends("accesskey") || ends("privatekey") || ends("authkey") {
                rule = .apiKey
            } else {
                rule = nil
            }
        default:
            rule = nil
        }
        guard let rule, rules.contains(rule) else { return nil }
        return rule
    }

    /// The rule of an attribute's key: as above, and `…authorization` (the whole value is the
    /// credential).
    static func attributeRule(_ key: String, rules: RedactionRuleSet) -> RedactionRule? {
        var key = key
        return key.withUTF8 { bytes in
            if let rule = rule(bytes, 0, bytes.count, rules: rules) { return rule }
            guard endMatch(bytes, 0, bytes.count, "authorization") != nil, rules.contains(.authorizationHeader) else {
                return nil
            }
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

    /// Where the key's last letters spell `letters` (lowercase, separators skipped in the key),
    /// nil when they do not.
    private static func endMatch(_ bytes: Bytes, _ start: Int, _ end: Int, _ letters: StaticString) -> Int? {
        let count = letters.utf8CodeUnitCount
        let wanted = letters.utf8Start
        var index = end
        var remaining = count
        while remaining > 0 {
            guard index > start else { return nil }
            index -= 1
            let byte = bytes[index]
            if isSeparator(byte) {
                // A separator at the very end belongs to no keyword (`token_`).
                if remaining == count { return nil }
                continue
            }
            remaining -= 1
            guard ScanBytes.lowercase(byte) == wanted[remaining] else { return nil }
        }
        return index
    }
}
