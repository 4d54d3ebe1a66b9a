// libFuzzer entry point for the built-in redaction rules (see docs/fuzzing.md): any program of a
// monitored unit writes these bytes to the journal, and every one of them goes through the scan
// before it is queued or shown live.
//
// Besides "no crash", it checks what the rest of redaction relies on: every range the scan finds
// is inside the text, not empty, on a character boundary (a range cutting a UTF-8 character would
// leave U+FFFD in the record) and of a rule that is on; the text redacted is the text with those
// ranges, merged where they touch, replaced by their markers, and byte for byte the same text when
// nothing was found; with no rule on and no key block open, nothing is found; a key block open at
// the start hides at least the text before its END line.
//
// The input: a byte picking the rules (the standard set, all, none, or one rule group alone), a
// flag byte (bit 0: a private key block is open from an earlier entry), then the text.
@testable import ApsioCore
@testable import ApsioRedaction

let ruleSets: [RedactionRuleSet] =
    [.standard, .all, .none] + RedactionRuleGroup.allCases.map { RedactionRuleSet($0.rules) }

func isContinuationByte(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

/// The text with `matches` replaced as `Redactor.replacing` promises: sorted by start, the longer
/// first; a range that starts inside or at the end of the one before joins it, under its marker.
func expectedRedaction(_ bytes: [UInt8], _ matches: [BuiltInRules.Match]) -> [UInt8] {
    let sorted = matches.sorted {
        $0.range.lowerBound != $1.range.lowerBound ? $0.range.lowerBound < $1.range.lowerBound : $0.range.count > $1.range.count
    }
    var out: [UInt8] = []
    var position = 0
    var open: (range: Range<Int>, marker: String)?
    for match in sorted {
        if let current = open, match.range.lowerBound <= current.range.upperBound {
            open = (current.range.lowerBound..<max(current.range.upperBound, match.range.upperBound), current.marker)
            continue
        }
        if let current = open {
            out += bytes[position..<current.range.lowerBound]
            out += Array(current.marker.utf8)
            position = current.range.upperBound
        }
        open = (match.range, match.rule.marker)
    }
    if let current = open {
        out += bytes[position..<current.range.lowerBound]
        out += Array(current.marker.utf8)
        position = current.range.upperBound
    }
    return out + bytes[position...]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedactor(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = FuzzChoices(data, size)
    let rules = choices.pick(ruleSets)
    let continuing = choices.byte() & 1 != 0
    var text = String(decoding: choices.rest, as: UTF8.self)
    let bytes = Array(text.utf8)

    let scan = text.withUTF8 { BuiltInRules.scan($0, rules: rules, continuingPrivateKey: continuing) }
    for match in scan.matches {
        check(match.range.lowerBound >= 0 && match.range.upperBound <= bytes.count, "a range outside the text")
        check(!match.range.isEmpty, "an empty range")
        check(match.range.lowerBound == bytes.count || !isContinuationByte(bytes[match.range.lowerBound]),
              "a range of \(match.rule) starts inside a character")
        check(match.range.upperBound == bytes.count || !isContinuationByte(bytes[match.range.upperBound]),
              "a range of \(match.rule) ends inside a character")
        check(rules.contains(match.rule) || (continuing && match.rule == .privateKey),
              "a match of \(match.rule), a rule that is off")
    }
    if rules.isEmpty && !continuing {
        check(scan.matches.isEmpty && !scan.privateKeyOpen, "no rule on, yet something was found")
    }
    if continuing && !bytes.isEmpty {
        check(scan.matches.contains { $0.rule == .privateKey && $0.range.lowerBound == 0 },
              "a key block open from the entry before, yet the text's start was not hidden")
    }

    let redactor = try! Redactor(rules: rules)
    let (redacted, open) = redactor.redact(text, continuingPrivateKey: continuing)
    check(open == scan.privateKeyOpen, "the redactor and its scan disagree on an open key block")
    let expected = expectedRedaction(bytes, scan.matches)
    check(Array(redacted.utf8) == expected, "the redacted text is not the text with its matches replaced")
    if scan.matches.isEmpty {
        check(Array(redacted.utf8) == bytes, "nothing found, yet the text changed")
    }
    return 0
}
