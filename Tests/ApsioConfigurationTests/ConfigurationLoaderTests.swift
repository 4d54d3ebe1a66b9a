import ApsioCore
import ApsioNet
import Foundation
import Testing
import ApsioConfiguration
import ApsioState
import ApsioTestSupport

/// A configuration directory of the test's own.
final class ConfigDirectory: Sendable {
    let directory: TemporaryDirectory
    var path: String { directory.path }

    init() throws {
        directory = try TemporaryDirectory("apsio-config")
        try FileManager.default.createDirectory(atPath: path + "/apps.d", withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ relative: String, _ text: String, mode: Int = 0o640) throws -> String {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    func app(_ name: String, _ text: String) throws {
        try write("apps.d/\(name).conf", text)
    }

    func load(limits: ConfigurationLimits = .standard) -> Configuration {
        ConfigurationLoader(directory: path, limits: limits).load()
    }
}

let secretKey = "apsio_app_4f2c9d0e1b7a"

/// A minimal valid app file, with `extra` lines appended to its [App] section.
func appFile(unit: String = "nginx.service", _ extra: String = "") -> String {
    "[App]\nUnit=\(unit)\nBackend=https://ingest.example.com\nAppKey=\(secretKey)\n" + extra
}

@Suite struct ConfigurationLoaderTests {
    @Test func anEmptyDirectoryIsTheDefaultsAndNoApps() throws {
        let config = try ConfigDirectory()
        let loaded = config.load()
        #expect(loaded == Configuration(appFiles: []))
        #expect(loaded.daemon.motdFile == "/run/motd.d/50-apsio")
        #expect(loaded.daemon.announceTerminals)
        #expect(loaded.daemon.logLevel == .info)
        #expect(loaded.daemon.queue == QueueBounds.standard)
    }

    @Test func aCompleteAppFileGivesEverySetting() throws {
        let config = try ConfigDirectory()
        try config.write("keys/nginx", secretKey + "\n", mode: 0o640)
        try config.app("nginx", """
            [App]
            Unit=nginx.service
            Name=com.example.nginx
            Version=1.22.1-9
            Backend=https://ingest.example.com:8443/collector
            AppKeyFile=\(config.path)/keys/nginx
            Consent=granted
            Families=logs errors
            Families=metrics
            MinPriority=warning
            Redact=card=[0-9 ]{12,19}
            Redact=ssn=[0-9-]+
            InstallationId=no
            StartAt=boot
            """)
        let loaded = config.load()
        #expect(loaded.problems == [])
        let app = try #require(loaded.apps.first)
        #expect(app.name.rawValue == "nginx")
        #expect(app.path == config.path + "/apps.d/nginx.conf")
        #expect(app.unit == "nginx.service")
        #expect(app.serviceName == "com.example.nginx")
        #expect(app.version == "1.22.1-9")
        #expect(app.backend == (try HTTPEndpoint(baseURL: "https://ingest.example.com:8443/collector")))
        #expect(app.appKey == AppKey(secretKey))
        #expect(app.appKeyFile == config.path + "/keys/nginx")
        #expect(app.consent == .granted)
        #expect(app.families == [.logs, .errors, .metrics])
        #expect(app.minPriority == 4)
        #expect(app.redaction.patterns == ["card=[0-9 ]{12,19}", "ssn=[0-9-]+"])
        #expect(app.redaction.redactor.redact("paid card=4111 1111 1111 1111 ok") == "paid [REDACTED] ok")
        #expect(!app.installationID)
        #expect(app.startAt == .boot)
    }

    @Test func optionalKeysHaveTheProfilesDefaults() throws {
        let config = try ConfigDirectory()
        try config.app("web", appFile(unit: "web@blue.service"))
        let app = try #require(config.load().apps.first)
        #expect(app.serviceName == "web@blue")
        #expect(app.version == nil)
        #expect(app.consent == nil)
        #expect(app.families == Set(CaptureFamily.allCases))
        #expect(app.minPriority == 7)
        #expect(app.redaction.patterns.isEmpty)
        #expect(app.installationID)
        #expect(app.appKeyFile == nil)
        #expect(app.startAt == .now)
    }

    /// A broken file is still an app's: only an app whose file is gone is removed (and forgotten).
    @Test func everyAppFileIsKnownLoadedOrNot() throws {
        let config = try ConfigDirectory()
        try config.app("web", appFile())
        try config.app("db", "[App]\nFamlies=logs\n")
        try config.write("apps.d/notes.conf.example", "")
        let loaded = config.load()
        #expect(loaded.apps.map(\.name.rawValue) == ["web"])
        #expect(loaded.appFiles == [try AppName("web"), try AppName("db")])
        #expect(ConfigurationLoader(directory: config.path + "/missing").load().appFiles == nil)
    }

    @Test func anUnknownStartAtNamesTheChoices() throws {
        let config = try ConfigDirectory()
        try config.app("web", appFile("StartAt=tail\n"))
        let loaded = config.load()
        #expect(loaded.apps.isEmpty)
        let problem = try #require(loaded.problems.first)
        #expect(problem.description.contains("StartAt"))
        #expect(problem.description.contains("now") && problem.description.contains("boot") && problem.description.contains("head"))
    }

    @Test func theTypoInTheBriefIsReportedAsAnOperatorWouldWantIt() throws {
        let config = try ConfigDirectory()
        try config.app("nginx", appFile("Famlies=logs\n"))
        let loaded = config.load()
        #expect(loaded.apps.isEmpty)
        #expect(loaded.problems.map(\.description) == [
            "\(config.path)/apps.d/nginx.conf:5: unknown key `Famlies` in [App]; did you mean `Families`?"
        ])
    }

    @Test func oneBadAppFileLeavesTheOthersLoaded() throws {
        let config = try ConfigDirectory()
        try config.app("alpha", appFile(unit: "alpha.service"))
        try config.app("broken", appFile(unit: "broken.service", "Consent=maybe\n"))
        try config.app("gamma", appFile(unit: "gamma.service"))
        let loaded = config.load()
        #expect(loaded.apps.map(\.name.rawValue) == ["alpha", "gamma"])
        #expect(loaded.problems.count == 1)
        #expect(loaded.problems.first?.path == config.path + "/apps.d/broken.conf")
        #expect(loaded.problems.first?.line == 5)
    }

    @Test func onlyConfFilesAreApps() throws {
        let config = try ConfigDirectory()
        try config.app("real", appFile())
        for name in ["example.conf.example", ".hidden.conf", "real.conf~", "#real.conf#", ".real.conf.swp",
                     "real.conf.dpkg-old", "README"] {
            try config.write("apps.d/" + name, "this is not an app file")
        }
        let loaded = config.load()
        #expect(loaded.problems == [])
        #expect(loaded.apps.map(\.name.rawValue) == ["real"])
    }

    @Test func aFileNameThatIsNotAnAppNameIsAProblemForThatFile() throws {
        let config = try ConfigDirectory()
        try config.app("my app", appFile())
        let loaded = config.load()
        #expect(loaded.apps.isEmpty)
        #expect(loaded.problems.map(\.path) == [config.path + "/apps.d/my app.conf"])
        #expect(loaded.problems.first?.message.contains("not an app name") == true)
    }

    @Test func apsiodDoesNotWatchItsOwnUnit() throws {
        let config = try ConfigDirectory()
        try config.app("self", appFile(unit: "apsiod.service"))
        try config.app("other", appFile(unit: "other.service"))
        let loaded = config.load()
        #expect(loaded.apps.map(\.unit) == ["other.service"])
        #expect(loaded.problems.map(\.description) == [
            "\(config.path)/apps.d/self.conf:2: Unit=apsiod.service is apsiod itself, which does not watch its own unit; name your service's unit"
        ])
    }

    @Test func twoAppFilesForOneUnitServeTheFirstOnly() throws {
        let config = try ConfigDirectory()
        try config.app("a", appFile())
        try config.app("b", appFile())
        let loaded = config.load()
        #expect(loaded.apps.map(\.name.rawValue) == ["a"])
        #expect(loaded.problems.map(\.path) == [config.path + "/apps.d/b.conf"])
        #expect(loaded.problems.first?.line == 2)
    }

    @Test func theAppsAreReadInNameOrderAndCapped() throws {
        let config = try ConfigDirectory()
        for name in ["c", "a", "b"] { try config.app(name, appFile(unit: "\(name).service")) }
        #expect(config.load().apps.map(\.name.rawValue) == ["a", "b", "c"])
        let capped = config.load(limits: ConfigurationLimits(maxAppFiles: 2))
        #expect(capped.apps.map(\.name.rawValue) == ["a", "b"])
        #expect(capped.problems.map(\.description) == [
            "\(config.path)/apps.d: holds 3 app files; only the first 2 in name order are read"
        ])
    }

    @Test func aFileLargerThanTheLimitIsAProblemNotAPartialRead() throws {
        let config = try ConfigDirectory()
        let text = appFile()
        try config.app("big", text + "# " + String(repeating: "x", count: 200) + "\n")
        try config.app("small", appFile(unit: "small.service"))
        let loaded = config.load(limits: ConfigurationLimits(file: UnitFileLimits(maxBytes: 200)))
        #expect(loaded.apps.map(\.name.rawValue) == ["small"])
        #expect(loaded.problems.map(\.description) == [
            "\(config.path)/apps.d/big.conf: is larger than 200 bytes, more than a configuration file holds"
        ])
    }

    @Test func aFIFOInPlaceOfAnAppFileIsRefusedWithoutWaiting() throws {
        let config = try ConfigDirectory()
        #expect(mkfifo(config.path + "/apps.d/pipe.conf", 0o644) == 0)
        let loaded = config.load()
        #expect(loaded.problems.map(\.description) == ["\(config.path)/apps.d/pipe.conf: is not a regular file"])
    }

    @Test func theShippedExampleIsAValidAppFileOnceItsKeyExists() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("packaging/etc/apsio/apps.d/example.conf.example")
        let text = try String(contentsOf: example, encoding: .utf8)
        #expect(text.contains("AppKeyFile=/etc/apsio/keys/example\n"))
        let config = try ConfigDirectory()
        let keyFile = try config.write("keys/example", secretKey + "\n", mode: 0o640)
        try config.app("example", text.replacingOccurrences(of: "/etc/apsio/keys/example", with: keyFile))
        let loaded = config.load()
        #expect(loaded.problems == [])
        #expect(loaded.apps.map(\.unit) == ["example.service"])
    }
}

@Suite struct AppConsentTests {
    @Test func theOperatorsOverrideWinsOverTheAppFile() {
        #expect(AppConsent.effective(file: nil, override: nil) == nil)
        #expect(AppConsent.effective(file: .granted, override: nil) == .granted)
        #expect(AppConsent.effective(file: .granted, override: .denied) == .denied)
        #expect(AppConsent.effective(file: nil, override: .granted) == .granted)
        #expect(AppConsent.effective(file: .denied, override: .granted) == .granted)
    }
}
