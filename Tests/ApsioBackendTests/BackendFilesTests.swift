import ApsioBackend
import ApsioConfiguration
import ApsioCore
import ApsioTestSupport
import Testing

/// `backend.conf` and `apps.d/*.conf`: what an operator writes, and what each mistake says.
@Suite struct BackendFilesTests {
    static let match = String(repeating: "ab", count: 32)

    static func load(_ directory: ConfigDirectory) -> BackendFiles {
        BackendFilesLoader(directory: directory.path).load()
    }

    @Test func goodFilesGiveTheSettingsAndTheAppsInNameOrder() throws {
        let directory = try ConfigDirectory()
        try directory.write("backend.conf", """
            # The backend's settings.
            [Backend]
            Listen=[::1]:9443
            LiveOrigin=https://live.example.com
            Interval=45
            AccountsFile=/var/lib/apsio-backend/accounts
            TLSCertificateFile=/etc/ssl/live.pem
            TLSKeyFile=/etc/ssl/live.key
            """)
        try directory.write("apps.d/web.conf", "[App]\nAppKey=apsio_app_web_key\nTester=qa-1:\(Self.match):4102444800\nTester=qa-2:\(Self.match):4102444801\n")
        try directory.write("apps.d/api.conf", "[App]\nName=com.example.api\nAppKey=apsio_app_api_key\n")
        try directory.write("apps.d/web.conf.example", "[App]\nAppKey=apsio_app_example\n")
        try directory.write("apps.d/.web.conf.swp", "garbage")

        let files = Self.load(directory)
        #expect(files.problems == [])
        #expect(files.settings.listenHost == "::1" && files.settings.listenPort == 9443)
        #expect(files.settings.origin?.text == "https://live.example.com")
        #expect(files.settings.intervalSeconds == 45)
        #expect(files.settings.accountsPath == "/var/lib/apsio-backend/accounts")
        #expect(files.settings.tlsCertificate == "/etc/ssl/live.pem" && files.settings.tlsKey == "/etc/ssl/live.key")
        #expect(files.apps.map(\.name) == ["com.example.api", "web"])
        #expect(files.apps.map(\.appKey) == ["apsio_app_api_key", "apsio_app_web_key"])
        #expect(files.apps[1].testers == [
            TesterEntry(id: "qa-1", match: Self.match, expiresAt: 4_102_444_800),
            TesterEntry(id: "qa-2", match: Self.match, expiresAt: 4_102_444_801),
        ])
    }

    @Test func noFilesAtAllAreNoSettingsAndNoApps() throws {
        let directory = try ConfigDirectory()
        let files = Self.load(directory)
        #expect(files.problems == [] && files.apps == [] && files.settings == BackendSettings())
    }

    /// Each mistake in `backend.conf`, reported at its file and line.
    @Test(arguments: [
        ("[Backend]\nLiveOrigin=https://live.example.com\nListen=nowhere\n", 3, "Listen=nowhere is not HOST:PORT"),
        ("[Backend]\nLiveOrigin=http://live.example.com\n", 2, "LiveOrigin=http://live.example.com is not https://"),
        ("[Backend]\nInterval=5\n", 2, "Interval=5 is not a number of seconds from 15 to 120"),
        ("[Backend]\nIntreval=30\n", 2, "unknown key `Intreval` in [Backend]; did you mean `Interval`?"),
        ("[Backend]\nInterval=30\nInterval=40\n", 3, "`Interval=` is set again (first on line 2)"),
        ("[Backed]\nInterval=30\n", 1, "unknown section [Backed]; did you mean [Backend]?"),
        ("[Backend]\nAccountsFile=accounts\n", 2, "AccountsFile=accounts is not an absolute file path"),
        ("[Backend]\n\nTLSKeyFile=/etc/ssl/live.key\n", 3, "TLSCertificateFile= and TLSKeyFile= go together"),
        ("[Backend]\nthis line has no equals sign\n", 2, ""),
    ])
    func aMistakeInBackendConfNamesItsFileAndLine(_ text: String, _ line: Int, _ message: String) throws {
        let directory = try ConfigDirectory()
        try directory.write("backend.conf", text)
        let files = Self.load(directory)
        let problem = try #require(files.problems.first)
        #expect(problem.description.hasPrefix("\(directory.path)/backend.conf:\(line): \(message)"))
        #expect(files.settingsBroken)
    }

    /// Each mistake in an app file, at its file and line (or the file alone for a missing key);
    /// the app is then not served, and the message never shows the app key.
    @Test(arguments: [
        ("[App]\nAppKey=short\n", "web.conf:2: AppKey= must be 8 to 256 printable ASCII characters"),
        ("[App]\nName=web\n", "web.conf: AppKey= is missing from [App]"),
        ("[App]\nAppKey=apsio_app_web_key\nTester=qa-1:not-a-match:4102444800\n", "web.conf:3: Tester= is ID:MATCH:EXPIRES"),
        ("[App]\nAppKey=apsio_app_web_key\nTester=qa-1:\(match)\n", "web.conf:3: Tester= is ID:MATCH:EXPIRES"),
        (
            "[App]\nAppKey=apsio_app_web_key\nTester=qa-1:\(match):4102444800\nTester=qa-1:\(match):4102444800\n",
            "web.conf:4: the tester id qa-1 is listed twice"
        ),
        ("[App]\nAppKey=apsio_app_web_key\nName=bad name\n", "web.conf:3: Name=bad name is not 1 to 128 letters"),
        ("[App]\nAppKey=apsio_app_web_key\nUnit=web.service\n", "web.conf:3: unknown key `Unit` in [App]"),
        ("AppKey=apsio_app_web_key\n", "web.conf:1: "),
        ("", "web.conf: has no [App] section"),
    ])
    func aMistakeInAnAppFileNamesItsFileAndLine(_ text: String, _ expected: String) throws {
        let directory = try ConfigDirectory()
        try directory.write("apps.d/web.conf", text)
        let files = Self.load(directory)
        #expect(files.apps == [])
        #expect(
            files.problems.contains { $0.description.hasPrefix("\(directory.path)/apps.d/\(expected)") },
            "\(files.problems)")
        #expect(!files.problems.contains { $0.description.contains("apsio_app_web_key") || $0.description.contains("=short") })
    }

    /// The daemon's rule: one bad app file leaves that app out and no other.
    @Test func aBadAppFileLeavesTheOthersServed() throws {
        let directory = try ConfigDirectory()
        try directory.write("apps.d/api.conf", "[App]\nAppKey=apsio_app_api_key\n")
        try directory.write("apps.d/broken.conf", "[App]\nAppKey=apsio_app_broken\nTester=oops\n")
        try directory.write("apps.d/web.conf", "[App]\nAppKey=apsio_app_web_key\n")
        let files = Self.load(directory)
        #expect(files.apps.map(\.name) == ["api", "web"])
        #expect(files.problems.map(\.description) == [
            "\(directory.path)/apps.d/broken.conf:3: Tester= is ID:MATCH:EXPIRES: an id of 1 to 64 letters, digits, '.', '_' or '-', the match as 64 lowercase hex (SHA-256 of the proof), and the expiry in Unix seconds"
        ])
    }

    @Test func twoFilesWithOneAppKeyServeTheFirstOnly() throws {
        let directory = try ConfigDirectory()
        try directory.write("apps.d/a.conf", "[App]\nAppKey=apsio_app_shared\n")
        try directory.write("apps.d/b.conf", "[App]\n\nAppKey=apsio_app_shared\n")
        let files = Self.load(directory)
        #expect(files.apps.map(\.name) == ["a"])
        #expect(files.problems.map(\.description) == [
            "\(directory.path)/apps.d/b.conf:3: AppKey= is already another app's key; each app has its own, so this one is not served"
        ])
    }

    /// A reload over the last good files: a broken file keeps what it said before, a removed file
    /// removes its app.
    @Test func aReloadKeepsTheLastGoodVersionOfWhatIsBroken() throws {
        let directory = try ConfigDirectory()
        try directory.write("backend.conf", "[Backend]\nLiveOrigin=https://live.example.com\nInterval=40\n")
        try directory.write("apps.d/api.conf", "[App]\nAppKey=apsio_app_api_key\n")
        try directory.write("apps.d/web.conf", "[App]\nAppKey=apsio_app_web_key\n")
        let good = Self.load(directory)

        try directory.write("backend.conf", "[Backend]\nLiveOrigin=https://other.example.com\nInterval=4\n")
        try directory.write("apps.d/web.conf", "[App]\nAppKey=apsio_app_web_key\nTester=oops\n")
        try directory.remove("apps.d/api.conf")
        try directory.write("apps.d/new.conf", "[App]\nAppKey=apsio_app_new_key\n")
        let reloaded = Self.load(directory).keepingLastGood(of: good)

        #expect(reloaded.settings == good.settings)
        #expect(reloaded.apps.map(\.name).sorted() == ["new", "web"])
        #expect(reloaded.apps.first { $0.name == "web" } == good.apps.first { $0.name == "web" })
    }
}
