/* link.h: import resolution (the link phase) and instantiation (the init phase). */
#ifndef WD_LINK_LINK_H
#define WD_LINK_LINK_H

#include "link/runtime.h"

/* Finds the extern an import names; WD_ERR_UNLINKABLE ("unknown import") when none. */
typedef wd_status (*wd_resolver)(void *ud, const wd_import *imp, wd_extern *out, wd_error *err);

/* Resolves every import of `m` in order through `resolve` into externs[0..import_count)
 * and checks each against its import's type with the spec's matching rules (function
 * types equal; limits and element/value types and mutability as the spec's import
 * subtyping). Errors: WD_ERR_UNLINKABLE "unknown import" / "incompatible import type". */
WD_NODISCARD wd_status wd_link_resolve(const wd_module *m, wd_resolver resolve, void *ud,
                                       wd_extern *externs, wd_error *err);

/* Instantiates `m` with resolved imports: allocates memories, tables and globals,
 * evaluates constant expressions, applies active element then data segments in order
 * (a segment out of bounds traps, WD_TRAP, with what earlier segments wrote kept, as
 * the spec says) and drops active and declarative segments. Does NOT run the start
 * function: the caller invokes instance->funcs[m->start_idx] (eval/) when m->has_start.
 * The instance belongs to the store even when instantiation fails part way (*out is
 * still set then, so shared state stays consistent). */
WD_NODISCARD wd_status wd_link_instantiate(wd_store *s, const wd_module *m,
                                           const wd_extern *externs, wd_instance **out,
                                           wd_error *err);

/* The export named `name`, or false. */
bool wd_instance_export(const wd_instance *inst, const char *name, wd_extern *out);

#endif
