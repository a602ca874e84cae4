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

    /* Structural costs, charged statically by the translator. */
    uint32_t call_per_param;    /* at function entry, per parameter */
    uint32_t call_per_local;    /* at function entry, per declared local */
    uint32_t call_entry;        /* at function entry, once */
    uint32_t return_per_result; /* at return, per result value */
    uint32_t branch_per_value;  /* per value carried by a taken branch or block exit */

    /* Dynamic costs, charged by eval when the operand is known. */
    uint32_t bulk_per_byte;  /* memory.fill / memory.copy / memory.init, per byte */
    uint32_t bulk_per_elem;  /* table.fill / table.copy / table.init, per element */
    uint32_t grow_per_page;  /* memory.grow, per page requested */
    uint32_t host_per_byte;  /* host functions, per byte moved across linear memory */
    uint32_t host_per_access; /* host functions, per durable storage access */

    /* Phase costs (vm/). */
    uint32_t decode_per_section, decode_per_item, decode_per_insn, decode_per_name_char,
        decode_per_data_byte, decode_per_custom;
    uint32_t link_base, link_per_import;
    uint32_t init_base, init_per_global, init_per_elem, init_per_data_byte;
} wd_costs;

#endif
