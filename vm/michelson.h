/* michelson.h: Michelson data expressions, as the reference debugger accepts them in the
 * `payload` of an internal transfer (reference/pvm.md section 3), parsed and encoded in
 * Micheline binary (Octez' Script_repr.expr_encoding).
 *
 * Accepted syntax (Micheline's concrete syntax): integers (any size, optional '-'), strings
 * "..." with the escapes \" \\ \n \t \b \r, bytes 0x..., primitive applications `Prim arg ...`
 * (at the top level and as sequence elements; as an argument inside parentheses) with
 * optional annotations (@a :t %f) right after the name, sequences { a ; b } (empty and a
 * trailing ';' allowed), parentheses, '#' line comments and block comments. Primitive names are
 * Michelson's (Pair, Some, Unit, DROP, nat, ...); their arity is not checked and nothing is
 * rewritten: `Pair 1 2 3` is encoded as the 3-argument primitive it is written as (tag 09), exactly
 * as the reference debugger does (it does not type-check payloads).
 *
 * Encoding: 00 int (zarith), 01 string, 02 sequence, 03..08 primitive with 0/1/2 arguments
 * without/with annotations, 09 primitive with any arguments, 0a bytes; lengths are 4-byte
 * big endian. */
#ifndef WD_VM_MICHELSON_H
#define WD_VM_MICHELSON_H

#include "base/alloc.h"
#include "base/error.h"

/* Deepest nesting accepted (parentheses, sequences and applications). Every level costs at
 * least 2 bytes of encoding, so an inbox message (4,096 bytes) never needs more. */
#define WD_MICHELSON_MAX_DEPTH 2048u

/* Parses src[0..len) as one Michelson data expression and returns its Micheline encoding in
 * *out (owned by the caller: wd_free(ctx, *out)), *out_size bytes; both cleared first and set
 * only on success. Errors (WD_ERR_USAGE): "line L, column C: expected ..." with L and C
 * counted from 1 in `src` (columns in characters) and err->offset = the byte offset in src;
 * WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_michelson_encode(wd_ctx *ctx, const char *src, size_t len, uint8_t **out,
                                           size_t *out_size, wd_error *err);

/* The primitive id of `name` (e.g. "Pair" = 7), or -1 if Michelson has no such primitive. */
int wd_michelson_prim_id(const char *name, size_t len);

/* The name of primitive `id`, or NULL. */
const char *wd_michelson_prim_name(unsigned id);

#endif
