import ApsioCore
import ApsioJSON
import Foundation
@testable import ApsioTestSupport
import Testing

/// The built `apsiod` on a box whose only way out is an egress proxy: Debian's tinyproxy on
/// loopback, which alone resolves the collector's name (`TestCertificates.collectorName`, in a
/// mount namespace of its own). The collector is nginx with TLS in front of the scripted backend;
/// apsiod trusts the test CA (`CAFile=`) and verifies the collector's name inside the tunnel.
/// Without the proxy nothing can arrive: apsiod cannot even resolve the name.
@Suite(.serialized) struct DaemonProxyTests {
    /// nginx with TLS for the collector's name, passing everything to the scripted backend.
    static func collector(_ h: AgentHarness, _ certificates: TestCertificates) throws -> NginxFixture {
        let port = try LoopbackPort.free()
        return try NginxFixture(port: port, server: """
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificates.serverCertificate);
                ssl_certificate_key \(certificates.serverKey);
                location / {
                    proxy_pass http://127.0.0.1:\(h.backend.port);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_read_timeout 600s;
                }
            }
            """)
    }

    static func origin(_ nginx: NginxFixture) -> String { "https://\(TestCertificates.collectorName):\(nginx.port)" }

    /// The app's file naming the collector (trusting the test CA), and the policy it answers:
    /// live pointing at the collector too, or no live.
    static func configure(_ h: AgentHarness, _ nginx: NginxFixture, _ certificates: TestCertificates, live: Bool) throws {
        h.backend.setPolicy(try h.policy(live: live, origin: origin(nginx)))
        try h.writeApp("CAFile=\(certificates.caFile)", backendOrigin: origin(nginx))
    }

    static func lines(_ label: String, _ range: Range<Int>) -> [String] { range.map { "\(label) \($0)" } }

    static func write(_ h: AgentHarness, _ lines: [String]) async throws {
        try await h.journal.write(lines.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
    }

    static func arrived(_ h: AgentHarness, _ lines: [String]) -> Bool {
        Set(h.backend.records.map(\.body)).isSuperset(of: lines)
    }

    /// What `apsioctl status` says went wrong: the policy's problem and ingest's last failure.
    static func problems(_ h: AgentHarness) async throws -> String {
        let status = try await h.appStatus()
        return [status?["policy_problem"]?.stringValue, status?["ingest"]?["last_failure"]?.stringValue]
            .compactMap { $0 }.joined(separator: "\n")
    }

    @Test func throughTheProxyIngestAndALiveSessionWork() async throws {
        let certificates = try await TestCertificates.make()
        try await AgentHarness.with { h in
            let nginx = try Self.collector(h, certificates)
            defer { nginx.stop() }
            let proxy = try TinyproxyFixture(hosts: [TestCertificates.collectorName: "127.0.0.1"])
            defer { proxy.stop() }
            try Self.configure(h, nginx, certificates, live: true)
            try h.start(environment: ["HTTPS_PROXY": proxy.url])
            try await h.waitServing()

            let sent = Self.lines("through the proxy", 0..<5)
            try await Self.write(h, sent)
            try await poll("the lines at the backend through the proxy", seconds: 60, every: .milliseconds(100)) {
                Self.arrived(h, sent)
            }
            #expect(proxy.connects.contains("\(TestCertificates.collectorName):\(nginx.port)"), "\(proxy.log)")
            #expect(h.backend.policyRequests > 0)

            // The live channel goes the same way: a session starts, and its lines stream.
            try await h.startLiveSession()
            let streamed = Self.lines("streamed through the proxy", 0..<3)
            try await Self.write(h, streamed)
            try await poll("the lines streamed through the proxy", seconds: 60, every: .milliseconds(100)) {
                Set(h.streamedLines).isSuperset(of: streamed)
            }
            #expect(nginx.forwarded.contains { $0.path == "/v1/live/hello" && $0.status == 200 })
            let log = h.daemon?.stderr ?? ""
            #expect(log.contains("https requests go through the proxy \(proxy.url)"), "\(log)")
        }
    }

    @Test func aProxyThatIsDownIsNamedAndNothingIsLostWhenItComesBack() async throws {
        let certificates = try await TestCertificates.make()
        try await AgentHarness.with { h in
            let nginx = try Self.collector(h, certificates)
            defer { nginx.stop() }
            let proxy = try TinyproxyFixture(hosts: [TestCertificates.collectorName: "127.0.0.1"], start: false)
            defer { proxy.stop() }
            try Self.configure(h, nginx, certificates, live: false)
            try h.start(environment: ["https_proxy": proxy.url])
            try await h.waitServing()

            let before = Self.lines("while the proxy is down", 0..<5)
            try await Self.write(h, before)
            try await poll("the status naming the proxy that is down", seconds: 60, every: .milliseconds(200)) {
                try await Self.problems(h).contains("cannot reach the proxy 127.0.0.1:\(proxy.port)")
            }
            let text = try await h.ctl(["status", AgentHarness.app])
            #expect(text.stdout.contains("127.0.0.1:\(proxy.port)"), "\(text.stdout)")
            #expect(h.backend.records.isEmpty)

            try proxy.start()
            let after = Self.lines("once the proxy is back", 0..<5)
            try await Self.write(h, after)
            try await poll("every line at the backend", seconds: 120, every: .milliseconds(200)) {
                Self.arrived(h, before + after)
            }
            #expect(Set(h.backend.records.map(\.body)).count == before.count + after.count)
        }
    }

    @Test func noProxyNamesTheHostsReachedDirectly() async throws {
        let certificates = try await TestCertificates.make()
        try await AgentHarness.with { h in
            let nginx = try Self.collector(h, certificates)
            defer { nginx.stop() }
            // apsiod resolves the collector itself here (its own /etc/hosts), and its proxy is one
            // where nothing listens: only a direct connection can deliver.
            let hosts = try TemporaryDirectory("apsio-hosts")
            try hosts.write("hosts", "127.0.0.1 localhost \(TestCertificates.collectorName)\n")
            let wrapper = [
                "/usr/bin/unshare", "--mount", "--", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"",
                hosts.path + "/hosts",
            ]
            let down = try LoopbackPort.free()
            try Self.configure(h, nginx, certificates, live: false)
            try h.start(
                wrapper: wrapper,
                environment: ["HTTPS_PROXY": "http://127.0.0.1:\(down)", "NO_PROXY": "localhost,.apsio.test"])
            try await h.waitServing()

            let sent = Self.lines("around the proxy", 0..<5)
            try await Self.write(h, sent)
            try await poll("the lines at the backend, directly", seconds: 60, every: .milliseconds(100)) {
                Self.arrived(h, sent)
            }
            #expect(try await Self.problems(h) == "")
        }
    }

    @Test func proxyCredentialsComeFromAFileAndAreNeverShown() async throws {
        let certificates = try await TestCertificates.make()
        let password = "pr0xy-pass-\(UInt32.random(in: 1000...9999))"
        try await AgentHarness.with { h in
            let nginx = try Self.collector(h, certificates)
            defer { nginx.stop() }
            let proxy = try TinyproxyFixture(
                hosts: [TestCertificates.collectorName: "127.0.0.1"], credentials: (user: "box", password: password))
            defer { proxy.stop() }
            try Self.configure(h, nginx, certificates, live: false)
            // apsiod.conf names the proxy; the environment names none.
            let conf = "[Indicator]\nMotdFile=\(h.root.path)/motd\nAnnounceTerminals=no\n[Network]\nProxy=\(proxy.url)\n"
            try h.root.write("etc/apsiod.conf", conf)
            try h.start()
            try await h.waitServing()

            let first = Self.lines("waiting for the proxy's credentials", 0..<3)
            try await Self.write(h, first)
            try await poll("the status saying the proxy asks for credentials", seconds: 60, every: .milliseconds(200)) {
                try await Self.problems(h).contains("407")
            }
            #expect(try await Self.problems(h).contains("ProxyCredentialsFile="))

            // The credentials in a file of mode 0600, read at a reload.
            let credentials = h.root.path + "/etc/proxy-credentials"
            try h.root.write("etc/proxy-credentials", "box:\(password)\n")
            chmod(credentials, 0o600)
            try h.root.write("etc/apsiod.conf", conf + "ProxyCredentialsFile=\(credentials)\n")
            let reload = try await h.ctl(["reload"])
            #expect(reload.status == 0, "\(reload.stderr)")
            let second = Self.lines("with the proxy's credentials", 0..<3)
            try await Self.write(h, second)
            try await poll("every line at the backend", seconds: 120, every: .milliseconds(200)) {
                Self.arrived(h, first + second)
            }

            let status = try await h.ctl(["--json", "status"])
            let shown = (h.daemon?.stdout ?? "") + (h.daemon?.stderr ?? "") + status.stdout
            #expect(!shown.contains(password))
            #expect(!shown.contains(Base64.encode(Array("box:\(password)".utf8))))
        }
    }
}
