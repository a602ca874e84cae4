/* symbols.h: symbol names for display: UTF-8 clean-up and demangling (Rust legacy `_ZN...E`
 * with its hash, Rust v0 `_R...`, C++ `_Z...`) with libiberty's demangler. */
#ifndef WD_PROFILER_SYMBOLS_H
#define WD_PROFILER_SYMBOLS_H

#include "base/alloc.h"

/* A NUL-terminated copy of s[0..size) that is valid UTF-8: bytes that are not (and NULs)
 * become `\xNN`. NULL on OOM. */
char *wd_sym_clean(wd_ctx *ctx, const char *s, size_t size);

/* The demangled form of `raw`, or NULL when it is not a mangled name (or on OOM). Rust
 * legacy names lose their `::h<hash>` suffix. The result is a display name: control
 * characters are replaced. */
char *wd_sym_demangle(wd_ctx *ctx, const char *raw);

/* A display-safe copy of `s` (control characters become `?`; a `;` stays: only folded
 * stacks, where it separates frames, write it as `:`); NULL on OOM. */
char *wd_sym_display(wd_ctx *ctx, const char *s);

#endif
