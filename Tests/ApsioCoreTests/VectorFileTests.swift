import Foundation
import Testing

@Suite struct VectorFileTests {
    /// A vector file added to the fixtures without a test would silently run nothing.
    @Test func everyFixtureFileIsRun() throws {
        let present = try FileManager.default.contentsOfDirectory(atPath: Vectors.directory.path)
            .filter { $0.hasSuffix(".json") }
        #expect(Set(present) == Vectors.filesRun)
    }

    /// Every case of every file decodes into the test's model: none is dropped by a loader.
    @Test(arguments: Vectors.filesRun.sorted())
    func everyCaseDecodes(file: String) throws {
        let raw = try JSONSerialization.jsonObject(with: Vectors.data(file)) as? [String: Any]
        let rawCount = (raw?["cases"] as? [Any])?.count ?? 0
        #expect(rawCount > 0)
        let decoded: Int
        switch file {
        case "body-cut.json": decoded = Vectors.cases(file, as: BodyCutCase.self).count
        case "journal-severity.json": decoded = Vectors.cases(file, as: SeverityCase.self).count
        case "live-interval.json": decoded = Vectors.cases(file, as: IntervalCase.self).count
        case "live-open.json": decoded = Vectors.cases(file, as: OpenCase.self).count
        case "live-origin.json": decoded = Vectors.cases(file, as: OriginCase.self).count
        case "live-stop.json": decoded = Vectors.cases(file, as: StopCase.self).count
        case "live-tester-check.json": decoded = Vectors.cases(file, as: TesterCheckCase.self).count
        case "live-tester.json": decoded = Vectors.cases(file, as: TesterCase.self).count
        case "live-token.json": decoded = Vectors.cases(file, as: TokenCase.self).count
        default: decoded = -1
        }
        #expect(decoded == rawCount, "\(file): \(decoded) of \(rawCount) cases decoded")
    }
}
