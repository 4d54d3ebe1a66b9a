#if canImport(Glibc)
internal import Glibc
#endif

/// accept4(2) is behind `_GNU_SOURCE`, which Glibc's Swift module does not define; it is declared
/// here by hand because plain accept + fcntl(FD_CLOEXEC) would leave a window in which a fork
/// elsewhere in the process inherits the connection.
@_silgen_name("accept4")
private func systemAccept4(
    _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32
) -> Int32

/// Accepts one connection, close-on-exec and non-blocking from its first instant; -1 and errno as
/// accept4 gives them.
package func acceptConnection(_ listener: Int32) -> Int32 {
    systemAccept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
}
