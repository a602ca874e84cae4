/* reader.h: the bounded byte reader under every binary decoding step (sections, bodies).
 * Every read checks the bound; LEB128 follows the spec's size and range rules. Errors are
 * WD_ERR_MALFORMED with the spec's wording and the offset of the offending byte. */
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

/* Unsigned LEB128 of at most `bits` bits (32 or 64). */
static inline wd_status wd_read_uleb(wd_reader *r, unsigned bits, uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    size_t start = r->pos;
    for (;;) {
        if (r->pos >= r->end)
            return wd_read_eof(r);
        uint8_t b = r->base[r->pos++];
        if (shift + 7 >= bits) {
            /* last byte: no continuation, and unused bits must be zero */
            if (b & 0x80)
                return wd_fail(r->err, WD_ERR_MALFORMED, start,
                               "integer representation too long");
            unsigned used = bits - shift;
            if (used < 7 && (b >> used) != 0)
                return wd_fail(r->err, WD_ERR_MALFORMED, start, "integer too large");
            v |= (uint64_t)b << shift;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *out = v;
    return WD_OK;
}

/* Signed LEB128 of at most `bits` bits (32, 33 or 64). */
static inline wd_status wd_read_sleb(wd_reader *r, unsigned bits, int64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    size_t start = r->pos;
    uint8_t b;
    for (;;) {
        if (r->pos >= r->end)
            return wd_read_eof(r);
        b = r->base[r->pos++];
        if (shift + 7 >= bits) {
            if (b & 0x80)
                return wd_fail(r->err, WD_ERR_MALFORMED, start,
                               "integer representation too long");
            /* the unused high bits must all equal the sign bit */
            unsigned used = bits - shift; /* 1..7 significant bits in this byte */
            if (used < 7) {
                unsigned unused = 0x7Fu & ~((1u << used) - 1u);
                unsigned sign = ((unsigned)b >> (used - 1)) & 1u;
                if ((b & unused) != (sign ? unused : 0u))
                    return wd_fail(r->err, WD_ERR_MALFORMED, start, "integer too large");
            }
            v |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    *out = (int64_t)v;
    return WD_OK;
}

static inline wd_status wd_read_u32(wd_reader *r, uint32_t *out)
{
    uint64_t v = 0;
    WD_TRY(wd_read_uleb(r, 32, &v));
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
