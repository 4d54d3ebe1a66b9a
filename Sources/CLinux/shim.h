#ifndef APSIO_CLINUX_SHIM_H
#define APSIO_CLINUX_SHIM_H
// Linux interfaces of glibc that Swift's Glibc module does not bring in.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// accept4(2) is declared by glibc only under _GNU_SOURCE, which Swift's Glibc module is built
// without; declared here as glibc declares it, so that a connection is close-on-exec from its
// first instant (accept and then fcntl would leave a window for a fork to inherit it).
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

// pipe2(2), the same: a pipe close-on-exec from its first instant.
extern int pipe2(int fds[2], int flags);

// sched_getaffinity(2) is declared by glibc only under _GNU_SOURCE, like accept4, with a
// cpu_set_t that needs it too: declared here with the mask as bytes. The CPUs this process may
// run on (a cpuset, `taskset`, a container's limit), counted; 0 if the call failed.
extern int sched_getaffinity(int pid, unsigned long size, void *mask);
static inline int apsio_usable_cpus(void) {
    unsigned long mask[16] = {0};  // 1,024 CPUs
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return 0;
    int count = 0;
    for (int index = 0; index < 16; index++) count += __builtin_popcountl(mask[index]);
    return count;
}

// prctl(2) is variadic, which Swift cannot call: one function for each option used, with the
// arguments that option takes.
#include <sys/prctl.h>
static inline int apsio_prctl_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}
#endif
