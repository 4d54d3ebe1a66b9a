import Testing
import ApsioState

@Suite struct CRC32CTests {
    @Test func matchesTheCastagnoliCheckValue() {
        // The check value every CRC-32C implementation publishes (RFC 3720 B.4 uses the same polynomial).
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    }

    @Test func aChecksumCanBeContinued() {
        let whole = Array("the quick brown fox".utf8)
        let split = CRC32C.checksum(whole[7...], continuing: CRC32C.checksum(whole[..<7]))
        #expect(split == CRC32C.checksum(whole))
    }
}
