import ApsioCore
import ApsioNet

/// Reads `apsiod.conf`. A bad value is reported and its key keeps the default, so a typo in the
/// daemon's file never stops every app from being served.
enum DaemonConfigurationSchema {
    static let schema = ConfigSchema(sections: [
        ("Daemon", [.single("LogLevel")]),
        ("Indicator", [.single("MotdFile"), .single("AnnounceTerminals")]),
        ("Queue", [.single("MaxSize"), .single("MaxAge")]),
        ("Network", [.single("Proxy"), .single("NoProxy"), .single("ProxyCredentialsFile")]),
    ])

    /// The queue bounds an operator may set: below these a queue cannot ride out a short outage,
    /// above them it would fill the disk of a small box unnoticed.
    static let queueSizeRange = (1 << 20)...(64 << 30)
    static let queueAgeRange = Duration.seconds(3600)...Duration.seconds(365 * 86_400)

    /// `readSecretFile` reads the file `ProxyCredentialsFile=` names (`AppKeyFile.readSecret`).
    static func read(
        _ file: UnitFile, readSecretFile: (String) throws(AppKeyFileError) -> String = AppKeyFile.readSecret,
        report: (Int?, String) -> Void
    ) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        let values = schema.collect(file, report: report)

        if let entry = values.single("Daemon", "LogLevel"), !entry.value.isEmpty {
            if let level = LogLevel(name: entry.value) {
                configuration.logLevel = level
            } else {
                report(entry.line, choiceMessage("LogLevel", entry.value, LogLevel.allCases.map(\.name)))
            }
        }

        if let entry = values.single("Indicator", "MotdFile") {
            if entry.value.isEmpty {
                configuration.motdFile = nil
            } else if let path = ConfigValue.absoluteFilePath(entry.value) {
                configuration.motdFile = path
            } else {
                report(entry.line, "MotdFile=\(entry.value) is not an absolute file path (like \(DaemonConfiguration.defaultMotdFile)); leave it empty to turn the motd file off")
            }
        }
        if let entry = values.single("Indicator", "AnnounceTerminals"), !entry.value.isEmpty {
            if let announce = ConfigValue.boolean(entry.value) {
                configuration.announceTerminals = announce
            } else {
                report(entry.line, "AnnounceTerminals=\(entry.value) is not \(ConfigValue.booleanHint)")
            }
        }

        if let entry = values.single("Queue", "MaxSize"), !entry.value.isEmpty {
            if let size = ConfigValue.size(entry.value), queueSizeRange.contains(size) {
                configuration.queue.maxBytes = size
            } else {
                report(entry.line, "MaxSize=\(entry.value) is not a size from 1M to 64G (bytes, or with a K, M or G suffix)")
            }
        }
        if let entry = values.single("Queue", "MaxAge"), !entry.value.isEmpty {
            if let age = ConfigValue.timeSpan(entry.value), queueAgeRange.contains(age) {
                configuration.queue.maxAge = age
            } else {
                report(entry.line, "MaxAge=\(entry.value) is not a time from 1h to 365d (like 7d, 36h or 1w 2d)")
            }
        }
        configuration.network = readNetwork(values, readSecretFile: readSecretFile, report: report)
        return configuration
    }

    /// `[Network]`. No message repeats a `Proxy=` value or a credentials file's content: either
    /// may hold a password.
    private static func readNetwork(
        _ values: ConfigSchema.Assignments, readSecretFile: (String) throws(AppKeyFileError) -> String,
        report: (Int?, String) -> Void
    ) -> NetworkConfiguration {
        var network = NetworkConfiguration()
        if let entry = values.single("Network", "Proxy"), !entry.value.isEmpty {
            if entry.value == "none" {
                network.proxy = .direct
            } else {
                do throws(ProxyURLError) {
                    let proxy = try HTTPProxy(url: entry.value)
                    if proxy.credentials != nil {
                        report(entry.line, "Proxy= holds a user and password (not shown here): put user:password in a file of mode 0600 named by ProxyCredentialsFile=, and leave them out of Proxy=")
                    } else {
                        network.proxy = .proxy(proxy)
                    }
                } catch {
                    report(entry.line, "Proxy= is not a proxy like http://proxy.example.com:3128, or none: \(error)")
                }
            }
        }
        if let entry = values.single("Network", "NoProxy"), !entry.value.isEmpty {
            let noProxy = NoProxy(entry.value)
            if !noProxy.ignored.isEmpty {
                report(entry.line, "NoProxy= entries that are not a host, a domain (.example.com), an address or a network (10.0.0.0/8) are ignored: \(noProxy.ignored.joined(separator: ", "))")
            }
            network.noProxy = noProxy
        }
        if let entry = values.single("Network", "ProxyCredentialsFile"), !entry.value.isEmpty {
            if let path = ConfigValue.absoluteFilePath(entry.value) {
                do throws(AppKeyFileError) {
                    let line = try readSecretFile(path)
                    do {
                        network.credentials = try ProxyCredentials(line: line)
                    } catch {
                        report(entry.line, "ProxyCredentialsFile=\(path) must hold user:password on one line, the user without a colon (its content is not shown here)")
                    }
                } catch {
                    report(entry.line, AppFileSchema.keyFileMessage(path, error, key: "ProxyCredentialsFile", holds: "user:password for the proxy"))
                }
            } else {
                report(entry.line, "ProxyCredentialsFile=\(entry.value) is not an absolute file path, like /etc/apsio/proxy-credentials")
            }
        }
        return network
    }

    /// "X=v is not one of a, b, c; did you mean b?"
    static func choiceMessage(_ key: String, _ value: String, _ choices: [String]) -> String {
        var message = "\(key)=\(value) is not one of " + choices.joined(separator: ", ")
        if let guess = ClosestName.to(value, among: choices) { message += "; did you mean \(guess)?" }
        return message
    }
}
