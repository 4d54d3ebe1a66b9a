import ApsioCore
import Testing

@testable import ApsioAgent

@Suite struct DaemonLogTests {
    @Test func levelsBelowTheMinimumAreNotLogged() {
        let log = DaemonLog(minimum: .notice, destination: .memory)
        log.log(.info, .policy, "fetched", app: "web")
        log.log(.warning, .policy, "malformed body kept the last good policy", app: "web")
        #expect(log.lines == ["warning policy web: malformed body kept the last good policy"])
        log.level = .debug
        log.log(.debug, .journal, "read 10 entries")
        #expect(log.lines.count == 2)
    }

    @Test func everyKindHasItsOwnMessageID() {
        let ids = LogKind.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }
}

