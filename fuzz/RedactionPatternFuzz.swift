// libFuzzer entry point for the app file's `Redact=` patterns (see docs/fuzzing.md): the operator
// writes the pattern, any program of the unit writes the text it is matched against.
//
// Besides "no crash", it checks: a pattern is compiled, or refused with a RedactionError that
// names it and says why; a compiled pattern never matches the empty text; the literal prefix the
// redactor searches for before running the regular expression is in every text the expression
// matches (otherwise the shortcut would let a secret through); and the redactor replaces exactly
// the matches, leaving a text without one byte for byte as it was.
//
// The input: a byte giving the pattern's length (at most 48 bytes), the pattern, then the text (at
// most 24 bytes). Both are short on purpose: `Regex` backtracks, so a pattern with nested
// quantifiers takes time exponential in the text's length, which is the operator's to avoid (see
// docs/redaction.md) and not what this target looks for.
@testable import ApsioCore
@testable import ApsioRedaction

let maxPatternBytes = 48
let maxTextBytes = 24

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedactionPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = FuzzChoices(data, size)
    let patternLength = Int(choices.byte()) % (maxPatternBytes + 1)
    let source = String(decoding: choices.bytes(patternLength), as: UTF8.self)
    let text = String(decoding: choices.rest.prefix(maxTextBytes), as: UTF8.self)

    let pattern: RedactionPattern
    do {
        pattern = try RedactionPattern(source)
    } catch {
        check(error.pattern == source, "a refusal naming another pattern")
        check(error.description.hasPrefix("Redact=\(source) "), "a refusal that does not name the key and the pattern")
        if case .invalid(let message) = error.reason { check(!message.isEmpty, "a refusal without the reason") }
        return 0
    }
    check(pattern.source == source, "a compiled pattern with another source")
    var empty: [Range<Int>] = []
    pattern.matches(in: "", into: &empty)
    check(empty.isEmpty, "a compiled pattern matches the empty text")

    var ranges: [Range<Int>] = []
    pattern.matches(in: text, into: &ranges)
    let bytes = Array(text.utf8)
    for range in ranges {
        check(!range.isEmpty && range.upperBound <= bytes.count, "a match outside the text")
    }
    if !ranges.isEmpty && !pattern.requiredPrefix.isEmpty {
        let present = bytes.withUnsafeBufferPointer { BuiltInRules.contains($0, pattern.requiredPrefix) }
        check(present, "the text matches, but lacks the prefix \(String(decoding: pattern.requiredPrefix, as: UTF8.self)) the redactor searches for first")
    }

    let redactor = try! Redactor(patterns: [source], rules: .none)
    let redacted = redactor.redact(text)
    if ranges.isEmpty {
        check(Array(redacted.utf8) == bytes, "no match, yet the text changed")
    } else {
        let expected = Redactor.replacing(ranges.map { .init(range: $0, marker: Redactor.replacement) }, in: text)
        check(redacted == expected, "the redacted text is not the text with its matches replaced")
        // In bytes: a combining mark after the marker joins its `]` into another character, so
        // String.contains, which compares characters, would not find it.
        check(firstOccurrence(of: Array(Redactor.replacement.utf8), in: Array(redacted.utf8), from: 0) != nil,
              "a match, yet no marker")
    }
    return 0
}
