// libdispatch, under Swift's concurrency runtime, gives each worker thread the nice value of its
// queue's QoS class (background 10, utility 2, default 0, user-initiated -2, user-interactive -4)
// with setpriority(PRIO_PROCESS, 0, n), and logs every refusal through syslog as "Failed to set
// thread priority for worker thread". apsiod's unit refuses it on purpose: its
// SystemCallFilter=~@resources fails the call with EPERM, and without CAP_SYS_NICE a thread may
// not raise its priority (EACCES). The refusal is harmless (the thread keeps the unit's Nice=,
// which is the priority the operator chose for the daemon), but the line lands in the journal as
// apsiod's, every few seconds, and reads as a fault. This definition, linked into apsiod, takes
// the place of glibc's (the executable's symbol interposes, statically and dynamically linked
// libdispatch alike): it makes the same system call, and a refusal for the calling thread reads
// as success, since keeping the thread's priority is what the sandbox asks for. Any other
// request, or any other error, is returned as glibc would.
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int setpriority(__priority_which_t which, id_t who, int prio) {
    int saved = errno;
    if (syscall(SYS_setpriority, (int)which, who, prio) == 0) return 0;
    if (which == PRIO_PROCESS && who == 0 && (errno == EPERM || errno == EACCES)) {
        errno = saved;
        return 0;
    }
    return -1;
}
