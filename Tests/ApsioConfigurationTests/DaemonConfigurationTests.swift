import Foundation
import Testing
import ApsioConfiguration
import ApsioCore
import ApsioNet

@Suite struct DaemonConfigurationTests {
    func load(_ text: String) throws -> (config: ConfigDirectory, loaded: Configuration) {
        let config = try ConfigDirectory()
        try config.write("apsiod.conf", text, mode: 0o644)
        return (config, config.load())
    }

    @Test func everyKeyTakesItsValue() throws {
        let (_, loaded) = try load("""
            [Daemon]
            LogLevel=debug

            [Indicator]
            MotdFile=/run/motd.d/90-watched
            AnnounceTerminals=no

            [Queue]
            MaxSize=16M
            MaxAge=1d 12h
            """)
        #expect(loaded.problems == [])
        #expect(loaded.daemon.logLevel == .debug)
        #expect(loaded.daemon.motdFile == "/run/motd.d/90-watched")
        #expect(!loaded.daemon.announceTerminals)
        #expect(loaded.daemon.queue.maxBytes == 16 << 20)
        #expect(loaded.daemon.queue.maxAge == .seconds(36 * 3600))
    }

    @Test func anEmptyMotdFileTurnsItOff() throws {
        #expect(try load("[Indicator]\nMotdFile=\n").loaded.daemon.motdFile == nil)
    }

    @Test func theShippedFileIsAllDefaults() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("packaging/etc/apsio/apsiod.conf")
        let (_, loaded) = try load(try String(contentsOf: shipped, encoding: .utf8))
        #expect(loaded.problems == [])
        #expect(loaded.daemon == DaemonConfiguration())
    }

    @Test func eachBadValueKeepsItsDefaultAndTheGoodOnesApply() throws {
        let (config, loaded) = try load("""
            [Daemon]
            LogLevel=verbose
            [Indicator]
            MotdFile=motd
            AnnounceTerminals=sometimes
            [Queue]
            MaxSize=12X
            MaxAge=forever
            [Indicator]
            Announce=no
            """)
        let path = config.path + "/apsiod.conf"
        #expect(loaded.daemon == DaemonConfiguration())
        // In line order, whichever check found each.
        #expect(loaded.problems == [
            ConfigurationProblem(path: path, line: 2, message: "LogLevel=verbose is not one of debug, info, notice, warning, err"),
            ConfigurationProblem(path: path, line: 4, message: "MotdFile=motd is not an absolute file path (like /run/motd.d/50-apsio); leave it empty to turn the motd file off"),
            ConfigurationProblem(path: path, line: 5, message: "AnnounceTerminals=sometimes is not yes or no"),
            ConfigurationProblem(path: path, line: 7, message: "MaxSize=12X is not a size from 1M to 64G (bytes, or with a K, M or G suffix)"),
            ConfigurationProblem(path: path, line: 8, message: "MaxAge=forever is not a time from 1h to 365d (like 7d, 36h or 1w 2d)"),
            ConfigurationProblem(path: path, line: 10, message: "unknown key `Announce` in [Indicator]; did you mean `AnnounceTerminals`?"),
        ])
    }

    @Test func aKeyInTheWrongSectionSaysWhereItBelongs() throws {
        let (_, loaded) = try load("[Indicator]\nLogLevel=debug\n[Daemon]\nLogLevel=warning\n")
        #expect(loaded.daemon.logLevel == .warning)
        #expect(loaded.problems.map(\.message) == ["unknown key `LogLevel` in [Indicator]; `LogLevel=` belongs in [Daemon]"])
        #expect(loaded.problems.map(\.line) == [2])
    }

    @Test func sizesAndAgesAtTheirBounds() throws {
        for (text, bytes) in [("1M", 1 << 20), ("1048576", 1 << 20), ("64G", 64 << 30), ("2048K", 2 << 20)] {
            #expect(try load("[Queue]\nMaxSize=\(text)\n").loaded.daemon.queue.maxBytes == bytes, "\(text)")
        }
        for text in ["1048575", "65G", "-1M", "1.5M", "M", "99999999999999999999G"] {
            #expect(try load("[Queue]\nMaxSize=\(text)\n").loaded.problems.map(\.line) == [2], "\(text)")
        }
        for (text, seconds) in [("1h", 3600), ("3600", 3600), ("90min", 5400), ("1w 2d", 9 * 86_400), ("365d", 365 * 86_400), ("2 hours", 7200)] {
            #expect(try load("[Queue]\nMaxAge=\(text)\n").loaded.daemon.queue.maxAge == .seconds(seconds), "\(text)")
        }
        for text in ["59min", "366d", "1h 30", "7 fortnights", "1.5h", ""] where !text.isEmpty {
            #expect(try load("[Queue]\nMaxAge=\(text)\n").loaded.problems.map(\.line) == [2], "\(text)")
        }
    }

    @Test func aBrokenDaemonFileIsReportedAndTheAppsStillLoad() throws {
        let config = try ConfigDirectory()
        try config.write("apsiod.conf", "[Daemon]\nLogLevel=debug\n" + String(repeating: "#\n", count: 3000))
        try config.app("nginx", appFile())
        let loaded = config.load()
        #expect(loaded.daemon == DaemonConfiguration())
        #expect(loaded.apps.count == 1)
        #expect(loaded.problems.map(\.description) == [
            "\(config.path)/apsiod.conf: has more than 2000 lines, more than a configuration file holds"
        ])
    }
}

@Suite struct ConfigurationReloadTests {
    @Test func aReloadTellsWhichAppsWereAddedRemovedAndChanged() throws {
        let config = try ConfigDirectory()
        try config.app("kept", appFile(unit: "kept.service"))
        try config.app("edited", appFile(unit: "edited.service"))
        try config.app("gone", appFile(unit: "gone.service"))
        let before = config.load()
        #expect(before.changes(to: config.load()).isEmpty)

        try config.app("edited", appFile(unit: "edited.service", "MinPriority=info\n"))
        try FileManager.default.removeItem(atPath: config.path + "/apps.d/gone.conf")
        try config.app("new", appFile(unit: "new.service"))
        let after = config.load()
        #expect(before.changes(to: after) == ConfigurationChanges(
            added: [try AppName("new")], removed: [try AppName("gone")], changed: [try AppName("edited")]))
    }

    @Test func aNewKeyInTheKeyFileIsAChange() throws {
        let config = try ConfigDirectory()
        let keyFile = try config.write("keys/app", "first-key\n", mode: 0o600)
        try config.app("app", "[App]\nUnit=app.service\nBackend=https://b.example.com\nAppKeyFile=\(keyFile)\n")
        let before = config.load()
        try config.write("keys/app", "second-key\n", mode: 0o600)
        #expect(before.changes(to: config.load()).changed == [try AppName("app")])
    }

    @Test func anAppThatBreaksIsRemovedAndTheDaemonChangeIsSeen() throws {
        let config = try ConfigDirectory()
        try config.app("app", appFile())
        let before = config.load()
        try config.app("app", appFile("Famlies=logs\n"))
        try config.write("apsiod.conf", "[Indicator]\nAnnounceTerminals=no\n")
        let changes = before.changes(to: config.load())
        #expect(changes.removed == [try AppName("app")])
        #expect(changes.daemonChanged)
    }

    @Test func reorderedRedactPatternsAreAChangeButTheSamePatternsAreNot() throws {
        let config = try ConfigDirectory()
        try config.app("app", appFile("Redact=a=[0-9]+\nRedact=b=[0-9]+\n"))
        let before = config.load()
        try config.app("app", appFile("# a comment now\nRedact=a=[0-9]+\nRedact=b=[0-9]+\n"))
        #expect(before.changes(to: config.load()).isEmpty)
        try config.app("app", appFile("Redact=b=[0-9]+\nRedact=a=[0-9]+\n"))
        #expect(before.changes(to: config.load()).changed == [try AppName("app")])
    }
}

/// `[Network]`: the proxy over the environment's, its credentials from a file, and mistakes said
/// at FILE:LINE without repeating a password.
@Suite struct DaemonNetworkConfigurationTests {
    func load(_ text: String, files: [String: (String, Int)] = [:]) throws -> (config: ConfigDirectory, loaded: Configuration) {
        let config = try ConfigDirectory()
        for (name, (content, mode)) in files { try config.write(name, content, mode: mode) }
        try config.write("apsiod.conf", text, mode: 0o644)
        return (config, config.load())
    }

    @Test func theProxyItsExceptionsAndItsCredentialsAreRead() throws {
        let config = try ConfigDirectory()
        try config.write("proxy-credentials", "box:pr0xy pass\n", mode: 0o600)
        try config.write("apsiod.conf", """
            [Network]
            Proxy=http://proxy.fleet.example:3128
            NoProxy=.internal.example, 10.0.0.0/8
            ProxyCredentialsFile=\(config.path)/proxy-credentials
            """, mode: 0o644)
        let loaded = config.load()
        #expect(loaded.problems == [])
        let network = loaded.daemon.network
        #expect(network.proxy == .proxy(HTTPProxy(host: "proxy.fleet.example", port: 3128)))
        #expect(network.credentials == (try ProxyCredentials(user: "box", password: "pr0xy pass")))
        let settings = network.settings(over: ProxySettings(https: HTTPProxy(host: "env", port: 1), noProxy: NoProxy("other.example")))
        #expect(settings.https?.address == "proxy.fleet.example:3128")
        #expect(settings.https?.credentials != nil)
        #expect(settings.noProxy.bypasses("a.internal.example") && !settings.noProxy.bypasses("other.example"))
    }

    @Test func withoutProxyTheEnvironmentDecidesAndNoneTurnsItOff() throws {
        let environment = ProxySettings(https: HTTPProxy(host: "env", port: 3128), noProxy: NoProxy(".env.example"))
        #expect(try load("").loaded.daemon.network.settings(over: environment) == environment)
        let direct = try load("[Network]\nProxy=none\n").loaded.daemon.network.settings(over: environment)
        #expect(direct.https == nil)
        #expect(direct.noProxy == environment.noProxy)
    }

    @Test func eachMistakeIsSaidAtItsLineWithoutThePassword() throws {
        let config = try ConfigDirectory()
        try config.write("open-credentials", "box:hunter-one\n", mode: 0o644)
        try config.write("no-colon", "just-a-user\n", mode: 0o600)
        try config.write("apsiod.conf", """
            [Network]
            Proxy=http://box:hunter-two@proxy:3128
            NoProxy=ok.example, not/a/host
            ProxyCredentialsFile=\(config.path)/open-credentials
            """, mode: 0o644)
        let loaded = config.load()
        let messages = loaded.problems.map(\.description)
        #expect(loaded.problems.map(\.line) == [2, 3, 4])
        #expect(messages[0].contains("ProxyCredentialsFile="))
        #expect(messages[1].contains("not/a/host"))
        #expect(messages[2].contains("every user"))
        #expect(!messages.joined().contains("hunter"))
        #expect(loaded.daemon.network == NetworkConfiguration(noProxy: NoProxy("ok.example, not/a/host")))

        try config.write("apsiod.conf", """
            [Network]
            Proxy=https://proxy:3128
            ProxyCredentialsFile=\(config.path)/no-colon
            """, mode: 0o644)
        let again = config.load()
        #expect(again.problems.map(\.line) == [2, 3])
        #expect(again.problems[0].description.contains("https:// proxies are not supported"))
        #expect(again.problems[1].description.contains("user:password"))
        #expect(again.daemon.network == NetworkConfiguration())
    }
}
