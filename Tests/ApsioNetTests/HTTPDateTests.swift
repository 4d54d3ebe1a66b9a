import ApsioNet
import Testing

@Suite struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, RFC 9110's example date.
    static let example = 784_111_777

    @Test func threeDateForms() {
        #expect(HTTPDate.unixSeconds("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.unixSeconds("Sunday, 06-Nov-94 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.unixSeconds("Sun Nov  6 08:49:37 1994") == Self.example)
        #expect(HTTPDate.unixSeconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.unixSeconds("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
    }

    @Test(arguments: [
        "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT", "06 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 2100 00:00:00 GMT",
    ])
    func notADate(text: String) {
        #expect(HTTPDate.unixSeconds(text) == nil)
    }

    @Test func deltaSecondsAndDates() {
        let now = Self.example
        #expect(RetryAfter.parse("120", nowUnixSeconds: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", nowUnixSeconds: now) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:37 GMT", nowUnixSeconds: now) == .seconds(60))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:00:00 GMT", nowUnixSeconds: now) == .zero, "a past date means now")
        #expect(RetryAfter.parse("99999999999999999999999", nowUnixSeconds: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("-5", nowUnixSeconds: now) == nil)
        #expect(RetryAfter.parse("1.5", nowUnixSeconds: now) == nil)
        #expect(RetryAfter.parse("soon", nowUnixSeconds: now) == nil)
    }

    @Test func onAResponse() {
        let response = HTTPResponse(status: 503, headers: ["retry-after": "7"])
        #expect(response.retryAfter(nowUnixSeconds: 0) == .seconds(7))
        #expect(HTTPResponse(status: 503).retryAfter(nowUnixSeconds: 0) == nil)
    }
}
