/* tickmodel.h: the built-in tick models and the JSON loader for model files.
 *
 * A model file (see README.md, "Tick model files"):
 *   {"name": "my-model", "base": "flat-1",
 *    "costs": {"i32.add": 3, "call_indirect": 5, "call_per_param": 1, "bulk_per_byte": 2}}
 * `name` (at most 31 bytes; default: the file name without directory and extension),
 * `base` (a built-in model the costs start from; default "flat-1"), `costs`: instruction
 * names exactly as decode/ops.def spells them ("select" sets both encodings) and the
 * structural field names of wd_costs (base/costs.h), each a non-negative integer < 2^32.
 * `description` (a string) is allowed and ignored. */
#ifndef WD_VM_TICKMODEL_H
#define WD_VM_TICKMODEL_H

#include "base/costs.h"
#include "base/error.h"

/* The built-in model `name` ("flat-1"), or NULL when there is none. The returned table is
 * static and lives for the whole program. */
const wd_costs *wd_tickmodel_builtin(const char *name);

/* Loads the model file at `path` into *out (cleared first; set only on success).
 * Errors: WD_ERR_IO (cannot read), WD_ERR_USAGE for bad content, with a message naming
 * the file and line: "model.json:4: unknown cost name \"i32.addd\"", a JSON syntax error
 * as "model.json:3:7: <jansson's text>"; WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_tickmodel_load(const char *path, wd_costs *out, wd_error *err);

/* A built-in model when `name_or_path` names one, else the model file at that path. */
WD_NODISCARD wd_status wd_tickmodel_get(const char *name_or_path, wd_costs *out, wd_error *err);

/* The number of cost names a model file accepts, and the i-th of them (for help texts
 * and tests). Instruction names come first, in ops.def order, without duplicates. */
uint32_t wd_tickmodel_name_count(void);
const char *wd_tickmodel_name(uint32_t i);

#endif
