import ApsioNet
@testable import ApsioTestSupport
import Foundation
import Synchronization
import Testing

/// What `Gzip.compress` writes must be read back by our own reader and by the `gzip` command (a
/// collector or proxy on the way may be anything), at the level ingest uses and at the smallest.
@Suite struct GzipCompressTests {
    enum Body: String, CaseIterable, CustomTestStringConvertible {
        case empty, small, largeLogBatch, incompressible
        var testDescription: String { rawValue }

        var bytes: [UInt8] {
            switch self {
            case .empty: []
            case .small: Array("{\"resourceLogs\":[]}".utf8)
            // Several MiB, so that it spans many deflate blocks.
            case .largeLogBatch: logBatch(records: 40_000, seed: 0)
            case .incompressible: randomBytes(count: 1 << 20)
            }
        }
    }

    @Test(arguments: Body.allCases, [Int32(1), 3])
    func roundTripsThroughOurReaderAndTheGzipCommand(body: Body, level: Int32) async throws {
        let input = body.bytes
        let packed = try Gzip.compress(input, level: level)
        #expect(packed.starts(with: [0x1f, 0x8b, 0x08]))  // gzip magic, deflate
        #expect(try Gzip.decompress(packed, maxOutput: input.count) == input)
        #expect(try await gunzipCommand(packed) == input)
        switch body {
        case .largeLogBatch:
            #expect(input.count > 4 << 20)
            #expect(packed.count * 8 < input.count)
        case .incompressible:
            // Stored blocks: a few bytes per 64 KiB over the input, not an expansion.
            #expect(packed.count < input.count + input.count / 100)
        case .empty, .small:
            break
        }
    }

    /// Without a compressor (the fallback when compressing fails), the body is still gzip, read
    /// back whole by our reader and the `gzip` command, across several stored blocks too.
    @Test(arguments: Body.allCases)
    func storedBlocksAreGzipToo(body: Body) async throws {
        let input = body.bytes
        let stored = Gzip.stored(input)
        #expect(try Gzip.decompress(stored, maxOutput: input.count) == input)
        #expect(try await gunzipCommand(stored) == input)
        // Five bytes a block of at most 64 KiB, and gzip's 18: nothing is compressed.
        #expect(stored.count == input.count + 18 + 5 * max(1, (input.count + 65_534) / 65_535))
    }

    /// The live channel's compressor never stops the process: when compressing fails (here, a
    /// level ISA-L refuses) the body goes out in stored blocks.
    @Test func theBodyCompressorFallsBackToStoredBlocks() throws {
        let input = logBatch(records: 200, seed: 2)
        let failing = GzipBodyCompressor(level: 9)
        #expect(throws: GzipError.invalidLevel(9)) { try Gzip.compress(input, level: 9) }
        #expect(failing.compress(input) == Gzip.stored(input))
        let packed = GzipBodyCompressor().compress(input)
        #expect(packed.count * 4 < input.count)
        #expect(try Gzip.decompress(packed, maxOutput: input.count) == input)
    }

    @Test(arguments: [Int32(0), 3])
    func theEndsOfTheLevelRangeWork(level: Int32) throws {
        let input = logBatch(records: 2_000, seed: 1)
        #expect(try Gzip.decompress(Gzip.compress(input, level: level), maxOutput: input.count) == input)
    }

    @Test(arguments: [Int32(-1), 4, 6, .min, .max])
    func aLevelOutsideTheRangeIsATypedError(level: Int32) throws {
        #expect(throws: GzipError.invalidLevel(level)) { try Gzip.compress(Array("hello".utf8), level: level) }
        #expect("\(GzipError.invalidLevel(level))".contains("0...3"))
    }

    /// Each caller gets a compressor of its own: bodies compressed at once come out whole and
    /// unmixed, at both levels. Threads rather than tasks, so that the scheduler interleaves more
    /// callers than there are cores in the middle of their bodies.
    @Test func concurrentCallersEachGetTheirOwnBody() async throws {
        let callers = 8
        let failures = Mutex<[String]>([])
        let running = Mutex(callers)
        await withCheckedContinuation { (allDone: CheckedContinuation<Void, Never>) in
            for caller in 0..<callers {
                Thread {
                    for round in 0..<6 {
                        let input = logBatch(records: 3_000 + caller * 97, seed: caller * 1_000 + round)
                        let outcome = Result { () throws(GzipError) -> [UInt8] in
                            let packed = try Gzip.compress(input, level: caller.isMultiple(of: 2) ? 1 : 3)
                            return try Gzip.decompress(packed, maxOutput: input.count)
                        }
                        if (try? outcome.get()) != input { failures.withLock { $0.append("caller \(caller), round \(round)") } }
                    }
                    if running.withLock({ $0 -= 1; return $0 }) == 0 { allDone.resume() }
                }.start()
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }

    private func gunzipCommand(_ packed: [UInt8]) async throws -> [UInt8] {
        let directory = try TemporaryDirectory("apsio-gzip")
        let packedFile = directory.url.appendingPathComponent("body.gz")
        let outputFile = directory.url.appendingPathComponent("body")
        try Data(packed).write(to: packedFile)
        #expect(FileManager.default.createFile(atPath: outputFile.path, contents: nil))
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", packedFile.path]
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
