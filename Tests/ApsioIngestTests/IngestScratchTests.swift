import Testing
@testable import ApsioIngest

/// One buffer kept for the next batch's JSON: lent to one caller at a time, the largest kept,
/// none kept past the cap.
@Suite struct IngestScratchTests {
    @Test func aBufferGivenBackIsLentAgainWithItsMemory() {
        let scratch = IngestScratch()
        var buffer = scratch.take()
        #expect(buffer.capacity == 0)
        buffer.append(contentsOf: repeatElement(7, count: 100_000))
        let capacity = buffer.capacity
        scratch.giveBack(buffer)
        #expect(scratch.keptCapacity == capacity)
        let again = scratch.take()
        #expect(again.capacity == capacity)
        // While it is out, another caller gets new memory, not the same buffer.
        #expect(scratch.take().capacity == 0)
    }

    @Test func theLargerOfTwoBuffersGivenBackIsKept() {
        let scratch = IngestScratch()
        scratch.giveBack([UInt8](repeating: 0, count: 50_000))
        scratch.giveBack([UInt8](repeating: 0, count: 10))
        #expect(scratch.keptCapacity >= 50_000)
    }

    @Test func aBufferOverTheCapIsLetGo() {
        let scratch = IngestScratch()
        scratch.giveBack([UInt8](repeating: 0, count: IngestScratch.maxKeptCapacity + 1))
        #expect(scratch.keptCapacity == 0)
    }
}
