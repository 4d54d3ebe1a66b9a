import ApsioCore
import Testing

struct BodyCutCase: Decodable, Sendable, CustomTestStringConvertible {
    let why: String
    let body: String
    let result: String
    let result_bytes: Int
    var testDescription: String { why }
}

@Suite struct UTF8CutTests {
    @Test(arguments: Vectors.cases("body-cut.json", as: BodyCutCase.self))
    func vector(_ c: BodyCutCase) {
        let cut = UTF8Cut.cutBody(c.body)
        #expect(cut == c.result)
        #expect(cut.utf8.count == c.result_bytes)
    }

    @Test func attributesAreCutAt1024() {
        let text = String(repeating: "é", count: 600)  // 1200 bytes
        let cut = UTF8Cut.cutAttribute(text)
        #expect(cut.utf8.count == 1024)
        #expect(UTF8Cut.cutAttribute(String(repeating: "a", count: 1024)).utf8.count == 1024)
        #expect(UTF8Cut.cutAttribute(String(repeating: "a", count: 1025)).utf8.count == 1024)
    }
}
