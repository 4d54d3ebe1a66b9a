/// The value syntaxes configuration keys share, each returning nil or a reason an operator can
/// act on. Values are never echoed by these messages; the caller decides whether a value is safe
/// to quote (an app key never is).
enum ConfigValue {
    /// systemd's booleans: 1, yes, y, true, t, on and their opposites, any case.
    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }

    static let booleanHint = "yes or no"

    /// A byte count with an optional K, M, G or T suffix, powers of 1024 as in systemd (`64M`).
    static func size(_ text: String) -> Int? {
        var digits = Substring(text)
        var multiplier = 1
        if let last = digits.last, let power = "KMGT".firstIndex(of: Character(last.uppercased())) {
            multiplier = 1 << (10 * ("KMGT".distance(from: "KMGT".startIndex, to: power) + 1))
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits) else {
            return nil
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// A time span in systemd's form: numbers each followed by a unit, optionally separated by
    /// spaces (`7d`, `1d 12h`, `90min`); a bare number is seconds. Whole numbers only.
    static func timeSpan(_ text: String) -> Duration? {
        let units: [(names: [String], seconds: Int64)] = [
            (["s", "sec", "second", "seconds"], 1),
            (["m", "min", "minute", "minutes"], 60),
            (["h", "hr", "hour", "hours"], 3600),
            (["d", "day", "days"], 86_400),
            (["w", "week", "weeks"], 7 * 86_400),
        ]
        var rest = Substring(text)
        var total: Int64 = 0
        var sawPart = false
        while true {
            rest = rest.drop(while: { $0 == " " })
            if rest.isEmpty { break }
            let number = rest.prefix(while: \.isASCIIDigit)
            guard !number.isEmpty, number.count <= 12, let value = Int64(number) else { return nil }
            rest = rest.dropFirst(number.count).drop(while: { $0 == " " })
            let unitName = rest.prefix(while: { $0.isLetter })
            rest = rest.dropFirst(unitName.count)
            let seconds: Int64
            if unitName.isEmpty {
                // A bare number is seconds, and only as the whole value: `1h 30` is a slip.
                guard !sawPart, rest.isEmpty else { return nil }
                seconds = 1
            } else {
                guard let unit = units.first(where: { $0.names.contains(String(unitName)) }) else { return nil }
                seconds = unit.seconds
            }
            let (part, overflow) = value.multipliedReportingOverflow(by: seconds)
            guard !overflow else { return nil }
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !sumOverflow else { return nil }
            total = sum
            sawPart = true
        }
        return sawPart ? .seconds(total) : nil
    }

    /// An absolute path naming a file: starts with `/`, no `.` or `..` component, no empty
    /// component, no trailing `/`, no control character.
    static func absoluteFilePath(_ text: String) -> String? {
        guard text.hasPrefix("/"), text.count > 1, !text.hasSuffix("/"), text.utf8.count <= 4095,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        let components = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        return text
    }

    /// Printable text of 1 to `maxBytes` bytes with no control character (names, versions).
    static func label(_ text: String, maxBytes: Int = 255) -> String? {
        guard !text.isEmpty, text.utf8.count <= maxBytes,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
