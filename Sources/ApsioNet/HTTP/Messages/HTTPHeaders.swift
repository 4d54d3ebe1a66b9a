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
        tokens(name).contains { Self.sameName($0, token) }
    }

    /// The comma-separated elements of every `name` field, trimmed, without parameters.
    package func tokens(_ name: String) -> [String] {
        values(name).flatMap { value in
            value.split(separator: ",").compactMap { element -> String? in
                let bare = element.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let trimmed = bare.trimmingASCIISpaces()
                return trimmed.isEmpty ? nil : trimmed
            }
        }
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison: field names are ASCII tokens, and locale rules (the
    /// Turkish dotless i) must not apply.
    static func sameName(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { asciiLower($0) == asciiLower($1) }
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
