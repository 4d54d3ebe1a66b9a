/// A payment card number: 13 to 19 digits, in one run or in groups of three or more separated by
/// single spaces or dashes (`4111 1111 1111 1111`, `3782-822463-10005`), whose first digits are an
/// issuer's (Visa, Mastercard, Amex, Discover, JCB, Diners Club, UnionPay) and which passes the
/// Luhn check. An order number, a timestamp (epoch numbers start with 1) or a tracking id is left
/// alone: without the issuer prefix and the check digit, a run of digits is not a card.
enum CardNumber {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    static let digitCounts = 13...19
    static let minGroupDigits = 3

    /// The card number starting at `start`, where a word starts with a digit.
    static func match(_ bytes: Bytes, at start: Int) -> Range<Int>? {
        var digits: [UInt8] = []
        digits.reserveCapacity(19)
        var index = start
        var groupDigits = 0
        var end = start
        while index < bytes.count {
            let byte = bytes[index]
            if ScanBytes.isDigit(byte) {
                digits.append(byte &- 0x30)
                groupDigits += 1
                index += 1
                end = index
                if digits.count > digitCounts.upperBound { return nil }
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
        guard digitCounts.contains(digits.count), groupDigits >= minGroupDigits || end - start == digits.count else {
            return nil
        }
        if end < bytes.count, ScanBytes.isWord(bytes[end]) || bytes[end] == UInt8(ascii: ".") && end + 1 < bytes.count
            && ScanBytes.isDigit(bytes[end + 1])
        {
            return nil
        }
        guard hasIssuerPrefix(digits), passesLuhn(digits) else { return nil }
        return start..<end
    }

    /// The issuers' ranges (the first digits of the number, IIN).
    static func hasIssuerPrefix(_ digits: [UInt8]) -> Bool {
        func prefix(_ count: Int) -> Int { digits.prefix(count).reduce(0) { $0 * 10 + Int($1) } }
        let length = digits.count
        switch digits[0] {
        case 4: return [13, 16, 19].contains(length)  // Visa
        case 5: return (51...55).contains(prefix(2)) && length == 16  // Mastercard
        case 2: return (2221...2720).contains(prefix(4)) && length == 16  // Mastercard
        case 3:
            if [34, 37].contains(prefix(2)) { return length == 15 }  // Amex
            if (3528...3589).contains(prefix(4)) { return (16...19).contains(length) }  // JCB
            if [36, 38].contains(prefix(2)) || (300...305).contains(prefix(3)) { return (14...19).contains(length) }  // Diners
            return false
        case 6:
            if prefix(4) == 6011 || prefix(2) == 65 || (644...649).contains(prefix(3)) { return (16...19).contains(length) }  // Discover
            return prefix(2) == 62 && (16...19).contains(length)  // UnionPay
        default:
            return false
        }
    }

    static func passesLuhn(_ digits: [UInt8]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            var value = Int(digit)
            if offset % 2 == 1 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return sum % 10 == 0
    }
}
