import Foundation
import Testing

/// `docs/architecture.md` and `docs/architecture-musts.md` are the map a newcomer reads first: these
/// hold them to the code, so that a module, a dependency, an executable, a test target or a test
/// named there and gone from the code (or the other way) fails here, not a reader.
@Suite struct ArchitectureDocsTests {
    static func document(_ name: String) throws -> String {
        try String(contentsOf: PackageManifestText.root.appendingPathComponent("docs/\(name)"), encoding: .utf8)
    }

    /// The rows of the table whose header row starts with `header`, each as its cells.
    static func table(startingWith header: String, in text: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map(cells)
    }

    static func cells(_ row: String) -> [String] {
        row.trimmingCharacters(in: .whitespaces).dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The text between backticks, in order.
    static func quoted(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }

    @Test func theManifestIsReadWhole() throws {
        let manifest = try PackageManifestText()
        #expect(manifest["ApsioJSON"]?.dependencies == [])
        #expect(manifest["ApsioCore"]?.dependencies == [])
        #expect(manifest["ApsioWire"]?.dependencies == ["ApsioCore", "ApsioJSON"])
        #expect(manifest["apsioctl"] == .init(kind: "executableTarget", name: "apsioctl", path: nil, dependencies: ["ApsioCtl"]))
        #expect(manifest["ApsioTestSupport"]?.directory == "Tests/ApsioTestSupport")
        #expect(manifest.targets.filter { $0.kind == "testTarget" }.count >= 8)
    }

    /// SwiftPM builds a module that imports another it does not declare, when something else
    /// brought that one in: the manifest would then say less than the code does.
    @Test func everyModuleOfThePackageImportedIsDeclared() throws {
        let manifest = try PackageManifestText()
        let modules = Set(manifest.targets.filter(\.isModule).map(\.name))
        for target in manifest.targets where target.kind != "systemLibrary" {
            for (path, text) in try PackageManifestText.swiftFiles(under: target.directory) {
                let undeclared = PackageManifestText.imports(of: text).intersection(modules).subtracting(target.dependencies + [target.name])
                #expect(undeclared.isEmpty, "\(path) imports \(undeclared.sorted()), which \(target.name) does not declare")
            }
        }
    }

    /// The module table: one row for each library module, what it may import as the manifest
    /// declares it.
    @Test func theModuleTableIsTheManifests() throws {
        let manifest = try PackageManifestText()
        let rows = Self.table(startingWith: "| Module | What it is | May import |", in: try Self.document("architecture.md"))
        #expect(!rows.isEmpty)
        let libraries = manifest.targets.filter { $0.kind == "target" && $0.directory.hasPrefix("Sources/") }
        let named = rows.compactMap { Self.quoted($0[0]).first }
        #expect(named.sorted() == libraries.map(\.name).sorted())
        for row in rows {
            guard let name = Self.quoted(row[0]).first, let target = manifest[name], row.count == 3 else { continue }
            let said: [String] = row[2] == "nothing" || row[2] == "libc" ? [] : row[2].split(separator: ",").map { word in
                let short = word.trimmingCharacters(in: .whitespaces)
                return manifest["Apsio\(short)"] == nil ? short : "Apsio\(short)"
            }
            #expect(Set(said) == Set(target.dependencies), "\(name) may import \(row[2]); Package.swift declares \(target.dependencies)")
        }
    }

    @Test func everyExecutableIsNamedWhereTheModulesAre() throws {
        let manifest = try PackageManifestText()
        let text = try Self.document("architecture.md")
        let section = try #require(text.components(separatedBy: "## Modules").dropFirst().first?.components(separatedBy: "\n## ").first)
        let named = Set(Self.quoted(section))
        for target in manifest.targets where target.kind == "executableTarget" {
            #expect(named.contains(target.name), "docs/architecture.md's Modules do not name the executable \(target.name)")
        }
    }

    @Test func theTestTableIsTheManifests() throws {
        let manifest = try PackageManifestText()
        let rows = Self.table(startingWith: "| Target | What it tests |", in: try Self.document("architecture.md"))
        let named = rows.compactMap { Self.quoted($0[0]).first }
        #expect(named.sorted() == manifest.targets.filter { $0.kind == "testTarget" }.map(\.name).sorted())
    }

    /// Every file named in the MUST table exists, and every test named after a test file is a
    /// function of that file (`Type.name` for one of several suites in it). Backticked words that
    /// are not a test's name (a field, a command) are skipped: a test's name is camel case.
    @Test func everyFileAndTestTheMustTableNamesExists() throws {
        let text = try Self.document("architecture-musts.md")
        let rows = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| 16") || $0.hasPrefix("| 2") }
        #expect(rows.count > 40)
        var checked = 0
        for row in rows {
            let cells = Self.cells(row)
            guard cells.count >= 4 else {
                Issue.record("a row of docs/architecture-musts.md without its four cells: \(row)")
                continue
            }
            for word in Self.quoted(cells[cells.count - 2]) where word.hasSuffix(".swift") {
                #expect(
                    FileManager.default.fileExists(atPath: PackageManifestText.root.appendingPathComponent("Sources/\(word)").path),
                    "docs/architecture-musts.md decides in Sources/\(word), which does not exist")
            }
            var file: (path: String, text: String)?
            for word in Self.quoted(cells[cells.count - 1]) {
                if word.hasSuffix(".swift") {
                    let url = PackageManifestText.root.appendingPathComponent("Tests/\(word)")
                    let found = try? String(contentsOf: url, encoding: .utf8)
                    #expect(found != nil, "docs/architecture-musts.md names Tests/\(word), which does not exist")
                    file = found.map { ("Tests/\(word)", $0) }
                    continue
                }
                // `name`, `name(_:)` or `Suite.name`.
                let parts = (word.split(separator: "(").first ?? "").split(separator: ".").map(String.init)
                guard let name = parts.last, parts.count <= 2,
                    parts.count == 1 || parts[0].unicodeScalars.first.map(CharacterSet.uppercaseLetters.contains) == true,
                    let first = name.unicodeScalars.first, CharacterSet.lowercaseLetters.contains(first),
                    name.unicodeScalars.allSatisfy(CharacterSet.alphanumerics.contains)
                else { continue }
                guard let file else {
                    Issue.record("docs/architecture-musts.md names the test \(word) after no test file: \(row.prefix(80))")
                    continue
                }
                #expect(file.text.contains("func \(name)("), "docs/architecture-musts.md names \(name) in \(file.path), which has no such test")
                checked += 1
            }
        }
        #expect(checked > 100)
    }
}

/// `apsioctl` and `apsiod` link no Foundation: every module each is built from, found through
/// Package.swift, imports none (Foundation statically linked is 6.8 MB of a 15.6 MB binary, for a
/// command that speaks one socket and reads two JSON files; for the daemon, resident pages of
/// code it has no use for, on every box).
@Suite struct ApsioctlFootprintTests {
    @Test(arguments: [
        ("apsioctl", ["ApsioCtl", "ApsioControl", "ApsioState", "ApsioCore", "ApsioJSON", "ApsioPOSIX"]),
        ("apsiod", ["ApsioAgent", "ApsioLive", "ApsioIngest", "ApsioWire", "ApsioCore", "ApsioJSON", "ApsioPOSIX"]),
    ])
    func noModuleTheProgramIsBuiltFromImportsFoundation(_ program: String, _ expected: [String]) throws {
        let manifest = try PackageManifestText()
        var modules: Set<String> = []
        var next = [program]
        while let name = next.popLast() {
            guard modules.insert(name).inserted, let target = manifest[name] else { continue }
            next += target.dependencies
        }
        #expect(modules.isSuperset(of: expected), "\(modules.sorted())")
        for name in modules.sorted() {
            guard let target = manifest[name], target.kind != "systemLibrary" else { continue }
            for (path, text) in try PackageManifestText.swiftFiles(under: target.directory) {
                let foundation = PackageManifestText.imports(of: text).filter { $0.hasPrefix("Foundation") }
                #expect(foundation.isEmpty, "\(path) imports \(foundation.sorted()): \(program) would link Foundation again")
            }
        }
    }
}
