// Shared by the fuzz entry points: limits small enough that the fuzzer reaches every limit, and a
// way to cut the input into pieces so that incremental feeding is exercised too.

/// Small limits: a few hundred bytes reach every check.
let fuzzLimits = HTTPLimits(
    maxStartLineBytes: 128, maxHeaderBytes: 512, maxHeaderCount: 8, maxChunkLineBytes: 32, maxBodyBytes: 1024)

/// The first input byte picks the piece size (1 to 16, or everything at once for 0); the rest is
/// the message.
func pieces(_ data: UnsafePointer<UInt8>, _ size: Int) -> (message: [UInt8], pieceSize: Int) {
    guard size > 0 else { return ([], 1) }
    let message = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let choice = Int(data[0] & 0x0f)
    return (message, choice == 0 ? max(1, message.count) : choice)
}
