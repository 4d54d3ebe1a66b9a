/// The journal fields the mapper reads by name. Every other field is either the app's own
/// (forwarded under its journald name) or never forwarded; `JournalField.classify` decides which.
enum JournalField: Int, CaseIterable {
    case message, priority, messageID
    case codeFile, codeLine, codeFunc, threadID, syslogIdentifier, syslogFacility
    // Trusted fields, set by journald from the sender's credentials.
    case pid, comm, exe, uid, systemdUnit, invocationID
    // systemd-coredump's facts about the crashed process.
    case coredumpUnit, coredumpExe, coredumpComm, coredumpPID, coredumpUID, coredumpSignal, coredumpSignalName
    case coredumpTimestamp, coredumpRlimit, coredumpFilename, coredumpTruncated
    case coredumpPackageName, coredumpPackageVersion

    var name: String {
        switch self {
        case .message: "MESSAGE"
        case .priority: "PRIORITY"
        case .messageID: "MESSAGE_ID"
        case .codeFile: "CODE_FILE"
        case .codeLine: "CODE_LINE"
        case .codeFunc: "CODE_FUNC"
        case .threadID: "TID"
        case .syslogIdentifier: "SYSLOG_IDENTIFIER"
        case .syslogFacility: "SYSLOG_FACILITY"
        case .pid: "_PID"
        case .comm: "_COMM"
        case .exe: "_EXE"
        case .uid: "_UID"
        case .systemdUnit: "_SYSTEMD_UNIT"
        case .invocationID: "_SYSTEMD_INVOCATION_ID"
        case .coredumpUnit: "COREDUMP_UNIT"
        case .coredumpExe: "COREDUMP_EXE"
        case .coredumpComm: "COREDUMP_COMM"
        case .coredumpPID: "COREDUMP_PID"
        case .coredumpUID: "COREDUMP_UID"
        case .coredumpSignal: "COREDUMP_SIGNAL"
        case .coredumpSignalName: "COREDUMP_SIGNAL_NAME"
        case .coredumpTimestamp: "COREDUMP_TIMESTAMP"
        case .coredumpRlimit: "COREDUMP_RLIMIT"
        case .coredumpFilename: "COREDUMP_FILENAME"
        case .coredumpTruncated: "COREDUMP_TRUNCATED"
        case .coredumpPackageName: "COREDUMP_PACKAGE_NAME"
        case .coredumpPackageVersion: "COREDUMP_PACKAGE_VERSION"
        }
    }

    enum Kind: Equatable {
        case known(JournalField)
        /// A field the app wrote itself: forwarded as an attribute under its journald name.
        case user
        /// Never forwarded: journald's other trusted fields (`_CMDLINE`, `_MACHINE_ID`, `_BOOT_ID`,
        /// `_HOSTNAME`, `_AUDIT_*`…), the other `COREDUMP_*` facts (environment, command line,
        /// maps, the core itself), syslog's copies, and names journald would never write.
        case dropped
    }

    /// journald's own limit on a field name.
    static let maxNameLength = 64

    /// Classifies a field name given as raw bytes, without making a String: this runs for every
    /// field of every entry, so names are compared as machine words, not byte by byte. `field` is
    /// the whole `NAME=value` the name starts, which lets the words be read past the name's end.
    @inline(__always)
    static func classify(_ name: UnsafeRawBufferPointer, in field: UnsafeRawBufferPointer? = nil) -> Kind {
        let count = name.count
        guard count > 0, count <= maxNameLength else { return .dropped }
        if count <= Words.capacity {
            let words = Words(name, readable: field ?? name)
            for candidate in table.byLength[count] where candidate.words == words { return candidate.kind }
        }
        let first = name[0]
        if first == UInt8(ascii: "_") { return .dropped }
        if count > coredumpPrefixLength, Words(UnsafeRawBufferPointer(rebasing: name[..<coredumpPrefixLength])) == coredumpPrefix {
            return .dropped
        }
        // journald accepts A–Z, 0–9 and `_`, not starting with a digit; a file from elsewhere may not.
        if first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") { return .dropped }
        for byte in name {
            let allowed = (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            if !allowed { return .dropped }
        }
        return .user
    }

    /// A name of up to 24 bytes as three little-endian words, zero-padded: every name the table
    /// holds fits.
    private struct Words: Equatable {
        static let capacity = 24
        var first: UInt64 = 0, second: UInt64 = 0, third: UInt64 = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.init(bytes, readable: bytes)
        }

        /// `readable` starts where `bytes` does and may go on past it: whole words are loaded
        /// where it allows, and the bytes past the name masked off.
        @inline(__always)
        init(_ bytes: UnsafeRawBufferPointer, readable: UnsafeRawBufferPointer) {
            first = Self.word(bytes, readable, at: 0)
            if bytes.count > 8 { second = Self.word(bytes, readable, at: 8) }
            if bytes.count > 16 { third = Self.word(bytes, readable, at: 16) }
        }

        @inline(__always)
        private static func word(_ bytes: UnsafeRawBufferPointer, _ readable: UnsafeRawBufferPointer, at offset: Int)
            -> UInt64
        {
            let wanted = min(8, bytes.count - offset)
            if readable.count - offset >= 8 {
                let word = UInt64(littleEndian: readable.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                return wanted == 8 ? word : word & ((1 << (UInt64(wanted) * 8)) - 1)
            }
            var word: UInt64 = 0
            for index in 0..<wanted { word |= UInt64(bytes[offset + index]) << (UInt64(index) * 8) }
            return word
        }
    }

    private static let coredumpPrefix = Array("COREDUMP_".utf8).withUnsafeBytes(Words.init)
    private static let coredumpPrefixLength = "COREDUMP_".utf8.count

    /// Untrusted fields that look like the app's own but only repeat what a mapped field says, carry
    /// the raw syslog line, or are the core dump itself (process memory, when stored in the journal).
    private static let droppedNames = ["SYSLOG_PID", "SYSLOG_TIMESTAMP", "SYSLOG_RAW", "COREDUMP"]

    private struct Candidate {
        let words: Words
        let kind: Kind
    }

    private struct Table {
        let byLength: [[Candidate]]
    }

    private static let table: Table = {
        var byLength = Array(repeating: [Candidate](), count: Words.capacity + 1)
        let named = JournalField.allCases.map { ($0.name, Kind.known($0)) } + droppedNames.map { ($0, Kind.dropped) }
        for (name, kind) in named {
            let bytes = Array(name.utf8)
            precondition(bytes.count <= Words.capacity, "\(name) is longer than a table name can be")
            byLength[bytes.count].append(Candidate(words: bytes.withUnsafeBytes(Words.init), kind: kind))
        }
        return Table(byLength: byLength)
    }()
}
