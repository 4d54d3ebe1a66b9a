@testable import ApsioNet
import ApsioTestSupport
import Testing

/// TLS against the test CA: verification is on in every test; only what the client trusts changes.
@Suite struct HTTPClientTLSTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add("POST", "/v1/live/frames") { request in .json(request.body) }
        return router
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func trustedCertificateIsAccepted(host: String) async throws {
        let certificates = try await TestCertificates.make()
        let tls = HTTPServer.TLSFiles(certificateFile: certificates.serverCertificate, privateKeyFile: certificates.serverKey)
        try await withServer(Self.router(), tls: tls) { server, port in
            let client = try HTTPClient(options: .init(caFile: certificates.caFile, limits: testLimits))
            let endpoint = try HTTPEndpoint(scheme: .https, host: host, port: port)
            for round in 0..<2 {
                let json = Array(#"{"state":"live","round":\#(round)}"#.utf8)
                let response = try await client.send(.postJSON("/v1/live/frames", json: json), to: endpoint)
                #expect(response.status == 200)
                #expect(response.body == json)
            }
            #expect(server.connectionCount == 1, "the TLS connection was reused")
        }
    }

    @Test func untrustedCertificateIsRefused() async throws {
        let certificates = try await TestCertificates.make()
        let tls = HTTPServer.TLSFiles(certificateFile: certificates.untrustedCertificate, privateKeyFile: certificates.untrustedKey)
        try await withServer(Self.router(), tls: tls) { _, port in
            let client = try HTTPClient(options: .init(caFile: certificates.caFile, limits: testLimits))
            await #expect {
                try await client.send(.postJSON("/v1/live/frames", json: []), to: HTTPEndpoint(scheme: .https, host: "localhost", port: port))
            } throws: { error in
                guard case HTTPClientError.tlsVerificationFailed(let host, let reason) = error else { return false }
                return host == "localhost" && reason.contains("self-signed")
            }
        }
    }

    /// Without a CA file the system store is used, and it does not know the test CA.
    @Test func systemTrustStoreDoesNotKnowTheTestCA() async throws {
        let certificates = try await TestCertificates.make()
        let tls = HTTPServer.TLSFiles(certificateFile: certificates.serverCertificate, privateKeyFile: certificates.serverKey)
        try await withServer(Self.router(), tls: tls) { _, port in
            await #expect {
                try await HTTPClient(options: .init(limits: testLimits)).send(.postJSON("/v1/live/frames", json: []), to: HTTPEndpoint(scheme: .https, host: "localhost", port: port))
            } throws: { error in
                guard case HTTPClientError.tlsVerificationFailed(_, let reason) = error else { return false }
                return reason.contains("local issuer")
            }
        }
    }

    @Test(arguments: [("localhost", "hostname mismatch"), ("127.0.0.1", "IP address mismatch")])
    func certificateForAnotherNameIsRefused(host: String, reason: String) async throws {
        let certificates = try await TestCertificates.make()
        let tls = HTTPServer.TLSFiles(certificateFile: certificates.otherHostCertificate, privateKeyFile: certificates.otherHostKey)
        try await withServer(Self.router(), tls: tls) { _, port in
            let client = try HTTPClient(options: .init(caFile: certificates.caFile, limits: testLimits))
            await #expect(throws: HTTPClientError.tlsVerificationFailed(host: host, reason: reason)) {
                try await client.send(.postJSON("/v1/live/frames", json: []), to: HTTPEndpoint(scheme: .https, host: host, port: port))
            }
        }
    }

    @Test func aPlainServerIsNotMistakenForTLS() async throws {
        try await withServer(Self.router()) { _, port in
            let certificates = try await TestCertificates.make()
            await #expect {
                try await HTTPClient(options: .init(caFile: certificates.caFile, limits: testLimits))
                    .send(.postJSON("/v1/live/frames", json: []), to: HTTPEndpoint(scheme: .https, host: "localhost", port: port))
            } throws: { error in
                guard case HTTPClientError.tlsHandshakeFailed = error else { return false }
                return true
            }
        }
    }

    /// A client of a plain loopback backend never parses the system's trust store (CPU and memory
    /// it would hold for nothing); its first https connection loads it.
    @Test func theSystemTrustStoreIsLoadedAtTheFirstHTTPSConnection() async throws {
        let client = try HTTPClient(options: .init(limits: testLimits))
        #expect(!client.hasTLSContext)
        try await withServer(Self.router()) { _, port in
            let response = try await client.send(.postJSON("/v1/live/frames", json: Array("{}".utf8)), to: loopback(port))
            #expect(response.status == 200)
        }
        #expect(!client.hasTLSContext)

        let certificates = try await TestCertificates.make()
        let tls = HTTPServer.TLSFiles(certificateFile: certificates.serverCertificate, privateKeyFile: certificates.serverKey)
        try await withServer(Self.router(), tls: tls) { _, port in
            await #expect(throws: HTTPClientError.self) {
                try await client.send(.postJSON("/v1/live/frames", json: []), to: HTTPEndpoint(scheme: .https, host: "localhost", port: port))
            }
        }
        #expect(client.hasTLSContext)
    }

    @Test func aCAFileIsLoadedAtOnce() async throws {
        let certificates = try await TestCertificates.make()
        #expect(try HTTPClient(options: .init(caFile: certificates.caFile)).hasTLSContext)
    }

    @Test func aMissingCAFileIsAConfigurationError() {
        #expect {
            try HTTPClient(options: .init(caFile: "/nonexistent/ca.pem"))
        } throws: { error in
            guard case HTTPClientError.tlsConfiguration(let why) = error else { return false }
            return why.contains("/nonexistent/ca.pem")
        }
    }
}
