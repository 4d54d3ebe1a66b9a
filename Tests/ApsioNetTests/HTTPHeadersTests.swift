import ApsioNet
import Testing

@Suite struct HTTPHeadersTests {
    /// Names match whatever their case (RFC 9110 5.1), and only ASCII letters fold.
    @Test func namesMatchWithoutRegardToCase() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Apsio-App-Key": "k", "x-apsio-app-key": "second"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.values("X-APSIO-APP-KEY") == ["k", "second"])
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Type "] == nil)
        // "K" (the Kelvin sign) is no "k" here: field names are ASCII tokens.
        #expect(!HTTPHeaders([("\u{212A}ey", "v")]).contains("key"))
    }

    /// A list field's elements: split at commas over every field of the name, parameters and
    /// spaces left out, empty elements skipped; a token is found whatever its case.
    @Test func listElementsAreTrimmedAndWithoutParameters() {
        let headers = HTTPHeaders([
            ("Accept-Encoding", " gzip;q=0.5 ,, \tbr\t, ;q=1"), ("Connection", "keep-alive, Upgrade"),
            ("accept-encoding", "ZSTD"), ("Transfer-Encoding", ""),
        ])
        #expect(headers.tokens("Accept-Encoding") == ["gzip", "br", "ZSTD"])
        #expect(headers.hasToken("gzip", in: "accept-encoding"))
        #expect(headers.hasToken("zstd", in: "Accept-Encoding"))
        #expect(!headers.hasToken("q=0.5", in: "Accept-Encoding"))
        #expect(!headers.hasToken("gzi", in: "Accept-Encoding"))
        #expect(headers.hasToken("upgrade", in: "Connection"))
        #expect(!headers.hasToken("close", in: "Connection"))
        #expect(headers.tokens("Transfer-Encoding").isEmpty)
        #expect(headers.tokens("Expect").isEmpty)
    }
}
