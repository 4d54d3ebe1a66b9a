package import ApsioCore
/// Redaction of one app's records in the order they were written, which catches what one
/// record alone cannot: a private key printed to stdout reaches the journal one line an entry,
/// so after an entry that opens `-----BEGIN … PRIVATE KEY-----`, each following body is key
/// material up to the entry with the END line.
///
/// Fail closed: an unrelated line that interleaves inside a block is blanked too (better than
/// letting a line of key through because it carried a prefix). A block that never closes ends
/// after `Limits.maxPrivateKeyLines` entries.
package struct RedactionStream: Sendable {
    package let redactor: Redactor
    private let maxKeyLines: Int
    /// Entries redacted as key material since the block opened; nil outside a block.
    private var keyLines: Int?
    /// A unit's consecutive records mostly share one attribute array: redacted once.
    private var attributesSeen = AttributeMemo()
    private var redactedAttributes: [Attribute] = []

    package init(redactor: Redactor, limits: Limits = .spec) {
        self.redactor = redactor
        maxKeyLines = limits.maxPrivateKeyLines
    }

    package var isInsidePrivateKey: Bool { keyLines != nil }

    /// The record redacted, as a new value: for a caller that keeps the original.
    package mutating func redact(_ record: LogRecord) -> LogRecord {
        var redacted = record
        redact(&redacted)
        return redacted
    }

    /// Redacts the record where it is: its fields are replaced in place. In place rather than
    /// `consuming` and returned: the optimizer copies a returned `consuming` parameter (a retain
    /// for each of its strings and its attributes, and as many releases), once per record.
    package mutating func redact(_ record: inout LogRecord) {
        let continuing = keyLines != nil
        let (body, open) = redactor.redact(record.body, continuingPrivateKey: continuing)
        record.body = body
        if open {
            let lines = continuing ? (keyLines ?? 0) + 1 : 0
            keyLines = lines < maxKeyLines ? lines : nil
        } else {
            keyLines = nil
        }
        if !attributesSeen.isRemembered(record.attributes) { redactedAttributes = redactor.redacted(record.attributes) }
        record.attributes = redactedAttributes
    }
}
