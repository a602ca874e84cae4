/* base.h: compiler shims and the few macros every layer uses. libc only. */
#ifndef WD_BASE_BASE_H
#define WD_BASE_BASE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define WD_LIKELY(x)      __builtin_expect(!!(x), 1)
#define WD_UNLIKELY(x)    __builtin_expect(!!(x), 0)
#define WD_NOINLINE       __attribute__((noinline))
#define WD_INLINE         static inline __attribute__((always_inline))
#define WD_NODISCARD      __attribute__((warn_unused_result))
#define WD_PRINTF(f, a)   __attribute__((format(printf, f, a)))
#define WD_UNUSED         __attribute__((unused))
#define WD_HAVE_GOTO      1
#else
#define WD_LIKELY(x)      (x)
#define WD_UNLIKELY(x)    (x)
#define WD_NOINLINE
#define WD_INLINE         static inline
#define WD_NODISCARD
#define WD_PRINTF(f, a)
#define WD_UNUSED
#define WD_HAVE_GOTO      0
#endif

/* Computed-goto dispatch where the compiler has it; -DWD_USE_GOTO=0 selects the switch. */
#ifndef WD_USE_GOTO
#define WD_USE_GOTO WD_HAVE_GOTO
#endif

/* Guards invariants that no input can break. A fuzzer that trips one found a bug. */
#define WD_ASSERT(c) assert(c)

#define WD_ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define WD_MIN(a, b)      ((a) < (b) ? (a) : (b))
#define WD_MAX(a, b)      ((a) > (b) ? (a) : (b))

/* The value of hexadecimal digit c (either case), or -1. */
static inline int wd_hex_digit(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes the 2 * n hex digits at hex into n bytes at out; false at the first character
 * that is not a hex digit (out is then partly written). */
static inline bool wd_hex_decode(const char *hex, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi = wd_hex_digit(hex[2 * i]), lo = wd_hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

/* The strings of the NULL-terminated `parts` one after another in out (size > 0), cut to
 * fit and NUL-terminated, as snprintf with "%s%s..." writes them, at a fraction of its
 * cost; returns the length of the whole. */
static inline size_t wd_concat(char *out, size_t size, const char *const *parts)
{
    size_t len = 0;
    for (; *parts != NULL; parts++) {
        size_t n = strlen(*parts);
        if (len < size - 1)
            memcpy(out + len, *parts, WD_MIN(n, size - 1 - len));
        len += n;
    }
    out[WD_MIN(len, size - 1)] = '\0';
    return len;
}

#endif
