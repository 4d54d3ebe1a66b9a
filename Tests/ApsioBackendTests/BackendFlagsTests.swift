import ApsioBackend
import ApsioConfiguration
import ApsioCore
import ApsioRedis
import Testing

/// The command line over the files, as docs/backend.md says: a setting given as a flag overrides
/// the file's, an `--app` adds an app, or replaces the file's app of its name.
@Suite struct BackendFlagsTests {
    static let now: Int64 = 1_800_000_000

    static func flags(_ arguments: [String], config: String? = "/etc/apsio-backend") throws -> BackendFlags {
        guard case .run(let flags) = try BackendCommandLine.parseCommand(
            arguments, nowUnixSeconds: now, hashing: sha256, defaultConfigDirectory: config, program: "apsio-backend")
        else { throw Unexpected() }
        return flags
    }

    struct Unexpected: Error {}

    static func files(apps: [HubApp] = [], origin: String? = "https://live.example.com") -> BackendFiles {
        var files = BackendFiles()
        files.settings.origin = origin.flatMap(LiveOrigin.init)
        files.settings.listenHost = "0.0.0.0"
        files.settings.listenPort = 8443
        files.settings.intervalSeconds = 60
        files.settings.accountsPath = "/var/lib/apsio-backend/accounts"
        files.apps = apps
        return files
    }

    @Test func theFilesAloneConfigureTheBackend() throws {
        let app = HubApp(name: "web", appKey: "apsio_app_web_key")
        let configuration = try Self.flags([]).configuration(files: Self.files(apps: [app])).configuration
        #expect(configuration.listenHost == "0.0.0.0" && configuration.listenPort == 8443)
        #expect(configuration.hub.origin.text == "https://live.example.com")
        #expect(configuration.hub.interval == .seconds(60))
        #expect(configuration.accountsPath == "/var/lib/apsio-backend/accounts")
        #expect(configuration.hub.apps == [app])
    }

    @Test func flagsOverrideTheFilesSettings() throws {
        let flags = try Self.flags([
            "--listen", "127.0.0.1:9000", "--live-origin", "https://other.example.com", "--interval", "20",
            "--accounts", "/tmp/accounts",
        ])
        let configuration = try flags.configuration(files: Self.files()).configuration
        #expect(configuration.listenHost == "127.0.0.1" && configuration.listenPort == 9000)
        #expect(configuration.hub.origin.text == "https://other.example.com")
        #expect(configuration.hub.interval == .seconds(20))
        #expect(configuration.accountsPath == "/tmp/accounts")
    }

    @Test func anAppFlagAddsToTheFilesAppsAndReplacesOneOfItsName() throws {
        let files = Self.files(apps: [
            HubApp(name: "web", appKey: "apsio_app_web_key"), HubApp(name: "api", appKey: "apsio_app_api_key"),
        ])
        let flags = try Self.flags(["--app", "web:apsio_app_web_flag", "--app", "extra:apsio_app_extra"])
        let (configuration, problems) = try flags.configuration(files: files)
        #expect(problems == [])
        #expect(configuration.hub.apps.map(\.name) == ["web", "extra", "api"])
        #expect(configuration.hub.apps.first { $0.name == "web" }?.appKey == "apsio_app_web_flag")
    }

    @Test func aFileAppWithTheKeyOfAFlagAppIsNotServed() throws {
        let files = Self.files(apps: [HubApp(name: "web", appKey: "apsio_app_shared")])
        let (configuration, problems) = try Self.flags(["--app", "other:apsio_app_shared"]).configuration(files: files)
        #expect(configuration.hub.apps.map(\.name) == ["other"])
        #expect(problems.map(\.description) == [
            "/etc/apsio-backend/apps.d: the app web uses the app key of an --app given on the command line; it is not served"
        ])
    }

    @Test func withAConfigurationDirectoryNoAppIsNeededToStart() throws {
        let configuration = try Self.flags([]).configuration(files: Self.files()).configuration
        #expect(configuration.hub.apps == [])
        #expect(throws: BackendConfigurationError.self) {
            try Self.flags([], config: nil).configuration(files: BackendFiles())
        }
    }

    @Test func withoutAnOriginAnywhereItDoesNotStart() throws {
        let flags = try Self.flags([])
        do throws(BackendConfigurationError) {
            _ = try flags.configuration(files: Self.files(origin: nil))
            Issue.record("started without a live origin")
        } catch {
            #expect(error.description.hasPrefix("give --live-origin or LiveOrigin= in /etc/apsio-backend/backend.conf"))
        }
    }

    /// 16.7 holds whatever the origin came from: a plain one in the file needs `--dev` and loopback.
    @Test func aPlainOriginFromTheFileIsRefusedWithoutDev() throws {
        var files = Self.files(origin: "http://127.0.0.1:8787")
        files.settings.listenHost = "127.0.0.1"
        #expect(throws: BackendConfigurationError.self) { try Self.flags([]).configuration(files: files) }
        let configuration = try Self.flags(["--dev"]).configuration(files: files).configuration
        #expect(configuration.hub.origin.scheme == .http && configuration.development)
        files.settings.listenHost = "0.0.0.0"
        #expect(throws: BackendConfigurationError.self) { try Self.flags(["--dev"]).configuration(files: files) }
    }

    @Test func theConfigurationDirectoryIsTheProgramsDefaultUnlessGiven() throws {
        #expect(try Self.flags([]).configDirectory == "/etc/apsio-backend")
        #expect(try Self.flags(["--config", "/srv/backend"]).configDirectory == "/srv/backend")
        #expect(try Self.flags([], config: nil).configDirectory == nil)
    }

    @Test func redisAndTheConnectionLimitComeFromTheFilesOrTheFlags() throws {
        var files = Self.files(apps: [HubApp(name: "web", appKey: "apsio_app_web_key")])
        files.settings.redis = try RedisSeeds(parsing: "/run/redis/redis-server.sock")
        files.settings.maxConnections = 2048
        let fromFiles = try Self.flags([]).configuration(files: files).configuration
        #expect(fromFiles.redis == RedisSeeds(RedisEndpoint(.unix(path: "/run/redis/redis-server.sock"))))
        #expect(fromFiles.maxConnections == 2048)
        let fromFlags = try Self.flags(["--redis", "redis://10.0.0.5:6380/2", "--max-connections", "4096"])
            .configuration(files: files).configuration
        #expect(fromFlags.redis == RedisSeeds(RedisEndpoint(.tcp(host: "10.0.0.5", port: 6380), database: 2)))
        #expect(fromFlags.maxConnections == 4096)
        // Several nodes of one cluster, asked in turn when the backend starts.
        let cluster = try Self.flags(["--redis", "redis://10.0.0.5:7000, redis://10.0.0.6:7000"]).configuration(files: files).configuration
        #expect(cluster.redis?.endpoints == [RedisEndpoint(.tcp(host: "10.0.0.5", port: 7000)), RedisEndpoint(.tcp(host: "10.0.0.6", port: 7000))])
        #expect(try Self.flags([]).configuration(files: Self.files(apps: files.apps)).configuration.redis == nil)
    }

    @Test func aBadRedisURLOrConnectionLimitIsRefusedAndSaysWhy() throws {
        for (arguments, words) in [
            (["--redis", "redis://user:secret@10.0.0.5"], "password"),
            (["--redis", "mysql://x"], "redis://"),
            (["--redis", "redis://10.0.0.5:7000,"], "empty"),
            (["--redis", "redis://10.0.0.5:7000,/run/redis.sock"], "Cluster"),
            (["--max-connections", "5"], "16 to 65536"),
        ] {
            let error = #expect(throws: BackendConfigurationError.self) { try Self.flags(arguments) }
            #expect(error?.description.contains(words) == true, "\(error?.description ?? "no error")")
        }
    }

    @Test func theAuditsRetentionComesFromTheFilesOrTheFlags() throws {
        var files = Self.files(apps: [HubApp(name: "web", appKey: "apsio_app_web_key")])
        #expect(try Self.flags([]).configuration(files: files).configuration.auditRetention == nil, "the backend's 30 days")
        files.settings.auditRetentionDays = 7
        #expect(try Self.flags([]).configuration(files: files).configuration.auditRetention == .seconds(7 * 86_400))
        let flagged = try Self.flags(["--audit-retention", "90"]).configuration(files: files).configuration
        #expect(flagged.auditRetention == .seconds(90 * 86_400))
        #expect(throws: BackendConfigurationError.self) { try Self.flags(["--audit-retention", "0"]) }
    }

    @Test func theAuditInMemoryForgetsWhatIsOlderThanItsRetention() {
        var log = AuditLog(capacity: 100, retention: .seconds(86_400))
        let device = DeviceKey(app: "web", install: "box")
        let day: Int64 = 86_400_000
        func entry(_ at: Int64) -> AuditEntry { AuditEntry(atUnixMs: at, kind: .watch, device: device, user: "ann") }
        log.append([entry(0), entry(day / 2)], nowUnixMs: day / 2)
        log.append([entry(day + day / 4)], nowUnixMs: day + day / 4)
        #expect(log.entries(of: device).map(\.atUnixMs) == [day / 2, day + day / 4])
    }
}

