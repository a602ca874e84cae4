/* numeric.h: WebAssembly 2.0 numerics that are more than one C operator (private to eval/).
 *
 * Integer helpers are exact and free of undefined behaviour for every input. Float helpers
 * work on C floats and doubles, which are IEEE binary32/binary64 on every target we build
 * for (checked below); the build never uses -ffast-math, and -std=c11 keeps GCC from
 * contracting a*b+c into fma. abs, neg and copysign go through the bit patterns so that NaN
 * payloads are untouched, as the spec requires. */
#ifndef WD_EVAL_NUMERIC_H
#define WD_EVAL_NUMERIC_H

#include "base/error.h"

#include <float.h>
#include <math.h>
#include <string.h>

_Static_assert(FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53, "IEEE binary32/binary64 floats needed");

/* ---- bit patterns ---- */

static inline uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float f32_from(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static inline uint64_t f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double f64_from(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ---- integers ---- */

static inline uint32_t clz32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? (uint32_t)__builtin_clz(x) : 32;
#else
    uint32_t n = 0;
    for (uint32_t bit = 1u << 31; bit != 0 && !(x & bit); bit >>= 1)
        n++;
    return n;
#endif
}

static inline uint64_t clz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? (uint64_t)__builtin_clzll(x) : 64;
#else
    uint32_t hi = (uint32_t)(x >> 32);
    return hi ? clz32(hi) : 32 + clz32((uint32_t)x);
#endif
}

static inline uint32_t ctz32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? (uint32_t)__builtin_ctz(x) : 32;
#else
    uint32_t n = 0;
    for (uint32_t bit = 1; bit != 0 && !(x & bit); bit <<= 1)
        n++;
    return n;
#endif
}

static inline uint64_t ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? (uint64_t)__builtin_ctzll(x) : 64;
#else
    uint32_t lo = (uint32_t)x;
    return lo ? ctz32(lo) : 32 + ctz32((uint32_t)(x >> 32));
#endif
}

static inline uint32_t popcnt32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_popcount(x);
#else
    uint32_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
#endif
}

static inline uint64_t popcnt64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint64_t)__builtin_popcountll(x);
#else
    return popcnt32((uint32_t)x) + popcnt32((uint32_t)(x >> 32));
#endif
}

static inline uint32_t rotl32(uint32_t x, uint32_t n)
{
    n &= 31;
    return (x << n) | (x >> ((32 - n) & 31));
}

static inline uint32_t rotr32(uint32_t x, uint32_t n)
{
    n &= 31;
    return (x >> n) | (x << ((32 - n) & 31));
}

static inline uint64_t rotl64(uint64_t x, uint64_t n)
{
    n &= 63;
    return (x << n) | (x >> ((64 - n) & 63));
}

static inline uint64_t rotr64(uint64_t x, uint64_t n)
{
    n &= 63;
    return (x >> n) | (x << ((64 - n) & 63));
}

/* Arithmetic right shifts without relying on the implementation-defined `>>` of negative
 * values; compilers turn these into one sar. */
static inline uint32_t shr_s32(uint32_t x, uint32_t n)
{
    n &= 31;
    return (x & 0x80000000u) ? ~(~x >> n) : x >> n;
}

static inline uint64_t shr_s64(uint64_t x, uint64_t n)
{
    n &= 63;
    return (x & 0x8000000000000000u) ? ~(~x >> n) : x >> n;
}

/* Division and remainder, the divisor nonzero and, signed, not INT_MIN / -1 (checked by the
 * caller). The 64-bit ones divide operands that both fit in 32 bits, as most of a gcd's do
 * after its first steps, with the 32-bit instruction: on the Xeon of `make bench`
 * (Skylake-SP) `div r64` takes 35-88 cycles and `div r32` about 26. Clang's x86-64 code
 * does the same (its idivq-to-divl bypass), so wasm3 had it and we did not. */
static inline uint32_t udiv32(uint32_t a, uint32_t b)
{
    return a / b;
}

static inline uint32_t urem32(uint32_t a, uint32_t b)
{
    return a % b;
}

static inline int32_t sdiv32(int32_t a, int32_t b)
{
    return a / b;
}

static inline int32_t srem32(int32_t a, int32_t b)
{
    return a % b;
}

static inline uint64_t udiv64(uint64_t a, uint64_t b)
{
    if (((a | b) >> 32) == 0)
        return (uint32_t)a / (uint32_t)b;
    return a / b;
}

static inline uint64_t urem64(uint64_t a, uint64_t b)
{
    if (((a | b) >> 32) == 0)
        return (uint32_t)a % (uint32_t)b;
    return a % b;
}

/* Both in [0, 2^32): the unsigned 32-bit quotient and remainder are the signed ones. */
static inline int64_t sdiv64(int64_t a, int64_t b)
{
    if ((((uint64_t)a | (uint64_t)b) >> 32) == 0)
        return (int64_t)((uint32_t)a / (uint32_t)b);
    return a / b;
}

static inline int64_t srem64(int64_t a, int64_t b)
{
    if ((((uint64_t)a | (uint64_t)b) >> 32) == 0)
        return (int64_t)((uint32_t)a % (uint32_t)b);
    return a % b;
}

/* Sign extension of the low `bits` bits, without implementation-defined conversions. */
static inline uint32_t sext32(uint32_t x, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    x &= (m << 1) - 1;
    return (x ^ m) - m;
}

static inline uint64_t sext64(uint64_t x, unsigned bits)
{
    uint64_t m = (uint64_t)1 << (bits - 1);
    if (bits < 64)
        x &= (m << 1) - 1;
    return (x ^ m) - m;
}

/* ---- floats ---- */

/* min/max: NaN if either operand is NaN (x + y quiets and propagates it); -0 < +0. For
 * equal operands the OR (min) / AND (max) of the bit patterns picks the right zero and is
 * the identity otherwise. */
WD_NOINLINE static float f32_min(float x, float y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return f32_from(f32_bits(x) | f32_bits(y));
    return x < y ? x : y;
}

WD_NOINLINE static float f32_max(float x, float y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return f32_from(f32_bits(x) & f32_bits(y));
    return x > y ? x : y;
}

WD_NOINLINE static double f64_min(double x, double y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return f64_from(f64_bits(x) | f64_bits(y));
    return x < y ? x : y;
}

WD_NOINLINE static double f64_max(double x, double y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return f64_from(f64_bits(x) & f64_bits(y));
    return x > y ? x : y;
}

/* Rounding to integral values. libm may hand a signalling NaN back unchanged, but the spec
 * wants an arithmetic (quiet) NaN: x + x quiets it and keeps the payload. nearest rounds
 * half to even: rint uses the current rounding mode, never changed from the default
 * round-to-nearest-even. */
#define ROUNDING(name, T, fn)                                                                      \
    WD_NOINLINE static T name(T x)                                                                 \
    {                                                                                              \
        return x != x ? x + x : fn(x);                                                             \
    }
ROUNDING(f32_ceil, float, ceilf)
ROUNDING(f32_floor, float, floorf)
ROUNDING(f32_trunc, float, truncf)
ROUNDING(f32_nearest, float, rintf)
ROUNDING(f64_ceil, double, ceil)
ROUNDING(f64_floor, double, floor)
ROUNDING(f64_trunc, double, trunc)
ROUNDING(f64_nearest, double, rint)
#undef ROUNDING

/* ---- float -> integer truncation ----
 * The trapping forms return WD_TRAP_NONE and store the result, or the trap. Bounds are the
 * exclusive limits x must lie strictly inside (after truncation toward zero the value fits);
 * every bound is exactly representable in the source type, so the comparisons are exact. */

WD_NOINLINE static wd_trap trunc_f64_s32(double x, uint64_t *out)
{
    if (x != x)
        return WD_TRAP_INVALID_CONVERSION;
    if (!(x > -2147483649.0 && x < 2147483648.0))
        return WD_TRAP_INT_OVERFLOW;
    *out = (uint32_t)(int32_t)x;
    return WD_TRAP_NONE;
}

WD_NOINLINE static wd_trap trunc_f64_u32(double x, uint64_t *out)
{
    if (x != x)
        return WD_TRAP_INVALID_CONVERSION;
    if (!(x > -1.0 && x < 4294967296.0))
        return WD_TRAP_INT_OVERFLOW;
    *out = (uint32_t)x;
    return WD_TRAP_NONE;
}

/* -2^63 is exact in both float types; the next value below it truncates out of range. */
WD_NOINLINE static wd_trap trunc_f64_s64(double x, uint64_t *out)
{
    if (x != x)
        return WD_TRAP_INVALID_CONVERSION;
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
        return WD_TRAP_INT_OVERFLOW;
    *out = (uint64_t)(int64_t)x;
    return WD_TRAP_NONE;
}

WD_NOINLINE static wd_trap trunc_f64_u64(double x, uint64_t *out)
{
    if (x != x)
        return WD_TRAP_INVALID_CONVERSION;
    if (!(x > -1.0 && x < 18446744073709551616.0))
        return WD_TRAP_INT_OVERFLOW;
    *out = (uint64_t)x;
    return WD_TRAP_NONE;
}

/* f32 sources widen exactly to double, so the f64 checks apply unchanged. */
static inline wd_trap trunc_f32_s32(float x, uint64_t *out)
{
    return trunc_f64_s32((double)x, out);
}

static inline wd_trap trunc_f32_u32(float x, uint64_t *out)
{
    return trunc_f64_u32((double)x, out);
}

static inline wd_trap trunc_f32_s64(float x, uint64_t *out)
{
    return trunc_f64_s64((double)x, out);
}

static inline wd_trap trunc_f32_u64(float x, uint64_t *out)
{
    return trunc_f64_u64((double)x, out);
}

/* Saturating forms: NaN -> 0, below range -> min, above range -> max. */
WD_NOINLINE static uint64_t trunc_sat_s32(double x)
{
    if (x != x)
        return 0;
    if (x <= -2147483649.0)
        return (uint32_t)INT32_MIN;
    if (x >= 2147483648.0)
        return (uint32_t)INT32_MAX;
    return (uint32_t)(int32_t)x;
}

WD_NOINLINE static uint64_t trunc_sat_u32(double x)
{
    if (x != x || x <= -1.0)
        return 0;
    if (x >= 4294967296.0)
        return UINT32_MAX;
    return (uint32_t)x;
}

WD_NOINLINE static uint64_t trunc_sat_s64(double x)
{
    if (x != x)
        return 0;
    if (x < -9223372036854775808.0)
        return (uint64_t)INT64_MIN;
    if (x >= 9223372036854775808.0)
        return (uint64_t)INT64_MAX;
    return (uint64_t)(int64_t)x;
}

WD_NOINLINE static uint64_t trunc_sat_u64(double x)
{
    if (x != x || x <= -1.0)
        return 0;
    if (x >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)x;
}

#endif
