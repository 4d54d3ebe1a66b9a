/// The chunked transfer coding (RFC 9112 7.1), undone incrementally: sizes in hex, each chunk
/// followed by CRLF, a zero-size chunk, then trailer fields up to a blank line. Extensions are
/// skipped, trailers parsed under the head limits and dropped. The running total is checked
/// against the body limit before a chunk's bytes are accepted, so a lying size fails at once.
package struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case size(value: Int, digits: Int)
        case extensionBytes
        case sizeLineFeed
        case data(remaining: Int)
        case dataCarriageReturn
        case dataLineFeed
        case trailers(HTTPHeadParser)
        case done
    }

    private let limits: HTTPLimits
    private var state: State = .size(value: 0, digits: 0)
    private var lineBytes = 0
    private var pendingSize = 0
    package private(set) var decodedCount = 0

    package init(limits: HTTPLimits) {
        self.limits = limits
    }

    package var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Decodes from `bytes`, appending body bytes to `body`. Returns the index after the last byte
    /// it took: `bytes.endIndex` unless the coding ended within them.
    package mutating func decode(
        _ bytes: ArraySlice<UInt8>, into body: inout [UInt8]
    ) throws(HTTPParseError) -> ArraySlice<UInt8>.Index {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .done:
                return index
            case .data(let remaining):
                let take = min(remaining, bytes.endIndex - index)
                body.append(contentsOf: bytes[index..<(index + take)])
                index += take
                state = take == remaining ? .dataCarriageReturn : .data(remaining: remaining - take)
            case .trailers(var parser):
                let end = try parser.consume(bytes[index...])
                if let end {
                    state = .done
                    index = end
                } else {
                    state = .trailers(parser)
                    index = bytes.endIndex
                }
            default:
                try step(bytes[index])
                index += 1
            }
        }
        return index
    }

    /// One byte of the framing around the data: size lines and the CRLF after each chunk.
    private mutating func step(_ byte: UInt8) throws(HTTPParseError) {
        switch state {
        case .size(let value, let digits):
            try countLineByte()
            if let digit = Self.hexValue(byte) {
                // Checked before it grows: the size can never overflow, and a chunk that would
                // take the body past its limit is refused before any of it is read.
                let room = limits.maxBodyBytes - decodedCount - digit
                guard room >= 0, value <= room / 16 else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
                state = .size(value: value * 16 + digit, digits: digits + 1)
            } else if digits == 0 {
                throw .invalidChunk("a chunk size must start with a hex digit")
            } else if byte == 0x0d {
                pendingSize = value
                state = .sizeLineFeed
            } else if byte == UInt8(ascii: ";") || byte == 0x20 || byte == 0x09 {
                pendingSize = value
                state = .extensionBytes
            } else {
                throw .invalidChunk("unexpected byte in a chunk size")
            }
        case .extensionBytes:
            try countLineByte()
            if byte == 0x0d {
                state = .sizeLineFeed
            } else if !HTTPSyntax.isFieldValueByte(byte) {
                throw .invalidChunk("control character in a chunk extension")
            }
        case .sizeLineFeed:
            guard byte == 0x0a else { throw .invalidLineEnding }
            lineBytes = 0
            if pendingSize == 0 {
                state = .trailers(HTTPHeadParser(.none, limits: limits))
            } else {
                decodedCount += pendingSize
                state = .data(remaining: pendingSize)
            }
        case .dataCarriageReturn:
            guard byte == 0x0d else { throw .invalidChunk("chunk data is longer than its size") }
            state = .dataLineFeed
        case .dataLineFeed:
            guard byte == 0x0a else { throw .invalidLineEnding }
            state = .size(value: 0, digits: 0)
        case .data, .trailers, .done:
            preconditionFailure("handled in decode")
        }
    }

    private mutating func countLineByte() throws(HTTPParseError) {
        lineBytes += 1
        if lineBytes > limits.maxChunkLineBytes { throw .chunkLineTooLong(limit: limits.maxChunkLineBytes) }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }
}
