/* reader.h: the bounded byte reader under every binary decoding step (sections, bodies).
 * Every read checks the bound; LEB128 follows the spec's size and range rules. Errors are
 * WD_ERR_MALFORMED with the spec's wording and the offset of the offending byte.
 *
 * Speed: most LEB128 numbers in code are one byte (local indices, small constants, memarg
 * alignments), so the readers test that case inline and call reader.c for longer ones
 * (wd_read_uleb_long, wd_read_sleb_long: any length, the same rules and errors). */
#ifndef WD_DECODE_READER_H
#define WD_DECODE_READER_H

#include "base/error.h"

typedef struct wd_reader {
    const uint8_t *base; /* start of the module: offsets are relative to it */
    size_t pos, end;     /* current position and bound (exclusive) */
    wd_error *err;
} wd_reader;

static inline wd_status wd_read_eof(wd_reader *r)
{
    return wd_fail(r->err, WD_ERR_MALFORMED, r->pos, "unexpected end");
}

static inline wd_status wd_read_u8(wd_reader *r, uint8_t *out)
{
    if (r->pos >= r->end)
        return wd_read_eof(r);
    *out = r->base[r->pos++];
    return WD_OK;
}

/* The general case of wd_read_uleb and wd_read_sleb (reader.c): any length. */
WD_NODISCARD wd_status wd_read_uleb_long(wd_reader *r, unsigned bits, uint64_t *out);
WD_NODISCARD wd_status wd_read_sleb_long(wd_reader *r, unsigned bits, int64_t *out);

/* Unsigned LEB128 of at most `bits` bits (32 or 64). */
static inline wd_status wd_read_uleb(wd_reader *r, unsigned bits, uint64_t *out)
{
    if (WD_LIKELY(r->pos < r->end) && r->base[r->pos] < 0x80) {
        *out = r->base[r->pos++]; /* one byte: 7 bits fit any width */
        return WD_OK;
    }
    return wd_read_uleb_long(r, bits, out);
}

/* Signed LEB128 of at most `bits` bits (32, 33 or 64). */
static inline wd_status wd_read_sleb(wd_reader *r, unsigned bits, int64_t *out)
{
    if (WD_LIKELY(r->pos < r->end) && r->base[r->pos] < 0x80) {
        /* one byte: 7 bits fit any width; bit 6 is the sign */
        *out = (int64_t)(r->base[r->pos++] ^ 0x40u) - 0x40;
        return WD_OK;
    }
    return wd_read_sleb_long(r, bits, out);
}

static inline wd_status wd_read_u32(wd_reader *r, uint32_t *out)
{
    if (WD_LIKELY(r->pos < r->end) && r->base[r->pos] < 0x80) {
        *out = r->base[r->pos++];
        return WD_OK;
    }
    uint64_t v = 0;
    WD_TRY(wd_read_uleb_long(r, 32, &v));
    *out = (uint32_t)v;
    return WD_OK;
}

static inline wd_status wd_read_bytes(wd_reader *r, size_t n, const uint8_t **out)
{
    if (n > r->end - r->pos)
        return wd_fail(r->err, WD_ERR_MALFORMED, r->pos, "unexpected end");
    *out = r->base + r->pos;
    r->pos += n;
    return WD_OK;
}

#endif
