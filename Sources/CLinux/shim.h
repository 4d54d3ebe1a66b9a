#ifndef APSIO_CLINUX_SHIM_H
#define APSIO_CLINUX_SHIM_H
// Linux interfaces of glibc that Swift's Glibc module does not bring in.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#endif
