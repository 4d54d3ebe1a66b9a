import ApsioCore
import Foundation
import Testing

@testable import ApsioTestSupport
@testable import ApsioLive

@Suite struct IndicatorBoardTests {
    let web = try! AppName("web")
    let db = try! AppName("db")

    @Test func viewingStartsOnceThenCountsChangeThenEnds() {
        var board = IndicatorBoard()
        #expect(board.apply(AppLiveEvent(app: web, event: .viewers(1)), nowUnixMs: 1000) == [
            .viewingStarted(app: web, viewers: 1)
        ])
        #expect(board.apply(AppLiveEvent(app: web, event: .viewers(1)), nowUnixMs: 2000) == [])
        #expect(board.apply(AppLiveEvent(app: web, event: .viewers(2)), nowUnixMs: 3000) == [
            .viewersChanged(app: web, viewers: 2)
        ])
        #expect(board.watched[web]?.sinceUnixMs == 1000, "since when viewing started, not the last change")
        #expect(board.apply(AppLiveEvent(app: web, event: .viewers(0)), nowUnixMs: 4000) == [.viewingEnded(app: web)])
        #expect(board.watchedApps.isEmpty)
    }

    @Test func aSessionEndingEndsViewingWhateverTheLastCountWas() {
        var board = IndicatorBoard()
        _ = board.apply(AppLiveEvent(app: web, event: .viewers(3)), nowUnixMs: 0)
        #expect(board.apply(AppLiveEvent(app: web, event: .sessionEnded(.tokenLost)), nowUnixMs: 1) == [
            .viewingEnded(app: web)
        ])
        #expect(board.apply(AppLiveEvent(app: web, event: .sessionEnded(.tokenLost)), nowUnixMs: 2) == [])
    }

    @Test func commandsAreNoticedAndAppsAreKeptApart() {
        var board = IndicatorBoard()
        _ = board.apply(AppLiveEvent(app: db, event: .viewers(1)), nowUnixMs: 0)
        _ = board.apply(AppLiveEvent(app: web, event: .viewers(1)), nowUnixMs: 0)
        #expect(board.apply(AppLiveEvent(app: db, event: .notice(.screenshot)), nowUnixMs: 5) == [
            .command(app: db, .screenshot)
        ])
        #expect(board.watchedApps == [db, web])
        #expect(board.forget(db) == [.viewingEnded(app: db)])
        #expect(board.watchedApps == [web])
    }
}

@Suite struct MotdFileTests {
    @Test func presentWhileWatchedAndGoneAfter() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/motd.d/50-apsio"
        let motd = MotdFile(path: path)
        try motd.show(["Your team is viewing web live"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "Your team is viewing web live\n")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644, "whoever logs in must be able to read it")
        try motd.show([])
        #expect(!FileManager.default.fileExists(atPath: path))
        try motd.show([])  // nothing to remove is not an error
    }
}

@Suite struct TerminalAnnouncerTests {
    /// One utmp record of 384 bytes: `ut_type` then `ut_line` at offset 8.
    static func utmpRecord(type: Int16, line: String) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: 384)
        record[0] = UInt8(truncatingIfNeeded: type)
        record[1] = UInt8(truncatingIfNeeded: type >> 8)
        for (index, byte) in line.utf8.prefix(32).enumerated() { record[8 + index] = byte }
        return record
    }

    /// TIOCSPTLCK and TIOCGPTN: function-like macros in C, so not visible to Swift (asm-generic values).
    static let unlockPTY: UInt = 0x4004_5431
    static let ptyNumber: UInt = 0x8004_5430

    @Test func writesOneLineToEachLoggedInTerminalAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        // A terminal of the test's own: a pseudo-terminal pair, read back from the master side.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        #expect(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        #expect(ioctl(master, Self.unlockPTY, &unlock) == 0 && ioctl(master, Self.ptyNumber, &number) == 0)
        let slavePath = "/dev/pts/\(number)"
        let line = "pts/\(number)"
        // Keep the slave open so the master has a peer; raw mode so the line arrives as written.
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        defer { close(slave) }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)

        // A regular file named in utmp must not be written: only terminals are.
        try directory.write("dev/notatty", "")
        var utmp = Self.utmpRecord(type: 7, line: line)
        utmp += Self.utmpRecord(type: 8, line: "tty9")  // a dead process: skipped
        utmp += Self.utmpRecord(type: 7, line: "../etc/passwd")  // not a device name: skipped
        try Data(utmp).write(to: directory.url.appendingPathComponent("utmp"))
        let reached = TerminalAnnouncer(utmpPath: directory.path + "/utmp", deviceDirectory: "/dev")
            .announce("Your team is viewing web live\u{1B}]0;owned\u{07}")
        #expect(reached == 1)

        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(master, &buffer, buffer.count)
        let text = String(decoding: buffer[0..<max(count, 0)], as: UTF8.self)
        #expect(text == "\r\nYour team is viewing web live]0;owned\r\n", "control characters stripped")

        let fileUtmp = Self.utmpRecord(type: 7, line: "notatty")
        try Data(fileUtmp).write(to: directory.url.appendingPathComponent("utmp"))
        #expect(TerminalAnnouncer(utmpPath: directory.path + "/utmp", deviceDirectory: directory.path + "/dev")
            .announce("x") == 0)
        #expect(try String(contentsOfFile: directory.path + "/dev/notatty", encoding: .utf8).isEmpty)
    }
}
