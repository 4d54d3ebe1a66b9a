import ApsioCore
import Testing

@Suite struct HexTests {
    /// Every byte, two lowercase digits, high nibble first: what a proof, a token or a hash reads as.
    @Test func everyByteIsItsTwoLowercaseDigits() {
        let all = (0...255).map(UInt8.init)
        let expected = all.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        #expect(Hex.lowercase(all) == expected)
        #expect(Hex.isLowercase(Hex.lowercase(all), length: 512))
    }

    /// A sequence without storage of its own (a lazy map, a slice of one) reads the same as an array.
    @Test func anySequenceOfBytesReadsAsItsArray() {
        let bytes: [UInt8] = [0x00, 0x0f, 0x10, 0x7f, 0x80, 0xa5, 0xff]
        #expect(Hex.lowercase(bytes.lazy.map { $0 }) == "000f107f80a5ff")
        #expect(Hex.lowercase(bytes[2...4]) == "107f80")
        #expect(Hex.lowercase([UInt8]()) == "")
        #expect(Hex.lowercase(bytes.lazy.filter { _ in false }) == "")
    }
}
