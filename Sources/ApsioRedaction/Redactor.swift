package import ApsioCore
/// An app's redaction (LINUX-PROFILE §11): the built-in rules it leaves on and the app file's
/// `Redact=` patterns, applied to a record's body and string attributes before it is queued or
/// copied to the live channel. A value a built-in rule finds becomes `[REDACTED:rule-name]`, so a
/// viewer sees what was hidden and why; a `Redact=` match becomes `[REDACTED]`. The rest of the
/// text stays as it was.
///
/// The built-in rules (`RedactionRule`, docs/redaction.md) are one scan over the bytes for all of
/// them (`BuiltInRules`); a pattern runs only when the line holds the literal text it starts with
/// (see `RedactionPattern`); and a line without a match is returned as it was, not copied. An
/// attribute whose key names a secret (`DB_PASSWORD`, `TOKEN`, a recorded `authorization` header)
/// is replaced whole.
package struct Redactor: Sendable {
    package static let replacement = "[REDACTED]"
    package let patterns: [RedactionPattern]
    package let rules: RedactionRuleSet

    /// Compiles the app file's `Redact=` patterns; the first that cannot be used is the error.
    package init(patterns: [String] = [], rules: RedactionRuleSet = .standard) throws(RedactionError) {
        var compiled: [RedactionPattern] = []
        for pattern in patterns { compiled.append(try RedactionPattern(pattern)) }
        self.patterns = compiled
        self.rules = rules
    }

    package func redact(_ text: String) -> String {
        redact(text, continuingPrivateKey: false).text
    }

    /// The record with its body and string attributes redacted; keys and other values are kept.
    package func redact(_ record: LogRecord) -> LogRecord {
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
            let redacted: String
            if let rule = SecretKeyName.attributeRule(attributes[index].key, rules: rules), !value.isEmpty {
                redacted = rule.marker
            } else {
                redacted = redact(value)
            }
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
            BuiltInRules.scan(bytes, rules: rules, continuingPrivateKey: continuingPrivateKey)
        }
        var found = scan.matches.map { Replacement(range: $0.range, marker: $0.rule.marker) }
        if !patterns.isEmpty {
            var ranges: [Range<Int>] = []
            for pattern in patterns {
                if !pattern.requiredPrefix.isEmpty {
                    let present = text.withUTF8 { BuiltInRules.contains($0, pattern.requiredPrefix) }
                    if !present { continue }
                }
                pattern.matches(in: text, into: &ranges)
            }
            found += ranges.map { Replacement(range: $0, marker: Self.replacement) }
        }
        guard !found.isEmpty else { return (text, scan.privateKeyOpen) }
        return (Self.replacing(found, in: text), scan.privateKeyOpen)
    }

    struct Replacement {
        var range: Range<Int>
        var marker: String
    }

    /// Overlapping and touching ranges become one marker, the first one's.
    static func replacing(_ replacements: [Replacement], in text: String) -> String {
        let sorted = replacements.sorted {
            $0.range.lowerBound != $1.range.lowerBound ? $0.range.lowerBound < $1.range.lowerBound : $0.range.count > $1.range.count
        }
        var merged: [Replacement] = []
        for replacement in sorted {
            if let last = merged.last, replacement.range.lowerBound <= last.range.upperBound {
                merged[merged.count - 1].range = last.range.lowerBound..<max(last.range.upperBound, replacement.range.upperBound)
            } else {
                merged.append(replacement)
            }
        }
        var out: [UInt8] = []
        var copy = text
        copy.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + merged.count * 24)
            var position = 0
            for replacement in merged {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<replacement.range.lowerBound]))
                out.append(contentsOf: replacement.marker.utf8)
                position = replacement.range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<bytes.count]))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
