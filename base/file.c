#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

wd_status wd_read_file(wd_ctx *ctx, const char *path, const char *shown, size_t max,
                       uint8_t **out, size_t *size, wd_error *err)
{
    *out = NULL;
    *size = 0;
    if (shown == NULL)
        shown = path;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return wd_fail(err, WD_ERR_IO, 0, "%s: cannot open: %s", shown, strerror(errno));
    size_t cap = 65536, len = 0;
    uint8_t *buf = wd_alloc(ctx, cap);
    wd_status st = buf == NULL ? wd_fail(err, WD_ERR_NOMEM, 0, "out of memory") : WD_OK;
    while (st == WD_OK) {
        if (len == cap) {
            if (cap > max) {
                st = wd_fail(err, WD_ERR_IO, 0, "%s: too large (over %zu bytes)", shown, max);
                break;
            }
            uint8_t *bigger = wd_realloc(ctx, buf, cap * 2);
            if (bigger == NULL) {
                st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f))
                st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot read: %s", shown, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (st == WD_OK && len > max)
        st = wd_fail(err, WD_ERR_IO, 0, "%s: too large (over %zu bytes)", shown, max);
    if (st != WD_OK) {
        wd_free(ctx, buf);
        return st;
    }
    *out = buf;
    *size = len;
    return WD_OK;
}
