#ifndef APSIO_CZSTD_SHIM_H
#define APSIO_CZSTD_SHIM_H
// Zstandard (RFC 8878): whole request bodies compressed in one call, and bodies received
// decompressed as a stream, so that a cap stops what they expand to. zstd_errors.h names the
// error a frame asking for too large a window gets, which the reader tells apart.
#include <zstd.h>
#include <zstd_errors.h>
#endif
