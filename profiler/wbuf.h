/* wbuf.h: a buffered writer for the profile's files (private to profiler/). The outputs
 * hold one line or event per call-tree node, so they are written without printf: measured
 * on tx-kernel-no-verif, fprintf was most of the profiling overhead. */
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

static inline void wb_flush(wbuf *w)
{
    if (w->n != 0 && fwrite(w->b, 1, w->n, w->f) != w->n)
        w->failed = true;
    w->n = 0;
}

static inline void wb_bytes(wbuf *w, const char *s, size_t n)
{
    if (n > sizeof w->b - w->n) {
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

static inline void wb_char(wbuf *w, char c)
{
    if (w->n == sizeof w->b)
        wb_flush(w);
    w->b[w->n++] = c;
}



/* Direct writing: wb_reserve returns room for n bytes (n <= sizeof b), the caller fills it
 * with the wp_ helpers and hands back the end with wb_commit. */
static inline char *wb_reserve(wbuf *w, size_t n)
{
    if (n > sizeof w->b - w->n)
        wb_flush(w);
    return w->b + w->n;
}

static inline void wb_commit(wbuf *w, char *end)
{
    w->n = (size_t)(end - w->b);
}

#define WP_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static inline char *wp_u64(char *p, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "62636465666768697071727374757677787980818283848586878889909192"
                                "93949596979899";
    char t[24];
    int k = 24;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100);
        v /= 100;
        t[--k] = pairs[2 * d + 1];
        t[--k] = pairs[2 * d];
    }
    if (v >= 10) {
        t[--k] = pairs[2 * v + 1];
        t[--k] = pairs[2 * v];
    } else {
        t[--k] = (char)('0' + v);
    }
    memcpy(p, t + k, (size_t)(24 - k));
    return p + (24 - k);
}

/* Writes v in decimal (at most 20 digits). */
static inline void wb_u64(wbuf *w, uint64_t v)
{
    wb_commit(w, wp_u64(wb_reserve(w, 24), v));
}

static inline void wb_i64(wbuf *w, int64_t v)
{
    if (v < 0) {
        wb_char(w, '-');
        wb_u64(w, 0 - (uint64_t)v);
    } else {
        wb_u64(w, (uint64_t)v);
    }
}

static inline char *wp_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return wp_u64(p, 0 - (uint64_t)v);
    }
    return wp_u64(p, (uint64_t)v);
}

/* A JSON string, quotes included (s is UTF-8). */
static inline void wb_json(wbuf *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    wb_char(w, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
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
