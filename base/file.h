/* file.h: reading a whole file through the context allocator. */
#ifndef WD_BASE_FILE_H
#define WD_BASE_FILE_H

#include "base/alloc.h"
#include "base/error.h"

/* Reads the file at `path` into *out (owned: wd_free), its size in *size; `shown` names it
 * in messages (NULL: path). Files over `max` bytes are refused. Errors, with the name:
 * WD_ERR_IO "cannot open: <why>", "cannot read: <why>", "too large (over N bytes)";
 * WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_read_file(wd_ctx *ctx, const char *path, const char *shown, size_t max,
                                    uint8_t **out, size_t *size, wd_error *err);

#endif
