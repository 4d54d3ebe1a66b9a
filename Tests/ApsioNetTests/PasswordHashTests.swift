import ApsioCore
import ApsioNet
import Testing

@Suite struct PasswordHashTests {
    // RFC 7914 section 11, and the PBKDF2-HMAC-SHA256 vectors everyone checks against.
    @Test func pbkdf2Vectors() {
        #expect(Hex.lowercase(PBKDF2.sha256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 1))
            == "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b")
        #expect(Hex.lowercase(PBKDF2.sha256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 4096))
            == "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
        #expect(Hex.lowercase(PBKDF2.sha256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64))
            == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test func verifiesOnlyItsPassword() {
        let stored = PasswordHash(password: "correct horse", iterations: 1000)
        #expect(stored.verifies("correct horse"))
        #expect(!stored.verifies("correct horse "))
        #expect(!stored.verifies(""))
    }

    @Test func eachHashHasItsOwnSalt() {
        let a = PasswordHash(password: "same", iterations: 1000)
        let b = PasswordHash(password: "same", iterations: 1000)
        #expect(a.salt.count == PasswordHash.saltBytes)
        #expect(a.salt != b.salt && a.hash != b.hash)
    }

    @Test func textRoundTripsAndNeverHoldsThePassword() throws {
        let stored = PasswordHash(password: "hunter2-hunter2", iterations: 1000)
        #expect(!stored.text.contains("hunter2"))
        #expect(!stored.description.contains("hunter2"))
        let read = try #require(PasswordHash(text: stored.text))
        #expect(read == stored)
        #expect(read.verifies("hunter2-hunter2"))
    }

    /// A sign-in keeps the stamp: the same hash read back keeps it, the same password set again
    /// (a fresh salt) changes it, and it holds neither the password nor the hash.
    @Test func theStampFollowsTheHashAndTellsNothingOfIt() throws {
        let stored = PasswordHash(password: "hunter2-hunter2", iterations: 1000)
        #expect(try #require(PasswordHash(text: stored.text)).stamp == stored.stamp)
        #expect(PasswordHash(password: "hunter2-hunter2", iterations: 1000).stamp != stored.stamp)
        #expect(stored.stamp.utf8.count == 32)
        #expect(!stored.text.contains(stored.stamp) && !stored.stamp.contains("hunter2"))
    }

    @Test(arguments: [
        "", "1000", "1000:00112233445566778899aabbccddeeff", "0:00112233445566778899aabbccddeeff:" + String(repeating: "0", count: 64),
        "1000:0011:" + String(repeating: "0", count: 64),
        "1000:00112233445566778899AABBCCDDEEFF:" + String(repeating: "0", count: 64),
        "1000:00112233445566778899aabbccddeeff:" + String(repeating: "0", count: 62),
        "99999999999:00112233445566778899aabbccddeeff:" + String(repeating: "0", count: 64),
    ])
    func malformedTextIsRefused(_ text: String) {
        #expect(PasswordHash(text: text) == nil)
    }

    @Test func randomBytesDiffer() {
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
