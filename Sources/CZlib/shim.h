#ifndef APSIO_CZLIB_SHIM_H
#define APSIO_CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2/inflateInit2 are macros that Swift cannot import.
static inline int apsio_deflate_init_gzip(z_streamp stream, int level) {
    // windowBits 15 + 16 selects the gzip wrapper; memLevel 8 is zlib's default.
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int apsio_inflate_init_gzip(z_streamp stream) {
    // 15 + 16: gzip only; a raw or zlib-wrapped stream is an error, not guessed.
    return inflateInit2(stream, 15 + 16);
}
#endif
