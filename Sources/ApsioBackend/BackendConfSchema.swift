import ApsioCore
package import ApsioConfiguration
import ApsioRedis

/// Reads `backend.conf`'s `[Backend]` section with the daemon's schema checks (unknown sections and
/// keys, a key set twice), each problem at its line.
package enum BackendConfSchema {
    static let section = "Backend"
    static let schema = ConfigSchema(sections: [
        (
            section,
            [
                .single("Listen"), .single("LiveOrigin"), .single("Interval"), .single("AccountsFile"),
                .single("TLSCertificateFile"), .single("TLSKeyFile"), .single("Redis"), .single("MaxConnections"), .single("AuditRetentionDays"),
            ]
        )
    ])

    package static func read(_ file: UnitFile, report: (Int?, String) -> Void) -> BackendSettings {
        var settings = BackendSettings()
        for problem in file.problems { report(problem.line, problem.message) }
        let values = schema.collect(file, report: report)
        func value(_ key: String) -> UnitFileEntry? {
            guard let entry = values.single(section, key), !entry.value.isEmpty else { return nil }
            return entry
        }
        if let entry = value("Listen") {
            do throws(BackendConfigurationError) {
                let (host, port) = try BackendCommandLine.parseListen(entry.value)
                settings.listenHost = host
                settings.listenPort = port
            } catch {
                report(entry.line, "Listen=\(entry.value) is not HOST:PORT (like 127.0.0.1:8787 or [::1]:8787)")
            }
        }
        if let entry = value("LiveOrigin") {
            if let origin = LiveOrigin(entry.value) {
                settings.origin = origin
            } else {
                report(entry.line, "LiveOrigin=\(entry.value) is not https://host[:port] (lowercase, no path, user, query or fragment)")
            }
        }
        /// A whole number in `range`, or nil with the problem reported at its line.
        func number(_ key: String, in range: ClosedRange<Int>, of unit: String = "") -> Int? {
            guard let entry = value(key) else { return nil }
            guard let number = Int(entry.value), range.contains(number) else {
                report(entry.line, "\(key)=\(entry.value) is not a number\(unit) from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return number
        }
        settings.intervalSeconds = number("Interval", in: 15...120, of: " of seconds")
        func path(_ key: String) -> String? {
            guard let entry = value(key) else { return nil }
            guard entry.value.hasPrefix("/") else {
                report(entry.line, "\(key)=\(entry.value) is not an absolute file path")
                return nil
            }
            return entry.value
        }
        if let entry = value("Redis") {
            do throws(RedisEndpoint.Invalid) {
                settings.redis = try RedisSeeds(parsing: entry.value)
            } catch {
                report(entry.line, "Redis=\(error.description)")
            }
        }
        settings.maxConnections = number("MaxConnections", in: BackendCommandLine.maxConnectionsRange)
        settings.auditRetentionDays = number("AuditRetentionDays", in: BackendCommandLine.auditRetentionDaysRange, of: " of days")
        settings.accountsPath = path("AccountsFile")
        settings.tlsCertificate = path("TLSCertificateFile")
        settings.tlsKey = path("TLSKeyFile")
        // One without the other would serve plain HTTP where the operator meant HTTPS.
        if (settings.tlsCertificate == nil) != (settings.tlsKey == nil), let entry = value("TLSCertificateFile") ?? value("TLSKeyFile") {
            report(entry.line, "TLSCertificateFile= and TLSKeyFile= go together; set both or neither")
        }
        return settings
    }
}
