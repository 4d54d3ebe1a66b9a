/// The kernel's table of file locks, `/proc/locks` (proc(5)), read to tell whether a process holds
/// an flock(2) on a file this process may not open: another user's lock file, mode 0600.
package enum ProcLocks {
    package static let path = "/proc/locks"
    /// Enough for tens of thousands of locks; the table of a sane machine is a few kilobytes.
    package static let maxBytes = 16 << 20

    /// Whether `table` lists an exclusive flock held (not waited for) on the file numbered
    /// `inode` on `device` (`st_dev`, `st_ino`). A shared flock is not counted: a probe holds
    /// one for an instant, and the lock asked for is always exclusive.
    ///
    /// A line is `ID: [-> ]FLOCK  ADVISORY  WRITE PID MAJOR:MINOR:INODE START END`, the device's
    /// major and minor numbers in hexadecimal, the inode in decimal; `->` marks a waiter.
    package static func holdsExclusiveFlock(_ table: [UInt8], device: UInt64, inode: UInt64) -> Bool {
        let wanted = (major: major(device), minor: minor(device), inode: inode)
        for line in table.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 6, fields[1].elementsEqual("FLOCK".utf8), fields[3].elementsEqual("WRITE".utf8) else {
                continue
            }
            let file = fields[5].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard file.count == 3, let major = number(file[0], radix: 16), let minor = number(file[1], radix: 16),
                let node = number(file[2], radix: 10)
            else { continue }
            if (major, minor, node) == wanted { return true }
        }
        return false
    }

    /// The major number of a `dev_t` as glibc encodes it (gnu_dev_major, which Swift does not see).
    static func major(_ device: UInt64) -> UInt64 {
        ((device & 0x0000_0000_000f_ff00) >> 8) | ((device & 0xffff_f000_0000_0000) >> 32)
    }

    /// The minor number (gnu_dev_minor).
    static func minor(_ device: UInt64) -> UInt64 {
        (device & 0x0000_0000_0000_00ff) | ((device & 0x0000_0fff_fff0_0000) >> 12)
    }

    private static func number(_ digits: ArraySlice<UInt8>, radix: Int) -> UInt64? {
        UInt64(String(decoding: digits, as: UTF8.self), radix: radix)
    }
}
