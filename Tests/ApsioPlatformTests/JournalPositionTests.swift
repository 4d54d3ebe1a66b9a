@testable import ApsioPlatform
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
    }
}
