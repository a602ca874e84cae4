/* divk_test.c: i32 division and remainder by a constant (ops.def's *_K forms, shifts and
 * masks for unsigned powers of two): the reciprocal arithmetic of decode/code.h against
 * C's, and whole modules decoded, run and metered against the unfused translation. */
#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdlib.h>

static uint32_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 32);
}

/* The divisors and dividends both tests use: small and edge values, then random ones. */
static const uint32_t edges[] = {0,          1,          2,          3,          5,
                                 7,          10,         58,         100,        641,
                                 1000,       6700417,    507904,     0x7FFFFFFF, 0x80000000,
                                 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFF9, 0xCCCCCCCD};

static uint32_t sample(uint64_t *s, size_t i)
{
    if (i < WD_ARRAY_COUNT(edges))
        return edges[i];
    uint32_t v = next_rand(s);
    return v >> (next_rand(s) & 31);
}

/* wd_divk32 and wd_sdivk32 with m = UINT64_MAX / |d| + 1 agree with / and % of C. */
TEST(divk_reciprocal_arithmetic)
{
    uint64_t s = 1;
    for (size_t i = 0; i < 3000; i++) {
        uint32_t d = i < 2000 ? (uint32_t)i + 2 : sample(&s, i - 2000);
        if (d < 2)
            continue;
        uint64_t m = UINT64_MAX / d + 1;
        for (size_t j = 0; j < 400; j++) {
            uint32_t n = sample(&s, j);
            CHECK_EQ(wd_divk32(n, m), n / d);
        }
        int32_t sd = (int32_t)d;
        if (sd == -1)
            continue;
        uint32_t ad = sd < 0 ? 0u - d : d;
        m = UINT64_MAX / ad + 1;
        for (size_t j = 0; j < 400; j++) {
            int32_t n = (int32_t)sample(&s, j);
            if (n == INT32_MIN && sd == -1)
                continue;
            int32_t q = (int32_t)wd_sdivk32((uint32_t)n, d, m);
            CHECK_EQ(q, (int64_t)n / sd);
        }
    }
}

/* ---- whole modules ---- */

enum { OPS = 4, DIVISORS = WD_ARRAY_COUNT(edges) + 2, FUNCS = OPS * DIVISORS };

static uint32_t divisor(size_t k)
{
    return k < WD_ARRAY_COUNT(edges) ? edges[k] : k == WD_ARRAY_COUNT(edges) ? 1024 : 0x10000;
}

/* A module of FUNCS functions (param i32) (result i32): local.get 0, i32.const D, op, for
 * each op (i32.div_s, div_u, rem_s, rem_u) and divisor D; function f is exported as its
 * index in two letters. */
static size_t build(uint8_t *b)
{
    static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00,
                                   0x01, 0x06, 0x01, 0x60, 0x01, 0x7F, 0x01, 0x7F};
    size_t n = sizeof head;
    memcpy(b, head, n);
    b[n++] = 0x03; /* functions */
    n += wd_test_put_leb(b + n, (FUNCS < 128 ? 1 : 2) + FUNCS, false);
    n += wd_test_put_leb(b + n, FUNCS, false);
    for (int f = 0; f < FUNCS; f++)
        b[n++] = 0;
    uint8_t sec[4096];
    size_t k = wd_test_put_leb(sec, FUNCS, false);
    for (int f = 0; f < FUNCS; f++) {
        sec[k++] = 2, sec[k++] = (uint8_t)('a' + f / 26), sec[k++] = (uint8_t)('a' + f % 26);
        sec[k++] = 0x00;
        k += wd_test_put_leb(sec + k, (uint64_t)f, false);
    }
    n += wd_test_put_section(b + n, 0x07, sec, k); /* exports */
    k = wd_test_put_leb(sec, FUNCS, false);
    for (int f = 0; f < FUNCS; f++) {
        uint8_t body[32];
        size_t m = 0;
        body[m++] = 0x00; /* no locals */
        body[m++] = 0x20, body[m++] = 0x00;
        body[m++] = 0x41;
        m += wd_test_put_leb(body + m, (uint64_t)(int64_t)(int32_t)divisor((size_t)f / OPS), true);
        body[m++] = (uint8_t)(0x6D + f % OPS);
        body[m++] = 0x0B;
        sec[k++] = (uint8_t)m;
        memcpy(sec + k, body, m);
        k += m;
    }
    return n + wd_test_put_section(b + n, 0x0A, sec, k); /* code */
}

/* Calls function f with n: the status, the result in *out. */
static wd_status call(wd_test_vm *v, int f, uint32_t n, uint32_t *out)
{
    char name[3] = {(char)('a' + f / 26), (char)('a' + f % 26), 0};
    wd_func *fn = wd_test_vm_export(v, name);
    if (fn == NULL)
        return WD_ERR_USAGE;
    wd_val arg = {.u64 = n};
    wd_status st = wd_eval_invoke(&v->t, fn, &arg, &v->err);
    if (st == WD_OK)
        *out = wd_eval_results(&v->t)[0].u32;
    return st;
}

/* The instruction the translation makes of op (0..3) by d. */
static uint32_t expected_form(int op, uint32_t d)
{
    bool is_signed = op == 0 || op == 2;
    if (d == 0 || d == 1 || (is_signed && d == UINT32_MAX))
        return WD_OP_I32_DIV_S + (uint32_t)op; /* can trap, or not worth it: as is */
    if (!is_signed && (d & (d - 1)) == 0)
        return op == 1 ? WD_OP_I32_SHR_U_I : WD_OP_I32_AND_I;
    return WD_OP_I32_DIV_S_K + (uint32_t)op;
}

TEST(divk_modules_agree_with_c_and_unfused_ticks)
{
    static uint8_t bytes[8192];
    size_t size = build(bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, size));
    uint64_t s = 7;
    for (int f = 0; f < FUNCS; f++) {
        int op = f % OPS;
        uint32_t d = divisor((size_t)f / OPS);
        const wd_code *code = fused.m->funcs[f].code;
        uint32_t form = expected_form(op, d), i = 0;
        while (i < code->insn_count && code->insns[i].op != form)
            i++;
        CHECK(i < code->insn_count);
        for (size_t j = 0; j < 200; j++) {
            uint32_t n = sample(&s, j), got = 0, want = 0;
            wd_status st = call(&fused, f, n, &got), st_plain = call(&plain, f, n, &want);
            CHECK_EQ(st, st_plain);
            CHECK_EQ(fused.t.ticks, plain.t.ticks);
            if (d == 0 || (op == 0 && d == UINT32_MAX && n == 0x80000000)) {
                CHECK_EQ(st, WD_TRAP);
                continue;
            }
            CHECK_EQ(st, WD_OK);
            int32_t sn = (int32_t)n, sd = (int32_t)d;
            uint32_t c = op == 0   ? (uint32_t)(sd == -1 ? 0 - n : (uint32_t)(sn / sd))
                         : op == 1 ? n / d
                         : op == 2 ? (uint32_t)(sd == -1 ? 0 : sn % sd)
                                   : n % d;
            CHECK_EQ(got, c);
            CHECK_EQ(want, c);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}
