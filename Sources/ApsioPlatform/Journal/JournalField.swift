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
    // journald's note that it dropped a unit's entries: who wrote it (`_TRANSPORT=driver` is
    // journald's own, trusted), which unit it is about, and how many.
    case transport, objectSystemdUnit, dropped

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
        case .transport: "_TRANSPORT"
        case .objectSystemdUnit: "OBJECT_SYSTEMD_UNIT"
        case .dropped: "N_DROPPED"
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

    /// Classifies a field name given as raw bytes, without making a String. `field` is the whole
    /// `NAME=value` the name starts, which lets the name be read as whole words past its end.
    static func classify(_ name: UnsafeRawBufferPointer, in field: UnsafeRawBufferPointer? = nil) -> Kind {
        guard !name.isEmpty, name.count <= maxNameLength else { return .dropped }
        return names.kind(of: name, words: Words(name, readable: field ?? name))
    }

    /// The table `classify` reads. The reader keeps its own copy, so that the loop over every
    /// field does not go through a lazily initialised global each time.
    static let names = Names()

    /// The names the mapper knows or always drops, in an open-addressing table keyed by the name's
    /// bytes as machine words: one or two probes find a name or show it is not there.
    struct Names {
        /// 32 bytes, so that the whole table stays in a few cache lines.
        private struct Slot {
            var words = Words()
            /// 0 for an empty slot.
            var length: UInt8 = 0
            var kind = Kind.dropped
        }

        private let slots: [Slot]
        private static let slotBits = 7

        init() {
            var slots = Array(repeating: Slot(), count: 1 << Self.slotBits)
            let named = JournalField.allCases.map { ($0.name, Kind.known($0)) } + droppedNames.map { ($0, Kind.dropped) }
            precondition(named.count * 2 <= slots.count, "the name table is too full to find names quickly")
            for (name, kind) in named {
                let bytes = Array(name.utf8)
                precondition(bytes.count <= Words.capacity, "\(name) is longer than a table name can be")
                let words = bytes.withUnsafeBytes(Words.init)
                var index = Self.slot(words, length: bytes.count)
                while slots[index].length != 0 { index = (index + 1) & (slots.count - 1) }
                slots[index] = Slot(words: words, length: UInt8(bytes.count), kind: kind)
            }
            self.slots = slots
        }

        /// Splits `NAME=value` and classifies the name in one pass over its words: this runs for
        /// every field of every entry. nil when no `=` comes within a name's longest (such a field
        /// is never forwarded).
        @inline(__always)
        func split(_ field: UnsafeRawBufferPointer) -> (nameLength: Int, kind: Kind)? {
            let end = min(field.count, maxNameLength + 1)
            var words = Words()
            var offset = 0
            while offset < end {
                var word: UInt64 = 0
                if field.count - offset >= 8 {
                    word = UInt64(littleEndian: field.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                } else {
                    // Zero padding never reads as `=`.
                    for index in offset..<field.count { word |= UInt64(field[index]) << (UInt64(index - offset) * 8) }
                }
                // A byte of `word ^ "========"` is zero where `word` has `=`; the lowest such byte
                // is found exactly (the bit trick may flag bytes above it, never below).
                let equals = word ^ 0x3D3D_3D3D_3D3D_3D3D
                let zeros = (equals &- 0x0101_0101_0101_0101) & ~equals & 0x8080_8080_8080_8080
                let found = zeros != 0
                let inWord = found ? zeros.trailingZeroBitCount / 8 : 8
                if inWord < 8 { word &= (1 << (UInt64(inWord) * 8)) - 1 }
                words.set(word, at: offset)
                if found {
                    let length = offset + inWord
                    guard length < end else { return nil }
                    let name = UnsafeRawBufferPointer(start: field.baseAddress, count: length)
                    return (length, length == 0 ? .dropped : kind(of: name, words: words))
                }
                offset += 8
            }
            return nil
        }

        /// `words` holds the name's first 24 bytes, zero-padded.
        @inline(__always)
        fileprivate func kind(of name: UnsafeRawBufferPointer, words: Words) -> Kind {
            let count = name.count
            if count <= Words.capacity {
                var index = Self.slot(words, length: count)
                while true {
                    let slot = slots[index]
                    if slot.length == 0 { break }
                    if Int(slot.length) == count, slot.words == words { return slot.kind }
                    index = (index + 1) & (slots.count - 1)
                }
            }
            // Most names not in the table are journald's other trusted fields: settled here,
            // without a call.
            if name[0] == UInt8(ascii: "_") { return .dropped }
            return Self.unlisted(name)
        }

        /// From the first word and the length only: one multiplication. Names that share both
        /// (`COREDUMP_PID`, `COREDUMP_UID`) sit next to each other and are told apart by their words.
        @inline(__always)
        private static func slot(_ words: Words, length: Int) -> Int {
            let hash = (words.first ^ (UInt64(length) << 56)) &* 0x9E37_79B9_7F4A_7C15
            return Int(truncatingIfNeeded: hash >> UInt64(64 - slotBits))
        }

        /// A name not in the table and not a trusted field: the app's own when journald could have
        /// written it as such.
        private static func unlisted(_ name: UnsafeRawBufferPointer) -> Kind {
            let first = name[0]
            if name.count > coredumpPrefixLength,
                Words(UnsafeRawBufferPointer(rebasing: name[..<coredumpPrefixLength])) == coredumpPrefix
            {
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
    }

    /// A name's first 24 bytes as three little-endian words, zero-padded: every name the table
    /// holds fits.
    fileprivate struct Words: Equatable {
        static let capacity = 24
        var first: UInt64 = 0, second: UInt64 = 0, third: UInt64 = 0

        init() {}

        init(_ bytes: UnsafeRawBufferPointer) {
            self.init(bytes, readable: bytes)
        }

        /// `readable` starts where `bytes` does and may go on past it: whole words are loaded
        /// where it allows, and the bytes past the name masked off.
        init(_ bytes: UnsafeRawBufferPointer, readable: UnsafeRawBufferPointer) {
            first = Self.word(bytes, readable, at: 0)
            if bytes.count > 8 { second = Self.word(bytes, readable, at: 8) }
            if bytes.count > 16 { third = Self.word(bytes, readable, at: 16) }
        }

        /// The word of the name that starts `offset` bytes in; words past the third are not kept.
        @inline(__always)
        mutating func set(_ word: UInt64, at offset: Int) {
            switch offset {
            case 0: first = word
            case 8: second = word
            case 16: third = word
            default: break
            }
        }

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
}
