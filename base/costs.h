/* costs.h: a tick model as plain data. vm/ owns the built-in models and the JSON loader;
 * decode/ sums the static costs into each basic block's charge; eval/ applies the dynamic
 * parts (bytes copied, pages grown, host I/O). No layer includes one above it for costs. */
#ifndef WD_BASE_COSTS_H
#define WD_BASE_COSTS_H

#include "base/base.h"

/* Static per-instruction costs are indexed by binary opcode:
 * [0, 256) single-byte opcodes, [256, 288) 0xFC sub-opcodes, [288, 544) 0xFD sub-opcodes. */
#define WD_COST_FC_BASE 256u
#define WD_COST_FD_BASE 288u
#define WD_COST_OPS     544u

static inline uint32_t wd_cost_index(uint32_t prefix, uint32_t code)
{
    if (prefix == 0xFC)
        return code < 32 ? WD_COST_FC_BASE + code : WD_COST_OPS;
    if (prefix == 0xFD)
        return code < 256 ? WD_COST_FD_BASE + code : WD_COST_OPS;
    return code < 256 ? code : WD_COST_OPS;
}

typedef struct wd_costs {
    char name[32];            /* recorded in every profile, trace and budget */
    uint32_t op[WD_COST_OPS]; /* static cost of each instruction as written */

    /* Structural costs: the PVM's admin steps around control flow (docs/ticks.md). The
     * translator charges each where the control flow decides it: a block's end, a branch
     * edge, a call site, a function's end, the instruction after a call. */
    uint32_t label_step;   /* one admin step of a label (From_block at a list's end, Breaking
                            * past a label, the br that br_if/br_table queue, a loop's re-run,
                            * Returning, Trapping, a frame's last label ending) */
    uint32_t concat;       /* a label's values joined to its outer label's, plus per value: */
    uint32_t per_value;    /*   per value carried (a block's results, a branch's, a return's) */
    uint32_t per_outer;    /*   per value already in the label they join (H) */
    uint32_t frame_return; /* a frame's values handed to its caller (plus per value, per outer) */
    uint32_t call_entry;   /* a wasm function's invoke, once */
    uint32_t call_per_param; /* ... per parameter */
    uint32_t call_per_local; /* ... per declared local */
    uint32_t call_open;    /* of a call instruction's cost, the part after which the reference
                            * profiler opens the callee's node (the rest is the caller's) */
    uint32_t host_entry;   /* a host function's invoke up to its countdown's end (then h, then
                            * frame_return) */
    uint32_t final_step;   /* the last frame's result or trap becomes the configuration's */

    /* Dynamic costs, charged by eval when the operand is known (n > 0 only). */
    uint32_t bulk_per_byte;  /* memory.fill / memory.init, per byte */
    uint32_t bulk_copy_per_byte; /* memory.copy, per byte */
    uint32_t bulk_per_elem;  /* table.fill / table.init, per element */
    uint32_t bulk_copy_per_elem; /* table.copy, per element */
    uint32_t grow_per_page;  /* memory.grow, per page requested */
    uint32_t host_per_byte;  /* host functions, per byte moved across linear memory */
    uint32_t host_per_access; /* host functions, per durable storage access */

    /* Phases (vm/). With pvm_phases, decode, link and init cost the PVM's own steps
     * (vm/pvmticks.c); else the per-item costs below. */
    bool pvm_phases;
    uint32_t decode_per_section, decode_per_item, decode_per_insn, decode_per_name_char,
        decode_per_data_byte, decode_per_custom;
    uint32_t link_base, link_per_import;
    uint32_t init_base, init_per_global, init_per_elem, init_per_data_byte;
} wd_costs;

#endif
