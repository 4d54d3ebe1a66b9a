#if canImport(Glibc)
internal import Glibc
#endif

/// The terminals people are logged in on, from utmp (utmp(5)), as `wall` finds them.
package enum LoggedInTerminals {
    /// Glibc's `struct utmp` on 64-bit Linux: 384 bytes, `ut_type` at 0, `ut_line[32]` at 8.
    static let recordSize = 384
    static let lineOffset = 8
    static let lineLength = 32
    static let userProcess: Int16 = 7
    /// utmp holds a record per terminal line; a bigger file is not one this reader trusts.
    static let maxFileBytes = 1 << 20

    /// The `ut_line` of every `USER_PROCESS` record (for example `pts/3`, `tty1`), without duplicates,
    /// skipping any that is not a plain device name below /dev.
    package static func read(utmpPath: String = "/run/utmp") -> [String] {
        guard let bytes = try? SmallFile.bytes(utmpPath, limit: maxFileBytes) else { return [] }
        var lines: [String] = []
        var offset = 0
        while offset + recordSize <= bytes.count {
            let type = Int16(bytes[offset]) | Int16(bytes[offset + 1]) << 8
            if type == userProcess {
                let field = bytes[(offset + lineOffset)..<(offset + lineOffset + lineLength)]
                let name = String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
                if isDeviceName(name), !lines.contains(name) { lines.append(name) }
            }
            offset += recordSize
        }
        return lines
    }

    /// `pts/3`, `tty1`: letters, digits and one `/`; never `..` or an absolute path, so a record
    /// cannot point a write at another file.
    static func isDeviceName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("..") else { return false }
        return name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2F }
            && name.split(separator: "/", omittingEmptySubsequences: false).count <= 2
    }
}
