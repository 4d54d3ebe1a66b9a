// SOCK_CLOEXEC and SOCK_NONBLOCK are enumerators of glibc's __socket_type that Swift's Glibc module
// does not bring into every build (the fuzzers' whole-module build of this module did not find
// them); CLinux's <sys/socket.h> does. Imported in this file alone, so that the socket calls' own
// types (sockaddr, socklen_t) stay Glibc's in their signatures.
internal import CLinux

enum SocketFlags {
    static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    static let nonBlocking = Int32(SOCK_NONBLOCK.rawValue)
}
