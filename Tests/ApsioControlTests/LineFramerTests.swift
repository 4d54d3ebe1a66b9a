import ApsioCore
import ApsioControl
import Testing

/// The control protocol's framing, without a socket: lines as they arrive in reads of any size.
@Suite struct LineFramerTests {
    /// Everything `framer` gives for `stream`, read in pieces of at most `readSize` bytes.
    static func frame(_ stream: [UInt8], maxBytes: Int, readSize: Int) -> (lines: [[UInt8]], tooLong: Bool) {
        var framer = LineFramer()
        var lines: [[UInt8]] = []
        var index = 0
        while true {
            switch framer.next(maxBytes: maxBytes) {
            case .line(let line): lines.append(line)
            case .tooLong: return (lines, true)
            case .needMore(let room):
                guard index < stream.count else { return (lines, false) }
                let end = min(index + min(room, readSize), stream.count)
                framer.append(stream[index..<end])
                index = end
            }
        }
    }

    @Test(arguments: [1, 2, 5, 100])
    func linesComeOutWithoutTheirNewlinesWhateverTheReads(_ readSize: Int) {
        let stream = Array("{\"command\":\"version\"}\n\n{\"command\":\"apps\"}\npartial".utf8)
        let framed = Self.frame(stream, maxBytes: 64, readSize: readSize)
        #expect(framed.lines == [Array("{\"command\":\"version\"}".utf8), [], Array("{\"command\":\"apps\"}".utf8)])
        #expect(!framed.tooLong)
    }

    @Test func aLineWithoutANewlineWithinTheLimitIsTooLong() {
        let framed = Self.frame([UInt8](repeating: UInt8(ascii: "x"), count: 100), maxBytes: 64, readSize: 100)
        #expect(framed.lines.isEmpty)
        #expect(framed.tooLong)
    }

    /// Found by fuzz/ControlFuzz.swift: 64 bytes and their newline, read at once, were a line
    /// (refused later as too large, the connection kept), but read in two pieces the framer saw 64
    /// bytes without a newline and said too long (the connection closed). The limit includes the
    /// newline, so this line is too long however it arrives.
    @Test(arguments: [1, 64, 65, 1000])
    func aNewlinePastTheLimitIsTooLongHoweverTheBytesArrive(_ readSize: Int) {
        let stream = [UInt8](repeating: UInt8(ascii: "x"), count: 64) + Array("\n{\"command\":\"version\"}\n".utf8)
        let framed = Self.frame(stream, maxBytes: 64, readSize: readSize)
        #expect(framed.lines.isEmpty)
        #expect(framed.tooLong)
    }

    @Test(arguments: [1, 64, 1000])
    func aLineWhoseNewlineIsTheLimitsLastByteIsALine(_ readSize: Int) {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 63)
        let framed = Self.frame(line + [0x0A], maxBytes: 64, readSize: readSize)
        #expect(framed.lines == [line])
        #expect(!framed.tooLong)
    }

    @Test func theBufferNeverHoldsMoreThanTheLimit() {
        var framer = LineFramer()
        framer.append([UInt8](repeating: UInt8(ascii: "x"), count: 10))
        guard case .needMore(let room) = framer.next(maxBytes: 64) else {
            Issue.record("a partial line is not a line")
            return
        }
        #expect(10 + room <= 64)
    }
}
