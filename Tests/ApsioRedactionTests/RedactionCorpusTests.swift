import ApsioCore
import ApsioRedaction
import Foundation
import Testing

/// The built-in rules against a corpus (`Fixtures/redaction`, checked by its own
/// `check_fixtures.py`): secrets in the shapes the secret scanners' rule sets document, each of
/// which must be redacted by its rule, and thousands of ordinary log lines (access logs, stack
/// traces, SQL, JSON events, UUIDs, hashes, base64 payloads), none of which may change.
@Suite struct RedactionCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/redaction")

    struct Positive: CustomStringConvertible {
        var rule: RedactionRule
        var input: String
        var expected: String
        var secret: String
        var description: String { "\(rule): \(input)" }
    }

    /// `RULE<TAB>LINE`, the secret between ⟦ and ⟧.
    static let positives: [Positive] = {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("positives.tsv"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            guard fields.count == 2, let rule = RedactionRule(rawValue: String(fields[0])),
                let open = fields[1].firstIndex(of: "⟦"), let close = fields[1].firstIndex(of: "⟧")
            else { return nil }
            let line = fields[1]
            let secret = String(line[line.index(after: open)..<close])
            let before = line[..<open], after = line[line.index(after: close)...]
            return Positive(rule: rule, input: before + secret + after, expected: before + rule.marker + after, secret: secret)
        }
    }()

    static let negatives: [String] = {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("negatives.txt"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }()

    /// Every rule on, personal data included.
    static let everything = try! Redactor(rules: .all)
    static let standard = try! Redactor()

    @Test(arguments: RedactionCorpusTests.positives)
    func aSecretIsReplacedByItsRulesMarker(_ positive: Positive) {
        let redactor = positive.rule.group == .personal ? Self.everything : Self.standard
        let output = redactor.redact(positive.input)
        #expect(output == positive.expected)
        #expect(!output.contains(positive.secret))
    }

    @Test func everyRuleHasAtLeastFiveCases() {
        let counts = Dictionary(grouping: Self.positives, by: \.rule).mapValues(\.count)
        for rule in RedactionRule.allCases {
            #expect(counts[rule, default: 0] >= 5, "\(rule) has \(counts[rule, default: 0]) cases")
        }
        print("RedactionCorpusTests: \(Self.positives.count) positives over \(counts.count) rules, \(Self.negatives.count) negatives")
    }

    @Test func noOrdinaryLineIsChanged() {
        #expect(Self.negatives.count >= 2000)
        var changed: [(String, String)] = []
        for line in Self.negatives {
            let output = Self.standard.redact(line)
            if output != line { changed.append((line, output)) }
        }
        #expect(changed.isEmpty, "\(changed.count) changed, first: \(changed.prefix(5).map { "\($0.0) → \($0.1)" })")
    }

    /// `RedactRules=-NAME`: the rule turned off lets its value through, unless another rule
    /// still catches it (a token after `token=` is the `token` rule's too).
    @Test func aRuleTurnedOffNoLongerNamesItsValue() throws {
        for positive in Self.positives {
            var rules = RedactionRuleSet.all
            rules.remove(positive.rule)
            let output = try Redactor(rules: rules).redact(positive.input)
            #expect(!output.contains(positive.rule.marker), "\(positive)")
        }
    }

    /// The personal group is off by default: addresses go through as they are.
    @Test func personalDataIsLeftAloneByDefault() {
        for positive in Self.positives where positive.rule.group == .personal {
            #expect(Self.standard.redact(positive.input) == positive.input, "\(positive)")
        }
    }
}
