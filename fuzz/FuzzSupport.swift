// Shared by the fuzz entry points: the input as bytes, and ways to read it that every target
// uses (cut into pieces for incremental feeding; a few leading bytes as choices).

/// The first input byte picks the piece size (1 to 16, or everything at once for 0); the rest is
/// the message.
func pieces(_ data: UnsafePointer<UInt8>, _ size: Int) -> (message: [UInt8], pieceSize: Int) {
    guard size > 0 else { return ([], 1) }
    let message = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let choice = Int(data[0] & 0x0f)
    return (message, choice == 0 ? max(1, message.count) : choice)
}

/// Reads choices off the front of an input: a missing byte reads as 0, so every input, however
/// short, is a complete set of choices and the fuzzer never wastes a run on "too short".
struct FuzzChoices {
    private(set) var rest: ArraySlice<UInt8>

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        rest = Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    mutating func byte() -> UInt8 {
        rest.popFirst() ?? 0
    }

    /// Up to `count` bytes, fewer when the input ends first.
    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = rest.prefix(count)
        rest = rest.dropFirst(taken.count)
        return Array(taken)
    }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(byte()) % choices.count]
    }
}

/// Where `needle` first occurs in `bytes` at or after `start`.
func firstOccurrence(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard start + needle.count <= bytes.count else { return nil }
    return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// A property an entry point checks. Unlike `precondition`, whose message an optimized build drops,
/// it says which property failed, so that a crash report names it.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
           line: UInt = #line) {
    if !condition() { fatalError(message(), file: file, line: line) }
}
