@testable import ApsioNet
import Testing

/// The pool lends each compressor to one caller at a time and keeps only a few. A compressor given
/// back is the pool's (`sending`), so the tests recognise it by identity noted while they held it;
/// the identities compared belong to compressors still alive in the pool, so none can be reused.
@Suite struct DeflateCompressorPoolTests {
    @Test func aCompressorGivenBackIsLentAgainToOneCallerAtItsLevelOnly() throws {
        let pool = DeflateCompressorPool(capacity: 4)
        let first = try pool.take(level: 1)
        let firstIdentity = ObjectIdentifier(first)
        pool.giveBack(first)
        let atThree = try pool.take(level: 3)
        #expect(atThree.level == 3)  // not the idle level-1 one
        #expect(pool.idleCount == 1)
        let again = try pool.take(level: 1)
        #expect(ObjectIdentifier(again) == firstIdentity)
        // While `again` is out, the next caller at level 1 gets another one, never the same.
        let other = try pool.take(level: 1)
        #expect(other !== again)
        #expect(other.level == 1)
    }

    @Test func keepsAtMostItsCapacityAndDropsTheOldest() throws {
        let pool = DeflateCompressorPool(capacity: 2)
        // All three out at once, so each is a new one; given back oldest first.
        let oldest = try pool.take(level: 1)
        let middle = try pool.take(level: 1)
        let newest = try pool.take(level: 1)
        let identities = [ObjectIdentifier(oldest), ObjectIdentifier(middle), ObjectIdentifier(newest)]
        pool.giveBack(oldest)
        pool.giveBack(middle)
        pool.giveBack(newest)
        #expect(pool.idleCount == 2)
        // Newest first; the oldest was dropped, so nothing is left after two.
        let first = try pool.take(level: 1)
        let second = try pool.take(level: 1)
        #expect([ObjectIdentifier(first), ObjectIdentifier(second)] == [identities[2], identities[1]])
        #expect(pool.idleCount == 0)
    }

    @Test func anInvalidLevelIsRefusedBeforeAnythingIsAllocated() {
        let pool = DeflateCompressorPool(capacity: 2)
        #expect(throws: GzipError.invalidLevel(4)) { try pool.take(level: 4) }
        #expect(pool.idleCount == 0)
    }

    @Test func theSharedPoolStaysWithinItsCapacity() throws {
        let input = Array(String(repeating: "{\"key\":\"value\"}\n", count: 10_000).utf8)
        for level in [Int32(1), 2, 3, 0] {
            #expect(try Gzip.decompress(Gzip.compress(input, level: level), maxOutput: input.count) == input)
        }
        #expect(Gzip.compressors.idleCount <= Gzip.compressors.capacity)
    }
}
