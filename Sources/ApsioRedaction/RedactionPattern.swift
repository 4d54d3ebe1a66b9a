/// One `Redact=` regular expression of an app file, compiled once.
///
/// The syntax is Swift's `Regex` (the Perl/ICU family: classes, quantifiers, groups,
/// alternation, `(?i)`). A regular expression is the slow part of redaction, so each pattern
/// also keeps the literal text it must start with, when it has one (`card=` of
/// `card=[0-9 ]{12,19}`): a line without that text is not searched at all.
package struct RedactionPattern: @unchecked Sendable {
    // @unchecked: `Regex` is not declared Sendable, but it is an immutable value whose one lazy
    // part, the compiled program, is initialised atomically by the standard library; it is
    // also compiled here, in `init`, before the value can be shared.
    private let regex: Regex<AnyRegexOutput>
    package let source: String
    /// UTF-8 bytes every match starts with; empty when the pattern has no such literal.
    let requiredPrefix: [UInt8]

    package init(_ source: String) throws(RedactionError) {
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(source)
        } catch {
            throw RedactionError(pattern: source, reason: .invalid(String(describing: error)))
        }
        // Also compiles the program now rather than on the first log line.
        if (try? regex.wholeMatch(in: "")) != nil {
            throw RedactionError(pattern: source, reason: .matchesEmpty)
        }
        self.regex = regex
        self.source = source
        requiredPrefix = Self.literalPrefix(of: source)
    }

    /// Byte ranges of the matches in `text`, empty matches left out.
    func matches(in text: String, into ranges: inout [Range<Int>]) {
        let utf8 = text.utf8
        for match in text.matches(of: regex) where !match.range.isEmpty {
            let lower = utf8.distance(from: utf8.startIndex, to: match.range.lowerBound)
            let upper = utf8.distance(from: utf8.startIndex, to: match.range.upperBound)
            ranges.append(lower..<upper)
        }
    }

    /// The run of plain characters a pattern starts with. Conservative: any alternation
    /// anywhere, an escape, or a group gives none, and a character a quantifier or a non-ASCII character
    /// follows is not required. Only ASCII letters, digits and a few punctuation marks count, leaving out `K`,
    /// `;` and `` ` ``: each has a non-ASCII character canonically equal to it (KELVIN SIGN, GREEK
    /// QUESTION MARK, GREEK VARIA), which the regular expression would match and a byte search
    /// would not.
    static func literalPrefix(of pattern: String) -> [UInt8] {
        let bytes = Array(pattern.utf8)
        guard !bytes.contains(UInt8(ascii: "|")) else { return [] }
        var prefix: [UInt8] = []
        for byte in bytes {
            guard isPlain(byte) else {
                // A quantifier may make the character before it optional. So may a non-ASCII
                // character: a combining mark joins the letter before it into one character
                // (`e\u{301}?` makes the whole é optional), which the text may also hold
                // precomposed, without the letter's byte.
                if [UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "{")].contains(byte) || byte >= 0x80 {
                    _ = prefix.popLast()
                }
                // `+` needs its character at least once: it stays required.
                break
            }
            prefix.append(byte)
        }
        return prefix
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "K"): false
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("=:_-/@!%&,'\"<>~ ".utf8).contains(byte)
        }
    }
}
