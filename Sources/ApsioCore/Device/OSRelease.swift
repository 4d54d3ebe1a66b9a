/// The `KEY=value` fields of an os-release file (os-release(5)) and what the Resource takes from
/// them: `os.name` and `os.version`, which spec 2.2 says MUST be set, so each has a value even when
/// the file leaves its field out or no file can be read.
package struct OSRelease: Sendable, Equatable {
    /// What os-release(5) says to assume when `NAME` is not set.
    package static let defaultName = "Linux"
    /// The version when the file names none: a rolling or unreleased system, or no file at all.
    package static let unknownVersion = "unknown"

    package var fields: [String: String]

    package init(fields: [String: String] = [:]) {
        self.fields = fields
    }

    /// `KEY=value` lines with shell quoting, as os-release(5) defines them; comments and lines
    /// without `=` are skipped.
    package init(parsing text: String) {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let line = Self.trimmed(line)
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = Self.unquoted(line[line.index(after: equals)...])
        }
        self.fields = fields
    }

    /// `os.name`: `NAME`, else `Linux`, the default os-release(5) gives it.
    package var name: String {
        field("NAME") ?? Self.defaultName
    }

    /// `os.version`: `VERSION_ID`, else `VERSION`, else `BUILD_ID`, else `unknown`. Debian sid and
    /// Arch set no `VERSION_ID`; Arch's only version is `BUILD_ID=rolling`.
    package var version: String {
        field("VERSION_ID") ?? field("VERSION") ?? field("BUILD_ID") ?? Self.unknownVersion
    }

    /// An empty value (`NAME=`) says no more than an absent one, and an empty `os.name` would not be set.
    private func field(_ key: String) -> String? {
        guard let value = fields[key], !value.isEmpty else { return nil }
        return value
    }

    private static func unquoted(_ raw: Substring) -> String {
        guard let quote = raw.first, quote == "\"" || quote == "'" else { return String(raw) }
        var value = ""
        var escaped = false
        for character in raw.dropFirst() {
            if escaped {
                // Inside double quotes only these four are escapes, as in the shell; any other
                // backslash stays in the value.
                if !"\"\\$`".contains(character) { value.append("\\") }
                value.append(character)
                escaped = false
            } else if character == "\\" && quote == "\"" {
                escaped = true
            } else if character == quote {
                break
            } else {
                value.append(character)
            }
        }
        return value
    }

    private static func trimmed(_ line: Substring) -> Substring {
        guard let first = line.firstIndex(where: { !$0.isWhitespace }),
            let last = line.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return line[first...last]
    }
}
