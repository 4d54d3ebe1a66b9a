import ApsioCore
import Testing
import ApsioState

@Suite struct LogRecordCodecTests {
    static let full = LogRecord(
        timeUnixNano: 1_735_689_600_123_456_789, severityNumber: 17, severityText: "ERROR", family: .errors,
        body: "disk full on /var — ünïcödé 🚨",
        attributes: [
            .string("code.function", "flush"), .int("process.pid", -42), .double("ratio", 0.1 + 0.2),
            .bool("apsio.crash", true), .bool("cold", false), .string("empty", ""),
        ],
        sessionID: "6a1f0c2e-9b7d-4c1a-8e3f-2d5b7a9c0e11", journalCursor: "s=ab;i=1;b=cd;m=2;t=3;x=4")

    @Test func aRecordComesBackAsItWent() throws {
        #expect(try LogRecordCodec.decode(LogRecordCodec.encode(Self.full)) == Self.full)
        let bare = LogRecord(timeUnixNano: 0, severity: JournalSeverity(priority: 6), body: "")
        #expect(try LogRecordCodec.decode(LogRecordCodec.encode(bare)) == bare)
    }

    @Test func aCommandsReleaseIsKeptInTheQueue() throws {
        var released = Self.full
        released.releasedByCommand = true
        let decoded = try LogRecordCodec.decode(LogRecordCodec.encode(released))
        #expect(decoded.releasedByCommand)
        #expect(try LogRecordCodec.decode(LogRecordCodec.encode(Self.full)).releasedByCommand == false)
    }

    /// A queue written before the flags byte existed is read as it was meant: nothing released.
    @Test func aVersionOneRecordIsStillRead() throws {
        var bytes = LogRecordCodec.encode(Self.full)
        // Version 1 is version 2 without the flags byte, which follows the family byte.
        let flags = 1 + 8 + 8 + 4 + Self.full.severityText.utf8.count + 1
        #expect(bytes[flags] == 0)
        bytes.remove(at: flags)
        bytes[0] = 1
        #expect(try LogRecordCodec.decode(bytes) == Self.full)
    }

    @Test func unknownFlagsAreRefused() {
        var bytes = LogRecordCodec.encode(Self.full)
        bytes[1 + 8 + 8 + 4 + Self.full.severityText.utf8.count + 1] = 0x02
        #expect(throws: LogRecordCodecError.self) { try LogRecordCodec.decode(bytes) }
    }

    @Test func everyTruncationIsRefusedNotMisread() throws {
        let bytes = LogRecordCodec.encode(Self.full)
        for length in 0..<bytes.count {
            #expect(throws: LogRecordCodecError.self) { try LogRecordCodec.decode(bytes[0..<length]) }
        }
        #expect(throws: LogRecordCodecError.self) { try LogRecordCodec.decode(bytes + [0]) }
    }

    @Test func anotherFormatVersionIsNamed() {
        var bytes = LogRecordCodec.encode(Self.full)
        bytes[0] = 9
        #expect(throws: LogRecordCodecError.unsupportedVersion(9)) { try LogRecordCodec.decode(bytes) }
    }

    @Test func aHugeAttributeCountInDamagedBytesDoesNotAllocate() {
        var bytes = LogRecordCodec.encode(LogRecord(timeUnixNano: 1, severity: JournalSeverity(priority: 6), body: "x"))
        // The attribute count is the last four bytes of a record without attributes.
        bytes.replaceSubrange((bytes.count - 4)..., with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: LogRecordCodecError.self) { try LogRecordCodec.decode(bytes) }
    }
}
