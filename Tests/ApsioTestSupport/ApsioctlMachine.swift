import ApsioState
import Foundation

/// A machine where apsiod is not running, for apsioctl's tests in process and as a binary: a
/// runtime directory without a socket, a state directory and a configuration with two app files
/// (nginx and api) and one that is not an app file.
final class ApsioctlMachine: Sendable {
    let root: TemporaryDirectory
    var runtime: String { root.path + "/run" }
    var state: String { root.path + "/state" }
    var config: String { root.path + "/etc" }
    var options: [String] { ["--runtime-dir", runtime, "--state-dir", state, "--config-dir", config] }

    init() throws {
        root = try TemporaryDirectory("apsioctl")
        for directory in [runtime, state, config + "/apps.d"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        for app in ["nginx", "api"] {
            _ = FileManager.default.createFile(atPath: config + "/apps.d/\(app).conf", contents: Data("[App]\n".utf8))
        }
        _ = FileManager.default.createFile(atPath: config + "/apps.d/old.conf.example", contents: Data())
    }

    /// The settings as the daemon would read them at its next start.
    var settings: OperatorSettings {
        get throws { try SettingsStore(layout: StateLayout(root: state)).load() }
    }
}
