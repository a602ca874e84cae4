/* names.h: the `name` custom section and UTF-8 checks, for decode.c (internal to decode/). */
#ifndef WD_DECODE_NAMES_H
#define WD_DECODE_NAMES_H

#include "base/error.h"
#include "decode/module.h"

/* True when `s[0..size)` is well-formed UTF-8 (no overlongs, surrogates or code points
 * above U+10FFFF), as the spec's `name` requires. */
bool wd_utf8_valid(const uint8_t *s, size_t size);

/* Fills m->names from the payload of a `name` custom section (borrowed; the names are
 * copied into m->arena). Needs m's function index space and types complete. Subsections
 * may come in any order; unknown ones are skipped. A malformed subsection is ignored
 * from the point where it goes wrong (custom sections never make a module invalid), so
 * the only error is WD_ERR_NOMEM (recorded in err). `data` may be NULL when m has no
 * name section: the arrays are still allocated, all entries NULL. */
WD_NODISCARD wd_status wd_names_parse(wd_module *m, const uint8_t *data, size_t size,
                                      wd_error *err);

#endif
