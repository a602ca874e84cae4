/* symbols.c: UTF-8 clean-up and demangling. The demangler is libiberty's (Debian's
 * libiberty-dev, the one binutils and GDB use), which knows Rust legacy and v0 and C++. */
#include "profiler/symbols.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s[0..n), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return c != 0;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

char *wd_sym_clean(wd_ctx *ctx, const char *s, size_t size)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t ascii = 0;
    while (ascii < size && u[ascii] - 1u < 0x7Fu) /* 1 to 0x7F: kept as they are */
        ascii++;
    if (ascii == size)
        return wd_strndup(ctx, s, size);
    size_t out = 0;
    for (size_t i = 0; i < size;) {
        size_t k = utf8_seq(u + i, size - i);
        out += k ? k : 4;
        i += k ? k : 1;
    }
    char *r = wd_alloc(ctx, out + 1);
    if (r == NULL)
        return NULL;
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < size;) {
        size_t k = utf8_seq(u + i, size - i);
        if (k != 0) {
            memcpy(r + o, u + i, k);
            o += k;
            i += k;
        } else {
            r[o++] = '\\';
            r[o++] = 'x';
            r[o++] = hex[u[i] >> 4];
            r[o++] = hex[u[i] & 15];
            i++;
        }
    }
    r[o] = '\0';
    return r;
}

char *wd_sym_display(wd_ctx *ctx, const char *s)
{
    size_t n = strlen(s);
    char *r = wd_strndup(ctx, s, n);
    if (r == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)r[i];
        if (c < 0x20 || c == 0x7F)
            r[i] = '?';
    }
    return r;
}

char *wd_sym_demangle(wd_ctx *ctx, const char *raw)
{
    /* Only names that look mangled: the demangler would also accept some plain words. */
    if (!(raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R')) &&
        !(raw[0] == '_' && raw[1] == '_' && raw[2] == 'Z'))
        return NULL;
    char *d = cplus_demangle(raw, DMGL_AUTO | DMGL_PARAMS | DMGL_ANSI);
    if (d == NULL)
        return NULL;
    char *r = wd_sym_display(ctx, d);
    free(d); /* the demangler's own allocation */
    return r;
}
