/// The masking of a process's name (10.3, 10.4, LINUX-PROFILE §10): a frame shows what the program
/// is, never what it was told. Command-line arguments and the environment are never captured.
package enum ProcessName {
    /// The longest name kept; a Linux file name is at most 255 bytes.
    package static let maxBytes = 255

    /// The base name of `argv[0]`, given the bytes of `/proc/PID/cmdline`.
    ///
    /// Only the first NUL-terminated field is looked at. Programs that retitle themselves
    /// (`setproctitle`: `postgres: alice shop 10.0.0.7(5123) idle`, `sshd: alice [priv]`) write their
    /// arguments into that field, so it is cut at the first whitespace and a trailing `:` is dropped:
    /// what remains is the program's name, never a user, database or address it was given.
    /// `nil` for kernel threads and zombies, whose `cmdline` is empty.
    package static func argv0BaseName(cmdline: [UInt8]) -> String? {
        let first = cmdline.prefix { $0 != 0 }
        let word = first.prefix { !isWhitespace($0) }
        var base: [UInt8] = word.split(separator: UInt8(ascii: "/")).last.map { Array($0) } ?? []
        while base.last == UInt8(ascii: ":") { base.removeLast() }
        guard !base.isEmpty else { return nil }
        return UTF8Cut.cut(String(decoding: base, as: UTF8.self), maxBytes: maxBytes)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
