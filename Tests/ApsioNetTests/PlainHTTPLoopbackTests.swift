@testable import ApsioNet
import Testing

/// Plain http:// reaches only this machine (spec 16.4), whatever `localhost` resolves to: the app
/// key and the device token it carries must not cross the network in clear text.
@Suite struct PlainHTTPLoopbackTests {
    /// The addresses `host` would resolve to, built as getaddrinfo builds them.
    static func addresses(_ hosts: [String], port: Int = 80) async throws -> [SocketAddress] {
        var out: [SocketAddress] = []
        for host in hosts { out += try await DNSResolver.resolve(host: host, port: port, timeout: .seconds(5)) }
        return out
    }

    /// A client whose resolver answers every name with `hosts`, as an /etc/hosts line would.
    static func client(resolvingTo hosts: [String]) throws -> HTTPClient {
        try HTTPClient(options: .init(limits: testLimits)) { _, port, _ in try await addresses(hosts, port: port) }
    }

    @Test(arguments: ["127.0.0.1", "127.0.1.1", "127.255.255.254", "::1", "::ffff:127.0.0.1", "::ffff:127.1.2.3"])
    func loopbackAddresses(_ host: String) async throws {
        let address = try #require(try await Self.addresses([host]).first)
        #expect(LoopbackAddress.contains(address.addressBytes))
    }

    @Test(arguments: [
        "10.1.2.3", "128.0.0.1", "126.255.255.255", "0.0.0.0", "192.168.1.1", "::", "::2", "fe80::1", "2001:db8::1",
        "::ffff:10.1.2.3", "::127.0.0.1",
    ])
    func addressesOffTheMachine(_ host: String) async throws {
        let address = try #require(try await Self.addresses([host]).first)
        #expect(!LoopbackAddress.contains(address.addressBytes))
    }

    @Test func oneAddressOffTheMachineIsNamedInTheRefusal() async throws {
        let resolved = try await Self.addresses(["127.0.0.1", "10.1.2.3", "::1"])
        #expect(throws: HTTPClientError.plainHTTPResolvedOffLoopback(host: "localhost", address: "10.1.2.3")) {
            try LoopbackAddress.requireAll(resolved, resolvedFrom: "localhost")
        }
        let onTheMachine = try await Self.addresses(["127.0.0.1", "::1", "::ffff:127.0.0.1"])
        #expect(throws: Never.self) { try LoopbackAddress.requireAll(onTheMachine, resolvedFrom: "localhost") }
    }

    @Test func theRefusalSaysWhatToCheck() {
        let error = HTTPClientError.plainHTTPResolvedOffLoopback(host: "localhost", address: "10.1.2.3")
        #expect(error.description
            == "localhost resolves to 10.1.2.3, which is not a loopback address; plain http:// goes only to loopback (check /etc/hosts)")
    }

    /// The loopback server is listed first and would answer: a client that tried the addresses in
    /// turn would get its 200. It gets the refusal instead, so it connected to none of them.
    @Test func localhostResolvingOffTheMachineIsRefusedBeforeConnecting() async throws {
        let recorder = Recorder()
        var router = HTTPRouter()
        router.add("GET", "/v1/policy") { _ in
            recorder.record("asked")
            return .text("policy")
        }
        try await withServer(router) { _, port in
            let endpoint = try HTTPEndpoint(baseURL: "http://localhost:\(port)")
            for hosts in [["127.0.0.1", "10.1.2.3"], ["10.1.2.3"]] {
                await #expect(throws: HTTPClientError.plainHTTPResolvedOffLoopback(host: "localhost", address: "10.1.2.3")) {
                    try await Self.client(resolvingTo: hosts).send(.get("/v1/policy"), to: endpoint)
                }
            }
            await #expect(throws: HTTPClientError.plainHTTPResolvedOffLoopback(host: "localhost", address: "::ffff:10.1.2.3")) {
                try await Self.client(resolvingTo: ["::ffff:10.1.2.3"]).send(.get("/v1/policy"), to: endpoint)
            }
            #expect(recorder.all.isEmpty)

            let response = try await Self.client(resolvingTo: ["127.0.0.1"]).send(.get("/v1/policy"), to: endpoint)
            #expect(response.status == 200 && response.body == Array("policy".utf8))
            #expect(recorder.all == ["asked"])
        }
    }

    @Test func localhostOnTheRealResolverStillConnects() async throws {
        var router = HTTPRouter()
        router.add("GET", "/") { _ in .text("here") }
        try await withServer(router) { _, port in
            let response = try await testClient().send(.get("/"), to: try HTTPEndpoint(baseURL: "http://localhost:\(port)"))
            #expect(response.status == 200)
        }
    }
}
