import ApsioCore
import ApsioNet
import Testing

@Suite struct SHA256Tests {
    // FIPS 180-2, appendix B.1, and the digest of the empty message.
    @Test func fipsVectors() {
        let sha = OpenSSLSHA256()
        #expect(Hex.lowercase(sha.sha256(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.lowercase(sha.sha256([]))
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(sha.sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func millionAs() {
        // FIPS 180-2 B.3: one million repetitions of "a".
        let sha = OpenSSLSHA256()
        #expect(Hex.lowercase(sha.sha256([UInt8](repeating: 0x61, count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// One context reused for a run of digests gives each input its own digest: nothing of the
    /// previous input is left in the next.
    @Test func aDigesterReusedForManyInputsGivesEachItsOwnDigest() {
        let sha = OpenSSLSHA256()
        let inputs = [Array("abc".utf8), [], [UInt8](repeating: 0x61, count: 1000), Array("abc".utf8)]
        let digests = sha.withDigester { digester in
            inputs.map { input in
                [UInt8](unsafeUninitializedCapacity: 32) { output, count in
                    input.withUnsafeBytes { digester.digest($0, into: UnsafeMutableRawBufferPointer(output)) }
                    count = 32
                }
            }
        }
        #expect(digests == inputs.map { sha.sha256($0) })
        #expect(Hex.lowercase(digests[0]) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
