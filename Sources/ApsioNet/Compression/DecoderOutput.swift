/// What a streaming decoder (zlib's `inflate`, zstd's `ZSTD_decompressStream`) writes, written
/// where it stays: the room lent to the decoder grows from a few times the input to 64 KiB at a
/// time, and never past the caller's cap but for one byte, which tells that the cap was passed.
///
/// A 64-KiB chunk zeroed for each body, then copied out, swept a device's hello of a few hundred
/// bytes through the whole first-level cache (docs/performance.md, "Fleet", run 15).
struct DecoderOutput {
    private(set) var bytes: [UInt8] = []
    private let cap: Int
    private var step: Int

    static let largestStep = 64 * 1024

    init(inputCount: Int, cap: Int) {
        self.cap = max(cap, 0)
        // JSON bodies pack to a fifth or a tenth: four times the input is one step for most.
        step = min(Self.largestStep, max(1024, inputCount.multipliedReportingOverflow(by: 4).partialValue))
    }

    /// More than the cap was written: the body is refused.
    var isOverCap: Bool { bytes.count > cap }

    /// Lends `decode` the room after what is written (at least one byte while the cap holds) and
    /// keeps the bytes it says it wrote at the start of that room.
    mutating func fill<Result>(_ decode: (_ room: UnsafeMutableBufferPointer<UInt8>) -> (written: Int, result: Result)) -> Result {
        let start = bytes.count
        let left = cap - start  // never overflows: both are counts
        let room = left >= step ? step : max(1, left + 1)
        bytes.append(contentsOf: repeatElement(0, count: room))
        let (written, result) = bytes.withUnsafeMutableBufferPointer { all in
            decode(UnsafeMutableBufferPointer(rebasing: all[start...]))
        }
        bytes.removeLast(room - min(max(written, 0), room))
        step = min(step * 2, Self.largestStep)
        return result
    }
}
