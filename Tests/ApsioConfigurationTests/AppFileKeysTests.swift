import ApsioCore
import Foundation
import Testing
import ApsioConfiguration

/// Every key of an app file, good values and bad, each bad one reported at its line.
@Suite struct AppFileKeysTests {
    /// Loads an app file made of the minimal one plus `extra`; returns the app or the problems.
    func load(_ extra: String, unit: String = "nginx.service") throws -> (app: AppConfiguration?, problems: [ConfigurationProblem]) {
        let config = try ConfigDirectory()
        try config.app("nginx", appFile(unit: unit, extra))
        let loaded = config.load()
        return (loaded.apps.first, loaded.problems)
    }

    /// The one problem `extra` causes, on line 5 (the first line after the minimal file).
    func problem(_ extra: String, unit: String = "nginx.service", line: Int? = 5) throws -> String {
        let (app, problems) = try load(extra, unit: unit)
        #expect(app == nil)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.line == line)
        for problem in problems { #expect(!problem.description.contains(secretKey)) }
        return problems.first?.message ?? ""
    }

    @Test func unit() throws {
        #expect(try load("", unit: "postgresql@15-main.service").app?.unit == "postgresql@15-main.service")
        #expect(try problem("", unit: "nginx", line: 2) == "Unit=nginx must name a .service unit, like nginx.service")
        #expect(try problem("", unit: "nginx.socket", line: 2).contains("must name a .service unit"))
        #expect(try problem("", unit: "ng inx.service", line: 2).contains("is not a unit name"))
        #expect(try problem("", unit: ".service", line: 2).contains("is not a unit name"))
        #expect(try problem("", unit: "web@.service", line: 2)
            == "Unit=web@.service is a template; name one of its instances, like web@main.service")
        let (_, problems) = try loadWithout("Unit")
        #expect(problems.map(\.message) == ["Unit= is missing from [App]; name the service to watch, like Unit=nginx.service"])
    }

    @Test func matchAndExclude() throws {
        let app = try #require(try load("""
            Match=SYSLOG_IDENTIFIER=gunicorn
            Match=SYSLOG_IDENTIFIER=celery
            Match=_COMM=python3
            Exclude=PRIORITY=7
            Exclude=ROUTE=/healthz
            Exclude=ROUTE=/healthz
            Match=EMPTY=

            """).app)
        #expect(app.selection.matches.map(\.description) == [
            "SYSLOG_IDENTIFIER=gunicorn", "SYSLOG_IDENTIFIER=celery", "_COMM=python3", "EMPTY=",
        ])
        #expect(app.selection.excludes.map(\.description) == ["PRIORITY=7", "ROUTE=/healthz"])
        #expect(try load("").app?.selection == .everything)
        #expect(try problem("Match=SYSLOG_IDENTIFIER\n") == "Match=SYSLOG_IDENTIFIER is not FIELD=VALUE, like Match=SYSLOG_IDENTIFIER=nginx")
        #expect(try problem("Exclude=syslog_identifier=x\n").contains("is not a journal field name"))
        #expect(try problem("Match=1ABC=x\n").contains("is not a journal field name"))
        #expect(try problem("Match=_HOSTNAME=box\n").contains("_HOSTNAME is a trusted field apsiod does not read; it can match _COMM,"))
        #expect(try problem("Match=A=" + String(repeating: "v", count: 1025) + "\n").contains("longer than 1024 bytes"))
        let many = (0...32).map { "Exclude=ROUTE=/r\($0)" }.joined(separator: "\n")
        let (_, problems) = try load(many + "\n")
        #expect(problems.count == 1 && problems[0].message.contains("more than 32 Exclude= lines"), "\(problems)")
    }

    @Test func nameAndVersion() throws {
        let app = try #require(try load("Name=com.example.nginx\nVersion=1.2.3\n").app)
        #expect(app.serviceName == "com.example.nginx")
        #expect(app.version == "1.2.3")
        #expect(try load("Name=\nVersion=\n").app?.serviceName == "nginx")
        #expect(try problem("Name=" + String(repeating: "n", count: 256) + "\n").contains("1 to 255 bytes"))
        #expect(try problem("Version=1\u{7}2\n").contains("without control characters"))
    }

    @Test func backend() throws {
        #expect(try load("", unit: "a.service").app?.backend.description == "https://ingest.example.com")
        for good in ["http://127.0.0.1:4318", "http://[::1]:8080", "http://localhost", "https://10.0.0.7/otlp"] {
            let text = "[App]\nUnit=nginx.service\nBackend=\(good)\nAppKey=\(secretKey)\n"
            let config = try ConfigDirectory()
            try config.app("nginx", text)
            #expect(config.load().problems == [], "\(good)")
        }
        for (bad, expected) in [
            ("http://ingest.example.com", "plain http:// is allowed only to 127.0.0.1, [::1] and localhost"),
            ("http://127.0.0.2", "not to 127.0.0.2"),
            ("ftp://ingest.example.com", "is not a backend URL"),
            ("https://Ingest.example.com", "is not a backend URL"),
            ("https://ingest.example.com?x=1", "is not a backend URL"),
            ("https://ingest.example.com:0", "is not a backend URL"),
        ] {
            let config = try ConfigDirectory()
            try config.app("nginx", "[App]\nUnit=nginx.service\nBackend=\(bad)\nAppKey=\(secretKey)\n")
            let problems = config.load().problems
            #expect(problems.map(\.line) == [3], "\(bad)")
            #expect(problems.first?.message.contains(expected) == true, "\(bad): \(problems)")
        }
        let (_, missing) = try loadWithout("Backend")
        #expect(missing.first?.message.hasPrefix("Backend= is missing") == true)
    }

    @Test func aPasswordInTheBackendURLIsNeverShown() throws {
        let config = try ConfigDirectory()
        try config.app("nginx", "[App]\nUnit=nginx.service\nBackend=https://user:hunter2@ingest.example.com\nAppKey=\(secretKey)\n")
        let problems = config.load().problems
        #expect(problems.map(\.line) == [3])
        #expect(!problems.description.contains("hunter2"))
    }

    @Test func consent() throws {
        #expect(try load("Consent=granted\n").app?.consent == .granted)
        #expect(try load("Consent=denied\n").app?.consent == .denied)
        #expect(try load("Consent=\n").app?.consent == nil)
        #expect(try problem("Consent=grant\n").hasPrefix("Consent=grant is not one of granted, denied; did you mean granted?"))
    }

    @Test func familiesAppendAndAnEmptyAssignmentResets() throws {
        #expect(try load("Families=logs\nFamilies=replay metrics\n").app?.families == [.logs, .replay, .metrics])
        #expect(try load("Families=logs errors\nFamilies=\nFamilies=metrics\n").app?.families == [.metrics])
        #expect(try problem("Families=logs log\n") == "Families=log is not one of logs, errors, metrics, replay; did you mean logs?")
        #expect(try problem("Families=\n").contains("leaves no family on"))
    }

    @Test func minPriority() throws {
        let names = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]
        for (index, name) in names.enumerated() {
            #expect(try load("MinPriority=\(name)\n").app?.minPriority == index)
            #expect(try load("MinPriority=\(index)\n").app?.minPriority == index)
        }
        #expect(try problem("MinPriority=8\n").contains("or a number 0 to 7"))
        #expect(try problem("MinPriority=error\n").contains("did you mean err?"))
        #expect(try problem("MinPriority=Info\n").contains("did you mean info?"))
    }

    @Test func redactPatternsAppendResetAndABadOneIsReportedAtItsLine() throws {
        #expect(try load("Redact=one=[0-9]+\nRedact=\nRedact=two=[a-z]+\n").app?.redaction.patterns == ["two=[a-z]+"])
        let config = try ConfigDirectory()
        try config.app("nginx", appFile("Redact=good=[0-9]+\nRedact=bad=[0-9\nRedact=a*\n"))
        let problems = config.load().problems
        #expect(problems.map(\.line) == [6, 7])
        #expect(problems[0].message.hasPrefix("Redact=bad=[0-9 is not a valid regular expression"))
        #expect(problems[1].message == "Redact=a* matches the empty text; make it match at least one character")
    }

    @Test func rateLimitAndItsBurst() throws {
        #expect(try load("").app?.rateLimit == nil)
        #expect(try load("RateLimit=100/s\n").app?.rateLimit == IngestRateLimit(rate: 100, per: .second, burst: 100))
        #expect(try load("RateLimit=600/min\nRateLimitBurst=50\n").app?.rateLimit == IngestRateLimit(rate: 600, per: .minute, burst: 50))
        #expect(try load("RateLimit=1/sec\nRateLimitBurst=1000000\n").app?.rateLimit == IngestRateLimit(rate: 1, per: .second, burst: 1_000_000))
        #expect(try load("RateLimit=5/minute\n").app?.rateLimit?.interval == .minute)
        let accepted = "write a whole number 1 to 1000000, a slash and s or min, like RateLimit=100/s or RateLimit=600/min"
        #expect(try problem("RateLimit=100\n") == "RateLimit=100 is not a rate; \(accepted)")
        for bad in ["0/s", "1000001/s", "-5/s", "10/h", "10/", "/s", "ten/s", "10 /s", "1.5/s", "10/s/s"] {
            #expect(try problem("RateLimit=\(bad)\n").hasPrefix("RateLimit=\(bad) is not a rate;"), "\(bad)")
        }
        #expect(try problem("RateLimit=10/s\nRateLimitBurst=0\n", line: 6)
            == "RateLimitBurst=0 is not a whole number 1 to 1000000 (how many entries may pass at once after a quiet spell)")
        #expect(try problem("RateLimit=10/s\nRateLimitBurst=lots\n", line: 6).hasPrefix("RateLimitBurst=lots is not a whole number"))
        #expect(try problem("RateLimitBurst=20\n")
            == "RateLimitBurst= is set without RateLimit=; set RateLimit=, like RateLimit=100/s, or remove the line")
    }

    @Test func installationId() throws {
        #expect(try load("InstallationId=no\n").app?.installationID == false)
        #expect(try load("InstallationId=yes\n").app?.installationID == true)
        #expect(try load("InstallationId=off\n").app?.installationID == false)
        #expect(try problem("InstallationId=maybe\n") == "InstallationId=maybe is not yes or no")
    }

    /// `Compression=`: gzip unless the file says zstd; anything else is a problem at its line that
    /// names the choices, printed as FILE:LINE as an editor jumps to it.
    @Test func compression() throws {
        #expect(try load("").app?.compression == .gzip)
        #expect(try load("Compression=gzip\n").app?.compression == .gzip)
        #expect(try load("Compression=zstd\n").app?.compression == .zstd)
        #expect(try problem("Compression=ztsd\n")
            == "Compression=ztsd is not one of gzip, zstd; did you mean zstd? (how batches are compressed for the backend's /v1/logs)")
        #expect(try problem("Compression=brotli\n").hasPrefix("Compression=brotli is not one of gzip, zstd"))
        // Empty is the default, as for every single-value key.
        #expect(try load("Compression=\n").app?.compression == .gzip)
        let (_, problems) = try load("Compression=deflate\n")
        #expect(problems.map(\.description).first?.hasSuffix("/nginx.conf:5: Compression=deflate is not one of gzip, zstd"
            + " (how batches are compressed for the backend's /v1/logs)") == true, "\(problems)")
    }

    @Test func aSingleValueKeySetTwiceIsAProblemAtTheSecondLine() throws {
        #expect(try problem("Consent=granted\nConsent=denied\n", line: 6)
            == "`Consent=` is set again (first on line 5); it takes one value, keep one line")
    }

    @Test func unknownSectionsAndMisplacedKeys() throws {
        #expect(try problem("[Apps]\nX=1\n") == "unknown section [Apps]; did you mean [App]?")
        #expect(try problem("Colour=blue\n").hasPrefix("unknown key `Colour` in [App]; [App] takes `Unit=`, `Name=`"))
        let config = try ConfigDirectory()
        try config.app("nginx", "Unit=nginx.service\n" + appFile())
        #expect(config.load().problems.map(\.line) == [1])
    }

    @Test func aFileWithoutAnAppSectionSaysWhatAnAppFileIs() throws {
        let config = try ConfigDirectory()
        try config.app("empty", "# nothing yet\n")
        #expect(config.load().problems.map(\.message) == [
            "has no [App] section; an app file starts with [App] and sets at least Unit=, Backend= and AppKeyFile="
        ])
    }

    /// The minimal file without `key`.
    func loadWithout(_ key: String) throws -> (app: AppConfiguration?, problems: [ConfigurationProblem]) {
        let config = try ConfigDirectory()
        let lines = appFile().split(separator: "\n").filter { !$0.hasPrefix(key + "=") }
        try config.app("nginx", lines.joined(separator: "\n") + "\n")
        let loaded = config.load()
        return (loaded.apps.first, loaded.problems)
    }
}

/// `AppKey=` and `AppKeyFile=`: exactly one, a key file others cannot read, the key never shown.
@Suite struct AppKeyConfigurationTests {
    func loadApp(_ keyLines: String, in config: ConfigDirectory) throws -> Configuration {
        try config.app("nginx", "[App]\nUnit=nginx.service\nBackend=https://ingest.example.com\n" + keyLines)
        return config.load()
    }

    func expectNoKey(_ loaded: Configuration, _ secret: String = secretKey) {
        for problem in loaded.problems {
            #expect(!problem.description.contains(secret))
            #expect(!problem.description.contains(String(secret.prefix(12))))
        }
    }

    @Test func exactlyOneOfAppKeyAndAppKeyFile() throws {
        let config = try ConfigDirectory()
        let keyFile = try config.write("keys/nginx", secretKey, mode: 0o600)
        let both = try loadApp("AppKey=\(secretKey)\nAppKeyFile=\(keyFile)\n", in: config)
        #expect(both.apps.isEmpty)
        #expect(both.problems.map(\.line) == [5])
        #expect(both.problems.first?.message == "both AppKey= (line 4) and AppKeyFile= (line 5) are set; keep one")
        expectNoKey(both)

        let neither = try loadApp("", in: config)
        #expect(neither.problems.map(\.message) == [
            "no app key: set AppKeyFile= to a file holding it (mode 0640, owner root, group apsio), or AppKey="
        ])
    }

    @Test func aKeyFileIsReadWithoutItsNewline() throws {
        let config = try ConfigDirectory()
        let keyFile = try config.write("keys/nginx", secretKey + "\r\n", mode: 0o640)
        let loaded = try loadApp("AppKeyFile=\(keyFile)\n", in: config)
        #expect(loaded.problems == [])
        #expect(loaded.apps.first?.appKey == AppKey(secretKey))
    }

    @Test func aKeyFileOthersCanReadIsRefusedWithoutShowingTheKey() throws {
        for mode in [0o644, 0o642, 0o604] {
            let config = try ConfigDirectory()
            let keyFile = try config.write("keys/nginx", secretKey + "\n", mode: mode)
            let loaded = try loadApp("AppKeyFile=\(keyFile)\n", in: config)
            #expect(loaded.apps.isEmpty)
            #expect(loaded.problems.map(\.line) == [4])
            #expect(loaded.problems.first?.message.contains("can be read or written by every user (mode 0\(String(mode, radix: 8)))") == true)
            #expect(loaded.problems.first?.message.contains("chmod o-rwx") == true)
            expectNoKey(loaded)
        }
    }

    @Test func aKeyFileThatCannotBeUsedSaysWhy() throws {
        let config = try ConfigDirectory()
        let cases: [(setup: () throws -> String, expected: String)] = [
            ({ config.path + "/keys/missing" }, "cannot be opened: No such file or directory"),
            ({ try config.write("keys/empty", "\n", mode: 0o600) }, "is empty"),
            ({ try config.write("keys/spaces", "two words\n", mode: 0o600) }, "printable ASCII characters without spaces"),
            ({ try config.write("keys/lines", "\(secretKey)\nsecond\n", mode: 0o600) }, "printable ASCII characters without spaces"),
            ({ try config.write("keys/huge", String(repeating: "k", count: 5000), mode: 0o600) }, "is larger than 4096 bytes"),
            ({
                try FileManager.default.createDirectory(atPath: config.path + "/keys/dir", withIntermediateDirectories: true)
                return config.path + "/keys/dir"
            }, "is not a regular file"),
            ({ "keys/relative" }, "is not an absolute file path"),
        ]
        for (setup, expected) in cases {
            let path = try setup()
            let loaded = try loadApp("AppKeyFile=\(path)\n", in: config)
            #expect(loaded.apps.isEmpty)
            #expect(loaded.problems.count == 1)
            #expect(loaded.problems.first?.line == 4)
            #expect(loaded.problems.first?.message.contains(expected) == true, "\(loaded.problems)")
            expectNoKey(loaded)
        }
    }

    @Test func anInlineKeyThatCannotGoInAHeaderIsRefusedWithoutShowingIt() throws {
        let config = try ConfigDirectory()
        let bad = "apsio_app_with space"
        let loaded = try loadApp("AppKey=\(bad)\n", in: config)
        #expect(loaded.problems.map(\.line) == [4])
        #expect(loaded.problems.first?.message.contains("the value is not shown here") == true)
        expectNoKey(loaded, bad)
    }

    @Test func theKeyNeverPrintsFromTheLoadedConfiguration() throws {
        let config = try ConfigDirectory()
        let loaded = try loadApp("AppKey=\(secretKey)\n", in: config)
        let app = try #require(loaded.apps.first)
        #expect(!String(describing: app).contains(secretKey))
        #expect(!String(reflecting: loaded).contains(secretKey))
    }
}

/// A minimal app file (an inline key), `extra` from line 5 on, loaded from `config`.
private func loadAppWith(_ extra: String, in config: ConfigDirectory) throws -> (apps: [AppConfiguration], problems: [ConfigurationProblem]) {
    try config.app("nginx", "[App]\nUnit=nginx.service\nBackend=https://ingest.example.com\nAppKey=apsio_app_k\n" + extra)
    let loaded = config.load()
    return (loaded.apps, loaded.problems)
}

/// `Header=` and `HeaderFile=`: the headers a collector asks every batch to carry.
@Suite struct AppFileHeaderTests {
    static let tenant = "tenant-7f3a"
    static let vendorKey = "vk_live_9c1e5d7a2b"


    @Test func headersInlineAndFromAFileAreReadInOrder() throws {
        let config = try ConfigDirectory()
        let file = try config.write("keys/vendor", "Bearer \(Self.vendorKey)\n", mode: 0o640)
        let loaded = try loadAppWith("Header=X-Scope-OrgID: \(Self.tenant)\nHeaderFile=Authorization: \(file)\n", in: config)
        #expect(loaded.problems == [])
        let headers = try #require(loaded.apps.first?.headers)
        #expect(headers == [
            AppHeader(name: "X-Scope-OrgID", value: Self.tenant),
            AppHeader(name: "Authorization", value: "Bearer \(Self.vendorKey)", file: file),
        ])
        // Neither value prints from the loaded configuration.
        for shown in [String(describing: loaded.apps), String(reflecting: loaded.apps)] {
            #expect(!shown.contains(Self.vendorKey) && !shown.contains(Self.tenant), "\(shown)")
        }
    }

    /// Each way of being wrong is a problem at its line that shows no value, and the app is not served.
    @Test func aHeaderThatCannotGoIsAProblemAtItsLine() throws {
        let config = try ConfigDirectory()
        let open = try config.write("keys/open", Self.vendorKey + "\n", mode: 0o644)
        let cases: [(line: String, expected: String)] = [
            ("Header=X-Scope-OrgID \(Self.tenant)", "must be NAME: VALUE"),
            ("Header=X Scope: \(Self.tenant)", "HTTP does not allow"),
            ("Header=Content-Type: text/plain", "apsiod sets itself or HTTP's own"),
            ("Header=apsio-app-key: \(Self.tenant)", "apsiod sets itself"),
            ("Header=X-Tenant: \(Self.tenant)\u{7}", "printable ASCII"),
            ("Header=X-Tenant:", "printable ASCII"),
            ("HeaderFile=Authorization: keys/relative", "is not an absolute file path"),
            ("HeaderFile=Authorization: \(open)", "can be read or written by every user"),
            ("HeaderFile=Authorization: \(config.path)/keys/missing", "cannot be opened"),
        ]
        for (line, expected) in cases {
            let loaded = try loadAppWith(line + "\n", in: config)
            #expect(loaded.apps.isEmpty, "\(line)")
            #expect(loaded.problems.map(\.line) == [5], "\(line): \(loaded.problems)")
            #expect(loaded.problems.first?.message.contains(expected) == true, "\(line): \(loaded.problems)")
            for problem in loaded.problems {
                #expect(!problem.description.contains(Self.tenant) && !problem.description.contains(Self.vendorKey), "\(problem)")
            }
        }
        let twice = try loadAppWith("Header=X-Tenant: a\nHeader=x-tenant: b\n", in: config)
        #expect(twice.problems.map(\.line) == [6])
        #expect(twice.problems.first?.message.contains("set twice (line 5 too)") == true)
    }
}

/// `CAFile=`, `ClientCertificate=`, `ClientKey=`: paths of files that exist, a certificate with its
/// key, and a key other users cannot read.
@Suite struct AppFileTLSTests {

    @Test func theFilesAreKeptAsPaths() throws {
        let config = try ConfigDirectory()
        let ca = try config.write("tls/ca.pem", "-----BEGIN CERTIFICATE-----\n", mode: 0o644)
        let certificate = try config.write("tls/client.pem", "-----BEGIN CERTIFICATE-----\n", mode: 0o644)
        let key = try config.write("tls/client.key", "-----BEGIN PRIVATE KEY-----\n", mode: 0o640)
        let loaded = try loadAppWith("CAFile=\(ca)\nClientCertificate=\(certificate)\nClientKey=\(key)\n", in: config)
        #expect(loaded.problems == [])
        #expect(loaded.apps.first?.tls == AppTLS(caFile: ca, clientCertificate: certificate, clientKey: key))
        #expect(try loadAppWith("", in: config).apps.first?.tls == nil)
    }

    @Test func eachMistakeIsAProblemAtItsLine() throws {
        let config = try ConfigDirectory()
        let certificate = try config.write("tls/client.pem", "-----BEGIN CERTIFICATE-----\n", mode: 0o644)
        let openKey = try config.write("tls/open.key", "-----BEGIN PRIVATE KEY-----\n", mode: 0o644)
        let key = try config.write("tls/client.key", "-----BEGIN PRIVATE KEY-----\n", mode: 0o600)
        let cases: [(extra: String, line: Int, expected: String)] = [
            ("CAFile=tls/ca.pem\n", 5, "is not an absolute file path"),
            ("CAFile=\(config.path)/tls/missing.pem\n", 5, "does not exist"),
            ("CAFile=\(config.path)/tls\n", 5, "is not a regular file"),
            ("ClientCertificate=\(certificate)\n", 5, "needs its private key in ClientKey="),
            ("ClientKey=\(key)\n", 5, "needs its certificate in ClientCertificate="),
            ("ClientCertificate=\(certificate)\nClientKey=\(openKey)\n", 6, "chmod o-rwx"),
        ]
        for (extra, line, expected) in cases {
            let loaded = try loadAppWith(extra, in: config)
            #expect(loaded.apps.isEmpty, "\(extra)")
            #expect(loaded.problems.map(\.line) == [line], "\(extra): \(loaded.problems)")
            #expect(loaded.problems.first?.message.contains(expected) == true, "\(extra): \(loaded.problems)")
        }
    }
}
