/// One header every `POST /v1/logs` of an app carries (`Header=` or `HeaderFile=`): a collector's
/// tenant (`X-Scope-OrgID`), a vendor's API key. Never printed: a value from a file is a secret, and
/// an inline one is shown nowhere either.
package struct AppHeader: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let name: String
    package let value: String
    /// `HeaderFile=`'s path, when the value came from a file.
    package let file: String?

    package init(name: String, value: String, file: String? = nil) {
        self.name = name
        self.value = value
        self.file = file
    }

    package var description: String { "\(name): <redacted>" }
    package var debugDescription: String { description }
    /// What `dump` and `String(reflecting:)` of a configuration show: the name and the file, never the value.
    package var customMirror: Mirror { Mirror(self, children: ["name": name, "file": file as Any]) }
}
