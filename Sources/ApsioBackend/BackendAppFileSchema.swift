import ApsioCore
package import ApsioConfiguration

/// Reads one `apps.d/NAME.conf`: the app's name, its app key and its tester entries. Any problem
/// leaves the whole app out, as the daemon does with its app files: an app served with a key or a
/// tester list it did not mean is worse than an app not served.
package enum BackendAppFileSchema {
    static let section = "App"
    static let schema = ConfigSchema(sections: [
        (section, [.single("Name"), .single("AppKey"), .list("Tester")])
    ])

    /// The app, or nil and every problem found (at least one). No message quotes the app key.
    package static func read(_ file: UnitFile, stem: String) -> (app: HubApp?, problems: [UnitFileProblem]) {
        var problems = file.problems
        func report(_ line: Int?, _ message: String) { problems.append(UnitFileProblem(line: line, message: message)) }
        if file.problems.contains(where: { $0.line == nil }) { return (nil, problems) }
        if !file.sections.contains(where: { $0.name == section }), file.problems.isEmpty {
            report(nil, "has no [App] section; an app file starts with [App] and sets at least AppKey=")
            return (nil, problems)
        }
        let values = schema.collect(file, report: report)

        var name: String? = stem
        if let entry = values.single(section, "Name"), !entry.value.isEmpty {
            name = BackendCommandLine.isIdentifier(entry.value, max: 128) ? entry.value : nil
            if name == nil { report(entry.line, "Name=\(entry.value) is not 1 to 128 letters, digits, '.', '_' or '-'") }
        } else if !BackendCommandLine.isIdentifier(stem, max: 128) {
            name = nil
            report(nil, "\"\(stem)\" is not an app name: set Name= or rename the file with letters, digits, '.', '_' and '-' only")
        }

        var appKey: String?
        if let entry = values.single(section, "AppKey"), !entry.value.isEmpty {
            if (8...256).contains(entry.value.utf8.count), entry.value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) {
                appKey = entry.value
            } else {
                report(entry.line, "AppKey= must be 8 to 256 printable ASCII characters without spaces (the value is not shown here)")
            }
        } else {
            report(nil, "AppKey= is missing from [App]; set the key this app's devices send in Apsio-App-Key")
        }

        var testers: [TesterEntry] = []
        for entry in values.list(section, "Tester") {
            guard let tester = tester(entry.value) else {
                report(entry.line, "Tester= is ID:MATCH:EXPIRES: an id of 1 to 64 letters, digits, '.', '_' or '-', the match as 64 lowercase hex (SHA-256 of the proof), and the expiry in Unix seconds")
                continue
            }
            if testers.contains(where: { $0.id == tester.id }) {
                report(entry.line, "the tester id \(tester.id) is listed twice; ids are unique in the list (16.7)")
                continue
            }
            guard testers.count < Limits.spec.maxTesters else {
                report(entry.line, "an app lists at most \(Limits.spec.maxTesters) testers")
                continue
            }
            testers.append(tester)
        }

        guard problems.isEmpty, let name, let appKey else { return (nil, problems) }
        return (HubApp(name: name, appKey: appKey, testers: testers), [])
    }

    /// `ID:MATCH:EXPIRES`. Only the match: the installation id is known where the team computes it,
    /// and never reaches the backend's files.
    static func tester(_ text: String) -> TesterEntry? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, BackendCommandLine.isIdentifier(fields[0], max: 64),
            Hex.isLowercase(fields[1], length: 64), let expires = Int64(fields[2]), expires > 0
        else { return nil }
        return TesterEntry(id: fields[0], match: fields[1], expiresAt: expires)
    }
}
