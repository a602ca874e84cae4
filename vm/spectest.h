/* spectest.h: the `spectest` host module the spec test scripts import from, shared by the
 * spec test runner and `wasmdbg invoke`:
 *   print, print_i32, print_i64, print_f32, print_f64, print_i32_f32, print_f64_f64
 *     (functions of those parameter types that do nothing and return nothing),
 *   global_i32 = 666, global_i64 = 666, global_f32 = 666.6, global_f64 = 666.6 (immutable),
 *   table (funcref, 10 min, 20 max), memory (1 page min, 2 max). */
#ifndef WD_VM_SPECTEST_H
#define WD_VM_SPECTEST_H

#include "link/link.h"

enum { WD_SPECTEST_ITEMS = 13 };

typedef struct wd_spectest {
    const char *names[WD_SPECTEST_ITEMS];
    wd_extern items[WD_SPECTEST_ITEMS];
} wd_spectest;

/* Creates the spectest objects in `s` (which owns them) and fills *out. Errors: NOMEM. */
WD_NODISCARD wd_status wd_spectest_init(wd_spectest *out, wd_store *s, wd_error *err);

/* The item called `name` (`size` bytes, may contain NUL), or false. */
bool wd_spectest_lookup(const wd_spectest *st, const char *name, size_t size, wd_extern *out);

/* A wd_resolver (link/link.h) for modules that import only from "spectest": `ud` is a
 * wd_spectest. Anything else is WD_ERR_UNLINKABLE "unknown import". */
WD_NODISCARD wd_status wd_spectest_resolve(void *ud, const wd_import *imp, wd_extern *out,
                                           wd_error *err);

#endif
