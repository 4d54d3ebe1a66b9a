
/// A name that cannot be an app's: it could not name a directory under the state directory safely.
public struct AppNameError: Error, Equatable, CustomStringConvertible {
    public let name: String

    public init(name: String) { self.name = name }

    public var description: String {
        "\"\(name)\" is not an app name (letters, digits, '.', '_' and '-' only, 1–255 of them, not \".\" or \"..\")"
    }
}
