/* validate_priv.h: internals of body validation, shared by decode/validate.c (decoding
 * of instructions, the binary-format scan, the entry point) and decode/translate.c (typing
 * and translation), and a debugging dump of translated code. */
#ifndef WD_DECODE_VALIDATE_PRIV_H
#define WD_DECODE_VALIDATE_PRIV_H

#include "decode/decode.h"
/* reader.h's wd_read_sleb trips GCC's -Wsign-conversion under -fsanitize=undefined;
 * silenced for that header only, as in decode.c. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif
#include "decode/reader.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <stdio.h>

enum { WD_BT_EMPTY, WD_BT_VALUE, WD_BT_INDEX };

/* The immediates of one instruction. */
typedef struct wd_body_imm {
    uint32_t op;     /* WD_OP_* */
    uint32_t x, y;   /* indices (see decode_imm in validate.c for which is which) */
    uint32_t align;  /* memarg */
    uint32_t count;  /* br_table: labels before the default (in labels); select t*: types */
    uint64_t value;  /* constant bits, memarg offset */
    uint8_t bt_kind; /* block type: WD_BT_*, with vt or x */
    uint8_t vt;      /* value type: block type, select t*, ref.null */
} wd_body_imm;

/* The instruction decoder of one body: `r` bounded by the body's end. */
typedef struct wd_body_dec {
    wd_reader r;
    const wd_module *m;
    wd_ctx *ctx;
    size_t module_size;
    uint32_t *labels; /* br_table targets; owned, wd_free'd by whoever set up the decoder */
    uint32_t label_cap;
} wd_body_dec;

/* Decodes the next instruction and its immediates (binary-format errors only:
 * WD_ERR_MALFORMED with the spec's wording, WD_ERR_NOMEM). */
WD_NODISCARD wd_status wd_validate_decode_insn(wd_body_dec *d, wd_body_imm *im);

/* The immediates of wd_validate_decode_insn one at a time, for the translator's own
 * decoding of common instructions (the same rules and errors): a memarg (*offset its
 * offset), a block type (bt_kind with vt or x). */
WD_NODISCARD wd_status wd_validate_read_memarg(wd_reader *r, uint32_t *align, uint32_t *offset);
WD_NODISCARD wd_status wd_validate_read_blocktype(wd_reader *r, wd_body_imm *im);

/* Skips the local declarations at the start of a body. */
WD_NODISCARD wd_status wd_validate_skip_locals(wd_reader *r);

/* The error for a body that ends with control frames still open. */
WD_NODISCARD wd_status wd_validate_missing_end(wd_body_dec *d);

/* What translate.c keeps from one body of a module to the next: tables built once from
 * the options (costs by opcode, ...) and scratch buffers. */
typedef struct wd_translator wd_translator;

/* A translator for bodies decoded with `opts` (borrowed, with its costs, for the
 * translator's life), meant for the bodies of one module (another one resets its cache of
 * checked types); NULL when out of memory. */
wd_translator *wd_translator_new(wd_ctx *ctx, const wd_decode_opts *opts);
/* NULL is a no-op. */
void wd_translator_free(wd_translator *t);
/* The code goes into `a` (on the translator's context) instead of the module's arena:
 * translators on threads of their own each have one (bodies.c). */
void wd_translator_set_arena(wd_translator *t, wd_arena *a);
/* The context the translator allocates from. */
wd_ctx *wd_translator_ctx(const wd_translator *t);

/* Validates and translates the body of function `func_idx`, `d` positioned at its start;
 * on success stores the code in the module (translate.c). */
WD_NODISCARD wd_status wd_translate_func(wd_translator *t, wd_module *m, uint32_t func_idx,
                                         wd_body_dec *d, wd_error *err);

/* wd_validate_func (validate.h) with translator t, made with the decoding options: bodies.c
 * keeps one per thread for all the bodies of a module. */
WD_NODISCARD wd_status wd_validate_func_with(wd_translator *t, wd_module *m, uint32_t func_idx,
                                             const uint8_t *bytes, size_t size, wd_error *err);

/* Validates and translates every body of `m` (bodies.c), on threads of their own (see
 * wd_decode_opts.threads) when `ctx` allows (wd_ctx_forkable). The error, in `err` (not
 * NULL, clear on entry), is that of the lowest function that fails, as if the bodies were
 * translated one after the other. */
WD_NODISCARD wd_status wd_translate_bodies(wd_module *m, wd_ctx *ctx, const uint8_t *bytes,
                                           size_t size, const wd_decode_opts *opts,
                                           wd_error *err);

/* Prints `c` as text, one instruction a line: index, name, operands, static cost and the
 * module offset of the source instruction. For debugging; `out` is borrowed. */
void wd_code_dump(FILE *out, const wd_code *c);

#endif
