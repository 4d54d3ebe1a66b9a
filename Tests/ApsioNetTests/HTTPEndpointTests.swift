import ApsioCore
import ApsioNet
import Testing

@Suite struct HTTPEndpointTests {
    @Test func baseURLs() throws {
        let plain = try HTTPEndpoint(baseURL: "https://ingest.example.com")
        #expect(plain.scheme == .https && plain.host == "ingest.example.com" && plain.port == 443 && plain.basePath == "")
        #expect(plain.hostField == "ingest.example.com")
        let full = try HTTPEndpoint(baseURL: "https://ingest.example.com:8443/collector/")
        #expect(full.port == 8443 && full.basePath == "/collector" && full.hostField == "ingest.example.com:8443")
        let v6 = try HTTPEndpoint(baseURL: "http://[::1]:4318")
        #expect(v6.host == "::1" && v6.hostField == "[::1]:4318" && v6.isLoopback)
        #expect(try HTTPEndpoint(baseURL: "http://localhost").port == 80)
        #expect(try HTTPEndpoint(baseURL: "https://10.0.0.5").isIPLiteral)
    }

    @Test(arguments: [
        "ftp://ingest.example.com", "HTTPS://ingest.example.com", "https://Ingest.example.com",
        "https://user:pw@ingest.example.com", "https://ingest.example.com@evil.example", "https://ingest.example.com/?x=1",
        "https://ingest.example.com/#frag", "https://ingest.example.com:0", "https://ingest.example.com:65536",
        "https://ingest.example.com:08443", "https://ingest.example.com:", "https://", "https://:443",
        "https://ingest.example.com/a//b", "https://ingest.example.com/a/../b", "https://ingest.example.com/a b",
        "https://[::1", "https://[nothex]", "https://ingest_example.com",
    ])
    func refusedBaseURL(text: String) {
        #expect(throws: HTTPClientError.self) { try HTTPEndpoint(baseURL: text) }
    }

    /// Spec 16.4: plain http only to loopback, refused before any connection is made.
    @Test(arguments: ["http://ingest.example.com", "http://127.0.0.2", "http://localhost.example.com", "http://[::2]"])
    func plainHTTPToANonLoopbackHost(text: String) {
        #expect {
            try HTTPEndpoint(baseURL: text)
        } throws: { error in
            guard case HTTPClientError.plainHTTPRefused = error else { return false }
            return "\(error)".contains("use https://")
        }
    }

    @Test func fromALiveOrigin() throws {
        let origin = try #require(LiveOrigin("http://[::1]:8080"))
        let endpoint = HTTPEndpoint(origin: origin)
        #expect(endpoint.scheme == .http && endpoint.host == "::1" && endpoint.port == 8080)
        let secure = HTTPEndpoint(origin: try #require(LiveOrigin("https://live.example.com")))
        #expect(secure.port == 443 && secure.description == "https://live.example.com")
    }
}
