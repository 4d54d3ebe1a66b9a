import ApsioCore
import Testing

struct OriginCase: Decodable, Sendable, CustomTestStringConvertible {
    let origin: String
    let accepted: Bool
    let why: String
    var testDescription: String { "\(why): \(origin.debugDescription)" }
}

@Suite struct LiveOriginTests {
    @Test(arguments: Vectors.cases("live-origin.json", as: OriginCase.self))
    func vector(_ c: OriginCase) {
        let parsed = LiveOrigin(c.origin)
        #expect((parsed != nil) == c.accepted)
        // An accepted origin is returned unchanged.
        if let parsed { #expect(parsed.text == c.origin) }
    }

    @Test func portsAndHostsForConnecting() throws {
        let plain = try #require(LiveOrigin("https://live.example.com"))
        #expect(plain.scheme == .https && plain.port == 443 && plain.connectHost == "live.example.com")
        let v6 = try #require(LiveOrigin("http://[::1]:8787"))
        #expect(v6.scheme == .http && v6.port == 8787 && v6.connectHost == "::1")
        let local = try #require(LiveOrigin("http://localhost"))
        #expect(local.port == 80)
    }

    /// A host longer than DNS allows (253 bytes) names nothing to connect to, and a backend could
    /// make an origin as long as its whole policy body: then the policy's canonical JSON, which adds
    /// the fields the body left out, no longer fit the body limit and did not read back (found by
    /// fuzz/JSONFuzz.swift on a policy of one long origin).
    @Test func aHostLongerThanDNSAllowsIsRefused() {
        let longest = (0..<4).map { _ in String(repeating: "a", count: 62) }.joined(separator: ".") + ".a"
        #expect(longest.utf8.count == 253)
        #expect(LiveOrigin("https://\(longest):65535") != nil)
        #expect(LiveOrigin("https://\(longest)a") == nil)
        #expect(LiveOrigin("https://" + String(repeating: "a", count: 1 << 20)) == nil)
    }

    @Test func portLimits() {
        #expect(LiveOrigin("https://a.example:65535") != nil)
        #expect(LiveOrigin("https://a.example:65536") == nil)
        #expect(LiveOrigin("https://a.example:1") != nil)
        #expect(LiveOrigin("https://a.example:0") == nil)
        #expect(LiveOrigin("https://a.example:100000") == nil)
        #expect(LiveOrigin("http://[::1]x") == nil)
        #expect(LiveOrigin("http://[::1") == nil)
    }
}
