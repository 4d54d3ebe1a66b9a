import ApsioNet
@testable import ApsioTestSupport
import Foundation
import Testing

/// What `Zstd.compress` writes must be read back by our own reader and by the `zstd` command (a
/// collector or proxy on the way may be anything); what the reader takes from a peer is bounded
/// twice: the bytes it produces, and the window a frame may make it allocate.
@Suite struct ZstdTests {
    enum Body: String, CaseIterable, CustomTestStringConvertible {
        case empty, small, largeLogBatch, incompressible
        var testDescription: String { rawValue }

        var bytes: [UInt8] {
            switch self {
            case .empty: []
            case .small: Array("{\"resourceLogs\":[]}".utf8)
            // Several MiB: many blocks, and more than one window at the default level.
            case .largeLogBatch: logBatch(records: 40_000, seed: 0)
            case .incompressible: randomBytes(count: 1 << 20)
            }
        }
    }

    @Test(arguments: Body.allCases, [Zstd.defaultLevel, 3])
    func roundTripsThroughOurReaderAndTheZstdCommand(body: Body, level: Int32) async throws {
        let input = body.bytes
        let packed = try Zstd.compress(input, level: level)
        #expect(packed.starts(with: [0x28, 0xb5, 0x2f, 0xfd]))  // the frame's magic number
        #expect(try Zstd.decompress(packed, maxOutput: input.count) == input)
        #expect(try await zstdCommand(["-dc"], packed) == input)
        switch body {
        case .largeLogBatch:
            #expect(input.count > 4 << 20)
            // Smaller than ISA-L's gzip of the same bytes at the level ingest uses.
            #expect(try packed.count < Gzip.compress(input).count)
        case .incompressible:
            // Raw blocks: a few bytes per 128 KiB over the input, not an expansion.
            #expect(packed.count < input.count + input.count / 100)
        case .empty, .small:
            break
        }
    }

    /// What the `zstd` command writes, one frame or several after each other (RFC 8878 3.1), and
    /// without the content size in the header (read from a pipe), is what a peer may send.
    @Test func readsTheZstdCommandsOutputInOneFrameOrSeveral() async throws {
        let text = Array(String(repeating: "{\"resourceLogs\":[]}\n", count: 500).utf8)
        let file = try await zstdCommand(["-19", "-c"], text)
        #expect(try Zstd.decompress(file, maxOutput: 1 << 20) == text)
        let piped = try await zstdCommand(["-c", "-"], text, fromPipe: true)
        #expect(try Zstd.decompress(piped, maxOutput: 1 << 20) == text)
        let two = try Zstd.compress(text) + Zstd.compress(Array("and more".utf8))
        #expect(try Zstd.decompress(two, maxOutput: 1 << 20) == text + Array("and more".utf8))
    }

    @Test func aTruncatedFrameIsTyped() throws {
        let packed = try Zstd.compress(Array(String(repeating: "line of log\n", count: 1000).utf8))
        for cut in [1, 4, 10, packed.count / 2, packed.count - 1] {
            #expect(throws: ZstdError.truncated) { try Zstd.decompress(Array(packed.prefix(cut)), maxOutput: 1 << 20) }
        }
        #expect(throws: ZstdError.truncated) { try Zstd.decompress([], maxOutput: 1 << 20) }
    }

    /// A zip bomb: 10 MiB of zeros packs into a few hundred bytes; the cap stops it.
    @Test func aBombStopsAtTheLimit() throws {
        let packed = try Zstd.compress([UInt8](repeating: 0, count: 10 << 20))
        #expect(packed.count < 4 * 1024)
        #expect(throws: ZstdError.tooLarge(limit: 1 << 20)) { try Zstd.decompress(packed, maxOutput: 1 << 20) }
        // At the limit exactly it passes; one byte under, it does not.
        #expect(try Zstd.decompress(packed, maxOutput: 10 << 20).count == 10 << 20)
        #expect(throws: ZstdError.tooLarge(limit: (10 << 20) - 1)) {
            try Zstd.decompress(packed, maxOutput: (10 << 20) - 1)
        }
    }

    /// A frame of a few bytes that asks for a 128 MiB window (libzstd's own default limit) is
    /// refused before the window is allocated; 8 MiB, RFC 9659's limit, is read.
    @Test func aFrameAskingForMoreThanAnEightMiBWindowIsRefused() throws {
        // Magic, no flags, the window descriptor (exponent: log2 of the window less 10), one raw
        // last block of one byte.
        func frame(windowLog: UInt8) -> [UInt8] { [0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3, 0x09, 0x00, 0x00, 0x41] }
        #expect(throws: ZstdError.windowTooLarge(limit: 8 << 20)) { try Zstd.decompress(frame(windowLog: 27), maxOutput: 1 << 30) }
        #expect(throws: ZstdError.windowTooLarge(limit: 8 << 20)) { try Zstd.decompress(frame(windowLog: 24), maxOutput: 1 << 30) }
        #expect(try Zstd.decompress(frame(windowLog: 23), maxOutput: 1) == [0x41])
    }

    @Test func corruptDataAndTrailingBytesAreTyped() throws {
        let good = try Zstd.compress(Array(String(repeating: "hello ", count: 100).utf8))
        var damaged = good
        damaged[damaged.count - 1] ^= 0xff  // the content checksum
        for bytes in [damaged, good + [0x00, 0x01, 0x02, 0x03, 0x04, 0x05], Array("not zstd at all".utf8)] {
            #expect {
                try Zstd.decompress(bytes, maxOutput: 1 << 20)
            } throws: { error in
                if case .corrupt = error as? ZstdError { return true }
                return false
            }
        }
    }

    /// Without a compressor (the fallback when compressing fails), the body is still zstd, read
    /// back whole by our reader and the `zstd` command, across several raw blocks too.
    @Test(arguments: Body.allCases)
    func rawBlocksAreZstdToo(body: Body) async throws {
        let input = body.bytes
        let stored = Zstd.stored(input)
        #expect(try Zstd.decompress(stored, maxOutput: input.count) == input)
        #expect(try await zstdCommand(["-dc"], stored) == input)
        // Six bytes of frame header and three a block of at most 128 KiB: nothing is compressed.
        #expect(stored.count == input.count + 6 + 3 * max(1, (input.count + 131_071) / 131_072))
    }

    /// The body compressor never stops the process: when compressing fails (here, a level the
    /// compressor refuses) the body goes out in raw blocks.
    @Test func theBodyCompressorFallsBackToRawBlocks() throws {
        let input = logBatch(records: 200, seed: 2)
        #expect(throws: ZstdError.invalidLevel(22)) { try Zstd.compress(input, level: 22) }
        #expect(ZstdBodyCompressor(level: 22).compress(input) == Zstd.stored(input))
        let packed = ZstdBodyCompressor().compress(input)
        #expect(packed.count * 4 < input.count)
        #expect(try Zstd.decompress(packed, maxOutput: input.count) == input)
        #expect(try Zstd.decompress(ZstdBodyCompressor().compress([]), maxOutput: 0) == [])
    }

    @Test(arguments: [Int32(1), 19])
    func theEndsOfTheLevelRangeWork(level: Int32) throws {
        let input = logBatch(records: 2_000, seed: 1)
        #expect(try Zstd.decompress(Zstd.compress(input, level: level), maxOutput: input.count) == input)
    }

    @Test(arguments: [Int32(0), -1, 20, 22, .min, .max])
    func aLevelOutsideTheRangeIsATypedError(level: Int32) throws {
        #expect(throws: ZstdError.invalidLevel(level)) { try Zstd.compress(Array("hello".utf8), level: level) }
        #expect("\(ZstdError.invalidLevel(level))".contains("1...19"))
    }

    private func zstdCommand(_ arguments: [String], _ input: [UInt8], fromPipe: Bool = false) async throws -> [UInt8] {
        let directory = try TemporaryDirectory("apsio-zstd")
        let inputFile = directory.url.appendingPathComponent("in")
        let outputFile = directory.url.appendingPathComponent("out")
        try Data(input).write(to: inputFile)
        #expect(FileManager.default.createFile(atPath: outputFile.path, contents: nil))
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Through a shell for the pipe: read from one, the command cannot know the size.
        let command = "/usr/bin/zstd -q " + arguments.joined(separator: " ")
        process.arguments = ["-c", fromPipe ? "cat \"$1\" | \(command)" : "\(command) < \"$1\"", "zstd", inputFile.path]
        process.standardOutput = output
        #expect(try await runToEnd(process, deadline: .seconds(60)) == 0)
        return Array(try Data(contentsOf: outputFile))
    }
}

/// OTLP-like JSON lines, repetitive as a real batch is, and different for each seed.
private func logBatch(records: Int, seed: Int) -> [UInt8] {
    var text = ""
    for index in 0..<records {
        text += "{\"timeUnixNano\":\"\(1_700_000_000_000_000_000 + seed * 1_000_000 + index * 1_337)\","
        text += "\"severityNumber\":\(9 + (index + seed) % 4),\"body\":{\"stringValue\":\"request \(index) of worker "
        text += "\(seed) served in \((index * 7 + seed) % 900) ms\"},\"attributes\":[{\"key\":\"log.record.uid\","
        text += "\"value\":{\"stringValue\":\"\(seed)-\(index)\"}}]}\n"
    }
    return Array(text.utf8)
}

private func randomBytes(count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
