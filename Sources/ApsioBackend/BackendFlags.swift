package import ApsioConfiguration
package import ApsioCore
package import ApsioNet
package import ApsioRedis

/// The command line's part of the configuration, each setting nil when not given. Combined with
/// the files (`configuration(files:)`) at start and again at every reload, so a flag keeps its
/// effect across reloads: a setting given as a flag overrides the file's, an `--app` adds to the
/// files' apps and replaces a file's app of the same name.
package struct BackendFlags: Sendable {
    package var configDirectory: String?
    package var listenHost: String?
    package var listenPort: Int?
    package var apps: [HubApp] = []
    package var origin: LiveOrigin?
    package var intervalSeconds: Int?
    package var accountsPath: String?
    package var tls: HTTPServer.TLSFiles?
    package var development = false
    package var redis: RedisSeeds?
    package var maxConnections: Int?
    package var auditRetentionDays: Int?
    /// The usage text for messages that point at it.
    package var usage = ""

    package init(configDirectory: String? = nil) {
        self.configDirectory = configDirectory
    }

    /// The configuration to run: flags over files, then 16.7's origin rule. The problems are the
    /// files' apps left out because a flag's app already uses their key.
    package func configuration(
        files: BackendFiles
    ) throws(BackendConfigurationError) -> (configuration: BackendConfiguration, problems: [ConfigurationProblem]) {
        var problems: [ConfigurationProblem] = []
        var apps = apps
        for app in files.apps where !apps.contains(where: { $0.name == app.name }) {
            if apps.contains(where: { $0.appKey == app.appKey }) {
                problems.append(ConfigurationProblem(
                    path: (configDirectory ?? ".") + "/apps.d", line: nil,
                    message: "the app \(app.name) uses the app key of an --app given on the command line; it is not served"))
                continue
            }
            apps.append(app)
        }
        guard !apps.isEmpty || configDirectory != nil else {
            throw .usage("give at least one --app NAME:APPKEY\n\n\(usage)")
        }
        guard let origin = origin ?? files.settings.origin else {
            let where_ = configDirectory.map { " or LiveOrigin= in \($0)/backend.conf" } ?? ""
            throw .usage("give --live-origin\(where_)\n\n\(usage)")
        }
        var tls = tls
        if tls == nil, let certificate = files.settings.tlsCertificate, let key = files.settings.tlsKey {
            tls = HTTPServer.TLSFiles(certificateFile: certificate, privateKeyFile: key)
        }
        var configuration = BackendConfiguration(
            listenHost: listenHost ?? files.settings.listenHost ?? "127.0.0.1",
            listenPort: listenPort ?? files.settings.listenPort ?? 8787,
            hub: HubConfiguration(
                origin: origin, interval: .seconds(intervalSeconds ?? files.settings.intervalSeconds ?? 30), apps: apps),
            accountsPath: accountsPath ?? files.settings.accountsPath, tls: tls, development: development,
            redis: redis ?? files.settings.redis,
            maxConnections: maxConnections ?? files.settings.maxConnections ?? BackendConfiguration.defaultMaxConnections)
        configuration.auditRetention = (auditRetentionDays ?? files.settings.auditRetentionDays).map { .seconds(Int64($0) * 86_400) }
        try configuration.validate()
        return (configuration, problems)
    }
}
