#ifndef APSIO_CLINUX_SHIM_H
#define APSIO_CLINUX_SHIM_H
// Linux interfaces of glibc that Swift's Glibc module does not bring in.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/socket.h>

// accept4(2) is declared by glibc only under _GNU_SOURCE, which Swift's Glibc module is built
// without; declared here as glibc declares it, so that a connection is close-on-exec from its
// first instant (accept and then fcntl would leave a window for a fork to inherit it).
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
#endif
