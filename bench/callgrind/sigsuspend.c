/* Loaded with LD_PRELOAD into a program run under valgrind (bench/callgrind/README.md).
 *
 * libdispatch's signal thread calls sigsuspend() with a mask in read-only memory, and valgrind
 * writes into the mask it is given: the program then dies inside valgrind as it starts its
 * threads. A copy on the stack is what sigsuspend is given instead; nothing else changes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

int sigsuspend(const sigset_t *mask) {
    static int (*real)(const sigset_t *);
    if (!real) real = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    sigset_t copy = *mask;
    return real(&copy);
}
