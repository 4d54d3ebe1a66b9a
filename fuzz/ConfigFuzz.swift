// libFuzzer entry point for configuration files (see docs/fuzzing.md): the unit-file syntax of
// `apsiod.conf` and the app files, and both schemas over what it read.
//
// Besides "no crash", it checks: the size and line limits hold and a file past them is refused
// whole; every problem, entry and section is at a line of the file, in order, and no assignment is
// longer than the line limit; a file reads the same with CRLF line ends and with a byte order mark;
// each schema reports only at lines of the file, an app is either read without a problem or not
// read with at least one, and no message ever holds the app key, inline or from its key file.
@testable import ApsioConfiguration
import ApsioState
import ApsioCore

let fuzzFileLimits = UnitFileLimits(maxBytes: 1024, maxLines: 24, maxLineBytes: 96)

/// An app key no input holds by chance: what the checks look for in every message.
let canaryKey = "apsio-canary-7f3a9c51"

/// systemd's whitespace, which keys and values are trimmed of.
func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

/// Physical lines as the parser counts them: the last one needs no newline.
func lineCount(_ bytes: [UInt8]) -> Int {
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    let newlines = body.count { $0 == 0x0A }
    return newlines + (body.isEmpty || body.last == 0x0A ? 0 : 1)
}

func checkSyntax(_ bytes: [UInt8], _ file: UnitFile) {
    let limits = fuzzFileLimits
    let lines = lineCount(bytes)
    if bytes.count > limits.maxBytes || lines > limits.maxLines {
        check(file.entries.isEmpty && file.sections.isEmpty, "a file past the limits was read")
        check(file.problems.count == 1 && file.problems[0].line == nil, "a file past the limits is one problem")
        return
    }
    check(file.problems.allSatisfy { $0.line != nil }, "a file within the limits refused whole")
    let atLines = file.problems.map { $0.line! } + file.entries.map(\.line) + file.sections.map(\.line)
    check(atLines.allSatisfy { (1...lines).contains($0) }, "something at a line outside the file")
    check(file.entries.count + file.sections.count <= lines, "more entries and sections than lines")
    check(file.entries.map(\.line) == file.entries.map(\.line).sorted(), "entries out of order")
    let sectionNames = Set(file.sections.map(\.name))
    for entry in file.entries {
        check(sectionNames.contains(entry.section), "an entry in a section no header named")
        check(!entry.key.isEmpty && entry.key.utf8.count + 1 + entry.value.utf8.count <= limits.maxLineBytes,
              "an assignment longer than the line limit")
        check(entry.value.utf8.first.map(isBlank) != true && entry.value.utf8.last.map(isBlank) != true,
              "a value not trimmed")
        check(!entry.value.utf8.contains(0), "a NUL byte in a value")
    }
}

/// The same file with CRLF line ends (from one without carriage returns) and with a byte order
/// mark reads the same, as long as those bytes keep it within the size limit.
func checkLineEnds(_ bytes: [UInt8]) {
    let unix = bytes.filter { $0 != 0x0D }
    var crlf: [UInt8] = []
    for byte in unix {
        if byte == 0x0A { crlf.append(0x0D) }
        crlf.append(byte)
    }
    let file = UnitFileParser.parse(unix, limits: fuzzFileLimits)
    if crlf.count <= fuzzFileLimits.maxBytes {
        check(UnitFileParser.parse(crlf, limits: fuzzFileLimits) == file, "CRLF line ends read differently")
    }
    if unix.count + 3 <= fuzzFileLimits.maxBytes, !unix.starts(with: [0xEF, 0xBB, 0xBF]) {
        check(UnitFileParser.parse([0xEF, 0xBB, 0xBF] + unix, limits: fuzzFileLimits) == file,
              "a byte order mark changed what was read")
    }
}

func checkProblems(_ problems: [UnitFileProblem], lines: Int, _ what: String) {
    for problem in problems {
        if let line = problem.line { check((1...lines).contains(line), "\(what) reported line \(line) of \(lines)") }
        check(!problem.message.isEmpty, "\(what) reported nothing")
        check(!problem.message.contains(canaryKey), "\(what) showed the app key: \(problem.message)")
    }
}

func checkSchemas(_ bytes: [UInt8], _ parsed: UnitFile, keyFile: UInt8) {
    let lines = lineCount(bytes)
    guard !bytes.contains(Array(canaryKey.utf8)) else { return }

    var daemonProblems: [UnitFileProblem] = []
    let daemon = DaemonConfigurationSchema.read(parsed) { line, message in
        daemonProblems.append(UnitFileProblem(line: line, message: message))
    }
    checkProblems(daemonProblems, lines: lines, "apsiod.conf")
    check(daemon.queue.maxBytes == QueueBounds.standard.maxBytes
        || DaemonConfigurationSchema.queueSizeRange.contains(daemon.queue.maxBytes), "MaxSize out of range")
    check(daemon.queue.maxAge == QueueBounds.standard.maxAge
        || DaemonConfigurationSchema.queueAgeRange.contains(daemon.queue.maxAge), "MaxAge out of range")

    // Every inline key is the canary, and so is the key file's content: no message may show it.
    var file = parsed
    for index in file.entries.indices where file.entries[index].key == "AppKey" && !file.entries[index].value.isEmpty {
        file.entries[index].value = canaryKey
    }
    let keyFileErrors: [AppKeyFileError] = [
        .cannotOpen(reason: "No such file or directory"), .notRegularFile, .openToOthers(mode: 0o100644),
        .tooLarge(limit: 1024), .empty, .notHeaderText, .readFailed(reason: "Input/output error"),
    ]
    let name = try! AppName("fuzz")
    let (app, problems) = AppFileSchema.read(file, name: name, path: "/etc/apsio/apps.d/fuzz.conf") {
        _ throws(AppKeyFileError) in
        if Int(keyFile) < keyFileErrors.count { throw keyFileErrors[Int(keyFile)] }
        return canaryKey
    }
    checkProblems(problems, lines: lines, "the app file")
    if let app {
        check(problems.isEmpty, "an app read with problems")
        check(AppFileSchema.unitProblem(app.unit) == nil, "an app of a unit it may not watch")
        check(app.appKey.secret == canaryKey, "an app with another key")
    } else {
        check(!problems.isEmpty, "an app refused without a reason")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The first byte picks how the key file reads (one of its errors, or the key); the rest is the file.
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let parsed = UnitFileParser.parse(bytes, limits: fuzzFileLimits)
    checkSyntax(bytes, parsed)
    checkLineEnds(bytes)
    checkSchemas(bytes, parsed, keyFile: data[0] & 0x0f)
    return 0
}
