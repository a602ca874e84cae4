/* tickmodel.h: the built-in tick models, the retired ones, and the JSON loader for model
 * files.
 *
 * A model file (see docs/ticks.md, "What a model file may change"):
 *   {"name": "my-model", "base": "pvm",
 *    "costs": {"i32.add": 3, "call_indirect": 5, "bulk_per_byte": 2}}
 * `name` (at most 31 bytes; default: the file name without directory and extension; not a
 * retired model's), `base` (a built-in model the costs start from; default "pvm"), `costs`:
 * instruction names exactly as decode/ops.def spells them ("select" sets both encodings)
 * and the dynamic costs of wd_costs (base/costs.h): bulk_per_byte, bulk_copy_per_byte,
 * bulk_per_elem, bulk_copy_per_elem, grow_per_page, host_per_byte, host_per_access; each a
 * non-negative integer < 2^32. The structural costs (label_step ... final_step, the phase
 * costs) are the base model's rules: a file that sets one is refused. `description` (a
 * string) is allowed and ignored. */
#ifndef WD_VM_TICKMODEL_H
#define WD_VM_TICKMODEL_H

#include "base/costs.h"
#include "base/error.h"

/* The built-in model `name` ("flat-1"), or NULL when there is none. The returned table is
 * static and lives for the whole program. */
const wd_costs *wd_tickmodel_builtin(const char *name);

/* When `name` is a retired model, one wasmdbg had and no longer has, why, as words that
 * follow its name: "was an approximation of the PVM's ticks that wasmdbg no longer has; the
 * default model, pvm, counts exactly as the Octez PVM does" for pvm-2.0; else NULL (also
 * for NULL). Figures recorded under a retired model (budgets, profiles, traces) count ticks
 * unlike any model now: every reader of a recorded model name asks this and refuses them.
 * The returned text is static. */
const char *wd_tickmodel_retired(const char *name);

/* Loads the model file at `path` into *out (cleared first; set only on success).
 * Errors: WD_ERR_IO (cannot read), WD_ERR_USAGE for bad content, with a message naming
 * the file and line: "model.json:4: unknown cost name \"i32.addd\"", "model.json:5: cost
 * \"label_step\" is structural: fixed by the base model's rules (pvm), not by a file", a
 * retired base or name, a JSON syntax error as "model.json:3:7: <jansson's text>";
 * WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_tickmodel_load(const char *path, wd_costs *out, wd_error *err);

/* A built-in model when `name_or_path` names one, else the model file at that path.
 * A retired model's name is WD_ERR_USAGE: "tick model pvm-2.0 was an approximation ...". */
WD_NODISCARD wd_status wd_tickmodel_get(const char *name_or_path, wd_costs *out, wd_error *err);

/* The number of cost names a model file may set, and the i-th of them (for help texts
 * and tests). Instruction names come first, in ops.def order, without duplicates, then the
 * dynamic costs; no structural cost is among them. */
uint32_t wd_tickmodel_name_count(void);
const char *wd_tickmodel_name(uint32_t i);

#endif
