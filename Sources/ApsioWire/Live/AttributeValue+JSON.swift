package import ApsioCore
package import ApsioJSON

extension AttributeValue {
    /// The value in a JSON body (a command's `result`, the live channel's `metrics`): JSON has one
    /// number type, and an integer is written without a fraction.
    package var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        }
    }
}
