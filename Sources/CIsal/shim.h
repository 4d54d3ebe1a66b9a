#ifndef APSIO_CISAL_SHIM_H
#define APSIO_CISAL_SHIM_H
// One-shot gzip compression of a whole body in memory by ISA-L's igzip: several times faster than
// zlib or libdeflate at their fastest levels, for a comparable output on JSON log batches.
#include <stdint.h>
#include <isa-l/igzip_lib.h>

// The level buffer ISA-L suggests for each of its levels. The sizes are macros Swift cannot
// import (they are sums of other macros).
static inline uint32_t apsio_isal_level_buffer_size(int level) {
    switch (level) {
    case 0: return ISAL_DEF_LVL0_DEFAULT;
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    default: return ISAL_DEF_LVL3_DEFAULT;
    }
}

// One gzip member (RFC 1952) holding `input`, written into `output`. Returns COMP_OK and sets
// `*written`, or ISA-L's error: STATELESS_OVERFLOW when `capacity` is too small.
static inline int apsio_isal_gzip(struct isal_zstream *stream, uint8_t *level_buffer, uint32_t level_buffer_size,
                                  int level, const uint8_t *input, uint32_t count, uint8_t *output,
                                  uint32_t capacity, uint32_t *written) {
    isal_deflate_stateless_init(stream);
    stream->gzip_flag = IGZIP_GZIP;
    stream->level = (uint32_t)level;
    stream->level_buf = level_buffer;
    stream->level_buf_size = level_buffer_size;
    stream->end_of_stream = 1;
    stream->flush = NO_FLUSH;
    // ISA-L reads no byte of an empty input but its type wants a pointer.
    stream->next_in = (uint8_t *)input;
    stream->avail_in = count;
    stream->next_out = output;
    stream->avail_out = capacity;
    int code = isal_deflate_stateless(stream);
    *written = stream->total_out;
    return code;
}
#endif
