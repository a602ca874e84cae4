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

/* Appends `len` bytes of the file open on `fd`, from offset `from`, at its current position,
 * the kernel copying them (copy_file_range: no buffer, no page of ours touched). The ranges
 * must not overlap. False when the system cannot (not a regular file, an old kernel) or
 * failed: how much was appended is then unknown, and the caller puts the end back. */
bool wd_file_copy_within(int fd, uint64_t from, uint64_t len);

#endif
