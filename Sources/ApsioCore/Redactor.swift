/// An app's redaction (LINUX-PROFILE §11): built-in rules and the app file's `Redact=`
/// patterns, each match replaced by `[REDACTED]`, applied to a record's body and string
/// attributes before it is queued or copied to the live channel.
///
/// Built-in rules, as byte scans (ASCII keys, matched without regard to case):
/// - **Authorization headers**: the value after `Authorization:` (and `Proxy-Authorization:`, or a
///   quoted `"Authorization": "…"`), to the end of the line or the closing quote.
/// - **Bearer tokens**: the token after the word `Bearer` and spaces.
/// - **Secrets in key=value**: the value after `password=`, `passwd=`, `secret=` or `token=`,
///   also as the end of a longer key (`db_password=`, `access_token=`), up to a space, `&`, `;`,
///   `,`, a bracket or a quote; a quoted value up to its closing quote.
/// - **PEM private keys**: from `-----BEGIN … PRIVATE KEY-----` through `-----END … PRIVATE
///   KEY-----`, or to the end of the text when the END line is not in it.
/// - **URL userinfo**: `scheme://user:pass@host` becomes `scheme://[REDACTED]@host`.
///
/// Every log line passes here, and almost none holds a secret: the built-in rules are one pass
/// over the bytes that stops only at `=`, `:`, `-` and `b`, a pattern runs only when the line
/// holds the literal text it starts with (see `RedactionPattern`), and a line without a match
/// is returned as it was, not copied.
public struct Redactor: Sendable {
    public static let replacement = "[REDACTED]"
    public let patterns: [RedactionPattern]

    /// Compiles the app file's `Redact=` patterns; the first that cannot be used is the error.
    public init(patterns: [String] = []) throws(RedactionError) {
        var compiled: [RedactionPattern] = []
        for pattern in patterns { compiled.append(try RedactionPattern(pattern)) }
        self.patterns = compiled
    }

    public func redact(_ text: String) -> String {
        redact(text, continuingPrivateKey: false).text
    }

    /// The record with its body and string attributes redacted; keys and other values are kept.
    public func redact(_ record: LogRecord) -> LogRecord {
        var record = record
        record.body = redact(record.body)
        record.attributes = redacted(record.attributes)
        return record
    }

    /// `attributes` with their string values redacted: the same array (the same storage, which
    /// the encoder and the ingest window recognise) when nothing was replaced, as for nearly
    /// every record. The array is read first and copied only for a value that changes; writing
    /// into it in place would let the optimiser make it unique, a copy, before the first write.
    func redacted(_ attributes: [Attribute]) -> [Attribute] {
        var out: [Attribute]?
        for index in attributes.indices {
            guard case .string(let value) = attributes[index].value else { continue }
            let redacted = redact(value)
            // Equal counts mean nothing was replaced: a replacement always changes the length
            // or, for a secret exactly as long as the marker, the bytes, which `!=` then checks.
            if redacted.utf8.count != value.utf8.count || redacted != value {
                if out == nil { out = attributes }
                out?[index].value = .string(redacted)
            }
        }
        return out ?? attributes
    }

    /// Redacts `text`; `continuingPrivateKey` says an earlier text of the same stream opened a
    /// private key block without closing it, so this one is key material up to its END line.
    /// The result says whether a block is still open at the end of this text.
    func redact(_ text: String, continuingPrivateKey: Bool) -> (text: String, privateKeyOpen: Bool) {
        var text = text
        let scan = text.withUTF8 { bytes in
            BuiltInRules.scan(bytes, continuingPrivateKey: continuingPrivateKey)
        }
        var ranges = scan.ranges
        for pattern in patterns {
            if !pattern.requiredPrefix.isEmpty {
                let present = text.withUTF8 { BuiltInRules.contains($0, pattern.requiredPrefix) }
                if !present { continue }
            }
            pattern.matches(in: text, into: &ranges)
        }
        guard !ranges.isEmpty else { return (text, scan.privateKeyOpen) }
        return (Self.replacing(ranges, in: text), scan.privateKeyOpen)
    }

    /// Overlapping and touching ranges become one marker.
    static func replacing(_ ranges: [Range<Int>], in text: String) -> String {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in sorted {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var out: [UInt8] = []
        let marker = Array(replacement.utf8)
        var copy = text
        copy.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + merged.count * marker.count)
            var position = 0
            for range in merged {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<range.lowerBound]))
                out.append(contentsOf: marker)
                position = range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<bytes.count]))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
