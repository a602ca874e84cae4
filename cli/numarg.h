/* numarg.h: the numbers given to command-line options, parsed by one strict rule: every
 * option that takes a number (--max-depth, --full-limit, --functions, --tolerance's ticks,
 * invoke's --max-ticks, ...) accepts the same spellings and says the same thing about the
 * others. */
#ifndef WD_CLI_NUMARG_H
#define WD_CLI_NUMARG_H

#include "base/error.h"

/* Parses `text`, the value given to `option` (its name, for the message), as a whole number
 * from `min` to `max`: decimal digits only, nothing else (no sign, space, fraction, exponent,
 * suffix or hex prefix: what the option cannot hold is refused, never rounded or cut).
 * Sets *out only on success. Errors: WD_ERR_USAGE, the message naming the option, what it
 * takes and what it got (`--max-depth: expected a whole number from 1 to 4294967295, got
 * 2.5`); the caller reports it as a usage error (exit 2). */
WD_NODISCARD wd_status wd_numarg_u64(const char *option, const char *text, uint64_t min,
                                     uint64_t max, uint64_t *out, wd_error *err);

/* The same for a 32-bit value (max at most UINT32_MAX). */
WD_NODISCARD wd_status wd_numarg_u32(const char *option, const char *text, uint32_t min,
                                     uint32_t max, uint32_t *out, wd_error *err);

#endif
