/* link_private.h: what link.c, runtime.c and eval/ share beyond the public headers.
 * Not part of the API. */
#ifndef WD_LINK_LINK_PRIVATE_H
#define WD_LINK_LINK_PRIVATE_H

#include "link/runtime.h"

/* Memories and tables the store allocates carry bookkeeping the public structs do not
 * show; wd_memory_grow and wd_table_grow rely on it, so every memory and table must come
 * from a store (wd_store_memory, wd_store_table, or instantiation). */

/* A new, zeroed instance owned by the store (runtime.c). */
WD_NODISCARD wd_status wd_store_new_instance(wd_store *s, wd_instance **out, wd_error *err);
wd_ctx *wd_store_ctx(const wd_store *s);

/* Evaluates constant expression `e` of `inst`'s module: the globals and functions it names
 * must be set up. out[1] is the high half of a v128, zero otherwise (link.c). */
void wd_link_const_eval(const wd_instance *inst, const wd_constexpr *e, wd_val out[2]);

#endif
