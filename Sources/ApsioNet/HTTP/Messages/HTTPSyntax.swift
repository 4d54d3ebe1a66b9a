/// The byte classes of RFC 9110 that the parsers and the request writers share.
enum HTTPSyntax {
    /// tchar: the characters of a method or a field name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5a, 0x61...0x7a: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// field-vchar, space and tab: no control character, so no CR or LF can split a field.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7f)
    }

    /// The bytes of an origin-form request target: visible ASCII, no space, no control.
    static func isTargetByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7f
    }

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy(isFieldValueByte)
    }

    /// `Content-Length` values, in one field or several: all must be the same decimal number.
    static func contentLength(_ headers: HTTPHeaders, maxBody: Int) throws(HTTPParseError) -> Int? {
        let values = headers.values("Content-Length")
        guard !values.isEmpty else { return nil }
        var length: Int?
        for value in values {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = element.trimmingASCIISpaces().utf8
                guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw .invalidContentLength
                }
                // Past 18 digits it overflows; no body that long can be within a limit anyway.
                var parsed = 0
                for digit in digits {
                    guard parsed <= (Int.max - 9) / 10 else { throw .bodyTooLarge(limit: maxBody) }
                    parsed = parsed * 10 + Int(digit - 0x30)
                }
                if let length, length != parsed { throw .invalidContentLength }
                length = parsed
            }
        }
        if let length, length > maxBody { throw .bodyTooLarge(limit: maxBody) }
        return length
    }

    /// How a body is framed, from `Transfer-Encoding` and `Content-Length` (RFC 9112 6).
    static func bodyFraming(_ headers: HTTPHeaders, maxBody: Int) throws(HTTPParseError) -> BodyFraming? {
        if headers.contains("Transfer-Encoding") {
            if headers.contains("Content-Length") { throw .conflictingFraming }
            let codings = headers.tokens("Transfer-Encoding")
            guard codings.count == 1, HTTPHeaders.sameName(codings[0], "chunked") else {
                throw .unsupportedTransferEncoding(codings.joined(separator: ", "))
            }
            return .chunked
        }
        if let length = try contentLength(headers, maxBody: maxBody) { return .length(length) }
        return nil
    }

    enum BodyFraming { case chunked, length(Int) }
}
