/// E-mail addresses and IP addresses: personal data an app file may choose to hide
/// (`RedactRules=personal`); off by default, since many operators need addresses in their logs.
enum PersonalData {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    @inline(__always)
    private static func isLocalPartByte(_ byte: UInt8) -> Bool {
        ScanBytes.isWord(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-")
    }

    @inline(__always)
    private static func isLabelByte(_ byte: UInt8) -> Bool { ScanBytes.isAlphanumeric(byte) || byte == UInt8(ascii: "-") }

    /// `local@domain.tld` around the `@` at `at`: a local part, and a domain of two labels or more
    /// whose last is letters only.
    static func email(_ bytes: Bytes, at: Int) -> Range<Int>? {
        var start = at
        while start > 0, at - start < 64, isLocalPartByte(bytes[start - 1]) { start -= 1 }
        while start < at, bytes[start] == UInt8(ascii: ".") { start += 1 }
        guard start < at else { return nil }
        var index = at + 1
        var labels = 0
        var lastLabel = index..<index
        while true {
            let labelEnd = ScanBytes.run(bytes, from: index, limit: 63, isLabelByte)
            guard labelEnd > index else { break }
            labels += 1
            lastLabel = index..<labelEnd
            index = labelEnd
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), isLabelByte(bytes[index + 1]) else { break }
            index += 1
        }
        let tld = UnsafeBufferPointer(rebasing: bytes[lastLabel])
        guard labels >= 2, tld.count >= 2, tld.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return nil }
        return start..<lastLabel.upperBound
    }

    /// A dotted quad at `start` (each part 0–255), not a part of a version number (`1.2.3.4.5`).
    static func ipv4(_ bytes: Bytes, at start: Int) -> Range<Int>? {
        if start > 0, bytes[start - 1] == UInt8(ascii: ".") { return nil }
        var index = start
        for part in 0..<4 {
            let end = ScanBytes.run(bytes, from: index, limit: 4, ScanBytes.isDigit)
            guard end > index, end - index <= 3 else { return nil }
            let value = UnsafeBufferPointer(rebasing: bytes[index..<end]).reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard value <= 255 else { return nil }
            index = end
            if part < 3 {
                guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else { return nil }
                index += 1
            }
        }
        if index < bytes.count, ScanBytes.isWord(bytes[index]) { return nil }
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), ScanBytes.isDigit(bytes[index + 1]) { return nil }
        return start..<index
    }

    /// An IPv6 address at `start`: eight groups of 1–4 hex digits, or fewer with one `::`, the
    /// last two groups possibly a dotted quad; at least two groups or a `::`, and a word boundary
    /// after. A time (`12:30:45`) or a MAC address (six groups, no `::`) is not one.
    static func ipv6(_ bytes: Bytes, at start: Int) -> Range<Int>? {
        if start > 0, ScanBytes.isWord(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: ":") { return nil }
        var index = start
        var groups = 0
        var compressed = false
        var end = start
        if ScanBytes.hasPrefix(bytes, at: index, "::") {
            compressed = true
            index += 2
            end = index
        }
        while index < bytes.count, groups < 8 {
            if let quad = ipv4(bytes, at: index), groups <= 6 {
                groups += 2
                end = quad.upperBound
                index = end
                break
            }
            let groupEnd = ScanBytes.run(bytes, from: index, limit: 5, ScanBytes.isHex)
            guard groupEnd > index, groupEnd - index <= 4 else { break }
            groups += 1
            end = groupEnd
            index = groupEnd
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { break }
            if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") {
                guard !compressed else { break }
                compressed = true
                index += 2
                end = index
            } else {
                index += 1
            }
        }
        guard compressed ? groups < 8 && (groups >= 1 || end - start == 2) : groups == 8 else { return nil }
        if end < bytes.count, ScanBytes.isWord(bytes[end]) { return nil }
        return end - start >= 2 ? start..<end : nil
    }
}
