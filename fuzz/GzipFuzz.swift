// libFuzzer entry point for gzip (see docs/fuzzing.md): request bodies a peer sends are
// decompressed under a cap, so the input is read as a gzip stream; it is also the plaintext of a
// round trip through the compressor.
//
// Besides "no crash", it checks: the output never passes the cap, and the cap is exact (a stream
// decompresses at its own size and is too large one byte below); a damaged stream is a GzipError of
// the data (corrupt, truncated, trailing data, too large), never another failure; bytes compressed
// and decompressed come back unchanged, every shorter prefix of the stream is truncated, and a byte
// after it is trailing data.
@testable import ApsioNet

/// Small, so that a few bytes of a stream can expand past it.
let fuzzGzipCap = 4096

func isDataError(_ error: GzipError) -> Bool {
    switch error {
    case .corrupt, .truncated, .trailingData, .tooLarge: true
    case .zlib, .invalidLevel, .tooLargeToCompress, .compressor: false
    }
}

func checkDecompression(_ stream: [UInt8]) {
    let output: [UInt8]
    do {
        output = try Gzip.decompress(stream, maxOutput: fuzzGzipCap)
    } catch {
        check(isDataError(error), "a damaged stream failed as \(error)")
        if error == .tooLarge(limit: fuzzGzipCap) {
            // Past the cap: with more room it is larger than the cap, or fails further on.
            if let larger = try? Gzip.decompress(stream, maxOutput: 64 * fuzzGzipCap) {
                check(larger.count > fuzzGzipCap, "too large at the cap, yet \(larger.count) bytes")
            }
        }
        return
    }
    check(output.count <= fuzzGzipCap, "the output passed the cap")
    check((try? Gzip.decompress(stream, maxOutput: output.count)) == output, "refused at its own size")
    if !output.isEmpty {
        do {
            _ = try Gzip.decompress(stream, maxOutput: output.count - 1)
            fatalError("\(output.count) bytes came out under a cap of \(output.count - 1)")
        } catch {
            check(error == .tooLarge(limit: output.count - 1), "one byte below its size: \(error)")
        }
    }
}

func checkRoundTrip(_ plaintext: [UInt8], level: Int32, cut: Int) {
    let compressed: [UInt8]
    do {
        compressed = try Gzip.compress(plaintext, level: level)
    } catch {
        fatalError("level \(level) refused \(plaintext.count) bytes: \(error)")
    }
    do {
        let back = try Gzip.decompress(compressed, maxOutput: plaintext.count)
        check(back == plaintext, "compressed and decompressed, the bytes changed")
    } catch {
        fatalError("a stream the compressor made is refused: \(error)")
    }
    if !plaintext.isEmpty {
        check(throwsGzip(.tooLarge(limit: plaintext.count - 1)) { () throws(GzipError) in
            try Gzip.decompress(compressed, maxOutput: plaintext.count - 1)
        }, "a cap one byte short was not refused")
    }
    // Cut 1 to 64 bytes off the end: the trailer and the last block are where a stream ends early.
    let prefix = Array(compressed.prefix(compressed.count - 1 - cut % compressed.count))
    check(throwsGzip(.truncated) { () throws(GzipError) in try Gzip.decompress(prefix, maxOutput: plaintext.count) },
          "a prefix of \(prefix.count) of \(compressed.count) bytes was not truncated")
    check(throwsGzip(.trailingData) { () throws(GzipError) in
        try Gzip.decompress(compressed + [0], maxOutput: plaintext.count)
    },
                 "a byte after the stream was not trailing data")
}

func throwsGzip(_ expected: GzipError, _ body: () throws(GzipError) -> [UInt8]) -> Bool {
    do {
        _ = try body()
        return false
    } catch {
        return error == expected
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkDecompression(bytes)
    // The first byte picks the level and where the stream is cut; the whole input is the plaintext.
    let choice = bytes.first ?? 0
    checkRoundTrip(bytes, level: Int32(choice & 0x03), cut: Int(choice >> 2))
    return 0
}
