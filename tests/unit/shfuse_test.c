/* shfuse_test.c: a shift or rotation by an immediate fused with the xor, or or add that
 * consumes it, and a xor fused with its rotation (ops.def, I32_XOR_SHL..I64_ROTL_XOR):
 * whole modules decoded, run and metered against C and against the unfused translation. */
#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdlib.h>

/* The functions' shapes, each (param x y) (result t) of one type t (local 2 a third t):
 *   SC   x, k, shift; y; op          the shift's result the left operand
 *   CS   y; x, k, shift; op          the right one
 *   RX   x, y, xor; k, rotation      a xor rotated (op unused)
 *   TEE  x, k, shift, tee 2; y; op; local 2; add    the shift's result kept in a local:
 *        not fused */
enum { SC, CS, RX, TEE, SHAPES };
enum { SHL, SHR_U, ROTL, ROTR, SHIFTS };
enum { XOR, OR, ADD, OPS };

typedef struct fn {
    bool wide;
    int shape, shift, op;
    uint32_t k;
} fn;

static const uint32_t counts32[] = {0, 1, 7, 31, 32, 45};
static const uint32_t counts64[] = {0, 1, 13, 63, 64, 100};
enum { COUNTS = 6, MAX_FNS = 2 * SHAPES * SHIFTS * OPS * COUNTS };

static size_t make_fns(fn *out)
{
    size_t n = 0;
    for (int w = 0; w < 2; w++)
        for (int shape = 0; shape < SHAPES; shape++)
            for (int sh = 0; sh < SHIFTS; sh++)
                for (int op = 0; op < OPS; op++) {
                    if (shape == RX && (op != XOR || (sh != ROTL && sh != ROTR)))
                        continue;
                    for (int c = 0; c < COUNTS; c++)
                        out[n++] = (fn){w == 1, shape, sh, op, w ? counts64[c] : counts32[c]};
                }
    return n;
}

/* The body of f (its locals' declaration first). */
static size_t body(const fn *f, uint8_t *b)
{
    static const uint8_t shifts[2][SHIFTS] = {{0x74, 0x76, 0x77, 0x78}, {0x86, 0x88, 0x89, 0x8A}};
    static const uint8_t ops[2][OPS] = {{0x73, 0x72, 0x6A}, {0x85, 0x84, 0x7C}};
    uint8_t t = f->wide ? 0x7E : 0x7F, cst = f->wide ? 0x42 : 0x41;
    uint8_t shift = shifts[f->wide][f->shift], op = ops[f->wide][f->op];
    size_t n = 0;
    b[n++] = 1, b[n++] = 1, b[n++] = t; /* local 2 */
#define K() (b[n++] = cst, n += wd_test_put_leb(b + n, f->k, true))
    switch (f->shape) {
    case SC:
        b[n++] = 0x20, b[n++] = 0, K(), b[n++] = shift, b[n++] = 0x20, b[n++] = 1, b[n++] = op;
        break;
    case CS:
        b[n++] = 0x20, b[n++] = 1, b[n++] = 0x20, b[n++] = 0, K(), b[n++] = shift, b[n++] = op;
        break;
    case RX:
        b[n++] = 0x20, b[n++] = 0, b[n++] = 0x20, b[n++] = 1, b[n++] = ops[f->wide][XOR], K();
        b[n++] = shift;
        break;
    default:
        b[n++] = 0x20, b[n++] = 0, K(), b[n++] = shift, b[n++] = 0x22, b[n++] = 2;
        b[n++] = 0x20, b[n++] = 1, b[n++] = op, b[n++] = 0x20, b[n++] = 2;
        b[n++] = ops[f->wide][ADD];
    }
#undef K
    b[n++] = 0x0B;
    return n;
}

static void name(size_t i, char out[4])
{
    out[0] = 'f', out[1] = (char)('a' + i / 26), out[2] = (char)('a' + i % 26), out[3] = 0;
}

static size_t build(const fn *fns, size_t count, uint8_t *b)
{
    static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
    static const uint8_t types[] = {0x02, 0x60, 0x02, 0x7F, 0x7F, 0x01, 0x7F,
                                    0x60, 0x02, 0x7E, 0x7E, 0x01, 0x7E};
    static uint8_t sec[65536];
    size_t n = sizeof head, k;
    memcpy(b, head, n);
    n += wd_test_put_section(b + n, 0x01, types, sizeof types);
    k = wd_test_put_leb(sec, count, false);
    for (size_t i = 0; i < count; i++)
        sec[k++] = fns[i].wide;
    n += wd_test_put_section(b + n, 0x03, sec, k);
    k = wd_test_put_leb(sec, count, false);
    for (size_t i = 0; i < count; i++) {
        char nm[4];
        name(i, nm);
        sec[k++] = 3;
        memcpy(sec + k, nm, 3);
        k += 3;
        sec[k++] = 0x00;
        k += wd_test_put_leb(sec + k, i, false);
    }
    n += wd_test_put_section(b + n, 0x07, sec, k);
    k = wd_test_put_leb(sec, count, false);
    for (size_t i = 0; i < count; i++) {
        uint8_t bd[64];
        size_t m = body(&fns[i], bd);
        sec[k++] = (uint8_t)m;
        memcpy(sec + k, bd, m);
        k += m;
    }
    return n + wd_test_put_section(b + n, 0x0A, sec, k);
}

/* What f computes, in C. */
static uint64_t expect(const fn *f, uint64_t x, uint64_t y)
{
    uint64_t mask = f->wide ? UINT64_MAX : UINT32_MAX;
    unsigned w = f->wide ? 64 : 32, k = f->k & (w - 1);
    x &= mask, y &= mask;
    uint64_t v = f->shape == RX ? x ^ y : x, s;
    switch (f->shift) {
    case SHL: s = v << k; break;
    case SHR_U: s = v >> k; break;
    case ROTL: s = k == 0 ? v : v << k | v >> (w - k); break;
    default: s = k == 0 ? v : v >> k | v << (w - k); break;
    }
    s &= mask;
    if (f->shape == RX)
        return s;
    uint64_t r = f->op == XOR ? s ^ y : f->op == OR ? s | y : s + y;
    if (f->shape == TEE)
        r += s;
    return r & mask;
}

static bool is_fused(uint32_t op)
{
    return op >= WD_OP_I32_XOR_SHL && op <= WD_OP_I64_ROTL_XOR;
}

static wd_status call(wd_test_vm *v, size_t i, uint64_t x, uint64_t y, uint64_t *out)
{
    char nm[4];
    name(i, nm);
    wd_func *f = wd_test_vm_export(v, nm);
    if (f == NULL)
        return WD_ERR_USAGE;
    wd_val args[2] = {{.u64 = x}, {.u64 = y}};
    wd_status st = wd_eval_invoke(&v->t, f, args, &v->err);
    if (st == WD_OK)
        *out = wd_eval_results(&v->t)[0].u64;
    return st;
}

TEST(shfuse_modules_agree_with_c_and_unfused_ticks)
{
    static fn fns[MAX_FNS];
    static uint8_t bytes[1 << 17];
    size_t count = make_fns(fns);
    CHECK(count <= 26 * 26);
    size_t size = build(fns, count, bytes);
    wd_test_vm fused, plain;
    bool ok = wd_test_vm_start(&fused, bytes, size, "pvm", false, false);
    ok = wd_test_vm_start(&plain, bytes, size, "pvm", false, true) && ok;
    if (!ok) {
        wd_test_vm_stop(&fused);
        wd_test_vm_stop(&plain);
    }
    CHECK(ok);
    uint64_t s = 11;
    size_t fused_fns = 0;
    for (size_t i = 0; i < count; i++) {
        const fn *f = &fns[i];
        const wd_code *code = fused.m->funcs[i].code;
        uint32_t found = 0;
        for (uint32_t j = 0; j < code->insn_count; j++)
            found += is_fused(code->insns[j].op);
        /* one fused instruction, but where the shift's result is kept in a local */
        CHECK_EQ(found, f->shape == TEE ? 0 : 1);
        fused_fns += found;
        const wd_code *pc = plain.m->funcs[i].code;
        for (uint32_t j = 0; j < pc->insn_count; j++)
            CHECK(!is_fused(pc->insns[j].op));
        for (int j = 0; j < 40; j++) {
            uint64_t x = j < 4 ? (uint64_t[]){0, 1, UINT64_MAX, 0x8000000080000000u}[j]
                               : (uint64_t)wd_test_rnd(&s, UINT32_MAX) << 32 |
                                     wd_test_rnd(&s, UINT32_MAX);
            uint64_t y = (uint64_t)wd_test_rnd(&s, UINT32_MAX) << 32 | wd_test_rnd(&s, UINT32_MAX);
            if (!f->wide)
                x &= UINT32_MAX, y &= UINT32_MAX;
            uint64_t got = 0, want = 0;
            CHECK_EQ(call(&fused, i, x, y, &got), WD_OK);
            CHECK_EQ(call(&plain, i, x, y, &want), WD_OK);
            CHECK_EQ(fused.t.ticks, plain.t.ticks);
            if (!f->wide)
                got &= UINT32_MAX, want &= UINT32_MAX;
            CHECK_EQ(got, expect(f, x, y));
            CHECK_EQ(want, expect(f, x, y));
        }
    }
    CHECK(fused_fns > 0);
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}
