import ApsioCore
import ApsioNet
import Testing

@Suite struct SHA256Tests {
    /// Each input's digest, in order, from one digester lent for all of them.
    func digestEach(_ inputs: [[UInt8]], with sha: OpenSSLSHA256) -> [[UInt8]] {
        sha.withDigester { digester in
            inputs.map { input in
                [UInt8](unsafeUninitializedCapacity: 32) { output, count in
                    input.withUnsafeBytes { digester.digest($0, into: UnsafeMutableRawBufferPointer(output)) }
                    count = 32
                }
            }
        }
    }

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
        let digests = digestEach(inputs, with: sha)
        #expect(digests == inputs.map { sha.sha256($0) })
        #expect(Hex.lowercase(digests[0]) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// Inputs that start with the same 64-byte block (a uid's input: installation id, colon, the
    /// journal file's id) are hashed from a context holding that block; every input still gets its
    /// own digest, however the first blocks come and go.
    @Test func inputsSharingTheirFirstBlockEachGetTheirOwnDigest() {
        let sha = OpenSSLSHA256()
        let block = Array("4f2c9a3e-1b7d-4e8a-9c6f-0d2e5b8a7c31:s=739ad463348b4ceca5a9e69c9".utf8)
        let other = Array("0b7e4d21-9a3c-4f5e-8d6b-1c2a3e4f5a6b:s=1111aaaa2222bbbb3333cccc4".utf8)
        #expect(block.count == 64 && other.count == 64)
        func entry(_ first: [UInt8], _ seqnum: Int) -> [UInt8] {
            first + Array("5a3c93f;i=\(String(seqnum, radix: 16));b=9f0e;m=1a2b;t=5f3e2d1c;x=\(seqnum * 7919)".utf8)
        }
        let inputs: [[UInt8]] = [
            entry(block, 1), entry(block, 2), entry(block, 3),  // the block hashed at the second, reused at the third
            entry(other, 4), entry(block, 5), entry(other, 6),  // alternating: each hashed whole
            entry(other, 7), entry(other, 8),
            block, block + [0x61], Array("abc".utf8), [],  // exactly one block, one byte more, short ones
            entry(block, 9), entry(block, 10),
        ]
        let digests = digestEach(inputs, with: sha)
        #expect(digests == inputs.map { sha.sha256($0) })
        #expect(Set(digests.map(Hex.lowercase)).count == inputs.count)
    }
}
