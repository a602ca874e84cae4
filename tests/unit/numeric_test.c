/* numeric_test.c: eval/numeric.h's divisions, whose 64-bit forms take the 32-bit instruction
 * when both operands fit, against C's own operators. */
/* numeric.h is eval/interp.c's: its out-of-line float helpers go unused here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "eval/numeric.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

/* Operands around the 32-bit boundaries, the signs and the extremes. */
static const uint64_t edges[] = {
    1,
    2,
    3,
    7,
    0x7fffffffu,
    0x80000000u,
    0x80000001u,
    0xfffffffeu,
    0xffffffffu,
    0x100000000u,
    0x100000001u,
    0x1ffffffffu,
    0x7fffffffffffffffu,
    0x8000000000000000u,
    0x8000000000000001u,
    0xffffffff00000000u,
    0xffffffff80000000u,
    0xfffffffffffffffeu,
    0xffffffffffffffffu,
};
enum { EDGES = sizeof edges / sizeof edges[0] };

/* One pair: every helper against the C operator (the signed pair when it is defined). */
static bool same(uint64_t a, uint64_t b)
{
    if (b == 0)
        return true;
    bool ok = udiv64(a, b) == a / b && urem64(a, b) == a % b;
    uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
    if (b32 != 0)
        ok = ok && udiv32(a32, b32) == a32 / b32 && urem32(a32, b32) == a32 % b32;
    int64_t sa, sb;
    memcpy(&sa, &a, sizeof sa);
    memcpy(&sb, &b, sizeof sb);
    if (!(sa == INT64_MIN && sb == -1))
        ok = ok && sdiv64(sa, sb) == sa / sb && srem64(sa, sb) == sa % sb;
    int32_t sa32, sb32;
    memcpy(&sa32, &a32, sizeof sa32);
    memcpy(&sb32, &b32, sizeof sb32);
    if (sb32 != 0 && !(sa32 == INT32_MIN && sb32 == -1))
        ok = ok && sdiv32(sa32, sb32) == sa32 / sb32 && srem32(sa32, sb32) == sa32 % sb32;
    return ok;
}

TEST(numeric_divisions_match_c_on_edges)
{
    int bad = 0;
    for (int i = 0; i < EDGES; i++)
        for (int j = 0; j < EDGES; j++)
            bad += !same(edges[i], edges[j]);
    CHECK_EQ(bad, 0);
    /* the 32-bit path, taken: known quotients */
    CHECK_EQ(udiv64(0xffffffffu, 2), 0x7fffffffu);
    CHECK_EQ(urem64(100, 7), 2);
    CHECK_EQ(sdiv64(0xffffffff, 0x10), 0x0fffffff);
    CHECK_EQ(srem64(-7, 2), -1); /* a negative operand: the 64-bit path */
    CHECK_EQ(sdiv64(-7, 2), -3);
}

TEST(numeric_divisions_match_c_on_random_operands)
{
    uint64_t st = 0x9e3779b97f4a7c15u;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        /* widths 1-64 bits each, so both paths and the boundary between them are hit */
        uint64_t a = ((uint64_t)wd_test_rnd(&st, UINT32_MAX) << 32) | wd_test_rnd(&st, UINT32_MAX);
        uint64_t b = ((uint64_t)wd_test_rnd(&st, UINT32_MAX) << 32) | wd_test_rnd(&st, UINT32_MAX);
        a >>= wd_test_rnd(&st, 64);
        b >>= wd_test_rnd(&st, 64);
        if (wd_test_rnd(&st, 4) == 0)
            a = 0 - a; /* negative, as signed */
        if (wd_test_rnd(&st, 4) == 0)
            b = 0 - b;
        bad += !same(a, b);
    }
    CHECK_EQ(bad, 0);
}
