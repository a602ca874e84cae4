/* i64: 64-bit integer arithmetic. Pairs of splitmix64 numbers, their greatest common
 * divisor by Euclid (i64.rem_u), multiplications, rotations, shifts, clz, ctz and popcnt
 * folded into a 64-bit checksum (an i64 result). */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i64, 250000)

static u64 splitmix(u64 *s)
{
    u64 z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline u64 rotl(u64 x, u32 r)
{
    return (x << (r & 63)) | (x >> ((64 - r) & 63));
}

static NOINLINE u64 gcd(u64 a, u64 b)
{
    while (b != 0) {
        u64 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

i64 bench(i32 n)
{
    u64 seed = 42, check = 0;
    for (i32 i = 0; i < n; i++) {
        u64 a = splitmix(&seed), b = splitmix(&seed);
        u64 g = gcd(a >> (a & 15), b | 1);
        u32 bits = (u32)__builtin_popcountll(a ^ b);
        check = rotl(check ^ (g * 0xff51afd7ed558ccdull), bits) + (u64)__builtin_clzll(b | 1) +
                (u64)__builtin_ctzll(a | 0x8000000000000000ull) + a / ((b >> 40) | 1);
    }
    return (i64)check;
}
