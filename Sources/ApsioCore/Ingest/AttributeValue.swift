/// An attribute's value as OpenTelemetry carries it on a log record, and as a live line's
/// `attributes` allows it (16.5: string, number or boolean).
package enum AttributeValue: Sendable, Equatable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
}

/// One key and value, kept in order so that encoded records are stable byte for byte.
package struct Attribute: Sendable, Equatable, Hashable {
    package var key: String
    package var value: AttributeValue

    package init(_ key: String, _ value: AttributeValue) {
        self.key = key
        self.value = value
    }

    package static func string(_ key: String, _ value: String) -> Attribute { Attribute(key, .string(value)) }
    package static func int(_ key: String, _ value: Int64) -> Attribute { Attribute(key, .int(value)) }
    package static func bool(_ key: String, _ value: Bool) -> Attribute { Attribute(key, .bool(value)) }
    package static func double(_ key: String, _ value: Double) -> Attribute { Attribute(key, .double(value)) }
}

extension Array where Element == Attribute {
    package subscript(key: String) -> AttributeValue? {
        first(where: { $0.key == key })?.value
    }
}
