// apsiod's own setpriority(2), which takes glibc's place for the Swift runtime's libdispatch: see
// thread_priority.c. Nothing here to call from Swift; linking the target is the point.
#ifndef APSIO_THREAD_PRIORITY_H
#define APSIO_THREAD_PRIORITY_H
#endif
