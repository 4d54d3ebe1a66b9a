import ApsioCore
import ApsioJSON
import Testing

struct IntervalCase: Decodable, Sendable, CustomTestStringConvertible {
    let interval_s: JSONValue?
    let used: Int64
    var testDescription: String { "interval_s \(String(describing: interval_s)) → \(used)" }
}

struct TokenCase: Decodable, Sendable, CustomTestStringConvertible {
    let device_token: JSONValue?
    let kept: Bool
    var testDescription: String { "\(String(describing: device_token)) kept: \(kept)" }
}

@Suite struct HelloAnswerTests {
    /// The rule is given the field as the answer is read (`HelloAnswer(body:)`): its number when it
    /// is one, nil when it is absent or of another type.
    @Test(arguments: Vectors.cases("live-interval.json", as: IntervalCase.self))
    func interval(_ c: IntervalCase) {
        #expect(HelloInterval.seconds(from: c.interval_s?.numberValue) == .seconds(c.used))
    }

    @Test func intervalAbsentAndFractional() {
        #expect(HelloInterval.seconds(from: nil) == .seconds(30))
        #expect(HelloInterval.seconds(from: 15.9) == .seconds(15))
        #expect(HelloInterval.seconds(from: 1e300) == .seconds(120))
        #expect(HelloInterval.seconds(from: .infinity) == .seconds(30))
    }

    /// The token is given the field as the answer is read: its text when it is a string.
    @Test(arguments: Vectors.cases("live-token.json", as: TokenCase.self))
    func token(_ c: TokenCase) {
        let token = DeviceToken(c.device_token?.stringValue)
        #expect((token != nil) == c.kept)
        if let token { #expect(token.secretHex == c.device_token?.stringValue) }
    }

    @Test func tokenNeverPrints() throws {
        let hex = String(repeating: "ab", count: 32)
        let token = try #require(DeviceToken(hex))
        #expect(!"\(token)".contains(hex))
        #expect(!String(reflecting: token).contains(hex))
    }
}
