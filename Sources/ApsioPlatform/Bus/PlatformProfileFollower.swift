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
        guard let notifications = try? FileChangeWatch() else {
            update(read())
            return
        }
        let watchedDirectory = notifications.watch(directory, for: FileChangeWatch.directoryChanges)
        notifications.watch(path, for: FileChangeWatch.fileWrites)
        update(read())
        guard watchedDirectory else { return }
        while true {
            guard (try? await Readiness.wait(notifications.descriptor.rawValue, for: .readable)) != nil else { return }
            notifications.drain()
            // A file replaced by rename is a new inode: watch it again (a duplicate watch is harmless).
            notifications.watch(path, for: FileChangeWatch.fileWrites)
            update(read())
        }
    }

    func read() -> String? {
        guard let file = try? FileSystem.open(path, O_RDONLY) else { return nil }
        defer { file.close() }
        guard let bytes = try? FileSystem.readOnce(file, path: path, maxBytes: Self.maxBytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
