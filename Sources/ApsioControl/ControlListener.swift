#if canImport(Glibc)
internal import Glibc
#endif
internal import ApsioCore
public import ApsioPOSIX

/// The control socket's listening descriptor, owned once: bound to a path by the daemon, or the
/// one systemd passed (`apsiod.socket`). A path the daemon bound is removed when it closes.
public final class ControlListener: Sendable {
    public let fd: OwnedFileDescriptor
    /// The path this process bound and must remove; nil for an inherited socket (systemd owns it).
    public let boundPath: String?

    private init(fd: OwnedFileDescriptor, boundPath: String?) {
        self.fd = fd
        self.boundPath = boundPath
    }

    /// The socket's file in a runtime directory.
    public static func path(runtimeDirectory: String) -> String { runtimeDirectory + "/control.sock" }

    /// Binds and listens on `path`, mode 0666: any local user may connect to read the status;
    /// changes are checked per request. A stale socket file left by a crash is replaced; one a live
    /// process answers on is not.
    public static func bind(path: String, backlog: Int32 = 64) throws(ControlListenerError) -> ControlListener {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        try removeStaleSocket(path, address: address)
        let raw = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard raw >= 0 else { throw .system(.last("socket(AF_UNIX)")) }
        let fd = OwnedFileDescriptor(taking: raw)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(raw, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw .system(.last("bind(\(path))")) }
        // bind made it with the umask's bits off, which can only be stricter: widening it now
        // leaves no moment in which it was more open than meant.
        guard chmod(path, 0o666) == 0 else {
            let error = SystemError.last("chmod(\(path))")
            unlink(path)
            throw .system(error)
        }
        guard listen(raw, backlog) == 0 else {
            let error = SystemError.last("listen(\(path))")
            unlink(path)
            throw .system(error)
        }
        return ControlListener(fd: fd, boundPath: path)
    }

    /// The socket systemd passed for this process, if any, checked and made close-on-exec (systemd
    /// passes it without, and no child of ours may inherit it). nil when none was passed.
    public static func inherited(
        environment: [String: String], processID: Int32? = nil, names: Set<String> = ["control", "apsiod.socket"]
    ) throws(ControlListenerError) -> ControlListener? {
        guard let raw = SocketActivation.descriptor(
            listenPID: environment["LISTEN_PID"], listenFDs: environment["LISTEN_FDS"],
            listenFDNames: environment["LISTEN_FDNAMES"], processID: processID ?? getpid(), names: names)
        else { return nil }
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        guard getsockopt(raw, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue),
            getsockopt(raw, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1,
            withUnsafeMutablePointer(to: &address, {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(raw, $0, &addressLength) }
            }) == 0, address.ss_family == sa_family_t(AF_UNIX)
        else { throw .notAListeningSocket(fd: raw) }
        let flags = fcntl(raw, F_GETFD)
        guard flags >= 0, fcntl(raw, F_SETFD, flags | FD_CLOEXEC) == 0 else { throw .system(.last("fcntl(F_SETFD)")) }
        let fd = OwnedFileDescriptor(taking: raw)
        do {
            try fd.setNonBlocking()
        } catch {
            throw .system(error)
        }
        return ControlListener(fd: fd, boundPath: nil)
    }

    /// Stops listening; removes the socket file when this process made it.
    public func close() {
        guard !fd.isClosed else { return }
        fd.close()
        if let boundPath { unlink(boundPath) }
    }

    private static func removeStaleSocket(_ path: String, address: sockaddr_un) throws(ControlListenerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        // Only ever remove a socket: a regular file or a link in its place is not ours to delete.
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .system(SystemError("bind(\(path))", errno: EEXIST)) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard probe >= 0 else { throw .system(.last("socket(AF_UNIX)")) }
        defer { Glibc.close(probe) }
        var target = address
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // A full backlog (EAGAIN) is a live listener too.
        if connected == 0 || errno == EAGAIN { throw .inUse(path) }
        guard errno == ECONNREFUSED else { return }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(.last("unlink(\(path))")) }
    }

    deinit { close() }
}
