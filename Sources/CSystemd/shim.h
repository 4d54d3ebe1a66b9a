#ifndef APSIO_CSYSTEMD_SHIM_H
#define APSIO_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#endif
