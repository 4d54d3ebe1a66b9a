import ApsioCore
package import ApsioConfiguration
import ApsioPOSIX

/// Reads the backend's configuration directory (`/etc/apsio-backend`, `--config`): `backend.conf`
/// and every `apps.d/*.conf` in name order, with the daemon's parser and its rules: only `*.conf`
/// files are apps (so `*.conf.example`, dotfiles, editor backups and dpkg leftovers are not), a
/// missing `backend.conf` is all defaults, and a bad app file leaves that app out and no other.
package struct BackendFilesLoader: Sendable {
    package let directory: String
    package var limits: ConfigurationLimits

    package static let defaultDirectory = "/etc/apsio-backend"

    package init(directory: String, limits: ConfigurationLimits = .standard) {
        self.directory = directory
        self.limits = limits
    }

    package var backendFile: String { directory + "/backend.conf" }
    package var appsDirectory: String { directory + "/apps.d" }

    /// Never throws: what is sound is loaded, and each problem says where to fix the rest.
    package func load() -> BackendFiles {
        var files = BackendFiles()
        if let parsed = parse(backendFile, missingIsProblem: false, problems: &files.problems) {
            var found: [UnitFileProblem] = []
            files.settings = BackendConfSchema.read(parsed) { found.append(UnitFileProblem(line: $0, message: $1)) }
            files.settingsBroken = !found.isEmpty
            files.problems += ConfigurationProblem.inLineOrder(found, path: backendFile)
        } else {
            files.settingsBroken = !files.problems.isEmpty
        }
        loadApps(into: &files)
        return files
    }

    private func loadApps(into files: inout BackendFiles) {
        let names: [String]
        do {
            // No apps.d is no app from files: the command line may give them all.
            guard let listed = try FileSystem.names(in: appsDirectory) else { return }
            names = listed.filter(ConfigurationLoader.isAppFileName).sorted()
        } catch {
            files.appFileNames = nil
            files.problems.append(ConfigurationProblem(
                path: appsDirectory, line: nil,
                message: "cannot be listed: \(ConfigurationFile.reason(error)); no app from it is served"))
            return
        }
        if names.count > limits.maxAppFiles {
            files.problems.append(ConfigurationProblem(
                path: appsDirectory, line: nil,
                message: "holds \(names.count) app files; only the first \(limits.maxAppFiles) in name order are read"))
        }
        for fileName in names.prefix(limits.maxAppFiles) {
            let path = appsDirectory + "/" + fileName
            let stem = String(fileName.dropLast(".conf".count))
            guard let parsed = parse(path, missingIsProblem: true, problems: &files.problems) else {
                files.appFileNames?.insert(stem)
                continue
            }
            let (app, problems) = BackendAppFileSchema.read(parsed, stem: stem)
            let nameEntry = parsed.entries.last { $0.section == "App" && $0.key == "Name" && !$0.value.isEmpty }
            files.appFileNames?.insert(nameEntry?.value ?? stem)
            files.problems += ConfigurationProblem.inLineOrder(problems, path: path)
            guard let app else { continue }
            if files.apps.contains(where: { $0.name == app.name }) {
                files.problems.append(ConfigurationProblem(
                    path: path, line: nameEntry?.line,
                    message: "the app \(app.name) is already served from another file of apps.d; this one is not served"))
                continue
            }
            if files.apps.contains(where: { $0.appKey == app.appKey }) {
                let line = parsed.entries.first { $0.section == "App" && $0.key == "AppKey" }?.line
                files.problems.append(ConfigurationProblem(
                    path: path, line: line,
                    message: "AppKey= is already another app's key; each app has its own, so this one is not served"))
                continue
            }
            files.apps.append(app)
        }
    }

    /// The file parsed, or nil when it is missing or could not be read (a problem then says why).
    private func parse(_ path: String, missingIsProblem: Bool, problems: inout [ConfigurationProblem]) -> UnitFile? {
        ConfigurationFile.parse(path, limits: limits.file, missingIsProblem: missingIsProblem, problems: &problems)
    }
}
