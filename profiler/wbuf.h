/* wbuf.h: a buffered writer for the profile's files and its summary (profiler/ and
 * cli/profhook.c). The outputs hold one line or event per call-tree node, so they are
 * written without printf: numbers are formatted straight into the buffer (wp_u64), fixed
 * text is copied with known lengths (WB_LIT, WP_LIT), and full buffers go to the file in
 * one write each (the FILE is best left unbuffered: see wd_prof_write_files). */
#ifndef WD_PROFILER_WBUF_H
#define WD_PROFILER_WBUF_H

#include <stdio.h>
#include <string.h>

#include "base/base.h"

typedef struct wbuf {
    FILE *f;
    size_t n;
    bool failed;
    char b[1 << 16];
} wbuf;

static inline void wb_init(wbuf *w, FILE *f)
{
    w->f = f;
    w->n = 0;
    w->failed = false;
}

static inline void wb_flush(wbuf *w)
{
    if (w->n != 0 && fwrite(w->b, 1, w->n, w->f) != w->n)
        w->failed = true;
    w->n = 0;
}

static inline void wb_bytes(wbuf *w, const char *s, size_t n)
{
    if (WD_UNLIKELY(n > sizeof w->b - w->n)) {
        wb_flush(w);
        if (n > sizeof w->b) {
            if (fwrite(s, 1, n, w->f) != n)
                w->failed = true;
            return;
        }
    }
    memcpy(w->b + w->n, s, n);
    w->n += n;
}

static inline void wb_str(wbuf *w, const char *s)
{
    wb_bytes(w, s, strlen(s));
}

/* A string literal, its length known at compile time. */
#define WB_LIT(w, lit) wb_bytes((w), (lit), sizeof(lit) - 1)

static inline void wb_char(wbuf *w, char c)
{
    if (WD_UNLIKELY(w->n == sizeof w->b))
        wb_flush(w);
    w->b[w->n++] = c;
}

/* Direct writing: wb_reserve returns room for n bytes (n <= sizeof b), the caller fills it
 * with the wp_ helpers and hands back the end with wb_commit. */
static inline char *wb_reserve(wbuf *w, size_t n)
{
    if (WD_UNLIKELY(n > sizeof w->b - w->n))
        wb_flush(w);
    return w->b + w->n;
}

static inline void wb_commit(wbuf *w, char *end)
{
    w->n = (size_t)(end - w->b);
}

#define WP_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* "0000" "0001" ... "9999": four digits per entry, and the number of digits of each entry
 * without leading zeros (output.c). */
extern const char wd_prof_digits4[40000];
extern const uint8_t wd_prof_len4[10000];

/* Numbers are written four digits at a time, straight where they belong: wp_ functions
 * write at p and return the end, and may write up to 3 bytes past it (scratch bytes that
 * what follows overwrites): callers reserve room for them. */

/* v < 10000, without leading zeros. */
static inline char *wp_head(char *p, uint32_t v)
{
    unsigned k = wd_prof_len4[v];
    memcpy(p, wd_prof_digits4 + 4 * v + 4 - k, 4);
    return p + k;
}

/* v < 10000, as four digits. */
static inline char *wp_four(char *p, uint32_t v)
{
    memcpy(p, wd_prof_digits4 + 4 * v, 4);
    return p + 4;
}

/* At most 10 digits (and 3 scratch bytes). */
static inline char *wp_u32(char *p, uint32_t v)
{
    if (v < 10000)
        return wp_head(p, v);
    if (v < 100000000) {
        uint32_t hi = v / 10000;
        return wp_four(wp_head(p, hi), v - hi * 10000);
    }
    uint32_t hi = v / 100000000, rest = v - hi * 100000000, mid = rest / 10000;
    return wp_four(wp_four(wp_head(p, hi), mid), rest - mid * 10000);
}

/* Above UINT32_MAX (output.c). */
char *wd_prof_put_u64_big(char *p, uint64_t v);

/* At most 20 digits (and 3 scratch bytes). */
static inline char *wp_u64(char *p, uint64_t v)
{
    if (WD_LIKELY(v <= UINT32_MAX))
        return wp_u32(p, (uint32_t)v);
    return wd_prof_put_u64_big(p, v);
}

static inline char *wp_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return wp_u64(p, 0 - (uint64_t)v);
    }
    return wp_u64(p, (uint64_t)v);
}

/* Writes v in decimal. */
static inline void wb_u64(wbuf *w, uint64_t v)
{
    wb_commit(w, wp_u64(wb_reserve(w, 24), v));
}

static inline void wb_i64(wbuf *w, int64_t v)
{
    wb_commit(w, wp_i64(wb_reserve(w, 24), v));
}

/* Whether byte c needs escaping in a JSON string. */
static inline bool wb_json_special(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* A JSON string, quotes included (s is UTF-8). */
static inline void wb_json(wbuf *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    wb_char(w, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!wb_json_special(c))
            continue;
        wb_bytes(w, run, (size_t)(s - run));
        char e[6] = {'\\', (char)c, 0, 0, 0, 0};
        if (c < 0x20) {
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            wb_bytes(w, e, 6);
        } else {
            wb_bytes(w, e, 2);
        }
        run = s + 1;
    }
    wb_bytes(w, run, (size_t)(s - run));
    wb_char(w, '"');
}

#endif
