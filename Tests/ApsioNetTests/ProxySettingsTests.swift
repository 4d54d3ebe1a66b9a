@testable import ApsioNet
import Testing

/// Which requests go through a proxy, read as curl reads `HTTPS_PROXY` and `NO_PROXY`.
@Suite struct ProxySettingsTests {
    static func endpoint(_ url: String) throws -> HTTPEndpoint { try HTTPEndpoint(baseURL: url) }

    @Test func aProxyURLIsReadAsCurlReadsIt() throws {
        #expect(try HTTPProxy(url: "http://proxy.example.com:3128") == HTTPProxy(host: "proxy.example.com", port: 3128))
        #expect(try HTTPProxy(url: "proxy.example.com:3128/") == HTTPProxy(host: "proxy.example.com", port: 3128))
        #expect(try HTTPProxy(url: "HTTP://Proxy.Example.com") == HTTPProxy(host: "proxy.example.com", port: 1080))
        #expect(try HTTPProxy(url: "http://[fd00::8]:8080") == HTTPProxy(host: "fd00::8", port: 8080))
        let withUser = try HTTPProxy(url: "http://box%40fleet:p%3Ass@10.0.0.8:3128")
        #expect(withUser.address == "10.0.0.8:3128")
        #expect(withUser.credentials == (try ProxyCredentials(user: "box@fleet", password: "p:ss")))
        #expect(!"\(withUser)".contains("p:ss") && !"\(withUser)".contains("box"))
    }

    @Test(arguments: [
        ("https://proxy:3128", ProxyURLError.unsupportedScheme("https")),
        ("socks5h://proxy:1080", .unsupportedScheme("socks5h")),
        ("http://proxy:3128/path", .notAnOrigin),
        ("http://proxy:0", .badPort("0")),
        ("http://proxy:99999", .badPort("99999")),
        ("http://pro xy:3128", .badHost),
        ("http://:3128", .badHost),
        ("http://:secret@proxy:3128", .badCredentials),
        ("http://user:%zz@proxy:3128", .badCredentials),
    ])
    func aProxyURLThatIsNotOneIsRefusedWithoutRepeatingIt(_ text: String, _ error: ProxyURLError) {
        #expect(throws: error) { try HTTPProxy(url: text) }
        #expect(!error.description.contains("secret"))
    }

    @Test func noProxyMatchesNamesDomainsAddressesAndNetworks() {
        let list = NoProxy("example.com, .corp.internal,10.0.0.0/8 fd00::/8,192.168.1.7,[::5]")
        #expect(list.ignored == [])
        #expect(list.bypasses("example.com"))
        #expect(list.bypasses("api.example.com"))
        #expect(!list.bypasses("notexample.com"))
        #expect(list.bypasses("corp.internal") && list.bypasses("a.b.corp.internal"))
        #expect(list.bypasses("10.200.3.4") && !list.bypasses("11.0.0.1"))
        #expect(list.bypasses("fd00::8") && !list.bypasses("fe80::1"))
        #expect(list.bypasses("192.168.1.7") && !list.bypasses("192.168.1.8"))
        #expect(list.bypasses("::5"))
        // Names are not resolved to be compared with addresses, nor addresses with names.
        #expect(!NoProxy("10.0.0.0/8").bypasses("ten.example.com"))
        #expect(NoProxy("*").bypasses("anything.example.org"))
        #expect(!NoProxy("").bypasses("example.com"))
        #expect(NoProxy("ok.example, bad/name, 10.0.0.0/40").ignored == ["bad/name", "10.0.0.0/40"])
    }

    @Test func onlyHTTPSOffThisMachineGoesThroughTheProxy() throws {
        let proxy = HTTPProxy(host: "proxy", port: 3128)
        let settings = ProxySettings(https: proxy, noProxy: NoProxy(".direct.example"))
        #expect(settings.proxy(for: try Self.endpoint("https://collector.example.com")) == proxy)
        #expect(settings.proxy(for: try Self.endpoint("https://api.direct.example:4318")) == nil)
        #expect(settings.proxy(for: try Self.endpoint("https://localhost:4318")) == nil)
        #expect(settings.proxy(for: try Self.endpoint("https://127.0.0.2:4318")) == nil)
        #expect(settings.proxy(for: try Self.endpoint("https://[::1]:4318")) == nil)
        #expect(settings.proxy(for: try Self.endpoint("http://127.0.0.1:8080")) == nil)
        #expect(ProxySettings.direct.proxy(for: try Self.endpoint("https://collector.example.com")) == nil)
    }

    @Test func theEnvironmentIsReadLowercaseFirstThenAllProxy() throws {
        let lower = ProxySettings.environment([
            "https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "NO_PROXY": ".example.com",
        ])
        #expect(lower.settings.https == HTTPProxy(host: "lower", port: 1))
        #expect(lower.settings.noProxy.bypasses("a.example.com"))
        #expect(lower.problems == [])
        #expect(ProxySettings.environment(["ALL_PROXY": "http://all:3"]).settings.https == HTTPProxy(host: "all", port: 3))
        // HTTP_PROXY never applies: plain http goes to loopback only, and never through a proxy.
        #expect(ProxySettings.environment(["HTTP_PROXY": "http://plain:4", "http_proxy": "http://plain:4"]).settings.https == nil)
        let bad = ProxySettings.environment(["HTTPS_PROXY": "https://user:secret@proxy:3128"])
        #expect(bad.settings.https == nil)
        #expect(bad.problems.count == 1 && bad.problems[0].hasPrefix("HTTPS_PROXY is not used"))
        #expect(!bad.problems[0].contains("secret"))
    }

    @Test func connectNamesTheBackendAndCarriesTheCredentialsOnlyWhenThereAreSome() throws {
        let endpoint = try Self.endpoint("https://collector.example.com")
        let plain = String(decoding: ProxyTunnel.request(to: endpoint, credentials: nil), as: UTF8.self)
        #expect(plain.hasPrefix("CONNECT collector.example.com:443 HTTP/1.1\r\nHost: collector.example.com:443\r\n"))
        #expect(plain.hasSuffix("\r\n\r\n") && !plain.contains("Proxy-Authorization"))
        let v6 = String(decoding: ProxyTunnel.request(to: try Self.endpoint("https://[fd00::1]:4318"), credentials: nil), as: UTF8.self)
        #expect(v6.hasPrefix("CONNECT [fd00::1]:4318 HTTP/1.1\r\n"))
        let credentials = try ProxyCredentials(user: "Aladdin", password: "open sesame")
        let authorized = String(decoding: ProxyTunnel.request(to: endpoint, credentials: credentials), as: UTF8.self)
        // RFC 7617's own example.
        #expect(authorized.contains("\r\nProxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n"))
        #expect("\(credentials)" == "(proxy credentials)")
    }

    @Test func aRouteChangesOnlyWhenTheSettingsDo() {
        let route = ProxyRoute()
        let settings = ProxySettings(https: HTTPProxy(host: "proxy", port: 3128), noProxy: .none)
        #expect(route.update(settings))
        #expect(!route.update(settings))
        #expect(route.settings == settings)
        #expect(route.update(.direct))
    }
}
