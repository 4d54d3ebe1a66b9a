/// Why a body is not the JSON a rule can read, with where it went wrong.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        case tooLarge(limit: Int)
        case tooDeep(limit: Int)
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidNumber
        /// A number JSON can spell but a Double cannot hold (`1e400`).
        case numberOutOfRange
        case invalidEscape
        /// A `\u` escape of half a surrogate pair, which names no character.
        case loneSurrogate
        case controlCharacterInString
        case invalidUTF8
        case duplicateKey(String)
        case trailingData
    }

    package let reason: Reason
    /// Byte offset into the body.
    package let offset: Int

    package init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    package var description: String {
        let what: String
        switch reason {
        case .tooLarge(let limit): what = "body is larger than \(limit) bytes"
        case .tooDeep(let limit): what = "arrays and objects nest deeper than \(limit)"
        case .unexpectedEnd: what = "body ends in the middle of a value"
        case .unexpectedByte(let byte): what = "unexpected byte 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16))"
        case .invalidNumber: what = "malformed number"
        case .numberOutOfRange: what = "number out of the range of a double"
        case .invalidEscape: what = "malformed escape in a string"
        case .loneSurrogate: what = "\\u escape of a lone surrogate"
        case .controlCharacterInString: what = "unescaped control character in a string"
        case .invalidUTF8: what = "invalid UTF-8"
        // Cut at a character, so the message stays valid UTF-8; a key can be as long as the body.
        case .duplicateKey(let key): what = "key \"\(key.prefix(64))\" appears twice in one object"
        case .trailingData: what = "data after the JSON value"
        }
        return "not JSON at byte \(offset): \(what)"
    }
}

/// A strict RFC 8259 reader of bytes a peer sent, into `JSONValue`.
///
/// Strict on purpose: what a peer sends is either exactly JSON or refused, so two readers never
/// disagree about what a body said. No byte-order mark, no comments, no trailing commas, no
/// duplicate keys (which value would win is the kind of ambiguity a hostile body exploits), no
/// invalid UTF-8 and no lone surrogates. Size and depth are bounded before anything is built, so
/// a body cannot make it recurse or allocate without limit.
package struct JSONParser: Sendable {
    package var maxBytes: Int
    package var maxDepth: Int

    package init(maxBytes: Int = 1 << 20, maxDepth: Int = 32) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    package func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= maxBytes else { throw JSONParseError(.tooLarge(limit: maxBytes), at: maxBytes) }
        return try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var reader = Reader(bytes: buffer, maxDepth: maxDepth)
            reader.skipWhitespace()
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.position == buffer.count else { throw JSONParseError(.trailingData, at: reader.position) }
            return value
        }
    }

    package func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        func peek() throws(JSONParseError) -> UInt8 {
            guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
            return bytes[position]
        }

        mutating func expect(_ byte: UInt8) throws(JSONParseError) {
            let found = try peek()
            guard found == byte else { throw JSONParseError(.unexpectedByte(found), at: position) }
            position += 1
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
            switch try peek() {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case let other: throw JSONParseError(.unexpectedByte(other), at: position)
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONParseError) {
            let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            for expected in text {
                guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
                guard bytes[position] == expected else {
                    throw JSONParseError(.unexpectedByte(bytes[position]), at: position)
                }
                position += 1
            }
        }

        mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw JSONParseError(.tooDeep(limit: maxDepth), at: position) }
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let keyOffset = position
                guard try peek() == UInt8(ascii: "\"") else {
                    throw JSONParseError(.unexpectedByte(bytes[position]), at: position)
                }
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                let member = try value(depth: depth)
                guard members.updateValue(member, forKey: key) == nil else {
                    throw JSONParseError(.duplicateKey(key), at: keyOffset)
                }
                skipWhitespace()
                let next = try peek()
                position += 1
                switch next {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: throw JSONParseError(.unexpectedByte(next), at: position - 1)
                }
            }
        }

        mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw JSONParseError(.tooDeep(limit: maxDepth), at: position) }
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth))
                skipWhitespace()
                let next = try peek()
                position += 1
                switch next {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(items)
                default: throw JSONParseError(.unexpectedByte(next), at: position - 1)
                }
            }
        }

        /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`, checked here; the standard
        /// library then converts exactly that text, correctly rounded.
        mutating func number() throws(JSONParseError) -> Double {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else if isDigit(bytes[position]) {
                skipDigits()
            } else {
                throw JSONParseError(.invalidNumber, at: position)
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw JSONParseError(.invalidNumber, at: position)
                }
                skipDigits()
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw JSONParseError(.invalidNumber, at: position)
                }
                skipDigits()
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let number = Double(text) else { throw JSONParseError(.invalidNumber, at: start) }
            guard number.isFinite else { throw JSONParseError(.numberOutOfRange, at: start) }
            return number
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        mutating func skipDigits() {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }

        mutating func string() throws(JSONParseError) -> String {
            position += 1
            var out: [UInt8] = []
            var runStart = position
            while true {
                guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    // The common case, a string without escapes, is validated and copied once.
                    let run = UnsafeBufferPointer(rebasing: bytes[runStart..<position])
                    position += 1
                    if out.isEmpty { return try validated(run, at: runStart) }
                    out.append(contentsOf: run)
                    return try validated(out, at: runStart)
                case UInt8(ascii: "\\"):
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                    try escape(into: &out)
                    runStart = position
                case 0x00..<0x20:
                    throw JSONParseError(.controlCharacterInString, at: position)
                default:
                    position += 1
                }
            }
        }

        func validated(_ bytes: some Collection<UInt8>, at offset: Int) throws(JSONParseError) -> String {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw JSONParseError(.invalidUTF8, at: offset)
            }
            return text
        }

        mutating func escape(into out: inout [UInt8]) throws(JSONParseError) {
            let escapeOffset = position
            position += 1
            guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
            let kind = bytes[position]
            position += 1
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(kind)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw JSONParseError(.loneSurrogate, at: escapeOffset) }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw JSONParseError(.loneSurrogate, at: escapeOffset) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw JSONParseError(.loneSurrogate, at: escapeOffset)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw JSONParseError(.loneSurrogate, at: escapeOffset) }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default:
                throw JSONParseError(.invalidEscape, at: escapeOffset)
            }
        }

        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
                default: throw JSONParseError(.invalidEscape, at: position)
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }
    }
}
