import ApsioConfiguration
import ApsioCore
import Testing

@Suite struct UnitFileParserTests {
    func parse(_ text: String, limits: UnitFileLimits = .standard) -> UnitFile {
        UnitFileParser.parse(Array(text.utf8), limits: limits)
    }

    @Test func readsSectionsAndAssignmentsWithTheirLines() {
        let file = parse("""
            # a comment
            [App]
            Unit=nginx.service

              Name = com.example.nginx\t
            [Other]
            Key=a=b
            """)
        #expect(file.problems.isEmpty)
        #expect(file.sections == [UnitFileSection(name: "App", line: 2), UnitFileSection(name: "Other", line: 6)])
        #expect(file.entries == [
            UnitFileEntry(section: "App", key: "Unit", value: "nginx.service", line: 3),
            UnitFileEntry(section: "App", key: "Name", value: "com.example.nginx", line: 5),
            // The value is everything after the first `=`.
            UnitFileEntry(section: "Other", key: "Key", value: "a=b", line: 7),
        ])
    }

    @Test func commentsStartWithHashOrSemicolonOnTheirOwnLineOnly() {
        let file = parse("[A]\n; one\n   # two\nKey=value # not a comment\n")
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.value) == ["value # not a comment"])
    }

    @Test func aLineEndingInABackslashContinuesOnTheNext() {
        let file = parse("[A]\nRedact=card=\\\n[0-9]+\nNext=1\n")
        #expect(file.problems.isEmpty)
        #expect(file.entries == [
            UnitFileEntry(section: "A", key: "Redact", value: "card= [0-9]+", line: 2),
            UnitFileEntry(section: "A", key: "Next", value: "1", line: 4),
        ])
    }

    @Test func commentLinesInsideAContinuationAreSkippedAsSystemdDoes() {
        let file = parse("[A]\nFamilies=logs \\\n# the errors too\n errors\n")
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.value) == ["logs   errors"])
        #expect(file.entries.map(\.line) == [2])
    }

    @Test func anEscapedBackslashOrABlankAfterItIsNotAContinuation() {
        let file = parse("[A]\nOne=a\\\\\nTwo=b\\ \nThree=c\n")
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.value) == ["a\\\\", "b\\", "c"])
    }

    @Test func aContinuationAtTheEndOfTheFileEnds() {
        let file = parse("[A]\nKey=value\\")
        #expect(file.entries.map(\.value) == ["value"])
    }

    @Test func repeatedKeysAreAllKeptInOrderForTheSchemaToJudge() {
        let file = parse("[A]\nRedact=one\nRedact=\nRedact=two\n")
        #expect(file.entries.map(\.value) == ["one", "", "two"])
        #expect(file.entries.map(\.line) == [2, 3, 4])
    }

    @Test func crlfLineEndingsAndAByteOrderMarkAreRead() {
        let file = UnitFileParser.parse([0xEF, 0xBB, 0xBF] + Array("[A]\r\nKey=value\\\r\nmore\r\n".utf8))
        #expect(file.problems.isEmpty)
        #expect(file.entries.map(\.value) == ["value more"])
    }

    @Test func eachUnreadableLineIsReportedAtItsLineAndTheRestIsRead() {
        let file = parse("""
            Early=1
            [A]
            just some words
            =value
            Bad Key=1
            [Broken
            Skipped=1
            []
            [B]
            Good=1
            """)
        #expect(file.problems.map(\.line) == [1, 3, 4, 5, 6, 8])
        #expect(file.problems[0].message.contains("before any [Section]"))
        #expect(file.problems[1].message.contains("neither a [Section] header, a Key=Value"))
        #expect(file.problems[4].message.contains("must end with `]`"))
        #expect(file.entries == [UnitFileEntry(section: "B", key: "Good", value: "1", line: 10)])
    }

    @Test func aLineWithoutAnEqualsSignIsNeverQuoted() {
        let secret = "apsio_app_0123456789abcdef"
        let file = parse("[App]\n\(secret)\n")
        #expect(file.problems.count == 1)
        #expect(!file.problems[0].message.contains(secret))
    }

    @Test func onlyUTF8TextWithoutNULIsRead() {
        var bytes = Array("[A]\nGood=1\nBad=".utf8) + [0xC3, 0x28] + Array("\nNul=a".utf8) + [0] + Array("\nAfter=2\n".utf8)
        let file = UnitFileParser.parse(bytes)
        #expect(file.problems.map(\.line) == [3, 4])
        #expect(file.problems[0].message.contains("UTF-8"))
        #expect(file.problems[1].message.contains("NUL"))
        #expect(file.entries.map(\.key) == ["Good", "After"])
        bytes = Array("[A]\nName=café ☕\n".utf8)
        #expect(UnitFileParser.parse(bytes).entries.map(\.value) == ["café ☕"])
    }

    @Test func aFileLargerThanTheLimitIsRefusedWhole() {
        let limits = UnitFileLimits(maxBytes: 32)
        let atLimit = "[A]\nKey=" + String(repeating: "x", count: 32 - 8)
        #expect(parse(atLimit, limits: limits).entries.count == 1)
        let past = parse(atLimit + "x", limits: limits)
        #expect(past.entries.isEmpty)
        #expect(past.problems == [UnitFileProblem(line: nil, message: "is larger than 32 bytes, more than a configuration file holds")])
    }

    @Test func aFileWithTooManyLinesIsRefusedWhole() {
        let limits = UnitFileLimits(maxLines: 3)
        #expect(parse("[A]\nA=1\nB=2\n", limits: limits).entries.count == 2)
        let past = parse("[A]\nA=1\nB=2\nC=3\n", limits: limits)
        #expect(past.entries.isEmpty)
        #expect(past.problems.map(\.line) == [nil])
    }

    @Test func aLogicalLineLongerThanTheLimitIsReportedAtItsFirstLine() {
        let limits = UnitFileLimits(maxLineBytes: 16)
        #expect(parse("[A]\nKey=123456789012", limits: limits).entries.count == 1)
        let past = parse("[A]\nKey=12345678\\\n9012345\nNext=1\n", limits: limits)
        #expect(past.problems.map(\.line) == [2])
        #expect(past.entries.map(\.key) == ["Next"])
    }
}
