@testable import ApsioPlatform
@testable import ApsioTestSupport
import Testing

/// The order the follower uses to tell whether an app already had an entry must be sd-journal's.
@Suite struct JournalPositionTests {
    func position(_ seqnumID: String, _ seqnum: Int, boot: String = "b1", monotonic: Int, realtime: Int, xor: Int = 1)
        -> JournalPosition
    {
        let cursor = "s=\(seqnumID);i=\(String(seqnum, radix: 16));b=\(boot);m=\(String(monotonic, radix: 16));"
            + "t=\(String(realtime, radix: 16));x=\(String(xor, radix: 16))"
        return JournalPosition(cursor: cursor)!
    }

    @Test func sameSequenceSourceComparesSequenceNumbersEvenAgainstTheClocks() {
        let earlier = position("s1", 5, monotonic: 900, realtime: 900)
        let later = position("s1", 6, monotonic: 100, realtime: 100)
        #expect(later.isAfter(earlier))
        #expect(!earlier.isAfter(later))
    }

    @Test func otherFilesOfTheSameBootCompareMonotonicTime() {
        let first = position("s1", 50, monotonic: 100, realtime: 900)
        let second = position("s2", 1, monotonic: 200, realtime: 100)
        #expect(second.isAfter(first))
    }

    @Test func otherBootsCompareWallClockTime() {
        let first = position("s1", 50, boot: "b1", monotonic: 900, realtime: 100)
        let second = position("s2", 1, boot: "b2", monotonic: 1, realtime: 200)
        #expect(second.isAfter(first))
        #expect(!first.isAfter(second))
    }

    @Test func anEntryIsNotAfterItself() {
        let entry = position("s1", 5, monotonic: 1, realtime: 1)
        #expect(!entry.isAfter(entry))
    }

    @Test func cursorsMissingAPartOrWithBadNumbersAreRefused() {
        #expect(JournalPosition(cursor: "s=a;i=1;b=b;m=1;t=1") == nil)
        #expect(JournalPosition(cursor: "s=a;i=zz;b=b;m=1;t=1;x=1") == nil)
        #expect(JournalPosition(cursor: "") == nil)
        #expect(JournalPosition(cursor: "s=a;i=1;b=b;m=1;t=1;x=1") != nil)
        #expect(JournalPosition(cursor: "s=a;i=;b=b;m=1;t=1;x=1") == nil, "an empty number")
        #expect(JournalPosition(cursor: "s=a;i=+1;b=b;m=1;t=1;x=1") == nil, "a sign")
        #expect(JournalPosition(cursor: "s=a;i=10000000000000000;b=b;m=1;t=1;x=1") == nil, "more than 64 bits")
        #expect(JournalPosition(cursor: "s=a;i=1;b=b;m=1;t=1;x1") == nil, "a part without =")
    }

    /// A cursor as sd-journal writes one, its parts read back: the sequence-number source and the
    /// boot as text, the numbers as hex of any case.
    @Test func aRealCursorIsReadPartByPart() throws {
        let cursor = "s=0c3b7a5c1f2e4d6a8b9c0d1e2f3a4b5c;i=1a2B;b=5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b;m=FfFf;t=5f0e3c2a1b000;x=abcdef0123456789"
        let position = try #require(JournalPosition(cursor: cursor))
        #expect(position.seqnumID == "0c3b7a5c1f2e4d6a8b9c0d1e2f3a4b5c")
        #expect(position.seqnum == 0x1a2b)
        #expect(position.bootID == "5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b")
        #expect(position.monotonic == 0xffff)
        #expect(position.realtime == 0x5f0e3c2a1b000)
        #expect(position.xorHash == 0xabcdef0123456789)
    }
}
