import ApsioCore
import Testing

struct TesterCase: Decodable, Sendable, CustomTestStringConvertible {
    let id: String
    let installation_id: String
    let proof: String
    let match: String
    var testDescription: String { "\(id) / \(installation_id)" }
}

struct TesterCheckCase: Decodable, Sendable, CustomTestStringConvertible {
    let tester: String?
    let proof: String?
    let counts: Bool
    let why: String
    var testDescription: String { why }
}

struct TesterCheckFile: Decodable {
    struct Policy: Decodable {
        struct Entry: Decodable {
            let id: String
            let match: String
            let expires_at: Int64
        }
        let testers: [Entry]
    }
    let now: Int64
    let policy: Policy

    var entries: [TesterEntry] {
        policy.testers.map { TesterEntry(id: $0.id, match: $0.match, expiresAt: $0.expires_at) }
    }
}

@Suite struct TesterTests {
    @Test(arguments: Vectors.cases("live-tester.json", as: TesterCase.self))
    func proofAndMatch(_ c: TesterCase) {
        let proof = TesterProof(entryID: c.id, installationID: c.installation_id, hashing: sha256)
        #expect(proof.secretHex == c.proof)
        #expect(proof.match(hashing: sha256) == c.match)
    }

    @Test(arguments: Vectors.cases("live-tester-check.json", as: TesterCheckCase.self))
    func backendCheck(_ c: TesterCheckCase) throws {
        let file = try Vectors.decode("live-tester-check.json", as: TesterCheckFile.self)
        let counts = TesterCheck.counts(
            tester: c.tester, proof: c.proof, entries: file.entries, nowUnixSeconds: file.now, hashing: sha256)
        #expect(counts == c.counts)
    }

    /// The device finds its entry by the same rule, using the vectors' installs.
    @Test(arguments: Vectors.cases("live-tester.json", as: TesterCase.self))
    func deviceFindsItsEntry(_ c: TesterCase) throws {
        let entries = [
            TesterEntry(id: "someone-else", match: String(repeating: "0", count: 64), expiresAt: 2_000_000_000),
            TesterEntry(id: c.id, match: c.match, expiresAt: 2_000_000_000),
        ]
        let found = try #require(
            TesterMatcher.match(entries: entries, installationID: c.installation_id, nowUnixSeconds: 1_800_000_000,
                                hashing: sha256))
        #expect(found.entryID == c.id && found.secretHex == c.proof)
        #expect(
            TesterMatcher.match(entries: entries, installationID: "another-install", nowUnixSeconds: 1_800_000_000,
                                hashing: sha256) == nil)
    }

    @Test func expiryIsInclusiveOfItsSecond() {
        let c = Vectors.cases("live-tester.json", as: TesterCase.self)[0]
        let entry = TesterEntry(id: c.id, match: c.match, expiresAt: 1_800_000_000)
        let at = TesterMatcher.match(entries: [entry], installationID: c.installation_id,
                                     nowUnixSeconds: 1_800_000_000, hashing: sha256)
        let after = TesterMatcher.match(entries: [entry], installationID: c.installation_id,
                                        nowUnixSeconds: 1_800_000_001, hashing: sha256)
        #expect(at != nil)
        #expect(after == nil)
    }

    @Test func proofNeverPrints() {
        let c = Vectors.cases("live-tester.json", as: TesterCase.self)[0]
        let proof = TesterProof(entryID: c.id, installationID: c.installation_id, hashing: sha256)
        #expect(!"\(proof)".contains(c.proof))
        #expect(!String(reflecting: proof).contains(c.proof))
    }
}
