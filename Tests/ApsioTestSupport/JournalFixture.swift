import ApsioCore
import ApsioPlatform
import Foundation
import Testing

/// Real journal files for tests, written by `systemd-journal-remote` from journal export format,
/// in a directory of their own. Entries get increasing wall-clock and monotonic times of one boot,
/// so their order in the journal is the order they were written in, across files too.
final class JournalFixture {
    let directory: TemporaryDirectory
    var path: String { directory.path }

    static let bootID = "6c1f0b4e2a9d4c7e8b3f5a1d2e4c6b80"
    static let invocationID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    private(set) var realtime: UInt64 = 1_700_000_000_000_000
    private var monotonic: UInt64 = 1_000_000
    /// The boot the next entries are of (`_BOOT_ID`).
    private(set) var bootID = JournalFixture.bootID
    private var rotations = 0

    /// The wall clock of the entries from now on moves by `offset` (negative: set back, as an
    /// operator or a bad NTP answer does); their order in the journal stays the order written.
    func setClock(by offset: Duration) {
        let microseconds = offset.components.seconds * 1_000_000 + offset.components.attoseconds / 1_000_000_000_000
        realtime = UInt64(Int64(realtime) + microseconds)
    }

    /// Entries from now on are of another boot, its monotonic clock starting again.
    func boot(_ id: String) {
        bootID = id
        monotonic = 1_000_000
    }

    init() throws {
        directory = try TemporaryDirectory("apsio-journal")
    }

    enum Value {
        case text(String)
        case binary([UInt8])
    }

    struct Entry {
        var fields: [(String, Value)]
        /// `__REALTIME_TIMESTAMP` in microseconds.
        var realtime: UInt64
    }

    /// An entry as journald would store a line of `unit`, with the trusted fields a real one has.
    func entry(
        unit: String, message: String, priority: Int? = 6, invocationID: String = JournalFixture.invocationID,
        extra: [(String, Value)] = []
    ) -> Entry {
        var fields: [(String, Value)] = [
            ("_SYSTEMD_UNIT", .text(unit)),
            ("_SYSTEMD_INVOCATION_ID", .text(invocationID)),
            ("_PID", .text("4242")),
            ("_UID", .text("998")),
            ("_COMM", .text("demo")),
            ("_EXE", .text("/usr/bin/demo")),
            ("_CMDLINE", .text("/usr/bin/demo --password=hunter2")),
            ("_HOSTNAME", .text("box-7")),
            ("_MACHINE_ID", .text("a3b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5")),
            ("_TRANSPORT", .text("journal")),
            ("SYSLOG_IDENTIFIER", .text("demo")),
            ("MESSAGE", .text(message)),
        ]
        if let priority { fields.append(("PRIORITY", .text(String(priority)))) }
        fields += extra
        return stamped(fields)
    }

    /// systemd-coredump's report of a crash in `unit`, written from its own socket-activated unit.
    func coredump(unit: String, pid: Int = 4242, writer: String? = "systemd-coredump@0-900-0.service") -> Entry {
        var fields: [(String, Value)] = [
            ("MESSAGE_ID", .text("fc2e22bc6ee647b6b90729ab34a250b1")),
            ("PRIORITY", .text("2")),
            ("_PID", .text("900")),
            ("_COMM", .text("systemd-coredum")),
            ("CODE_FILE", .text("src/coredump/coredump.c")),
            ("MESSAGE", .text("Process \(pid) (demo) of user 998 dumped core.\n\nStack trace of thread \(pid):\n#0  0x00007f00 raise")),
            ("COREDUMP_UNIT", .text(unit)),
            ("COREDUMP_PID", .text(String(pid))),
            ("COREDUMP_UID", .text("998")),
            ("COREDUMP_GID", .text("998")),
            ("COREDUMP_SIGNAL", .text("11")),
            ("COREDUMP_SIGNAL_NAME", .text("SIGSEGV")),
            ("COREDUMP_COMM", .text("demo")),
            ("COREDUMP_EXE", .text("/usr/bin/demo")),
            ("COREDUMP_CMDLINE", .text("/usr/bin/demo --password=hunter2")),
            ("COREDUMP_ENVIRON", .text("API_TOKEN=secret")),
            ("COREDUMP_TIMESTAMP", .text("1700000000123456")),
            ("COREDUMP_RLIMIT", .text("18446744073709551615")),
            ("COREDUMP_FILENAME", .text("/var/lib/systemd/coredump/core.demo.998.x.4242.1700000000000000.zst")),
        ]
        if let writer { fields.append(("_SYSTEMD_UNIT", .text(writer))) }
        return stamped(fields)
    }

    /// journald's note that its rate limit dropped `dropped` lines of `unit`, as systemd 252's
    /// journald writes it: from its own unit, `_TRANSPORT=driver`, the unit named in the text and as
    /// `OBJECT_SYSTEMD_UNIT` (with the other `OBJECT_*` facts of the process whose line ended the
    /// window). `dropped` goes into `N_DROPPED` as given, so a test can write a damaged one.
    func suppression(unit: String, dropped: String?, transport: String = "driver", writer: String = "systemd-journald.service")
        -> Entry
    {
        var fields: [(String, Value)] = [
            ("SYSLOG_FACILITY", .text("3")),
            ("SYSLOG_IDENTIFIER", .text("systemd-journald")),
            ("_TRANSPORT", .text(transport)),
            ("PRIORITY", .text("6")),
            ("MESSAGE_ID", .text("a596d6fe7bfa4994828e72309e95d61e")),
            ("MESSAGE", .text("Suppressed \(dropped ?? "?") messages from \(unit)")),
            ("_PID", .text("310")),
            ("_UID", .text("0")),
            ("_GID", .text("0")),
            ("_COMM", .text("systemd-journal")),
            ("_EXE", .text("/usr/lib/systemd/systemd-journald")),
            ("_SYSTEMD_CGROUP", .text("/system.slice/\(writer)")),
            ("_SYSTEMD_UNIT", .text(writer)),
            ("_SYSTEMD_SLICE", .text("system.slice")),
            ("OBJECT_PID", .text("4242")),
            ("OBJECT_UID", .text("998")),
            ("OBJECT_COMM", .text("demo")),
            ("OBJECT_EXE", .text("/usr/bin/demo")),
            ("OBJECT_CMDLINE", .text("/usr/bin/demo --password=hunter2")),
            ("OBJECT_SYSTEMD_CGROUP", .text("/system.slice/\(unit)")),
            ("OBJECT_SYSTEMD_UNIT", .text(unit)),
            ("OBJECT_SYSTEMD_SLICE", .text("system.slice")),
        ]
        if let dropped { fields.append(("N_DROPPED", .text(dropped))) }
        return stamped(fields)
    }

    private func stamped(_ fields: [(String, Value)]) -> Entry {
        realtime += 1000
        monotonic += 1000
        let stamps: [(String, Value)] = [
            ("__REALTIME_TIMESTAMP", .text(String(realtime))),
            ("__MONOTONIC_TIMESTAMP", .text(String(monotonic))),
            ("_BOOT_ID", .text(bootID)),
        ]
        return Entry(fields: stamps + fields, realtime: realtime)
    }

    /// The entries in journal export format: text fields as `NAME=value`, binary ones as the name,
    /// a newline, the length as 64-bit little-endian, the bytes and a newline.
    static func export(_ entries: [Entry]) -> Data {
        var data = Data()
        for entry in entries {
            for (name, value) in entry.fields {
                switch value {
                case .text(let text) where !text.contains("\n"):
                    data.append(contentsOf: Array("\(name)=\(text)\n".utf8))
                case .text(let text):
                    appendBinary(&data, name, Array(text.utf8))
                case .binary(let bytes):
                    appendBinary(&data, name, bytes)
                }
            }
            data.append(0x0A)
        }
        return data
    }

    private static func appendBinary(_ data: inout Data, _ name: String, _ bytes: [UInt8]) {
        data.append(contentsOf: Array("\(name)\n".utf8))
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: bytes)
        data.append(0x0A)
    }

    static let journalRemote = "/lib/systemd/systemd-journal-remote"

    /// Appends the entries to `file` in the directory (created when missing), as journald would;
    /// returns once systemd-journal-remote wrote them and exited. A run that does not end within a
    /// minute is stopped by its pid and reported.
    func write(_ entries: [Entry], to file: String = "system.journal") async throws {
        try await write(entries, toPath: directory.url.appendingPathComponent(file).path)
    }

    /// Appends the entries to the journal file at `path`, anywhere (its directory must exist): the
    /// files of a system journal laid out elsewhere, say.
    func write(_ entries: [Entry], toPath path: String) async throws {
        let input = directory.url.appendingPathComponent("input-\(UUID().uuidString).export")
        try Self.export(entries).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.journalRemote)
        process.arguments = ["--output=\(path)", "-"]
        process.standardInput = try FileHandle(forReadingFrom: input)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let status = try await Self.run(process, deadline: .seconds(60))
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw FixtureError("systemd-journal-remote exited with \(status): \(message)")
        }
    }

    /// Runs `process` to its end, stopping it by pid if it outlives `deadline` or the test.
    private static func run(_ process: Process, deadline: Duration) async throws -> Int32 {
        guard let status = try await runToEnd(process, deadline: deadline) else {
            throw FixtureError("systemd-journal-remote (pid \(process.processIdentifier)) did not finish within \(deadline)")
        }
        return status
    }

    func renameFile(_ from: String, to: String) throws {
        try FileManager.default.moveItem(
            at: directory.url.appendingPathComponent(from), to: directory.url.appendingPathComponent(to))
    }

    func removeFile(_ name: String) throws {
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent(name))
    }

    /// What journald does when a file is full or at SIGUSR2: the active file is renamed to an
    /// archived name (`system@SEQNUMID-HEAD-REALTIME.journal`, which `journalctl --vacuum-*`
    /// recognises) and the next entries go to a new `system.journal`. Returns the archived name.
    @discardableResult
    func rotate(_ file: String = "system.journal") throws -> String {
        rotations += 1
        let stem = file.hasSuffix(".journal") ? String(file.dropLast(".journal".count)) : file
        let hex = String(rotations, radix: 16)
        let archived = "\(stem)@\(String(repeating: "0", count: 32 - hex.count) + hex)-0000000000000001-\(String(format: "%016llx", realtime)).journal"
        try renameFile(file, to: archived)
        return archived
    }

    /// `journalctl -D DIR --vacuum-files=N`: only the newest `keeping` files stay (the active ones
    /// among them), as an operator or journald's own limits remove archived files.
    func vacuum(keeping files: Int) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = ["-D", path, "--vacuum-files=\(files)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard try await runToEnd(process, deadline: .seconds(60)) == 0 else { throw FixtureError("journalctl --vacuum-files failed") }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads batches from a follower until `count` records came, or fails after a generous deadline
/// (a follower that misses an entry would otherwise wait forever).
func collect(
    _ count: Int, from follower: JournalFollower, deadline: Duration = .seconds(60)
) async throws -> (records: [JournalRecord], cursors: [String: String]) {
    try await withThrowingTaskGroup(of: ([JournalRecord], [String: String])?.self) { group in
        group.addTask {
            var records: [JournalRecord] = []
            var cursors: [String: String] = [:]
            while records.count < count {
                let batch = try await follower.next()
                records += batch.flattened
                cursors.merge(batch.cursors) { $1 }
            }
            return (records, cursors)
        }
        group.addTask {
            try await Task.sleep(for: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() ?? nil else {
            throw FixtureError("the follower gave fewer than \(count) records within \(deadline)")
        }
        return result
    }
}

/// Everything the follower has right now, without waiting.
func drain(_ follower: JournalFollower) async throws -> (records: [JournalRecord], cursors: [String: String]) {
    var records: [JournalRecord] = []
    var cursors: [String: String] = [:]
    while let batch = try await follower.nextAvailable() {
        records += batch.flattened
        cursors.merge(batch.cursors) { $1 }
    }
    return (records, cursors)
}

/// One record of a batch and the app it was read for.
struct JournalRecord: Equatable {
    var appID: String
    var record: LogRecord
}

extension JournalBatch {
    /// The records of every app, app by app (by id), each app's in journal order.
    var flattened: [JournalRecord] {
        records.sorted { $0.key < $1.key }.flatMap { app, part in part.map { JournalRecord(appID: app, record: $0) } }
    }
}

extension Array where Element == JournalRecord {
    /// The bodies of one app's records, in order.
    func bodies(of app: String) -> [String] {
        filter { $0.appID == app }.map(\.record.body)
    }
}
