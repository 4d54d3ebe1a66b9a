/// Header fields in the order they came, looked up without regard to case (RFC 9110 5.1).
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Field = (name: String, value: String)

    private var fields: [Field] = []

    package init() {}

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    package func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Adds a field, keeping any field of the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of that name with one.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    package mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Whether a comma-separated field (`Connection`, `Transfer-Encoding`, `Accept-Encoding`)
    /// lists `token`, ignoring case, spaces and parameters.
    package func hasToken(_ token: String, in name: String) -> Bool {
        var token = token
        return token.withUTF8 { token in
            forEachElement(of: name) { element in Self.sameName(element, token) }
        }
    }

    /// The comma-separated elements of every `name` field, trimmed, without parameters.
    package func tokens(_ name: String) -> [String] {
        var found: [String] = []
        _ = forEachElement(of: name) { element in
            found.append(String(decoding: element, as: UTF8.self))
            return false
        }
        return found
    }

    /// Hands `body` each element of every `name` field (RFC 9110 5.6.1: split at commas, the
    /// parameters after `;` left out, spaces and tabs trimmed, empty ones skipped) until it says
    /// stop, over the values' bytes: a request asks this of four fields, and making a string of
    /// each piece cost more than the rest of its head.
    private func forEachElement(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        for field in fields where Self.sameName(field.name, name) {
            var value = field.value
            let stopped = value.withUTF8 { bytes in
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                    var last = start
                    while last < end, bytes[last] != UInt8(ascii: ";") { last += 1 }
                    var first = start
                    while first < last, Self.isSpace(bytes[first]) { first += 1 }
                    while last > first, Self.isSpace(bytes[last - 1]) { last -= 1 }
                    if last > first, body(UnsafeBufferPointer(rebasing: bytes[first..<last])) { return true }
                    start = end + 1
                }
                return false
            }
            if stopped { return true }
        }
        return false
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison: field names are ASCII tokens, and locale rules (the
    /// Turkish dotless i) must not apply.
    static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Byte by byte over the strings' own storage: a request looks up some sixty names, each
        // against every field, and an iterator over two UTF-8 views cost more than the rest.
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in sameName(a, b) } }
    }

    static func sameName(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where asciiLower(a[index]) != asciiLower(b[index]) { return false }
        return true
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5a) ? byte | 0x20 : byte
    }
}

extension Substring {
    func trimmingASCIISpaces() -> String {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
