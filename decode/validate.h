/* validate.h: function-body validation and translation to internal code (code.h). */
#ifndef WD_DECODE_VALIDATE_H
#define WD_DECODE_VALIDATE_H

#include "decode/decode.h"

/* Validates the body of defined function `func_idx` of `m` (its body at
 * m->funcs[func_idx].body_offset in `bytes`, locals already read) against the spec's
 * typing rules and translates it; on success stores the code in m->funcs[func_idx].code
 * (allocated in m->arena). Module-level parts of `m` (types, imports, tables, memories,
 * globals, element and data segment counts, declared_funcs, has_data_count) must be
 * complete. Body-level binary format errors are WD_ERR_MALFORMED ("illegal opcode",
 * "unexpected end", "integer representation too long", ...), typing errors
 * WD_ERR_INVALID with the spec's wording ("type mismatch", "unknown local", ...). */
WD_NODISCARD wd_status wd_validate_func(wd_module *m, uint32_t func_idx, const uint8_t *bytes,
                                        size_t size, const wd_decode_opts *opts, wd_error *err);

#endif
