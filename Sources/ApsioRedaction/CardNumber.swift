/// A payment card number: 13 to 19 digits, in one run or in groups of three or more separated by
/// single spaces or dashes (`4111 1111 1111 1111`, `3782-822463-10005`), whose first digits are an
/// issuer's (Visa, Mastercard, Amex, Discover, JCB, Diners Club, UnionPay) and which passes the
/// Luhn check. An order number, a timestamp (epoch numbers start with 1) or a tracking id is left
/// alone: without the issuer prefix and the check digit, a run of digits is not a card.
///
/// Digits start many words of a log line, so the common case is cheap: a first digit no issuer
/// uses (0, 1, 7, 8, 9) ends it at once, and nothing is allocated.
enum CardNumber {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    static let digitCounts = 13...19
    static let minGroupDigits = 3

    /// The card number starting at `start`, where a word starts with a digit.
    static func match(_ bytes: Bytes, at start: Int) -> Range<Int>? {
        guard bytes[start] >= UInt8(ascii: "2"), bytes[start] <= UInt8(ascii: "6") else { return nil }
        var index = start
        var digits = 0
        var groupDigits = 0
        var end = start
        // The leading digits, as a number, for the issuer's prefix.
        var leading = 0
        while index < bytes.count {
            let byte = bytes[index]
            if ScanBytes.isDigit(byte) {
                if digits < 4 { leading = leading * 10 + Int(byte &- 0x30) }
                digits += 1
                groupDigits += 1
                index += 1
                end = index
                if digits > digitCounts.upperBound { return nil }
            } else if (byte == 0x20 || byte == UInt8(ascii: "-")), groupDigits >= minGroupDigits,
                index + 1 < bytes.count, ScanBytes.isDigit(bytes[index + 1])
            {
                groupDigits = 0
                index += 1
            } else {
                break
            }
        }
        // The last group, and a word boundary after it.
        guard digitCounts.contains(digits), groupDigits >= minGroupDigits || end - start == digits else { return nil }
        if end < bytes.count, ScanBytes.isWord(bytes[end]) || bytes[end] == UInt8(ascii: ".") && end + 1 < bytes.count
            && ScanBytes.isDigit(bytes[end + 1])
        {
            return nil
        }
        guard hasIssuerPrefix(leading: leading, length: digits), passesLuhn(bytes, start..<end) else { return nil }
        return start..<end
    }

    /// The issuers' ranges (IIN), from the first four digits.
    static func hasIssuerPrefix(leading: Int, length: Int) -> Bool {
        let one = leading / 1000, two = leading / 100, three = leading / 10
        switch one {
        case 4: return [13, 16, 19].contains(length)  // Visa
        case 5: return (51...55).contains(two) && length == 16  // Mastercard
        case 2: return (2221...2720).contains(leading) && length == 16  // Mastercard
        case 3:
            if two == 34 || two == 37 { return length == 15 }  // Amex
            if (3528...3589).contains(leading) { return (16...19).contains(length) }  // JCB
            if two == 36 || two == 38 || (300...305).contains(three) { return (14...19).contains(length) }  // Diners
            return false
        case 6:
            if leading == 6011 || two == 65 || (644...649).contains(three) { return (16...19).contains(length) }  // Discover
            return two == 62 && (16...19).contains(length)  // UnionPay
        default:
            return false
        }
    }

    /// The Luhn check over the digits of `range`, separators skipped.
    static func passesLuhn(_ bytes: Bytes, _ range: Range<Int>) -> Bool {
        var sum = 0
        var double = false
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            let byte = bytes[index]
            guard ScanBytes.isDigit(byte) else { continue }
            var value = Int(byte &- 0x30)
            if double {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
            double.toggle()
        }
        return sum % 10 == 0
    }
}
