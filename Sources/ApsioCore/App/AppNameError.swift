
/// A name that cannot be an app's: it could not name a directory under the state directory safely.
package struct AppNameError: Error, Equatable, CustomStringConvertible {
    package let name: String

    package init(name: String) { self.name = name }

    package var description: String {
        "\"\(name)\" is not an app name (letters, digits, '.', '_' and '-' only, 1–255 of them, not \".\" or \"..\")"
    }
}
