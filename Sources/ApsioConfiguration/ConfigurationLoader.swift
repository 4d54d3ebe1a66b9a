internal import ApsioCore
internal import ApsioPOSIX

/// Reads the configuration directory (`/etc/apsio`, `--config-dir`): `apsiod.conf` and every
/// `apps.d/*.conf`, in name order.
///
/// Never throws: a configuration with problems still runs what is sound. A bad app file leaves
/// that app out; a bad key of `apsiod.conf` keeps its default. Each problem names the file and
/// line to fix. Only `*.conf` files are read, so `*.conf.example`, dotfiles, editor backups
/// (`nginx.conf~`, `.nginx.conf.swp`) and dpkg leftovers (`nginx.conf.dpkg-old`) are not apps.
package struct ConfigurationLoader: Sendable {
    package let directory: String
    package var limits: ConfigurationLimits

    package static let defaultDirectory = "/etc/apsio"

    package init(directory: String = ConfigurationLoader.defaultDirectory, limits: ConfigurationLimits = .standard) {
        self.directory = directory
        self.limits = limits
    }

    package var daemonFile: String { directory + "/apsiod.conf" }
    package var appsDirectory: String { directory + "/apps.d" }

    package func load() -> Configuration {
        var configuration = Configuration()
        configuration.daemon = loadDaemon(problems: &configuration.problems)
        configuration.apps = loadApps(problems: &configuration.problems, files: &configuration.appFiles)
        return configuration
    }

    private func loadDaemon(problems: inout [ConfigurationProblem]) -> DaemonConfiguration {
        let path = daemonFile
        // No apsiod.conf is the defaults: every key in it is optional.
        guard let parsed = parse(path, problems: &problems) else { return DaemonConfiguration() }
        var found = parsed.problems
        let daemon = DaemonConfigurationSchema.read(parsed) { line, message in
            found.append(UnitFileProblem(line: line, message: message))
        }
        problems += ConfigurationProblem.inLineOrder(found, path: path)
        return daemon
    }

    private func loadApps(problems: inout [ConfigurationProblem], files: inout Set<AppName>?) -> [AppConfiguration] {
        let names: [String]
        do {
            guard let listed = try FileSystem.names(in: appsDirectory) else { return [] }
            names = listed.filter(Self.isAppFileName)
            files = Set(names.compactMap { try? AppName(String($0.dropLast(".conf".count))) })
        } catch {
            problems.append(ConfigurationProblem(
                path: appsDirectory, line: nil,
                message: "cannot be listed: \(ConfigurationFile.reason(error)); no app is served"))
            return []
        }
        if names.count > limits.maxAppFiles {
            problems.append(ConfigurationProblem(
                path: appsDirectory, line: nil,
                message: "holds \(names.count) app files; only the first \(limits.maxAppFiles) in name order are read"))
        }

        var apps: [AppConfiguration] = []
        for fileName in names.prefix(limits.maxAppFiles) {
            let path = appsDirectory + "/" + fileName
            let stem = String(fileName.dropLast(".conf".count))
            guard let name = try? AppName(stem) else {
                problems.append(ConfigurationProblem(
                    path: path, line: nil,
                    message: "\"\(stem)\" is not an app name: rename the file with letters, digits, '.', '_' and '-' only"))
                continue
            }
            guard let parsed = parse(path, problems: &problems) else { continue }
            let (app, fileProblems) = AppFileSchema.read(parsed, name: name, path: path) { secretPath throws(AppKeyFileError) in
                try AppKeyFile.readSecret(secretPath)
            }
            problems += ConfigurationProblem.inLineOrder(fileProblems, path: path)
            guard let app else { continue }
            if let other = apps.first(where: { $0.unit == app.unit }) {
                let line = parsed.entries.first { $0.section == AppFileSchema.section && $0.key == "Unit" }?.line
                problems.append(ConfigurationProblem(
                    path: path, line: line,
                    message: "\(app.unit) is already watched by \(other.path); one app file a unit, so this one is not served"))
                continue
            }
            apps.append(app)
        }
        return apps
    }

    /// The file parsed, or nil when it is missing or could not be read (a problem then says why);
    /// a missing apsiod.conf is no problem, an app file listed and gone is.
    private func parse(_ path: String, problems: inout [ConfigurationProblem]) -> UnitFile? {
        ConfigurationFile.parse(path, limits: limits.file, missingIsProblem: path != daemonFile, problems: &problems)
    }

    package static func isAppFileName(_ name: String) -> Bool {
        name.hasSuffix(".conf") && !name.hasPrefix(".") && name.count > ".conf".count
    }
}
