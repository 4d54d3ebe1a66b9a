import ApsioConfiguration
import ApsioCore
import Testing

@Suite struct ClosestNameTests {
    let keys = ["Unit", "Name", "Version", "Backend", "AppKey", "AppKeyFile", "Families", "MinPriority", "Redact"]

    @Test func suggestsTheKeyATypoWasMeantToBe() {
        #expect(ClosestName.to("Famlies", among: keys) == "Families")
        #expect(ClosestName.to("Famiiles", among: keys) == "Families")
        #expect(ClosestName.to("unit", among: keys) == "Unit")
        #expect(ClosestName.to("Redcat", among: keys) == "Redact")
        #expect(ClosestName.to("AppKeyFiel", among: keys) == "AppKeyFile")
    }

    @Test func suggestsTheOneNameATruncatedOrExtendedOneShares() {
        #expect(ClosestName.to("Announce", among: ["MotdFile", "AnnounceTerminals"]) == "AnnounceTerminals")
        #expect(ClosestName.to("grant", among: ["granted", "denied"]) == "granted")
        #expect(ClosestName.to("error", among: ["emerg", "alert", "crit", "err", "warning"]) == "err")
        // Two keys start with `AppK`: a guess between them would mislead half the time.
        #expect(ClosestName.to("AppK", among: keys) == nil)
    }

    @Test func suggestsNothingForANameFarFromEveryCandidate() {
        #expect(ClosestName.to("Colour", among: keys) == nil)
        #expect(ClosestName.to("X", among: keys) == nil)
    }
}
