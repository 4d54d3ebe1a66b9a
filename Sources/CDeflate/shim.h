#ifndef APSIO_CDEFLATE_SHIM_H
#define APSIO_CDEFLATE_SHIM_H
// One-shot gzip compression of a whole body in memory: faster than zlib and a smaller output at
// the same level, as libdeflate never has to stop for a streaming buffer.
#include <libdeflate.h>
#endif
