/* reader.c: the out-of-line cases of reader.h: LEB128 numbers longer than one byte.
 *
 * When the longest encoding of the width fits before the end (nearly always), the bytes
 * are read without a bound check each (unrolled for 32 bits, the common width; the first
 * 8 bytes of a 64-bit one as one word); near the end, a checked loop reports "unexpected
 * end" at the missing byte. All apply the same rules to the last byte, and leave `pos` past
 * the bytes read, as reading byte by byte does. */
#include "decode/reader.h"

#include <string.h>

static wd_status too_long(wd_reader *r, size_t start)
{
    return wd_fail(r->err, WD_ERR_MALFORMED, start, "integer representation too long");
}

static wd_status too_large(wd_reader *r, size_t start)
{
    return wd_fail(r->err, WD_ERR_MALFORMED, start, "integer too large");
}

/* The last byte a number may take, at `shift`: no continuation, and the bits past the
 * width zero (unsigned) or copies of the sign bit (signed). */
WD_INLINE wd_status check_last(wd_reader *r, size_t start, unsigned bits, unsigned shift, uint8_t b,
                               bool is_signed)
{
    if (b & 0x80)
        return too_long(r, start);
    unsigned used = bits - shift; /* 1..7 significant bits in this byte */
    if (used < 7) {
        unsigned unused = 0x7Fu & ~((1u << used) - 1u);
        unsigned sign = is_signed ? ((unsigned)b >> (used - 1)) & 1u : 0u;
        if ((b & unused) != (sign ? unused : 0u))
            return too_large(r, start);
    }
    return WD_OK;
}

/* A 32-bit number (5 bytes at most) whose 5 bytes lie before the end: byte by byte
 * without bound checks (fewer instructions than a loop or a word-at-a-time decoding). */
WD_INLINE wd_status read32_unchecked(wd_reader *r, bool is_signed, uint64_t *out)
{
    size_t start = r->pos;
    const uint8_t *p = r->base + start;
    uint64_t v = p[0] & 0x7Fu;
    unsigned n = 1;
    if (p[0] & 0x80) {
        v |= (uint64_t)(p[1] & 0x7Fu) << 7;
        n = 2;
        if (p[1] & 0x80) {
            v |= (uint64_t)(p[2] & 0x7Fu) << 14;
            n = 3;
            if (p[2] & 0x80) {
                v |= (uint64_t)(p[3] & 0x7Fu) << 21;
                n = 4;
                if (p[3] & 0x80) {
                    r->pos = start + 5;
                    WD_TRY(check_last(r, start, 32, 28, p[4], is_signed));
                    v |= (uint64_t)(p[4] & 0x7Fu) << 28;
                    n = 5;
                }
            }
        }
    }
    r->pos = start + n;
    if (is_signed && (p[n - 1] & 0x40)) /* the last byte's bit 6: the sign */
        v |= ~(uint64_t)0 << (7 * n);
    *out = v;
    return WD_OK;
}

/* The 8 bytes at p as a little-endian word. */
static inline uint64_t load64le(const uint8_t *p)
{
    uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w, p, sizeof w);
#else
    for (unsigned i = 0; i < 8; i++)
        w |= (uint64_t)p[i] << (8 * i);
#endif
    return w;
}

/* The index of the lowest set bit of w (not 0). */
static inline unsigned lowest_bit(uint64_t w)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(w);
#else
    unsigned i = 0;
    while (!(w & 1)) {
        w >>= 1;
        i++;
    }
    return i;
#endif
}

/* The 7-bit groups of the low bytes of w (continuation bits clear) packed: 56 bits. */
static inline uint64_t pack7(uint64_t w)
{
    w = (w & 0x007F007F007F007Full) | (w & 0x7F007F007F007F00ull) >> 1;
    w = (w & 0x00003FFF00003FFFull) | (w & 0x3FFF00003FFF0000ull) >> 2;
    return (w & 0x000000000FFFFFFFull) | (w & 0x0FFFFFFF00000000ull) >> 4;
}

/* A 64-bit number whose 10 bytes lie before the end: its first 8 bytes as one word (the
 * i64.const of generated code often takes 9 or 10). */
static wd_status read64_unchecked(wd_reader *r, bool is_signed, uint64_t *out)
{
    size_t start = r->pos;
    const uint8_t *p = r->base + start;
    uint64_t w = load64le(p);
    uint64_t stops = ~w & 0x8080808080808080ull; /* bytes without continuation */
    unsigned n;
    uint64_t v;
    if (stops != 0) {
        n = lowest_bit(stops) / 8 + 1;
        uint64_t keep = n == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;
        v = pack7(w & keep & 0x7F7F7F7F7F7F7F7Full);
    } else {
        v = pack7(w & 0x7F7F7F7F7F7F7F7Full) | (uint64_t)(p[8] & 0x7F) << 56;
        n = 9;
        if (p[8] & 0x80) {
            r->pos = start + 10;
            WD_TRY(check_last(r, start, 64, 63, p[9], is_signed));
            v |= (uint64_t)p[9] << 63;
            n = 10;
        }
    }
    r->pos = start + n;
    if (is_signed && n < 10 && (p[n - 1] & 0x40))
        v |= ~(uint64_t)0 << (7 * n);
    *out = v;
    return WD_OK;
}

/* Any width whose longest encoding lies before the end. */
static wd_status read_unchecked(wd_reader *r, unsigned bits, bool is_signed, uint64_t *out)
{
    const unsigned max = (bits + 6) / 7; /* bytes of the longest encoding */
    size_t start = r->pos;
    const uint8_t *p = r->base + start;
    uint64_t v = 0;
    unsigned i = 0;
    uint8_t b = 0;
    for (; i + 1 < max; i++) {
        b = p[i];
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80))
            break;
    }
    if (i + 1 == max) {
        b = p[i];
        r->pos = start + max;
        WD_TRY(check_last(r, start, bits, 7 * i, b, is_signed));
        v |= (uint64_t)(b & 0x7F) << (7 * i);
    } else {
        r->pos = start + i + 1;
    }
    unsigned shift = 7 * (i + 1);
    if (is_signed && shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    *out = v;
    return WD_OK;
}

/* Near the end: byte by byte, each read checked. */
static wd_status read_checked(wd_reader *r, unsigned bits, bool is_signed, uint64_t *out)
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
            WD_TRY(check_last(r, start, bits, shift, b, is_signed));
            v |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    if (is_signed && shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    *out = v;
    return WD_OK;
}

/* A LEB128 of any length: checked byte by byte near the end, else unchecked. */
static wd_status read_long(wd_reader *r, unsigned bits, bool is_signed, uint64_t *out)
{
    if (r->end - r->pos < (bits + 6) / 7)
        return read_checked(r, bits, is_signed, out);
    if (bits == 32)
        return read32_unchecked(r, is_signed, out);
    if (bits == 64)
        return read64_unchecked(r, is_signed, out);
    return read_unchecked(r, bits, is_signed, out);
}

wd_status wd_read_uleb_long(wd_reader *r, unsigned bits, uint64_t *out)
{
    return read_long(r, bits, false, out);
}

wd_status wd_read_sleb_long(wd_reader *r, unsigned bits, int64_t *out)
{
    uint64_t v = 0;
    WD_TRY(read_long(r, bits, true, &v));
    *out = (int64_t)v;
    return WD_OK;
}
