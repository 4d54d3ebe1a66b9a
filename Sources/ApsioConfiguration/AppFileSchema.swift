import ApsioCore
import ApsioRedaction
import ApsioNet

/// Reads one app file's `[App]` section. Any problem leaves the app out: an app half-configured
/// (without its redaction, or with a key it did not mean) is worse than an app not served.
enum AppFileSchema {
    static let section = "App"
    static let schema = ConfigSchema(sections: [
        (
            section,
            [
                .single("Unit"), .single("Name"), .single("Version"), .single("Backend"), .single("AppKey"),
                .single("AppKeyFile"), .single("Consent"), .list("Families"), .single("MinPriority"), .list("Redact"),
                .list("RedactRules"),
                .single("InstallationId"), .single("StartAt"), .single("Encoding"), .single("Compression"),
                .single("RateLimit"), .single("RateLimitBurst"), .list("Header"), .list("HeaderFile"),
                .single("CAFile"), .single("ClientCertificate"), .single("ClientKey"), .list("Match"), .list("Exclude"),
            ]
        )
    ])

    static let priorityNames = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]
    /// An app key goes in an HTTP header; a longer one is a file that is not a key.
    static let maxAppKeyBytes = 1024

    /// The app, or nil and every problem found (at least one). `readSecretFile` reads the file an
    /// `AppKeyFile=` or `HeaderFile=` names (`AppKeyFile.readSecret`).
    static func read(
        _ file: UnitFile, name: AppName, path: String,
        readSecretFile: (String) throws(AppKeyFileError) -> String
    ) -> (app: AppConfiguration?, problems: [UnitFileProblem]) {
        var problems: [UnitFileProblem] = file.problems
        func report(_ line: Int?, _ message: String) {
            problems.append(UnitFileProblem(line: line, message: message))
        }
        if file.problems.contains(where: { $0.line == nil }) { return (nil, problems) }
        if !file.sections.contains(where: { $0.name == section }), file.problems.isEmpty {
            report(nil, "has no [App] section; an app file starts with [App] and sets at least Unit=, Backend= and AppKeyFile=")
            return (nil, problems)
        }
        let values = schema.collect(file, report: report)
        func value(_ key: String) -> UnitFileEntry? {
            guard let entry = values.single(section, key), !entry.value.isEmpty else { return nil }
            return entry
        }

        var unit: String?
        if let entry = value("Unit") {
            if let problem = unitProblem(entry.value) { report(entry.line, problem) } else { unit = entry.value }
        } else {
            report(nil, "Unit= is missing from [App]; name the service to watch, like Unit=nginx.service")
        }

        var serviceName: String?
        if let entry = value("Name") {
            if let name = ConfigValue.label(entry.value) { serviceName = name } else {
                report(entry.line, "Name= must be 1 to 255 bytes of text without control characters")
            }
        }
        var version: String?
        if let entry = value("Version") {
            if let text = ConfigValue.label(entry.value) { version = text } else {
                report(entry.line, "Version= must be 1 to 255 bytes of text without control characters")
            }
        }

        var backend: HTTPEndpoint?
        if let entry = value("Backend") {
            backend = readBackend(entry, report: report)
        } else {
            report(nil, "Backend= is missing from [App]; set the backend's base URL, like Backend=https://ingest.example.com")
        }

        let appKey = readAppKey(value("AppKey"), value("AppKeyFile"), readSecretFile: readSecretFile, report: report)

        var consent: AppConsent?
        if let entry = value("Consent") {
            consent = AppConsent(rawValue: entry.value)
            if consent == nil {
                report(entry.line, DaemonConfigurationSchema.choiceMessage("Consent", entry.value, AppConsent.allCases.map(\.rawValue))
                    + " (leave it out when the user was not asked)")
            }
        }

        var families = Set(CaptureFamily.allCases)
        if values.isAssigned(section, "Families") {
            families = []
            let entries = values.list(section, "Families")
            for entry in entries {
                for word in entry.value.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                    if let family = CaptureFamily(rawValue: String(word)) {
                        families.insert(family)
                    } else {
                        report(entry.line, DaemonConfigurationSchema.choiceMessage(
                            "Families", String(word), CaptureFamily.allCases.map(\.rawValue)))
                    }
                }
            }
            if families.isEmpty && entries.isEmpty {
                let line = file.entries.last(where: { $0.section == section && $0.key == "Families" })?.line
                report(line, "Families= leaves no family on; list some of logs, errors, metrics and replay, or remove the line to keep all four")
            }
        }

        var minPriority = AppConfiguration.defaultMinPriority
        if let entry = value("MinPriority") {
            if let priority = priority(entry.value) { minPriority = priority } else {
                report(entry.line, DaemonConfigurationSchema.choiceMessage("MinPriority", entry.value, priorityNames)
                    + " (or a number 0 to 7)")
            }
        }

        var patterns: [String] = []
        for entry in values.list(section, "Redact") {
            do {
                _ = try RedactionPattern(entry.value)
                patterns.append(entry.value)
            } catch {
                report(entry.line, error.description)
            }
        }

        var redactionWords: [String] = []
        for entry in values.list(section, "RedactRules") {
            let words = entry.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let (_, unknown) = RedactionRuleSet.standard(changedBy: words)
            for word in unknown {
                let name = word.hasPrefix("-") || word.hasPrefix("+") ? String(word.dropFirst()) : word
                var message = "RedactRules=\(word) names no built-in rule or group"
                if let close = ClosestName.to(name, among: RedactionRuleSet.names) { message += "; did you mean \(close)?" }
                report(entry.line, message + " (write NAME to turn one on, -NAME to turn it off; docs/redaction.md lists them)")
            }
            redactionWords += words
        }
        let redactionRules = RedactionRuleSet.standard(changedBy: redactionWords).rules

        var installationID = true
        if let entry = value("InstallationId") {
            if let flag = ConfigValue.boolean(entry.value) { installationID = flag } else {
                report(entry.line, "InstallationId=\(entry.value) is not \(ConfigValue.booleanHint)")
            }
        }

        var startAt = StartAt.now
        if let entry = value("StartAt") {
            if let chosen = StartAt(rawValue: entry.value) { startAt = chosen } else {
                report(entry.line, DaemonConfigurationSchema.choiceMessage("StartAt", entry.value, StartAt.allCases.map(\.rawValue))
                    + " (where a newly served app starts reading its journal)")
            }
        }

        var encoding = AppConfiguration.defaultEncoding
        if let entry = value("Encoding") {
            if let chosen = OTLPEncoding(rawValue: entry.value) { encoding = chosen } else {
                report(entry.line, DaemonConfigurationSchema.choiceMessage("Encoding", entry.value, OTLPEncoding.allCases.map(\.rawValue))
                    + " (how batches are written for the backend's /v1/logs)")
            }
        }

        var compression = AppConfiguration.defaultCompression
        if let entry = value("Compression") {
            if let chosen = OTLPCompression(rawValue: entry.value) { compression = chosen } else {
                let choices = OTLPCompression.allCases.map(\.rawValue)
                report(entry.line, DaemonConfigurationSchema.choiceMessage("Compression", entry.value, choices)
                    + " (how batches are compressed for the backend's /v1/logs)")
            }
        }

        let rateLimit = readRateLimit(value("RateLimit"), burst: value("RateLimitBurst"), report: report)

        let headers = AppHeaderSchema.read(
            values.list(section, "Header"), files: values.list(section, "HeaderFile"), readSecretFile: readSecretFile, report: report)

        let tls = AppTLSSchema.read(
            caFile: value("CAFile"), certificate: value("ClientCertificate"), key: value("ClientKey"), report: report)

        let selection = JournalEntrySelection(
            matches: fieldMatches("Match", values.list(section, "Match"), report: report),
            excludes: fieldMatches("Exclude", values.list(section, "Exclude"), report: report))

        guard problems.isEmpty, let unit, let backend, let appKey,
            let redaction = try? AppRedaction(patterns: patterns, rules: redactionRules)
        else { return (nil, problems) }
        return (AppConfiguration(
            name: name, path: path, unit: unit, serviceName: serviceName, version: version, backend: backend,
            appKey: appKey.key, appKeyFile: appKey.file, consent: consent, families: families,
            minPriority: minPriority, redaction: redaction, installationID: installationID, startAt: startAt,
            encoding: encoding, compression: compression, rateLimit: rateLimit, headers: headers, tls: tls,
            selection: selection), [])
    }

    /// The most `Match=` (or `Exclude=`) lines an app file may hold: each is compared with every
    /// line of the unit.
    static let maxFieldMatches = 32

    /// `Match=FIELD=VALUE` or `Exclude=FIELD=VALUE` lines, each once.
    private static func fieldMatches(_ key: String, _ entries: [UnitFileEntry], report: (Int?, String) -> Void) -> [JournalFieldMatch] {
        var matches: [JournalFieldMatch] = []
        for entry in entries {
            guard let equals = entry.value.firstIndex(of: "=") else {
                report(entry.line, "\(key)=\(entry.value) is not FIELD=VALUE, like \(key)=SYSLOG_IDENTIFIER=nginx")
                continue
            }
            let field = String(entry.value[..<equals])
            let value = String(entry.value[entry.value.index(after: equals)...])
            if let problem = JournalFieldMatch.problem(field: field, value: value) {
                report(entry.line, "\(key)=\(entry.value): \(problem)")
                continue
            }
            let match = JournalFieldMatch(field: field, value: value)
            guard !matches.contains(match) else { continue }
            guard matches.count < maxFieldMatches else {
                report(entry.line, "more than \(maxFieldMatches) \(key)= lines; an app file may have at most \(maxFieldMatches)")
                break
            }
            matches.append(match)
        }
        return matches
    }

    /// The units `RateLimit=` accepts after its slash.
    static let rateIntervals: [(names: [String], interval: IngestRateLimit.Interval)] = [
        (["s", "sec", "second"], .second), (["min", "minute"], .minute),
    ]

    /// `RateLimit=RATE/s` or `RATE/min`, and `RateLimitBurst=N` (one interval's worth, `RATE`, when
    /// left out). A burst without a rate limits nothing, which is a slip: refused.
    static func readRateLimit(_ rate: UnitFileEntry?, burst: UnitFileEntry?, report: (Int?, String) -> Void) -> IngestRateLimit? {
        let rates = IngestRateLimit.rates
        let bursts = IngestRateLimit.bursts
        var burstValue: Int?
        if let burst {
            if let count = wholeNumber(burst.value), bursts.contains(count) { burstValue = count } else {
                report(burst.line, "RateLimitBurst=\(burst.value) is not a whole number \(bursts.lowerBound) to \(bursts.upperBound) (how many entries may pass at once after a quiet spell)")
            }
        }
        guard let rate else {
            if let burst { report(burst.line, "RateLimitBurst= is set without RateLimit=; set RateLimit=, like RateLimit=100/s, or remove the line") }
            return nil
        }
        let parts = rate.value.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let count = wholeNumber(String(parts[0])), rates.contains(count),
            let interval = rateIntervals.first(where: { $0.names.contains(String(parts[1])) })?.interval
        else {
            report(rate.line, "RateLimit=\(rate.value) is not a rate; write a whole number \(rates.lowerBound) to \(rates.upperBound), a slash and s or min, like RateLimit=100/s or RateLimit=600/min")
            return nil
        }
        guard burst == nil || burstValue != nil else { return nil }
        return IngestRateLimit(rate: count, per: interval, burst: burstValue)
    }

    /// Digits only, no sign: at most 9 of them, which every bound here is within.
    private static func wholeNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// A `.service` unit name as systemd accepts one, an instance rather than a template, and not ours.
    static func unitProblem(_ unit: String) -> String? {
        guard unit.hasSuffix(".service") else {
            return "Unit=\(unit) must name a .service unit, like \(unit.split(separator: ".").first ?? "nginx").service"
        }
        let prefix = unit.dropLast(".service".count)
        let valid = unit.utf8.count <= 255 && !prefix.isEmpty && prefix.first != "@"
            && prefix.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || Array(":-_.\\@".utf8).contains(byte)
            }
        guard valid else {
            return "Unit=\(unit) is not a unit name (letters, digits and :-_.\\@ before .service, at most 255 bytes)"
        }
        if prefix.hasSuffix("@") {
            return "Unit=\(unit) is a template; name one of its instances, like \(prefix)main.service"
        }
        if unit == AppConfiguration.ownUnit {
            return "Unit=\(unit) is apsiod itself, which does not watch its own unit; name your service's unit"
        }
        return nil
    }

    /// journalctl's priority names, or 0 to 7.
    static func priority(_ text: String) -> Int? {
        if let index = priorityNames.firstIndex(of: text) { return index }
        if text.count == 1, let digit = Int(text), (0...7).contains(digit) { return digit }
        return nil
    }

    private static func readBackend(_ entry: UnitFileEntry, report: (Int?, String) -> Void) -> HTTPEndpoint? {
        // Userinfo may hold a password: refused before any message could quote the URL.
        let afterScheme = entry.value.split(separator: "://", maxSplits: 1).last ?? ""
        if afterScheme.prefix(while: { $0 != "/" }).contains("@") {
            report(entry.line, "Backend= holds a user name or password (user@host), which is refused and not shown here; the app key authenticates, so remove it")
            return nil
        }
        do {
            return try HTTPEndpoint(baseURL: entry.value)
        } catch .plainHTTPRefused(let host) {
            report(entry.line, "Backend=\(entry.value): plain http:// is allowed only to 127.0.0.1, [::1] and localhost, not to \(host); use https://")
        } catch {
            report(entry.line, "Backend=\(entry.value) is not a backend URL (https://host[:port][/path]): \(error)")
        }
        return nil
    }

    private static func readAppKey(
        _ inline: UnitFileEntry?, _ file: UnitFileEntry?, readSecretFile: (String) throws(AppKeyFileError) -> String,
        report: (Int?, String) -> Void
    ) -> (key: AppKey, file: String?)? {
        switch (inline, file) {
        case (nil, nil):
            report(nil, "no app key: set AppKeyFile= to a file holding it (mode 0640, owner root, group apsio), or AppKey=")
            return nil
        case (let inline?, let file?):
            report(max(inline.line, file.line), "both AppKey= (line \(inline.line)) and AppKeyFile= (line \(file.line)) are set; keep one")
            return nil
        case (let inline?, nil):
            guard isHeaderText(inline.value) else {
                report(inline.line, "AppKey= must be 1 to \(maxAppKeyBytes) printable ASCII characters without spaces (the value is not shown here)")
                return nil
            }
            return (AppKey(inline.value), nil)
        case (nil, let file?):
            guard let path = ConfigValue.absoluteFilePath(file.value) else {
                report(file.line, "AppKeyFile=\(file.value) is not an absolute file path, like /etc/apsio/keys/NAME")
                return nil
            }
            do throws(AppKeyFileError) {
                let key = try readSecretFile(path)
                guard isHeaderText(key) else { throw .notHeaderText }
                return (AppKey(key), path)
            } catch {
                report(file.line, keyFileMessage(path, error))
                return nil
            }
        }
    }

    static func isHeaderText(_ key: String) -> Bool {
        (1...maxAppKeyBytes).contains(key.utf8.count) && key.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// A header value: printable ASCII, spaces within it but not at its ends, at most
    /// `maxAppKeyBytes`.
    static func isHeaderValue(_ text: String) -> Bool {
        (1...maxAppKeyBytes).contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
            && text.utf8.first != 0x20 && text.utf8.last != 0x20
    }

    /// What is wrong with a secret's file, for `AppKeyFile=` (`key`) or `HeaderFile=`: never a byte
    /// of its content.
    static func keyFileMessage(_ path: String, _ error: AppKeyFileError, key: String = "AppKeyFile", holds: String = "the app key") -> String {
        switch error {
        case .cannotOpen(let reason):
            "\(key)=\(path) cannot be opened: \(reason); it must exist and be readable by the user apsiod runs as (group apsio, mode 0640)"
        case .notRegularFile: "\(key)=\(path) is not a regular file"
        case .openToOthers(let mode):
            "\(key)=\(path) can be read or written by every user (mode \(octal(mode))); it holds a secret: chmod o-rwx it (mode 0640, group apsio)"
        case .tooLarge(let limit): "\(key)=\(path) is larger than \(limit) bytes; it must hold \(holds) only"
        case .empty: "\(key)=\(path) is empty; put \(holds) in it"
        case .notHeaderText:
            key == "AppKeyFile"
                ? "\(key)=\(path) must hold one app key of printable ASCII characters without spaces, and a newline at most (its content is not shown here)"
                : "\(key)=\(path) must hold \(holds) as one line of printable ASCII characters (its content is not shown here)"
        case .readFailed(let reason): "\(key)=\(path) could not be read: \(reason)"
        }
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
