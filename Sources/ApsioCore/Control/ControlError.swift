/// A control request refused or failed: what `{"ok":false,"error":…,"message":…}` carries.
public struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ControlErrorCode
    /// One sentence an operator can act on.
    public var message: String

    public init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code))" }
}
