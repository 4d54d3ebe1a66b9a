#if canImport(Glibc)
internal import Glibc
#endif

/// An inotify instance, close-on-exec and non-blocking, waited on with `Readiness` like any other
/// descriptor: a file followed for changes without a timer.
package final class FileChangeWatch: Sendable {
    package let descriptor: OwnedFileDescriptor

    /// Changes to an entry of a watched directory: made, removed, renamed, written, its mode.
    package static let directoryChanges = UInt32(
        IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ATTRIB)
    /// Writes to a watched file.
    package static let fileWrites = UInt32(IN_MODIFY | IN_CLOSE_WRITE)

    package init() throws(SystemError) {
        let raw = try retryingInterrupts("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK)) }
        descriptor = OwnedFileDescriptor(taking: raw)
    }

    /// Adds `path` to the watch (again after it was replaced: a new inode); false when it cannot be
    /// watched (it is missing).
    @discardableResult
    package func watch(_ path: String, for events: UInt32) -> Bool {
        inotify_add_watch(descriptor.rawValue, path, events) >= 0
    }

    /// Reads away the events there are: the caller reads the file again, whatever they said.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) }) > 0 {}
    }
}
