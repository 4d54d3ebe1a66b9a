// libFuzzer entry point for zstd (see docs/fuzzing.md): request bodies a peer sends with
// Content-Encoding: zstd are decompressed under a cap, so the input is read as zstd frames; it is
// also the plaintext of a round trip through the compressor.
//
// Besides "no crash", it checks: the output never passes the cap, and the cap is exact (frames
// decompress at their own size and are too large one byte below); damaged data is a ZstdError of
// the data (corrupt, truncated, too large, a window over RFC 9659's), never another failure; bytes
// compressed and decompressed come back unchanged, as do their raw blocks (Zstd.stored), and a
// frame cut short is truncated.
@testable import ApsioNet

/// Small, so that a few bytes of a frame can expand past it.
let fuzzZstdCap = 4096

func isDataError(_ error: ZstdError) -> Bool {
    switch error {
    case .corrupt, .truncated, .tooLarge, .windowTooLarge: true
    case .invalidLevel, .tooLargeToCompress, .compressor, .outOfMemory: false
    }
}

func checkDecompression(_ frames: [UInt8]) {
    let output: [UInt8]
    do {
        output = try Zstd.decompress(frames, maxOutput: fuzzZstdCap)
    } catch {
        check(isDataError(error), "damaged data failed as \(error)")
        if error == .tooLarge(limit: fuzzZstdCap) {
            // Past the cap: with more room it is larger than the cap, or fails further on.
            if let larger = try? Zstd.decompress(frames, maxOutput: 64 * fuzzZstdCap) {
                check(larger.count > fuzzZstdCap, "too large at the cap, yet \(larger.count) bytes")
            }
        }
        return
    }
    check(output.count <= fuzzZstdCap, "the output passed the cap")
    check((try? Zstd.decompress(frames, maxOutput: output.count)) == output, "refused at its own size")
    if !output.isEmpty {
        check(throwsZstd(.tooLarge(limit: output.count - 1)) { () throws(ZstdError) in
            try Zstd.decompress(frames, maxOutput: output.count - 1)
        }, "\(output.count) bytes came out under a cap of \(output.count - 1)")
    }
}

func checkRoundTrip(_ plaintext: [UInt8], level: Int32, cut: Int) {
    let compressed: [UInt8]
    do {
        compressed = try Zstd.compress(plaintext, level: level)
    } catch {
        fatalError("level \(level) refused \(plaintext.count) bytes: \(error)")
    }
    for (what, frame) in [("compressed", compressed), ("stored", Zstd.stored(plaintext))] {
        do {
            let back = try Zstd.decompress(frame, maxOutput: plaintext.count)
            check(back == plaintext, "\(what) and decompressed, the bytes changed")
        } catch {
            fatalError("a frame \(what) here is refused: \(error)")
        }
    }
    if !plaintext.isEmpty {
        check(throwsZstd(.tooLarge(limit: plaintext.count - 1)) { () throws(ZstdError) in
            try Zstd.decompress(compressed, maxOutput: plaintext.count - 1)
        }, "a cap one byte short was not refused")
    }
    // Cut 1 to 64 bytes off the end: the checksum and the last block are where a frame ends early.
    let prefix = Array(compressed.prefix(compressed.count - 1 - cut % compressed.count))
    check(throwsZstd(.truncated) { () throws(ZstdError) in try Zstd.decompress(prefix, maxOutput: plaintext.count) },
          "a prefix of \(prefix.count) of \(compressed.count) bytes was not truncated")
}

func throwsZstd(_ expected: ZstdError, _ body: () throws(ZstdError) -> [UInt8]) -> Bool {
    do {
        _ = try body()
        return false
    } catch {
        return error == expected
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZstd(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkDecompression(bytes)
    // The first byte picks the level (1 to 4, fast enough for a fuzzer) and where the frame is cut;
    // the whole input is the plaintext.
    let choice = bytes.first ?? 0
    checkRoundTrip(bytes, level: 1 + Int32(choice & 0x03), cut: Int(choice >> 2))
    return 0
}
