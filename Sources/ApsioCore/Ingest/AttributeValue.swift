/// An attribute's value as OpenTelemetry carries it on a log record, and as a live line's
/// `attributes` allows it (16.5: string, number or boolean).
public enum AttributeValue: Sendable, Equatable, Hashable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
}

/// One key and value, kept in order so that encoded records are stable byte for byte.
public struct Attribute: Sendable, Equatable, Hashable {
    public var key: String
    public var value: AttributeValue

    public init(_ key: String, _ value: AttributeValue) {
        self.key = key
        self.value = value
    }

    public static func string(_ key: String, _ value: String) -> Attribute { Attribute(key, .string(value)) }
    public static func int(_ key: String, _ value: Int64) -> Attribute { Attribute(key, .int(value)) }
    public static func bool(_ key: String, _ value: Bool) -> Attribute { Attribute(key, .bool(value)) }
    public static func double(_ key: String, _ value: Double) -> Attribute { Attribute(key, .double(value)) }
}

extension Array where Element == Attribute {
    public subscript(key: String) -> AttributeValue? {
        first(where: { $0.key == key })?.value
    }
}

extension AttributeValue {
    /// The value in a JSON body (a command's `result`, the live channel's `metrics`): JSON has one
    /// number type, and an integer is written without a fraction.
    public var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        }
    }
}
