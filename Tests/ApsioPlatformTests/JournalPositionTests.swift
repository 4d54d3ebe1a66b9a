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

    @Test func wallClockTimeIsReadFromTheCursorsOwnPart() {
        let cursor = "s=9f1d0b2c3a4e4f6a8b7c6d5e4f3a2b1c;i=2a;b=6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80;"
            + "m=4c4b40;t=60a241d2d5a3f;x=b1a7e5c3d9f20e41"
        #expect(JournalPosition.realtimeMicroseconds(inCursor: cursor) == 0x60a241d2d5a3f)
        // `t=` is found as a part of its own, not inside another part's value.
        #expect(JournalPosition.realtimeMicroseconds(inCursor: "t=1f;x=at=2") == 0x1f)
        #expect(JournalPosition.realtimeMicroseconds(inCursor: "s=at=1;t=2") == 2)
        for unreadable in ["s=1;i=2", "t=", "t=xyz;x=1", "t=10000000000000000", "", "x=1;t"] {
            #expect(JournalPosition.realtimeMicroseconds(inCursor: unreadable) == nil, "\(unreadable)")
        }
    }
}
