import ApsioPlatform
internal import ApsioPOSIX

#if canImport(Glibc)
internal import Glibc
#endif

/// Writes one line to every logged-in terminal, as `wall` does: the indicator's announcement when
/// viewing starts and for each command (16.2). A terminal that would block is skipped, never waited
/// for: a stuck terminal must not stall the daemon.
package struct TerminalAnnouncer: Sendable {
    package let utmpPath: String
    /// Where the terminal devices are (`/dev`); tests point it at their own directory.
    package let deviceDirectory: String

    package init(utmpPath: String = "/run/utmp", deviceDirectory: String = "/dev") {
        self.utmpPath = utmpPath
        self.deviceDirectory = deviceDirectory
    }

    /// Returns how many terminals took the whole line.
    @discardableResult
    package func announce(_ text: String) -> Int {
        // Terminal control characters from an app name must not reach a terminal: they could move
        // the cursor or retitle the window.
        let visible = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        let bytes = Array(("\r\n" + visible + "\r\n").utf8)
        var reached = 0
        for line in LoggedInTerminals.read(utmpPath: utmpPath) {
            let path = deviceDirectory + "/" + line
            guard let file = try? FileSystem.open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW) else { continue }
            defer { file.close() }
            // Only terminals: a regular file named like one in utmp is not written.
            guard file.isTerminal else { continue }
            // Non-blocking: a terminal that is full fails the write (EAGAIN) and is skipped.
            if (try? FileSystem.writeAll(file, path: path, bytes)) != nil { reached += 1 }
        }
        return reached
    }
}
