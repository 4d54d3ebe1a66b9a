#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioCore
package import ApsioPOSIX

/// The control socket's listening descriptor, owned once: bound to a path by the daemon, or the
/// one systemd passed (`apsiod.socket`). A path the daemon bound is removed when it closes.
package final class ControlListener: Sendable {
    package let fd: OwnedFileDescriptor
    /// The path this process bound and must remove; nil for an inherited socket (systemd owns it).
    package let boundPath: String?

    private init(fd: OwnedFileDescriptor, boundPath: String?) {
        self.fd = fd
        self.boundPath = boundPath
    }

    /// The socket's file in a runtime directory.
    package static func path(runtimeDirectory: String) -> String { runtimeDirectory + "/control.sock" }

    /// Binds and listens on `path`, mode 0666: any local user may connect to read the status;
    /// changes are checked per request. A stale socket file left by a crash is replaced; one a live
    /// process answers on is not.
    package static func bind(path: String, backlog: Int32 = 64) throws(ControlListenerError) -> ControlListener {
        guard let address = UnixSocketAddress(path: path) else { throw .pathTooLong(path) }
        try removeStaleSocket(address)
        do throws(SystemError) {
            let fd = try OwnedFileDescriptor.socket(
                family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true, name: "socket(AF_UNIX)")
            try fd.bind(address)
            do throws(SystemError) {
                // bind made it with the umask's bits off, which can only be stricter: widening it
                // now leaves no moment in which it was more open than meant.
                try FileSystem.setPermissions(path, 0o666)
                try fd.listen(backlog: backlog, name: path)
            } catch {
                try? FileSystem.removeFile(path)
                throw error
            }
            return ControlListener(fd: fd, boundPath: path)
        } catch {
            throw .system(error)
        }
    }

    /// The socket systemd passed for this process, if any, checked and made close-on-exec (systemd
    /// passes it without, and no child of ours may inherit it). nil when none was passed.
    package static func inherited(
        environment: [String: String], processID: Int32? = nil, names: Set<String> = ["control", "apsiod.socket"]
    ) throws(ControlListenerError) -> ControlListener? {
        guard let raw = SocketActivation.descriptor(
            listenPID: environment["LISTEN_PID"], listenFDs: environment["LISTEN_FDS"],
            listenFDNames: environment["LISTEN_FDNAMES"], processID: processID ?? ProcessIdentity.processID, names: names)
        else { return nil }
        // Checked before it is ours: a descriptor that is not the socket is handed back untouched.
        let fd = OwnedFileDescriptor(taking: raw)
        var address = sockaddr_storage()
        guard (try? fd.integerOption(level: SOL_SOCKET, name: SO_TYPE)) == Int32(SOCK_STREAM.rawValue),
            (try? fd.integerOption(level: SOL_SOCKET, name: SO_ACCEPTCONN)) == 1,
            (try? fd.localAddress(into: &address)) != nil, address.ss_family == sa_family_t(AF_UNIX)
        else {
            _ = fd.take()
            throw .notAListeningSocket(fd: raw)
        }
        do {
            try fd.setCloseOnExec()
        } catch {
            _ = fd.take()
            throw .system(error)
        }
        do {
            try fd.setNonBlocking()
        } catch {
            throw .system(error)
        }
        return ControlListener(fd: fd, boundPath: nil)
    }

    /// Stops listening; removes the socket file when this process made it.
    package func close() {
        // Two stops at once: only the one that closed it removes the file, which by the time the
        // other got there could be a new daemon's.
        guard fd.close(), let boundPath else { return }
        try? FileSystem.removeFile(boundPath)
    }

    private static func removeStaleSocket(_ address: UnixSocketAddress) throws(ControlListenerError) {
        let path = address.path
        guard let info = (try? FileSystem.status(path, followingLinks: false)) ?? nil else { return }
        // Only ever remove a socket: a regular file or a link in its place is not ours to delete.
        guard info.kind == .socket else { throw .system(SystemError("bind(\(path))", errno: EEXIST)) }
        let probe: OwnedFileDescriptor
        do throws(SystemError) {
            probe = try OwnedFileDescriptor.socket(
                family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true, name: "socket(AF_UNIX)")
        } catch {
            throw .system(error)
        }
        defer { probe.close() }
        let live: Bool
        do throws(SystemError) {
            live = try probe.connect(address)
        } catch where error.errno == EAGAIN {
            // A full backlog is a live listener too.
            live = true
        } catch where error.errno == ECONNREFUSED {
            do {
                try FileSystem.removeFile(path)
            } catch {
                throw .system(error)
            }
            return
        } catch {
            return
        }
        if live { throw .inUse(path) }
    }

    deinit { close() }
}
