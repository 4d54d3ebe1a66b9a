/// Reads an app file's `Header=NAME: VALUE` and `HeaderFile=NAME: /PATH` lines: the headers its
/// batches carry to the collector. A name must be a field name HTTP allows, not one apsiod sets or
/// one that frames the request (`reserved`), and each name once; a value is printable ASCII.
/// No problem shows a value.
enum AppHeaderSchema {
    static let maxHeaders = 16

    /// Set by apsiod, or part of HTTP's framing and connection: another value would break the
    /// request or say something false about it.
    static let reserved: Set<String> = [
        "host", "content-length", "content-type", "content-encoding", "transfer-encoding", "connection", "keep-alive",
        "te", "trailer", "upgrade", "expect", "proxy-authorization", "proxy-connection", "apsio-app-key", "apsio-live-token",
    ]

    static func read(
        _ inline: [UnitFileEntry], files: [UnitFileEntry], readSecretFile: (String) throws(AppKeyFileError) -> String,
        report: (Int?, String) -> Void
    ) -> [AppHeader] {
        var headers: [AppHeader] = []
        var seen: [String: Int] = [:]
        let entries = (inline.map { ($0, false) } + files.map { ($0, true) }).sorted { $0.0.line < $1.0.line }
        for (entry, fromFile) in entries {
            let key = fromFile ? "HeaderFile" : "Header"
            guard let colon = entry.value.firstIndex(of: ":") else {
                report(entry.line, fromFile
                    ? "HeaderFile= must be NAME: /PATH, like HeaderFile=Authorization: /etc/apsio/keys/web-collector"
                    : "Header= must be NAME: VALUE, like Header=X-Scope-OrgID: tenant-1 (its value is not shown here)")
                continue
            }
            let name = trimmed(entry.value[..<colon])
            let rest = trimmed(entry.value[entry.value.index(after: colon)...])
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                report(entry.line, "\(key)= names a header \"\(printable(name))\" HTTP does not allow: letters, digits and !#$%&'*+-.^_`|~ only")
                continue
            }
            guard !reserved.contains(name.lowercased()) else {
                report(entry.line, "\(key)=\(name) is a header apsiod sets itself or HTTP's own; a collector's credential goes in another, like Authorization or X-API-Key")
                continue
            }
            if let earlier = seen[name.lowercased()] {
                report(entry.line, "\(key)=\(name) is set twice (line \(earlier) too); keep one")
                continue
            }
            seen[name.lowercased()] = entry.line
            var header: AppHeader
            if fromFile {
                guard let path = ConfigValue.absoluteFilePath(rest) else {
                    report(entry.line, "HeaderFile=\(name): \(printable(rest)) is not an absolute file path, like /etc/apsio/keys/NAME")
                    continue
                }
                do {
                    header = AppHeader(name: name, value: try readSecretFile(path), file: path)
                } catch {
                    report(entry.line, AppFileSchema.keyFileMessage(path, error, key: "HeaderFile", holds: "the value of \(name)"))
                    continue
                }
            } else {
                guard AppFileSchema.isHeaderValue(rest) else {
                    report(entry.line, "Header=\(name) must have a value of printable ASCII characters, at most \(AppFileSchema.maxAppKeyBytes) (the value is not shown here)")
                    continue
                }
                header = AppHeader(name: name, value: rest)
            }
            headers.append(header)
        }
        if headers.count > maxHeaders {
            report(entries.last?.0.line, "more than \(maxHeaders) Header= and HeaderFile= lines; a collector needs a few")
            return []
        }
        return headers
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// tchar (RFC 9110): the characters of a field name.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A name or path as a problem may show it: control characters replaced, at most 64 bytes.
    private static func printable(_ text: String) -> String {
        String(String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) }).prefix(64))
    }
}
