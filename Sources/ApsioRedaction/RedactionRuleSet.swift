/// Which built-in rules an app applies: the default (every group but `personal`), changed by the
/// app file's `RedactRules=`.
package struct RedactionRuleSet: Sendable, Equatable, Hashable {
    private var bits: UInt64

    private init(bits: UInt64) { self.bits = bits }

    package init(_ rules: some Sequence<RedactionRule>) {
        bits = 0
        for rule in rules { insert(rule) }
    }

    /// Every rule whose group is on by default.
    package static let standard = RedactionRuleSet(RedactionRule.allCases.filter { $0.group.isOnByDefault })
    package static let none = RedactionRuleSet(bits: 0)
    package static let all = RedactionRuleSet(RedactionRule.allCases)

    @inline(__always)
    package func contains(_ rule: RedactionRule) -> Bool { bits & (1 << UInt64(rule.ordinal)) != 0 }

    package var isEmpty: Bool { bits == 0 }

    package mutating func insert(_ rule: RedactionRule) { bits |= 1 << UInt64(rule.ordinal) }
    package mutating func remove(_ rule: RedactionRule) { bits &= ~(1 << UInt64(rule.ordinal)) }

    package var rules: [RedactionRule] { RedactionRule.allCases.filter(contains) }

    /// Whether any rule of these is on.
    func containsAny(_ rules: RedactionRuleSet) -> Bool { bits & rules.bits != 0 }

    /// The default changed by `RedactRules=` words, in order: `-NAME` turns a rule or a group off,
    /// `NAME` or `+NAME` turns it on. Returns the words that name no rule or group.
    package static func standard(changedBy words: [String]) -> (rules: RedactionRuleSet, unknown: [String]) {
        var set = RedactionRuleSet.standard
        var unknown: [String] = []
        for word in words {
            let on = !word.hasPrefix("-")
            let name = word.hasPrefix("-") || word.hasPrefix("+") ? String(word.dropFirst()) : word
            let rules: [RedactionRule]
            if let rule = RedactionRule(rawValue: name) {
                rules = [rule]
            } else if let group = RedactionRuleGroup(rawValue: name) {
                rules = group.rules
            } else {
                unknown.append(word)
                continue
            }
            for rule in rules {
                if on { set.insert(rule) } else { set.remove(rule) }
            }
        }
        return (set, unknown)
    }

    /// Every name `RedactRules=` takes: the rules' and the groups'.
    package static var names: [String] { RedactionRule.allCases.map(\.rawValue) + RedactionRuleGroup.allCases.map(\.rawValue) }
}
