import ApsioCore
import Foundation
@testable import ApsioTestSupport
import Testing

/// `CAFile=`, `ClientCertificate=` and `ClientKey=` on the built `apsiod`, against nginx that asks
/// for a client certificate signed by a CA the test makes (`ssl_verify_client on`), in front of the
/// scripted backend: without the certificate nginx refuses every request and nothing reaches the
/// backend; with it, the policy is read and every line arrives.
@Suite(.serialized) struct DaemonClientCertificateTests {
    @Test func aCollectorThatAsksForAClientCertificateGetsOne() async throws {
        let certificates = try await TestCertificates.make()
        try await AgentHarness.with { h in
            let port = try LoopbackPort.free()
            let nginx = try NginxFixture(port: port, server: """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificates.serverCertificate);
                    ssl_certificate_key \(certificates.serverKey);
                    ssl_client_certificate \(certificates.caFile);
                    ssl_verify_client on;
                    location / {
                        proxy_pass http://127.0.0.1:\(h.backend.port);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                    }
                }
                """)
            defer { nginx.stop() }
            let origin = "https://127.0.0.1:\(port)"
            h.backend.setPolicy(try h.policy(live: false))

            // The private CA alone: nginx refuses the requests (400), and none reaches the backend.
            try h.writeApp("CAFile=\(certificates.caFile)", backendOrigin: origin)
            try h.start()
            try await h.waitServing()
            try await poll("nginx refusing the policy fetch", seconds: 60, every: .milliseconds(100)) {
                nginx.forwarded.contains { $0.path == "/v1/policy" && $0.status == 400 }
            }
            #expect(h.backend.policyRequests == 0)
            #expect(nginx.forwarded.allSatisfy { $0.status == 400 && $0.upstream == "-" }, "\(nginx.forwarded)")
            await h.stop()

            // With the client certificate and its key: the policy is read and the lines arrive.
            try h.writeApp(
                "CAFile=\(certificates.caFile)\nClientCertificate=\(certificates.clientCertificate)\nClientKey=\(certificates.clientKey)",
                backendOrigin: origin)
            try h.start()
            try await h.waitServing()
            let sent = (0..<5).map { "through mutual TLS \($0)" }
            try await h.journal.write(sent.map { h.journal.entry(unit: AgentHarness.unit, message: $0) })
            try await poll("the lines at /v1/logs through nginx", seconds: 60, every: .milliseconds(100)) {
                Set(h.backend.records.map(\.body)).isSuperset(of: sent)
            }
            #expect(h.backend.policyRequests > 0)
            // nginx logs a request once its answer has gone back, which can be after the backend
            // already holds the lines: wait for the line instead of reading the log once.
            try await poll("nginx logging /v1/logs forwarded and accepted", seconds: 30, every: .milliseconds(100)) {
                nginx.forwarded.contains { $0.path == "/v1/logs" && $0.status == 200 }
            }
        }
    }
}
