/// Reads the INI syntax of systemd unit files (systemd.syntax(7)) the way systemd does:
///
/// - `[Section]` headers and `Key=Value` assignments; key and value trimmed of spaces, tabs and
///   carriage returns; the value is everything after the first `=`.
/// - Lines whose first non-blank character is `#` or `;` are comments, also in the middle of a
///   continued line (systemd skips them there too, so the line goes on after the comment block).
/// - A line ending in an odd number of `\` continues on the next one: that `\` becomes a space.
/// - An optional UTF-8 byte order mark at the start; otherwise UTF-8 only, and no NUL byte.
///
/// Keys are case-sensitive and may repeat: what a repeat means (a list that grows, a second value
/// refused) is the schema's decision, so every entry is kept in order. A line that cannot be read
/// is reported and left out; the rest of the file is still read, so one pass shows every mistake.
package enum UnitFileParser {
    package static func parse(_ bytes: [UInt8], limits: UnitFileLimits = .standard) -> UnitFile {
        var file = UnitFile()
        guard bytes.count <= limits.maxBytes else {
            file.problems.append(UnitFileProblem(
                line: nil, message: "is larger than \(limits.maxBytes) bytes, more than a configuration file holds"))
            return file
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var lines = body.split(separator: newline, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count <= limits.maxLines else {
            file.problems.append(UnitFileProblem(
                line: nil, message: "has more than \(limits.maxLines) lines, more than a configuration file holds"))
            return file
        }

        var state = ParseState()
        var pending: Pending?
        for (index, physical) in lines.enumerated() {
            let number = index + 1
            // CRLF files: the carriage return belongs to the line ending, not to the line.
            let raw = physical.last == carriageReturn ? physical.dropLast() : physical
            if raw.contains(0) {
                file.problems.append(UnitFileProblem(line: number, message: "contains a NUL byte; the file must be text"))
                pending?.poisoned = true
                continue
            }
            if String(validating: raw, as: UTF8.self) == nil {
                file.problems.append(UnitFileProblem(line: number, message: "is not valid UTF-8; save the file as UTF-8"))
                pending?.poisoned = true
                continue
            }
            let content = raw.drop(while: isWhitespace)
            if let first = content.first, first == hash || first == semicolon { continue }

            var logical: Pending
            if var continued = pending {
                continued.bytes.append(contentsOf: raw)
                logical = continued
            } else {
                if content.isEmpty { continue }
                logical = Pending(bytes: Array(raw), line: number)
            }
            if endsInContinuation(logical.bytes) {
                logical.bytes[logical.bytes.count - 1] = space
                pending = logical
                continue
            }
            pending = nil
            finish(logical, limits: limits, state: &state, into: &file)
        }
        // systemd reads a continuation that reaches the end of the file as if the file went on empty.
        if let pending { finish(pending, limits: limits, state: &state, into: &file) }
        return file
    }

    private struct Pending {
        var bytes: [UInt8]
        /// The first physical line, where the entry is reported.
        var line: Int
        /// A physical line of it was already reported (NUL, bad UTF-8): left out without a second report.
        var poisoned = false
    }

    private struct ParseState {
        /// The section assignments belong to; nil before the first header.
        var section: String?
        /// After a header that could not be read, assignments belong nowhere and are skipped
        /// without a report each: the header's report says what to fix.
        var inUnreadableSection = false
    }

    private static func finish(_ logical: Pending, limits: UnitFileLimits, state: inout ParseState, into file: inout UnitFile) {
        guard !logical.poisoned else { return }
        let line = logical.line
        guard logical.bytes.count <= limits.maxLineBytes else {
            file.problems.append(UnitFileProblem(
                line: line, message: "is longer than \(limits.maxLineBytes) bytes (continuation lines joined)"))
            return
        }
        let text = trimmed(logical.bytes[...])
        if text.first == openBracket {
            guard text.count >= 2, text.last == closeBracket else {
                file.problems.append(UnitFileProblem(line: line, message: "a section header must end with `]`"))
                state.section = nil
                state.inUnreadableSection = true
                return
            }
            let name = trimmed(text.dropFirst().dropLast())
            guard !name.isEmpty, !name.contains(openBracket), !name.contains(closeBracket) else {
                file.problems.append(UnitFileProblem(line: line, message: "a section header must be `[Name]`"))
                state.section = nil
                state.inUnreadableSection = true
                return
            }
            let section = String(decoding: name, as: UTF8.self)
            file.sections.append(UnitFileSection(name: section, line: line))
            state.section = section
            state.inUnreadableSection = false
            return
        }
        guard let equals = text.firstIndex(of: equalsSign) else {
            file.problems.append(UnitFileProblem(
                line: line, message: "is neither a [Section] header, a Key=Value assignment nor a comment"))
            return
        }
        let key = trimmed(text[..<equals])
        let value = trimmed(text[(equals + 1)...])
        guard !key.isEmpty else {
            file.problems.append(UnitFileProblem(line: line, message: "an assignment needs a key before `=`"))
            return
        }
        guard key.allSatisfy(isKeyByte) else {
            file.problems.append(UnitFileProblem(
                line: line, message: "a key is made of letters, digits, `-`, `_` and `.` only"))
            return
        }
        if state.inUnreadableSection { return }
        let keyText = String(decoding: key, as: UTF8.self)
        guard let section = state.section else {
            file.problems.append(UnitFileProblem(
                line: line, message: "`\(keyText)=` comes before any [Section] header; move it under its section"))
            return
        }
        file.entries.append(UnitFileEntry(
            section: section, key: keyText, value: String(decoding: value, as: UTF8.self), line: line))
    }

    /// An odd number of backslashes as the very last bytes: `\\` is an escaped backslash, and a
    /// blank after the `\` ends the line, as in systemd.
    private static func endsInContinuation(_ bytes: [UInt8]) -> Bool {
        var count = 0
        var index = bytes.endIndex
        while index > bytes.startIndex, bytes[index - 1] == backslash {
            count += 1
            index -= 1
        }
        return count % 2 == 1
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        trimmedTrailing(bytes.drop(while: isWhitespace))
    }

    private static func trimmedTrailing(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        while end > bytes.startIndex, isWhitespace(bytes[end - 1]) { end -= 1 }
        return bytes[bytes.startIndex..<end]
    }

    /// systemd's WHITESPACE: space, tab, newline, carriage return.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == 0x09 || byte == newline || byte == carriageReturn
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    private static let newline = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let hash = UInt8(ascii: "#")
    private static let semicolon = UInt8(ascii: ";")
    private static let backslash = UInt8(ascii: "\\")
    private static let equalsSign = UInt8(ascii: "=")
    private static let openBracket = UInt8(ascii: "[")
    private static let closeBracket = UInt8(ascii: "]")
}
