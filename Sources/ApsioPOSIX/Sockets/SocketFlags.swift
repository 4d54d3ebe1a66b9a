// SOCK_CLOEXEC, SOCK_NONBLOCK and SOCK_RAW are enumerators of glibc's __socket_type that Swift's
// Glibc module does not bring into every build (a whole-module build finds them in the first module
// whose headers include <sys/socket.h>, which may be one the file does not import); CLinux's
// <sys/socket.h> has them. Imported in this file alone, so that the socket calls' own types
// (sockaddr, socklen_t) stay Glibc's in their signatures.
internal import CLinux

package enum SocketFlags {
    static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    static let nonBlocking = Int32(SOCK_NONBLOCK.rawValue)
    /// The socket type of a netlink socket (sock_diag).
    package static let raw = Int32(SOCK_RAW.rawValue)
}
