import ApsioBackend
import ApsioCore
import ApsioJSON
import ApsioLive
import ApsioNet
import ApsioState
import Foundation
@testable import ApsioTestSupport
import Testing

/// The production path of docs/nginx.md, with the built binaries: Debian's nginx, configured from
/// the shipped example, terminates TLS in front of `apsio-backend` instances that run without
/// `--dev` and publish nginx's https origin; `/v1/logs` goes to a collector stand-in (an
/// `apsio-devbackend` used only as an OTLP sink). The demo's `apsiod` (a journal directory fed by
/// systemd-journal-remote, the unit on python-dbusmock) runs a whole live session through it.
@Suite(.serialized) struct NginxFrontTests {
    static let unit = "demo.service"
    static let appKey = "apsio_app_nginx_front"
    /// How many instances stand behind nginx, sharing their hub in one redis-server. With one,
    /// the instance keeps its hub in memory: in-memory instances do not know each other's devices,
    /// and without stickiness a device's hello and its next `next` meet different instances.
    static let instances = 3

    /// A backend instance: the built binary as the package's unit runs it, on a configuration
    /// directory.
    struct Instance {
        let child: RunningChild
        let port: Int
    }

    /// `redis`: the shared hub's endpoint, when there is more than one instance.
    static func startInstance(_ index: Int, config: String, redis: String?, directory: String) async throws -> Instance {
        let child = try RunningChild(
            BuiltBinaries.directory + "/apsio-backend", ["--config", config] + (redis.map { ["--redis", $0] } ?? []),
            environment: [:], directory: directory, name: "instance-\(index)")
        try await poll("instance \(index) listening", seconds: 120, every: .milliseconds(100)) { child.stdout.contains("\n") || !child.isRunning }
        guard let port = Self.listeningPort(child.stdout) else {
            throw DaemonTestError("instance \(index) did not start: \(child.stdout)\(child.stderr)")
        }
        return Instance(child: child, port: port)
    }

    static func listeningPort(_ output: String) -> Int? {
        output.components(separatedBy: "listening on http://127.0.0.1:").dropFirst().first?.split(separator: ";").first
            .flatMap { Int($0) }
    }

    @Test func theDemosDaemonRunsAWholeLiveSessionThroughNginx() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: NginxFixture.executable), "install nginx (scripts/install-deps.sh)")
        let root = try TemporaryDirectory("apsio-nginx-front")
        let config = root.path + "/etc", state = root.path + "/state", runtime = root.path + "/run"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let certificates = try await TestCertificates.make()

        // The install id exists before the backend is told of the tester, as on a real box where
        // the team reads it from `apsioctl apps`.
        let install = try AppStateStore(layout: StateLayout(root: state)).installationID(for: AppName("demo"))
        let sha = OpenSSLSHA256()
        let match = TesterProof(entryID: "qa-box-7", installationID: install, hashing: sha).match(hashing: sha)

        let accounts = root.path + "/accounts"
        try AccountsFile(accounts: [
            Account(user: "ann", role: .admin, password: PasswordHash(password: "ann-password", iterations: 1000))
        ]).save(path: accounts)

        // nginx's port comes first: every instance publishes its https origin.
        let front = try LoopbackPort.free()
        let origin = "https://127.0.0.1:\(front)"
        // The instances' configuration as an operator writes it: no --dev, an https live origin.
        try root.write("backend/backend.conf", """
            [Backend]
            Listen=127.0.0.1:0
            LiveOrigin=\(origin)
            Interval=15
            AccountsFile=\(accounts)
            """)
        try root.write("backend/apps.d/demo.conf", """
            [App]
            Name=demo
            AppKey=\(Self.appKey)
            Tester=qa-box-7:\(match):4102444800
            """)
        // Several instances share their hub in one redis-server, private to the test.
        let redis = Self.instances > 1 ? try RedisServerFixture() : nil
        defer { redis?.stop() }
        var instances: [Instance] = []
        for index in 0..<Self.instances {
            instances.append(
                try await Self.startInstance(index, config: root.path + "/backend", redis: redis?.endpoint, directory: root.path))
        }
        // The collector gateway's stand-in: another backend, of which only the OTLP sink is used.
        let collectorPort = try LoopbackPort.free()
        let collector = try RunningChild(
            BuiltBinaries.directory + "/apsio-devbackend",
            [
                "--dev", "--listen", "127.0.0.1:\(collectorPort)", "--live-origin", "http://127.0.0.1:\(collectorPort)",
                "--app", "demo:\(Self.appKey)", "--accounts", accounts,
            ],
            environment: [:], directory: root.path, name: "collector")
        try await poll("the collector listening", seconds: 120, every: .milliseconds(100)) { collector.stdout.contains("listening on") || !collector.isRunning }

        let nginx = try NginxFixture(
            port: front, instances: instances.map(\.port), collectors: [collectorPort],
            certificate: certificates.serverCertificate, key: certificates.serverKey)
        defer { nginx.stop() }
        #expect(nginx.site.contains("listen 127.0.0.1:\(front) ssl http2;"))

        let bus = try DBusMockFixture()
        defer { bus.stopAll() }
        try await bus.startTemplate("systemd", busName: SystemdMock.systemd)
        try await SystemdMock.addUnit(bus, Self.unit)
        try await SystemdMock.update(bus, Self.unit, [["ActiveState", "s", "active"], ["SubState", "s", "running"]])
        let journal = try JournalFixture()
        try await journal.write([journal.entry(unit: Self.unit, message: "before apsiod started")])

        try root.write("etc/apsiod.conf", """
            [Indicator]
            MotdFile=\(root.path)/motd
            AnnounceTerminals=no
            """)
        // The device knows nginx alone: its policy, its logs and its live channel all go there.
        try root.write("etc/apps.d/demo.conf", """
            [App]
            Unit=\(Self.unit)
            Name=com.example.demo
            Version=2.0.1
            Backend=\(origin)
            AppKey=\(Self.appKey)
            Consent=granted
            """)
        let directories = ["--config-dir", config, "--state-dir", state, "--runtime-dir", runtime]
        @Sendable func ctl(_ arguments: [String]) async throws -> CommandRun {
            try await CommandRun.run(BuiltBinaries.apsioctl, directories + arguments)
        }
        #expect(try await ctl(["allow-live", "on", "demo"]).status == 0)
        // The daemon trusts the test CA as a box trusts the system's: OpenSSL's default paths.
        let daemon = try RunningChild(
            BuiltBinaries.apsiod, directories + ["--journal-dir", journal.path, "--log-level", "debug"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "SSL_CERT_FILE": certificates.caFile],
            directory: root.path, name: "apsiod")

        let viewer = try ViewerAPI(port: front, https: certificates.caFile)
        @Sendable func api(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
            try await viewer.call(method, path, bearer, body)
        }
        let instanceAddresses = Set(instances.map { "127.0.0.1:\($0.port)" })
        // The instance that answered: the last nginx tried (`$upstream_addr` lists each one tried,
        // a stopped instance that refused the connection first).
        @Sendable func instancesServed(_ request: NginxFixture.Forwarded) -> Bool {
            request.upstream.split(separator: ",").last.map { instanceAddresses.contains($0.trimmingCharacters(in: .whitespaces)) } ?? false
        }
        @Sendable func signIn(_ api: ViewerAPI) async throws -> String {
            let login = try await api.call("POST", "/api/login", nil, .object(["user": .string("ann"), "password": .string("ann-password")]))
            return try #require(login.1["token"]?.stringValue, "sign-in answered \(login.0)")
        }

        do {
            // The person signs in through nginx; the sign-in cookie is Secure, as the page is.
            let login = try await viewer.exchange(
                "POST", "/api/login", nil, .object(["user": .string("ann"), "password": .string("ann-password")]))
            #expect(login.status == 200)
            let cookie = login.headers["Set-Cookie"] ?? ""
            #expect(cookie.hasPrefix("apsio_session=") && cookie.contains("; Secure"), "Set-Cookie: \(cookie)")
            let ann = try #require(JSONValueEncoding.decode(login.body)?["token"]?.stringValue)

            try await poll("the device present at the backend", seconds: 90, every: .milliseconds(100)) {
                let devices = try? await api("GET", "/api/devices", ann)
                return devices?.1["devices"]?.arrayValue?.contains { $0["install"]?.stringValue == install } ?? false
            }
            #expect(try await api("POST", "/api/devices/\(install)/watch", ann).0 == 200)

            // The next hello finds the viewer: the session starts, and the machine says so.
            try await poll("apsioctl status showing the viewer", seconds: 90, every: .milliseconds(100)) {
                (try? await ctl(["status"]))?.stdout.contains("Your team is viewing demo live") ?? false
            }

            // The unit writes; the person's stream shows the line.
            try await journal.write([journal.entry(unit: Self.unit, message: "order 1234 shipped")])
            let stream = ViewerStream(viewer, install: install, bearer: ann)
            try await poll("the line in the viewer's stream", seconds: 90, every: .milliseconds(100)) {
                await stream.contains { event in
                    (event["frames"]?["lines"]?.arrayValue ?? []).contains { $0["body"] == .string("order 1234 shipped") }
                }
            }

            // An instance stops, as in a rolling restart: nothing was stuck to it, so the session
            // goes on at the others, and the viewer sees the unit's next line.
            let stopped = Self.instances > 1 ? instances.first : nil
            // What nginx had answered before the stop: the answers after it are judged apart.
            let beforeStop = stopped == nil ? Int.max : nginx.forwarded.count
            if let stopped {
                #expect(await stopped.child.terminate() == 0)
                try await journal.write([journal.entry(unit: Self.unit, message: "order 1235 shipped")])
                try await poll("a line written after an instance stopped", seconds: 90, every: .milliseconds(100)) {
                    await stream.contains { event in
                        (event["frames"]?["lines"]?.arrayValue ?? []).contains { $0["body"] == .string("order 1235 shipped") }
                    }
                }
            }

            // A screenshot: the command goes out on a held `next`, its result comes back.
            let command = try await api("POST", "/api/devices/\(install)/commands", ann, .object(["name": .string("screenshot")]))
            #expect(command.0 == 202)
            try await poll("the screenshot's result in the stream", seconds: 90, every: .milliseconds(100)) {
                await stream.contains { $0["type"] == .string("result") && $0["result"]?["name"] == .string("screenshot") }
            }

            // The viewer leaves: the session ends, and the machine stops saying it is watched.
            #expect(try await api("DELETE", "/api/devices/\(install)/watch", ann).0 == 200)
            try await poll("apsioctl status without the viewer", seconds: 90, every: .milliseconds(100)) {
                let status = try? await ctl(["status"])
                return status.map { $0.status == 0 && !$0.stdout.contains("Your team is viewing demo live") } ?? false
            }

            // The journal's lines went to the collector, through nginx, and to no instance.
            let collectorAPI = try ViewerAPI(port: collectorPort)
            let collectorToken = try await signIn(collectorAPI)
            try await poll("the line at the collector", seconds: 90, every: .milliseconds(100)) {
                let ingest = try? await collectorAPI.call("GET", "/api/ingest", collectorToken)
                return ingest?.1["requests"]?.arrayValue?.contains {
                    JSONWriter.encode($0["body"] ?? .null).containsText("order 1234 shipped")
                } ?? false
            }
            for instance in instances where instance.port != stopped?.port {
                let direct = try ViewerAPI(port: instance.port)
                let ingest = try await direct.call("GET", "/api/ingest", try await signIn(direct))
                #expect(ingest.1["total"]?.numberValue == 0, "instance \(instance.port) received logs")
            }

            // Bodies: up to the backend's 1 MiB, nginx passes them on from memory; past it, nginx
            // refuses them itself, as the backend would.
            @Sendable func frames(bytes: Int) async throws -> Int {
                var headers: HTTPHeaders = [:]
                headers.add("Apsio-App-Key", Self.appKey)
                headers.add("Content-Type", "application/json")
                let request = HTTPRequest(
                    method: "POST", path: "/v1/live/frames", headers: headers, body: [UInt8](repeating: 0x20, count: bytes))
                return try await viewer.client.send(request, to: viewer.endpoint).status
            }
            let under = try await frames(bytes: 1 << 20)
            #expect(under != 413 && (400..<500).contains(under), "a 1-MiB body that is no frames: \(under)")
            // nginx writes its access log once the answer has gone: wait for its line.
            try await poll("the 1-MiB body in nginx's log, from an instance", seconds: 60, every: .milliseconds(100)) {
                nginx.forwarded.contains { $0.path == "/v1/live/frames" && $0.status == under && instancesServed($0) }
            }
            #expect(try await frames(bytes: (1 << 20) + 1) == 413)
            try await poll("the larger body in nginx's log, answered by nginx", seconds: 60, every: .milliseconds(100)) {
                nginx.forwarded.contains(.init(method: "POST", path: "/v1/live/frames", status: 413, upstream: "-"))
            }
            #expect(!nginx.errorLog.contains("buffered to a temporary file"), "\(nginx.errorLog)")

            // nginx's own account: /v1/logs went to the collector only, everything else to the
            // instances, and nothing timed out or failed on the way.
            let forwarded = nginx.forwarded.filter { $0.status != 413 }
            let collectorAddress = "127.0.0.1:\(collectorPort)"
            let logs = forwarded.filter { $0.path == "/v1/logs" }
            #expect(!logs.isEmpty)
            #expect(logs.allSatisfy { $0.upstream == collectorAddress && $0.status == 200 }, "\(logs)")
            let rest = forwarded.filter { $0.path != "/v1/logs" }
            #expect(rest.allSatisfy(instancesServed), "\(rest)")
            for path in ["/v1/policy", "/v1/live/hello", "/v1/live/next", "/v1/live/frames", "/v1/live/results"] {
                #expect(rest.contains { $0.path == path }, "\(path) went through nginx")
            }
            // Nothing failed on the way; once an instance stopped, a held GET it had went on at
            // another instance, and only a POST it had in hand can have been answered 502 (nginx
            // never sends a POST twice), which the daemon takes as a failure to retry.
            let all = nginx.forwarded
            let failed = all.prefix(beforeStop).filter { $0.status >= 500 }
                + all.dropFirst(beforeStop).filter { $0.status >= 500 && !($0.method == "POST" && $0.status == 502) }
            #expect(failed.isEmpty, "\(failed)\n\(nginx.errorLog)")
            if instances.count > 1 {
                // The device's requests with its token (until the instance stopped) reach one
                // instance, which changes its state in one round trip; those without one (the
                // policy, the first hello) go anywhere.
                let tokened = all.prefix(beforeStop).filter { ["/v1/live/next", "/v1/live/frames"].contains($0.path) && instancesServed($0) }
                #expect(!tokened.isEmpty && Set(tokened.map(\.upstream)).count == 1, "\(tokened)")
                #expect(Set(rest.map(\.upstream)).count > 1, "\(rest)")
                // The person's, by their credential, all reach one (until it stopped), which
                // alone then hears the device's live stream (docs/nginx.md).
                let persons = all.prefix(beforeStop).filter { $0.path.hasPrefix("/api/devices") }
                #expect(!persons.isEmpty && Set(persons.map(\.upstream)).count == 1, "\(persons)")
            }
        } catch {
            Issue.record("apsiod's log:\n\(daemon.stderr)\nnginx's:\n\(nginx.errorLog)")
            _ = await daemon.terminate()
            await Self.stopAll(instances, collector)
            throw error
        }
        #expect(await daemon.terminate() == 0)
        await Self.stopAll(instances, collector)
    }

    /// Production refuses what nginx does not fix: an instance whose live origin is not https.
    @Test func anInstanceBehindNginxStillRefusesAPlainHTTPLiveOrigin() async throws {
        let root = try TemporaryDirectory("apsio-nginx-origin")
        try root.write("backend/backend.conf", "[Backend]\nListen=127.0.0.1:0\nLiveOrigin=http://127.0.0.1:8443\n")
        let refused = try await CommandRun.run(BuiltBinaries.directory + "/apsio-backend", ["--config", root.path + "/backend"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("refusing the live origin http://127.0.0.1:8443"), "\(refused.stderr)")
    }

    static func stopAll(_ instances: [Instance], _ collector: RunningChild) async {
        for instance in instances { #expect(await instance.child.terminate() == 0) }
        _ = await collector.terminate()
    }
}

extension [UInt8] {
    fileprivate func containsText(_ text: String) -> Bool {
        String(decoding: self, as: UTF8.self).contains(text)
    }
}
