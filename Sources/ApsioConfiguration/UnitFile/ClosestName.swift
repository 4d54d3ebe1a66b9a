/// "Did you mean …?": the known name a mistyped one was most likely meant to be.
package enum ClosestName {
    /// The name in `candidates` nearest to `name` by edit distance, ignoring case, when it is
    /// near enough to be a typo (a third of the name's length, at least 1, at most 3); ties go to
    /// the earlier candidate. Failing that, the one candidate that `name` is a shortening or an
    /// extension of (`Announce`, `grant`, `error`), at least 3 characters shared. Nil when nothing
    /// is close: a wild guess helps no one.
    package static func to(_ name: String, among candidates: [String]) -> String? {
        closestByEdits(name, among: candidates) ?? onlyPrefixMatch(name, among: candidates)
    }

    private static func onlyPrefixMatch(_ name: String, among candidates: [String]) -> String? {
        let typed = name.lowercased()
        let matches = candidates.filter { candidate in
            let known = candidate.lowercased()
            let (short, long) = typed.count <= known.count ? (typed, known) : (known, typed)
            return short.count >= 3 && long.hasPrefix(short)
        }
        return matches.count == 1 ? matches[0] : nil
    }

    private static func closestByEdits(_ name: String, among candidates: [String]) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        let threshold = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= threshold, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit (`Famlies`).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
