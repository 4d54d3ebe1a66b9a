import Foundation

/// The targets `Package.swift` declares, read from its text: enough of the manifest's shape for
/// the documentation's tables to be held to it without running SwiftPM inside a test (which would
/// wait on the build's own lock). Each target is one `.kind(…)` call; its `name:`, `path:` and the
/// strings of its `dependencies: […]`.
struct PackageManifestText {
    struct Target: Equatable {
        var kind: String
        var name: String
        var path: String?
        var dependencies: [String]

        /// Where its files are, from the package's root.
        var directory: String {
            if let path { return path }
            switch kind {
            case "testTarget": return "Tests/\(name)"
            case "plugin": return "Plugins/\(name)"
            default: return "Sources/\(name)"
            }
        }

        /// A module a Swift file of the package may `import`.
        var isModule: Bool { kind != "plugin" }
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let targets: [Target]

    init() throws {
        try self.init(text: String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    init(text: String) {
        let scalars = Array(text.unicodeScalars)
        var targets: [Target] = []
        var index = 0
        let kinds = ["target", "executableTarget", "testTarget", "systemLibrary", "plugin"]
        while index < scalars.count {
            guard scalars[index] == ".", let kind = kinds.first(where: { Self.matches(scalars, at: index + 1, "\($0)(") }) else {
                index += 1
                continue
            }
            let open = index + 1 + kind.unicodeScalars.count
            let close = Self.closing(scalars, from: open, opening: "(", closing: ")")
            let body = String(String.UnicodeScalarView(scalars[(open + 1)..<close]))
            if let name = Self.string(after: "name:", in: body) {
                var dependencies: [String] = []
                if let range = body.range(of: "dependencies: [") {
                    let list = Array(body[range.upperBound...].unicodeScalars)
                    let end = Self.closing(list, from: -1, opening: "[", closing: "]")
                    dependencies = Self.strings(in: String(String.UnicodeScalarView(list[..<end])))
                }
                targets.append(Target(kind: kind, name: name, path: Self.string(after: "path:", in: body), dependencies: dependencies))
            }
            index = close
        }
        self.targets = targets
    }

    subscript(name: String) -> Target? { targets.first { $0.name == name } }

    /// The modules a Swift file imports (`import X`, with any attribute or access before it).
    static func imports(of text: String) -> Set<String> {
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                words[..<at].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains($0) })
            else { continue }
            var module = words[at + 1]
            // `import struct Module.Type`
            if ["struct", "class", "enum", "protocol", "func", "var", "typealias"].contains(module), at + 2 < words.count {
                module = words[at + 2]
            }
            modules.insert(String(module.split(separator: ".").first ?? module))
        }
        return modules
    }

    /// The Swift files under `directory` (from the package's root), with their text.
    static func swiftFiles(under directory: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(directory)
        let names = (FileManager.default.subpaths(atPath: base.path) ?? []).filter { $0.hasSuffix(".swift") }.sorted()
        return try names.map { ("\(directory)/\($0)", try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    private static func matches(_ scalars: [Unicode.Scalar], at start: Int, _ word: String) -> Bool {
        let wanted = Array(word.unicodeScalars)
        guard start + wanted.count <= scalars.count else { return false }
        return Array(scalars[start..<(start + wanted.count)]) == wanted
    }

    /// The index of the bracket closing the one at `from` (or, for -1, one just before the text),
    /// skipping string literals; the end of the text if it never closes.
    private static func closing(_ scalars: [Unicode.Scalar], from: Int, opening: Unicode.Scalar, closing: Unicode.Scalar) -> Int {
        var depth = 1
        var inString = false
        var index = from + 1
        while index < scalars.count {
            let scalar = scalars[index]
            if inString {
                if scalar == "\\" { index += 1 } else if scalar == "\"" { inString = false }
            } else if scalar == "\"" {
                inString = true
            } else if scalar == opening {
                depth += 1
            } else if scalar == closing {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return scalars.count
    }

    private static func string(after label: String, in body: String) -> String? {
        guard let range = body.range(of: label) else { return nil }
        return strings(in: String(body[range.upperBound...])).first
    }

    /// The string literals of `text`, in order.
    private static func strings(in text: String) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }
}
