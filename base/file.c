#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

wd_status wd_read_file(wd_ctx *ctx, const char *path, const char *shown, size_t max, uint8_t **out,
                       size_t *size, wd_error *err)
{
    *out = NULL;
    *size = 0;
    if (shown == NULL)
        shown = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return wd_fail(err, WD_ERR_IO, 0, "%s: cannot open: %s", shown, strerror(errno));
    /* A regular file is read into a buffer of its size and one byte more (where the next
     * read finds the end), in one read, without stdio's buffer or a buffer that grows
     * (tx-kernel's 0.26 MB took 3 reallocs: 86 K instructions of its `run`). A pipe, or a
     * file that grows meanwhile, takes doublings. */
    struct stat sb;
    size_t cap = 65536, len = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 && (uint64_t)sb.st_size < max)
        cap = (size_t)sb.st_size + 1;
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
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot read: %s", shown, strerror(errno));
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
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
