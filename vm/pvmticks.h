/* pvmticks.h: the Octez WASM PVM's own step counts for the phases around a kernel run's eval
 * (shared/reference/octez-ticks/RULES.md sections 1-5 and 10), for a tick model with
 * `pvm_phases` (base/costs.h). Octez files are paths in tezos/tezos-mirror.
 *
 * A kernel run from its Snapshot tick S (src/lib_scoru_wasm/wasm_vm.ml):
 *
 *   Snapshot -> Decode MKStart            1   outside every phase
 *   decode (Decode.module_step)           D   phase "decode"
 *   Decode MKStop -> Link, imports        1 + I   phase "link"
 *   Link finished -> Init IK_Start, init  1 + N   phase "init"
 *   Init IK_Stop -> Eval, then eval       1 + E   phase "kernel_run" up to its frame's end
 *                                             (Label_result or Label_trapped), then the
 *                                             frame's return, SK_Result, in none
 *   SK_Result / SK_Trapped -> Padding     1
 *
 * so a run's effective ticks are 1 + D + 1 + I + 1 + N + 1 + E + 1. */
#ifndef WD_VM_PVMTICKS_H
#define WD_VM_PVMTICKS_H

#include "base/costs.h"
#include "base/error.h"
#include "decode/module.h"

/* wasm_vm.ml: the transitions between the phases, one tick each. */
enum {
    WD_PVMTICKS_SNAPSHOT = 1, /* Snapshot -> Decode MKStart (initial_boot_state) */
    WD_PVMTICKS_TO_LINK = 1,  /* Decode MKStop -> Link */
    WD_PVMTICKS_TO_INIT = 1,  /* Link finished -> Init IK_Start (link_finished) */
    WD_PVMTICKS_TO_EVAL = 1,  /* Init IK_Stop -> Eval (the config [Invoke kernel_run]) */
};

/* The parts of D reported as `decode:<section>` phases, in this order; a present section
 * (one with items) carries its structural steps and its items', an absent one's structural
 * steps go to WD_PVMTICKS_MODULE with the module's fixed steps. Custom sections (one step
 * each, wherever they are) are reported apart. */
enum {
    WD_PVMTICKS_TYPE,
    WD_PVMTICKS_IMPORT,
    WD_PVMTICKS_FUNCTION,
    WD_PVMTICKS_TABLE,
    WD_PVMTICKS_MEMORY,
    WD_PVMTICKS_GLOBAL,
    WD_PVMTICKS_EXPORT,
    WD_PVMTICKS_START,
    WD_PVMTICKS_ELEMENT,
    WD_PVMTICKS_DATACOUNT,
    WD_PVMTICKS_CODE, /* the bodies and their elaboration (MKElaborateFunc) */
    WD_PVMTICKS_DATA,
    WD_PVMTICKS_MODULE, /* MKStart, absent sections, MKSkipCustom None, elaboration's end,
                           MKBuild */
    WD_PVMTICKS_PARTS
};

/* "decode:type", ..., "decode:module". */
extern const char *const wd_pvmticks_part_names[WD_PVMTICKS_PARTS];

typedef struct wd_pvmticks_decode {
    uint64_t part[WD_PVMTICKS_PARTS];
    uint64_t per_custom; /* each custom section: 1 (MKSkipCustom) */
    uint64_t total;      /* D: the parts plus per_custom per custom section */
} wd_pvmticks_decode;

/* D for module `m` decoded from bytes[0..size) (borrowed; the bodies of functions with a
 * memory.init or data.drop are read again from there, for the elaboration). Errors:
 * WD_ERR_NOMEM; WD_ERR_MALFORMED if `bytes` are not m's. */
WD_NODISCARD wd_status wd_pvmticks_decode_steps(const wd_module *m, const uint8_t *bytes,
                                                size_t size, wd_pvmticks_decode *out,
                                                wd_error *err);

/* The link phase: MKStop -> Link, then one tick per import (1 + I). */
uint64_t wd_pvmticks_link(const wd_module *m);

/* Ticks from the link phase's start to the Stuck state of a Link_error at import j (an
 * unknown module or name): Stuck at S + 3 + D + j. */
uint64_t wd_pvmticks_link_error(uint32_t j);

/* Init (eval.ml init_step), in the order wasmdbg charges it. */
typedef struct wd_pvmticks_init {
    uint64_t before_admin;    /* IK_Start up to the admin eval (join_admin included) */
    uint64_t exports_checked; /* IK_Start up to the step that checks the export of memory 0
                                 (Missing_memory_0_export is raised there) */
    uint64_t segments;        /* the admin eval of the active and declarative segments */
    uint64_t start_call;      /* with a start function: its Plain (Call) admin step; else 0 */
    uint64_t start_return;    /* with a start function: its frame's return into the admin
                                 frame (the interpreter charges its entry, body and end) */
    uint64_t end;             /* Label_result, SK_Result, IK_Eval -> IK_Stop */
    uint64_t total;           /* N, the start function's own ticks excluded */
} wd_pvmticks_init;

/* N for module `m`; `c` gives the admin step and frame return of a start function. */
void wd_pvmticks_init_steps(const wd_module *m, const wd_costs *c, wd_pvmticks_init *out);

/* Ticks from the init phase's start (after MKStop->Link and the imports) to the Stuck
 * state of an import j whose type does not match (add_import, visited right to left). */
uint64_t wd_pvmticks_import_type_error(const wd_module *m, uint32_t j);

/* After kernel_run returns its `results` values (the "return garbage" of RULES.md 6.4
 * aside): the frame's return into the PVM's bottom frame, frame0's label, SK_Result. The
 * reference profiler's kernel_run has ended before these; the step to Padding follows. */
uint64_t wd_pvmticks_result_tail(const wd_costs *c, uint32_t results);

/* After a trap in kernel_run and its Trapping step (the interpreter's, kernel_run's last
 * for the profiler): SK_Trapped; the step to Padding follows. */
uint64_t wd_pvmticks_trapped(const wd_costs *c);

#endif
