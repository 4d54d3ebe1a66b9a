/// The line-oriented part of an HTTP/1.1 message: a start line, then header fields up to a blank
/// line (or, for a chunked trailer, the fields alone). Fed any number of bytes at a time, it keeps
/// the unfinished line, and refuses CRLF-less line ends, folded lines, control characters and
/// anything past its limits as soon as it sees them.
struct HTTPHeadParser: Sendable {
    /// Which first line the head starts with; it is checked as soon as it is complete, so that the
    /// error does not depend on how the bytes were split.
    enum StartLine: Sendable { case none, status, request }

    private let startLineKind: StartLine
    private var hasStartLine: Bool { startLineKind != .none }
    private let skipsLeadingBlankLines: Bool
    private let maxStartLineBytes: Int
    private let maxBytes: Int
    /// The configured head limit, named in the error even when `maxBytes` is what remained of it.
    private let reportedLimit: Int
    private let maxFields: Int

    private var line: [UInt8] = []
    private(set) var startLine: [UInt8]?
    private(set) var headers = HTTPHeaders()
    private(set) var byteCount = 0

    /// `maxBytes` bounds everything this head reads; `skipsLeadingBlankLines` lets a server ignore
    /// the stray CRLF some clients send after a body (RFC 9112 2.2).
    init(
        _ startLine: StartLine, limits: HTTPLimits, maxBytes: Int? = nil, skipsLeadingBlankLines: Bool = false
    ) {
        self.startLineKind = startLine
        self.skipsLeadingBlankLines = skipsLeadingBlankLines
        self.maxStartLineBytes = limits.maxStartLineBytes
        self.maxBytes = maxBytes ?? limits.maxHeaderBytes
        self.reportedLimit = limits.maxHeaderBytes
        self.maxFields = limits.maxHeaderCount
    }

    /// Consumes bytes up to the end of the head. Returns the index just past the blank line that
    /// ends it, or nil when every byte was taken and the head is not finished yet.
    mutating func consume(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> ArraySlice<UInt8>.Index? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lineFeed = bytes[index...].firstIndex(of: 0x0a)
            let end = lineFeed.map { $0 + 1 } ?? bytes.endIndex
            let piece = bytes[index..<end]
            // Of the two limits, the one crossed at the earlier byte is reported (the start line's
            // on a tie), so the error does not depend on how the input was split.
            let inStartLine = hasStartLine && startLine == nil
            let startLineRoom = inStartLine ? maxStartLineBytes - line.count : Int.max
            let headRoom = maxBytes - byteCount
            if piece.count > min(startLineRoom, headRoom) {
                if startLineRoom <= headRoom { throw .startLineTooLong(limit: maxStartLineBytes) }
                throw .headersTooLarge(limit: reportedLimit)
            }
            byteCount += piece.count
            line.append(contentsOf: piece)
            index = end
            guard lineFeed != nil else { return nil }
            if try completeLine() { return index }
        }
        return nil
    }

    /// Handles the line in `line` (LF included); true when it was the blank line ending the head.
    private mutating func completeLine() throws(HTTPParseError) -> Bool {
        guard line.count >= 2, line[line.count - 2] == 0x0d else { throw .invalidLineEnding }
        let content = line[0..<(line.count - 2)]
        defer { line.removeAll(keepingCapacity: true) }
        if content.contains(0x0d) { throw .invalidLineEnding }

        if hasStartLine && startLine == nil {
            if content.isEmpty {
                if skipsLeadingBlankLines { return false }
                throw .invalidStartLine
            }
            let line = Array(content)
            switch startLineKind {
            case .status: _ = try HTTPResponseHead.parse(line, headers: [:])
            case .request: try HTTPRequestHead.validate(line)
            case .none: break
            }
            startLine = line
            return false
        }
        if content.isEmpty { return true }
        try addField(content)
        return false
    }

    private mutating func addField(_ content: ArraySlice<UInt8>) throws(HTTPParseError) {
        // A line starting with a space folds into the previous one (obs-fold): refused, as a
        // sender would use it to hide a field from one parser and show it to another.
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")), colon > content.startIndex else {
            throw .invalidHeaderLine
        }
        let name = content[content.startIndex..<colon]
        guard name.allSatisfy(HTTPSyntax.isTokenByte) else { throw .invalidHeaderLine }
        var value = content[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy(HTTPSyntax.isFieldValueByte) else { throw .invalidHeaderLine }
        guard headers.count < maxFields else { throw .tooManyHeaders(limit: maxFields) }
        headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Whether the parser holds a partly read head (for telling a clean close from a cut one).
    var hasStarted: Bool { byteCount > 0 }
}
