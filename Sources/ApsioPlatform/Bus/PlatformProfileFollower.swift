import ApsioPOSIX
import Glibc

/// Reads the firmware's `firmware/acpi/platform_profile` and reads it again whenever it changes.
///
/// The kernel announces a change of the attribute with `sysfs_notify`, which reaches inotify as a
/// modification of the file (and of its directory's child), so the follower waits on inotify, never
/// on a timer. Watching the directory as well catches the file appearing late (the driver loaded
/// after us) and a test fixture replaced by rename. Without the directory (no ACPI, as on most ARM
/// boards) there is nothing to follow: the profile is absent, and so is this source of Low Power Mode.
struct PlatformProfileFollower: Sendable {
    /// The attribute is one short word; anything longer is cut, never read without end.
    static let maxBytes = 64

    let directory: String
    let path: String

    init(sysfs: String) {
        let root = sysfs.hasSuffix("/") ? String(sysfs.dropLast()) : sysfs
        directory = root + "/firmware/acpi"
        path = directory + "/platform_profile"
    }

    /// Calls `update` with the profile (`nil` when the file is absent or unreadable) at once and at
    /// every change, until the task is cancelled.
    func follow(_ update: @Sendable (String?) -> Void) async {
        let raw = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard raw >= 0 else {
            update(read())
            return
        }
        let notifications = OwnedFileDescriptor(taking: raw)
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ATTRIB)
        let watchedDirectory = inotify_add_watch(notifications.rawValue, directory, mask) >= 0
        _ = inotify_add_watch(notifications.rawValue, path, UInt32(IN_MODIFY | IN_CLOSE_WRITE))
        update(read())
        guard watchedDirectory else { return }
        while true {
            guard (try? await Readiness.wait(notifications.rawValue, for: .readable)) != nil else { return }
            drain(notifications.rawValue)
            // A file replaced by rename is a new inode: watch it again (a duplicate watch is harmless).
            _ = inotify_add_watch(notifications.rawValue, path, UInt32(IN_MODIFY | IN_CLOSE_WRITE))
            update(read())
        }
    }

    func read() -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: Self.maxBytes)
        let count = (try? retryingInterrupts("read") { Glibc.read(fd, &buffer, buffer.count) }) ?? -1
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Glibc.read(fd, &buffer, buffer.count) > 0 {}
    }
}
