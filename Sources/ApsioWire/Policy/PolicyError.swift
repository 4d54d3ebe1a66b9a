import ApsioCore
package import ApsioJSON
/// A policy body that is not the shape of LINUX-PROFILE §12. The caller keeps the policy it had
/// and logs this once; the message names the field, so the backend's operator can find it.
package enum PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON(JSONParseError)
    case notAnObject
    /// A known field holds a value of another JSON type (`"kill_switch": "true"`). Read as its
    /// default instead, a string kill switch would silently be off.
    case wrongType(field: String, expected: String)
    /// A capture mode other than `always` or `never`.
    case unknownCaptureMode(field: String, value: String)

    package var description: String {
        switch self {
        case .notJSON(let error): "policy body is \(error)"
        case .notAnObject: "policy body is not a JSON object"
        case .wrongType(let field, let expected): "policy field \(field) is not \(expected)"
        case .unknownCaptureMode(let field, let value):
            "policy field \(field) is \"\(UTF8Cut.cut(value, maxBytes: 64))\", not \"always\" or \"never\""
        }
    }
}
