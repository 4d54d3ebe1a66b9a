/// Reads RESP2 replies from a byte stream as it arrives, in pieces of any size: `append` what was
/// read, then take each complete reply with `next`. Pure, so the fuzzer drives it directly.
///
/// Every length the server sends is checked against `RESPLimits` before anything is reserved, so
/// a hostile length costs nothing; an incomplete reply is parsed again from its start when more
/// bytes come, which the buffer limit bounds.
package struct RESPReplyParser: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    package let limits: RESPLimits

    package init(limits: RESPLimits = .standard) {
        self.limits = limits
    }

    /// Bytes received and not yet taken as replies.
    package var bufferedCount: Int { buffer.count - start }

    package mutating func append(_ bytes: some Collection<UInt8>) throws(RESPProtocolError) {
        guard bufferedCount + bytes.count <= limits.maxBufferedBytes else { throw .tooLarge("buffered bytes") }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    package mutating func next() throws(RESPProtocolError) -> RESPValue? {
        var cursor = start
        guard let value = try buffer.withUnsafeBufferPointer({ (bytes) throws(RESPProtocolError) -> RESPValue? in
            try Self.value(in: bytes, at: &cursor, depth: 0, limits: limits)
        }) else { return nil }
        start = cursor
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        }
        return value
    }

    // MARK: - The grammar

    private static func value(
        in bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int, depth: Int, limits: RESPLimits
    ) throws(RESPProtocolError) -> RESPValue? {
        guard cursor < bytes.count else { return nil }
        let type = bytes[cursor]
        var at = cursor + 1
        guard let range = try self.line(in: bytes, at: &at, limits: limits) else { return nil }
        let line = bytes[range]
        switch type {
        case UInt8(ascii: "+"):
            cursor = at
            return .simple(String(decoding: UnsafeBufferPointer(rebasing: line), as: UTF8.self))
        case UInt8(ascii: "-"):
            cursor = at
            return .error(String(decoding: UnsafeBufferPointer(rebasing: line), as: UTF8.self))
        case UInt8(ascii: ":"):
            guard let number = integer(line) else { throw .malformedLength }
            cursor = at
            return .integer(number)
        case UInt8(ascii: "$"):
            guard let length = integer(line), length >= -1 else { throw .malformedLength }
            if length == -1 {
                cursor = at
                return .bulk(nil)
            }
            guard length <= limits.maxBulkBytes else { throw .tooLarge("bulk string") }
            let count = Int(length)
            guard bytes.count - at >= count + 2 else { return nil }
            guard bytes[at + count] == 13, bytes[at + count + 1] == 10 else { throw .malformedLine }
            let payload = Array(bytes[at..<(at + count)])
            cursor = at + count + 2
            return .bulk(payload)
        case UInt8(ascii: "*"):
            guard let length = integer(line), length >= -1 else { throw .malformedLength }
            if length == -1 {
                cursor = at
                return .array(nil)
            }
            guard length <= limits.maxArrayElements else { throw .tooLarge("array") }
            guard depth < limits.maxDepth else { throw .tooDeep }
            // Each element takes at least 3 bytes: a count larger than what could be buffered is
            // refused before anything is reserved for it.
            guard Int(length) <= limits.maxBufferedBytes / 3 else { throw .tooLarge("array") }
            var elements: [RESPValue] = []
            for _ in 0..<Int(length) {
                guard let element = try value(in: bytes, at: &at, depth: depth + 1, limits: limits) else { return nil }
                elements.append(element)
            }
            cursor = at
            return .array(elements)
        default:
            throw .unknownType(type)
        }
    }

    /// Where the bytes up to the next CRLF are, moving `at` past it; nil when the CRLF has not
    /// arrived.
    private static func line(
        in bytes: UnsafeBufferPointer<UInt8>, at: inout Int, limits: RESPLimits
    ) throws(RESPProtocolError) -> Range<Int>? {
        var index = at
        while index < bytes.count {
            if bytes[index] == 13 {
                guard index + 1 < bytes.count else { return nil }
                guard bytes[index + 1] == 10 else { throw .malformedLine }
                let line = at..<index
                at = index + 2
                return line
            }
            guard index - at < limits.maxLineBytes else { throw .tooLarge("line") }
            index += 1
        }
        guard index - at <= limits.maxLineBytes else { throw .tooLarge("line") }
        return nil
    }

    /// A signed decimal, as RESP writes lengths and integers: no sign alone, no space, no overflow.
    private static func integer(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var digits = line
        var negative = false
        if digits.first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        // Accumulated on the negative side, which holds one more value: Int64.min parses.
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times.subtractingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }
}
