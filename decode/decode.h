/* decode.h: bytes -> a validated module with translated code. */
#ifndef WD_DECODE_DECODE_H
#define WD_DECODE_DECODE_H

#include "base/costs.h"
#include "base/error.h"
#include "decode/module.h"

typedef struct wd_decode_opts {
    const wd_costs *costs; /* required: the tick model summed into block charges */
    bool pvm;              /* PVM mode: reject f32/f64 types and instructions */
    bool no_fuse;          /* keep one internal instruction per WebAssembly instruction
                              (no peephole fusion; code.h): finer single steps, same ticks */
    uint32_t threads;      /* threads translating the bodies: 0 as many as the CPUs (up to 4)
                              for a code section of 64 KiB or more, else 1; N >= 1: N */
    bool bytes_kept;       /* the caller keeps `bytes` unchanged until wd_module_free: data
                              segments point into them instead of being copied */
} wd_decode_opts;

/* Decodes and validates `bytes` (borrowed; the module keeps copies of what it needs, its
 * data segments' bytes too unless opts->bytes_kept) and translates every function body.
 * Errors: WD_ERR_MALFORMED, WD_ERR_INVALID (err->offset is the byte offset, err->func_idx
 * the function when in a body), WD_ERR_NOMEM.
 * On success *out is a module owned by the caller (wd_module_free). */
WD_NODISCARD wd_status wd_decode_module(wd_ctx *ctx, const uint8_t *bytes, size_t size,
                                        const wd_decode_opts *opts, wd_module **out,
                                        wd_error *err);

/* Frees a module; NULL is a no-op. */
void wd_module_free(wd_module *m);

#endif
