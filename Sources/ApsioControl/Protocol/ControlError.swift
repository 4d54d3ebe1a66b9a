/// A control request refused or failed: what `{"ok":false,"error":…,"message":…}` carries.
package struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: ControlErrorCode
    /// One sentence an operator can act on.
    package var message: String

    package init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(message) (\(code))" }
}
