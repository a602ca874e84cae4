/* shfuse_test.c: a shift or rotation by an immediate fused with the xor, or or add that
 * consumes it, a xor fused with its rotation (ops.def, I32_XOR_SHL..I64_ROTL_XOR), and a
 * multiplication fused with the add of its product (I32_MUL_ADD, I64_MUL_ADD): whole
 * modules decoded, run and metered against C and against the unfused translation. */
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

/* A function body given as bytes. */
typedef struct fbody {
    const uint8_t *b;
    size_t len;
} fbody;
#define FBODY(a) {(a), sizeof(a)}

/* A module of `count` functions, function i exported as name(i), of type type_of(i) (type
 * 0 when type_of is NULL) in the type section `types` and with body body_of(i) (written at
 * out, its length returned), or bodies[i] when body_of is NULL; `memory` and `data` the
 * bodies of those sections, when not NULL. */
typedef struct modspec {
    const uint8_t *types;
    size_t types_len, count;
    uint8_t (*type_of)(size_t i);
    size_t (*body_of)(size_t i, uint8_t *out);
    const fbody *bodies;
    const uint8_t *memory, *data;
    size_t memory_len, data_len;
} modspec;

static size_t build_module(const modspec *m, uint8_t *b)
{
    static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
    static uint8_t sec[65536];
    size_t n = sizeof head, k;
    memcpy(b, head, n);
    n += wd_test_put_section(b + n, 0x01, m->types, m->types_len);
    k = wd_test_put_leb(sec, m->count, false);
    for (size_t i = 0; i < m->count; i++)
        sec[k++] = m->type_of != NULL ? m->type_of(i) : 0;
    n += wd_test_put_section(b + n, 0x03, sec, k);
    if (m->memory != NULL)
        n += wd_test_put_section(b + n, 0x05, m->memory, m->memory_len);
    k = wd_test_put_leb(sec, m->count, false);
    for (size_t i = 0; i < m->count; i++) {
        char nm[4];
        name(i, nm);
        sec[k++] = 3;
        memcpy(sec + k, nm, 3);
        k += 3;
        sec[k++] = 0x00;
        k += wd_test_put_leb(sec + k, i, false);
    }
    n += wd_test_put_section(b + n, 0x07, sec, k);
    k = wd_test_put_leb(sec, m->count, false);
    for (size_t i = 0; i < m->count; i++) {
        uint8_t bd[128];
        const uint8_t *body = bd;
        size_t len;
        if (m->body_of != NULL)
            len = m->body_of(i, bd);
        else
            body = m->bodies[i].b, len = m->bodies[i].len;
        k += wd_test_put_leb(sec + k, len, false);
        memcpy(sec + k, body, len);
        k += len;
    }
    n += wd_test_put_section(b + n, 0x0A, sec, k);
    if (m->data != NULL)
        n += wd_test_put_section(b + n, 0x0B, m->data, m->data_len);
    return n;
}

/* How many of code's instructions have an op in [lo, hi]. */
static uint32_t count_ops(const wd_code *code, uint32_t lo, uint32_t hi)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < code->insn_count; j++)
        n += code->insns[j].op >= lo && code->insns[j].op <= hi;
    return n;
}

static fn fns[MAX_FNS];

static uint8_t fn_type(size_t i)
{
    return fns[i].wide;
}

static size_t fn_body(size_t i, uint8_t *out)
{
    return body(&fns[i], out);
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
    static const uint8_t types[] = {0x02, 0x60, 0x02, 0x7F, 0x7F, 0x01, 0x7F,
                                    0x60, 0x02, 0x7E, 0x7E, 0x01, 0x7E};
    static uint8_t bytes[1 << 17];
    size_t count = make_fns(fns);
    CHECK(count <= 26 * 26);
    size_t size = build_module(
        &(modspec){.types = types, .types_len = sizeof types, .count = count,
                   .type_of = fn_type, .body_of = fn_body},
        bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, size));
    uint64_t s = 11;
    size_t fused_fns = 0;
    for (size_t i = 0; i < count; i++) {
        const fn *f = &fns[i];
        uint32_t found = count_ops(fused.m->funcs[i].code, WD_OP_I32_XOR_SHL, WD_OP_I64_ROTL_XOR);
        /* one fused instruction, but where the shift's result is kept in a local */
        CHECK_EQ(found, f->shape == TEE ? 0 : 1);
        fused_fns += found;
        CHECK_EQ(count_ops(plain.m->funcs[i].code, WD_OP_I32_XOR_SHL, WD_OP_I64_ROTL_XOR), 0);
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

/* ---- a multiplication fused with the add of its product (I32_MUL_ADD, I64_MUL_ADD) ---- */

/* Functions (param x y z) (result t), t i32 or i64 (local 3 a fourth t):
 *   MA   x y mul; z add             the product the add's left operand
 *   AM   z; x y mul; add            its right one
 *   MM   x y mul; y z mul; add      both products: the second fused, the first its addend
 *   TEE  x y mul; tee 3; z add; local 3; add   the product kept in a local: not fused
 * (z, read with local.get, is a local's slot as the addend in MA and AM; in MM the addend is
 * an operand stack slot.) */
enum { MA, AM, MM, TEE3, MSHAPES };

static size_t ma_body(int shape, bool wide, uint8_t *b)
{
    uint8_t mul = wide ? 0x7E : 0x6C, add = wide ? 0x7C : 0x6A, t = wide ? 0x7E : 0x7F;
    size_t n = 0;
    b[n++] = 1, b[n++] = 1, b[n++] = t; /* local 3 */
#define GET(i) (b[n++] = 0x20, b[n++] = (i))
    switch (shape) {
    case MA: GET(0), GET(1), b[n++] = mul, GET(2), b[n++] = add; break;
    case AM: GET(2), GET(0), GET(1), b[n++] = mul, b[n++] = add; break;
    case MM:
        GET(0), GET(1), b[n++] = mul, GET(1), GET(2), b[n++] = mul, b[n++] = add;
        break;
    default:
        GET(0), GET(1), b[n++] = mul, b[n++] = 0x22, b[n++] = 3, GET(2), b[n++] = add;
        GET(3), b[n++] = add;
    }
#undef GET
    b[n++] = 0x0B;
    return n;
}

static uint64_t ma_expect(int shape, bool wide, uint64_t x, uint64_t y, uint64_t z)
{
    uint64_t r = shape == MM ? x * y + y * z : shape == TEE3 ? 2 * x * y + z : x * y + z;
    return wide ? r : r & UINT32_MAX;
}

static uint8_t ma_type(size_t i)
{
    return i >= MSHAPES;
}

static size_t ma_fn_body(size_t i, uint8_t *out)
{
    return ma_body((int)(i % MSHAPES), i >= MSHAPES, out);
}

TEST(mul_add_fused_agrees_with_c_and_unfused_ticks)
{
    static const uint8_t types[] = {0x02, 0x60, 0x03, 0x7F, 0x7F, 0x7F, 0x01, 0x7F,
                                    0x60, 0x03, 0x7E, 0x7E, 0x7E, 0x01, 0x7E};
    static uint8_t bytes[4096];
    size_t count = 2 * MSHAPES;
    size_t n = build_module(&(modspec){.types = types, .types_len = sizeof types, .count = count,
                                       .type_of = ma_type, .body_of = ma_fn_body},
                            bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, n));
    uint64_t s = 5;
    for (size_t i = 0; i < count; i++) {
        int shape = (int)(i % MSHAPES);
        bool wide = i >= MSHAPES;
        uint32_t op = wide ? WD_OP_I64_MUL_ADD : WD_OP_I32_MUL_ADD;
        CHECK_EQ(count_ops(fused.m->funcs[i].code, op, op), shape == TEE3 ? 0 : 1);
        CHECK_EQ(count_ops(plain.m->funcs[i].code, WD_OP_I32_MUL_ADD, WD_OP_I64_MUL_ADD), 0);
        char nm[4];
        name(i, nm);
        wd_func *ff = wd_test_vm_export(&fused, nm), *pf = wd_test_vm_export(&plain, nm);
        CHECK(ff != NULL && pf != NULL);
        for (int j = 0; j < 30; j++) {
            wd_val args[3];
            for (int a = 0; a < 3; a++) {
                uint64_t v = j < 3 ? (uint64_t[]){0, UINT64_MAX, 0x8000000080000001u}[j]
                                   : (uint64_t)wd_test_rnd(&s, UINT32_MAX) << 32 |
                                         wd_test_rnd(&s, UINT32_MAX);
                args[a].u64 = wide ? v : v & UINT32_MAX;
            }
            uint64_t want = ma_expect(shape, wide, args[0].u64, args[1].u64, args[2].u64);
            CHECK_EQ(wd_eval_invoke(&fused.t, ff, args, &fused.err), WD_OK);
            CHECK_EQ(wd_eval_invoke(&plain.t, pf, args, &plain.err), WD_OK);
            uint64_t got = wd_eval_results(&fused.t)[0].u64, ref = wd_eval_results(&plain.t)[0].u64;
            CHECK_EQ(wide ? got : got & UINT32_MAX, want);
            CHECK_EQ(wide ? ref : ref & UINT32_MAX, want);
            CHECK_EQ(fused.t.ticks, plain.t.ticks);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}

/* ---- two moves in one (MOV2) ---- */

/* Two functions: a swap of two locals ((y << 16) | x back), and four locals rotated n times
 * with an increment (a, b, c, d = b, c, d, a + 1), whose moves pair up. */
static const uint8_t swap_body[] = {0x00, 0x20, 0x01, 0x20, 0x00, 0x21, 0x01, 0x21, 0x00,
                                    0x20, 0x00, 0x41, 0x10, 0x74, 0x20, 0x01, 0x72, 0x0B};
static const uint8_t rot_body[] = {
    0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x20, 0x01, 0x21, 0x00, 0x20, 0x02,
    0x21, 0x01, 0x20, 0x03, 0x21, 0x02, 0x21, 0x03, 0x20, 0x04, 0x41, 0x01, 0x6B, 0x22,
    0x04, 0x0D, 0x00, 0x0B, 0x20, 0x00, 0x20, 0x01, 0x41, 0x08, 0x74, 0x73, 0x20, 0x02,
    0x41, 0x10, 0x74, 0x73, 0x20, 0x03, 0x41, 0x18, 0x74, 0x73, 0x0B};

static uint32_t rot_expect(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t n)
{
    do {
        uint32_t t = a + 1;
        a = b, b = c, c = d, d = t;
    } while (--n != 0);
    return a ^ b << 8 ^ c << 16 ^ d << 24;
}

static uint8_t mov2_type(size_t i)
{
    return (uint8_t)i;
}

TEST(mov2_moves_agree_with_unfused_ticks)
{
    static const uint8_t types[] = {0x02, 0x60, 0x02, 0x7F, 0x7F, 0x01, 0x7F, 0x60, 0x05,
                                    0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x01, 0x7F};
    static const fbody bodies[] = {FBODY(swap_body), FBODY(rot_body)};
    static uint8_t bytes[512];
    size_t n = build_module(&(modspec){.types = types, .types_len = sizeof types, .count = 2,
                                       .type_of = mov2_type, .bodies = bodies},
                            bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, n));
    for (uint32_t i = 0; i < 2; i++) {
        CHECK(count_ops(fused.m->funcs[i].code, WD_OP_MOV2, WD_OP_MOV2) >= 1);
        CHECK_EQ(count_ops(plain.m->funcs[i].code, WD_OP_MOV2, WD_OP_MOV2), 0);
    }
    uint64_t s = 9;
    for (int j = 0; j < 40; j++) {
        bool rot = j % 2 == 1;
        char nm[4];
        name(rot, nm);
        wd_func *ff = wd_test_vm_export(&fused, nm), *pf = wd_test_vm_export(&plain, nm);
        CHECK(ff != NULL && pf != NULL);
        wd_val args[5];
        for (int a = 0; a < 5; a++)
            args[a].u64 = wd_test_rnd(&s, a == 4 ? 9 : UINT32_MAX) + (a == 4);
        uint32_t want = rot ? rot_expect(args[0].u32, args[1].u32, args[2].u32, args[3].u32,
                                         args[4].u32)
                            : args[1].u32 << 16 | args[0].u32;
        CHECK_EQ(wd_eval_invoke(&fused.t, ff, args, &fused.err), WD_OK);
        CHECK_EQ(wd_eval_invoke(&plain.t, pf, args, &plain.err), WD_OK);
        CHECK_EQ(wd_eval_results(&fused.t)[0].u32, want);
        CHECK_EQ(wd_eval_results(&plain.t)[0].u32, want);
        CHECK_EQ(fused.t.ticks, plain.t.ticks);
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}

/* ---- a loop's dispatch copied to its back edges (translate.c, copy_loop_head) ---- */

/* An interpreter of a program in memory: op 0 adds 1, op 1 multiplies by 3, anything else
 * returns the accumulator. The loop's head is the opcode's load and the br_table; each `br`
 * back to it takes a copy. Run from pc 0 it returns; from pc 5 it runs over zero bytes off
 * the end of memory, and the copied load traps. */
static const uint8_t vm_body[] = {
    0x01, 0x01, 0x7F, 0x03, 0x40, 0x02, 0x40, 0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x2D,
    0x00, 0x00, 0x0E, 0x02, 0x00, 0x01, 0x02, 0x0B, 0x20, 0x01, 0x41, 0x01, 0x6A, 0x21,
    0x01, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x21, 0x00, 0x0C, 0x02, 0x0B, 0x20, 0x01, 0x41,
    0x03, 0x6C, 0x21, 0x01, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x21, 0x00, 0x0C, 0x01, 0x0B,
    0x20, 0x01, 0x0F, 0x0B, 0x00, 0x0B};

TEST(loop_head_copies_agree_with_unfused_ticks)
{
    static const uint8_t types[] = {0x01, 0x60, 0x01, 0x7F, 0x01, 0x7F};
    static const uint8_t mem[] = {0x01, 0x00, 0x01};
    static const uint8_t data[] = {0x01, 0x00, 0x41, 0x00, 0x0B, 0x05,
                                   0x00, 0x01, 0x00, 0x01, 0x02};
    static uint8_t bytes[512];
    size_t n = build_module(&(modspec){.types = types, .types_len = sizeof types, .count = 1,
                                       .bodies = (const fbody[]){FBODY(vm_body)},
                                       .memory = mem, .memory_len = sizeof mem, .data = data,
                                       .data_len = sizeof data},
                            bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, n));
    /* the head's and a copy for each of the two `br`s */
    CHECK_EQ(count_ops(fused.m->funcs[0].code, WD_OP_BR_TABLE, WD_OP_BR_TABLE), 3);
    CHECK_EQ(count_ops(plain.m->funcs[0].code, WD_OP_BR_TABLE, WD_OP_BR_TABLE), 1);
    wd_func *ff = wd_test_vm_export(&fused, "faa"), *pf = wd_test_vm_export(&plain, "faa");
    CHECK(ff != NULL && pf != NULL);
    for (uint32_t start = 0; start < 6; start++) {
        wd_val args[1] = {{.u64 = start}};
        wd_status a = wd_eval_invoke(&fused.t, ff, args, &fused.err);
        wd_status b = wd_eval_invoke(&plain.t, pf, args, &plain.err);
        CHECK_EQ(a, b);
        CHECK_EQ(fused.t.ticks, plain.t.ticks);
        if (start == 0) {
            CHECK_EQ(a, WD_OK);
            CHECK_EQ(wd_eval_results(&fused.t)[0].u32, 12); /* ((0 + 1) * 3 + 1) * 3 */
            CHECK_EQ(wd_eval_results(&plain.t)[0].u32, 12);
        } else if (start == 5) {
            CHECK(a != WD_OK); /* off the end of memory */
        } else if (a == WD_OK) {
            CHECK_EQ(wd_eval_results(&fused.t)[0].u32, wd_eval_results(&plain.t)[0].u32);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}

/* ---- a load and the store of its value (COPY8..COPY64_RI) ---- */

/* Functions (param d s), each a load from s and a store of its value at d:
 *   P    d; s; load offset 3; store offset 5     plain accesses: COPYn
 *   P0   the same at offsets 0                   COPYn
 *   RI   d + 7; s + 9 (i32.add); load; store      sums modulo 2^32: COPYn_RI (a load without
 *                                                 an _RI form reads its sum's slot at offset
 *                                                 0: the same; a store without one has its
 *                                                 sum made after the load: not fused)
 *   MIX  d; s + 9; load; store offset 4          a sum and an offset: not fused (a load
 *                                                 without an _RI form: plain, COPYn)
 *   TEE  d; s; load; tee 2; store                 the value kept in a local: not fused
 * for each load and store of one width. */
enum { CP, CP0, CRI, CMIX, CTEE, CSHAPES };
enum { LOAD_RI = 1, STORE_RI = 2 }; /* which of the two has an _RI form */
static const uint8_t copy_pairs[][4] = {
    /* load, store, width, _RI forms */
    {0x2D, 0x3A, 1, 3}, {0x2C, 0x3A, 1, 3}, {0x2F, 0x3B, 2, 3}, {0x28, 0x36, 4, 3},
    {0x29, 0x37, 8, 3}, {0x35, 0x3E, 4, 3}, {0x31, 0x3C, 1, 0}, {0x33, 0x3D, 2, 0},
    {0x34, 0x3E, 4, STORE_RI},
};
enum { CPAIRS = WD_ARRAY_COUNT(copy_pairs) };

static size_t copy_body(size_t i, uint8_t *b)
{
    int shape = (int)(i % CSHAPES);
    const uint8_t *p = copy_pairs[i / CSHAPES];
    bool wide = p[0] >= 0x29 && p[0] != 0x2C && p[0] != 0x2D && p[0] != 0x2F;
    size_t n = 0;
    b[n++] = 1, b[n++] = 1, b[n++] = wide ? 0x7E : 0x7F; /* local 2 */
#define GET(i)   (b[n++] = 0x20, b[n++] = (i))
#define ADD(i, k) (GET(i), b[n++] = 0x41, b[n++] = (k), b[n++] = 0x6A)
#define MEM(op, off) (b[n++] = (op), b[n++] = 0, b[n++] = (off))
    switch (shape) {
    case CP: GET(0), GET(1), MEM(p[0], 3), MEM(p[1], 5); break;
    case CP0: GET(0), GET(1), MEM(p[0], 0), MEM(p[1], 0); break;
    case CRI: ADD(0, 7), ADD(1, 9), MEM(p[0], 0), MEM(p[1], 0); break;
    case CMIX: GET(0), ADD(1, 9), MEM(p[0], 0), MEM(p[1], 4); break;
    default: GET(0), GET(1), MEM(p[0], 0), b[n++] = 0x22, b[n++] = 2, MEM(p[1], 0);
    }
#undef GET
#undef ADD
#undef MEM
    b[n++] = 0x0B;
    return n;
}

/* Fills both memories with the same bytes. */
static void fill_memories(wd_test_vm *a, wd_test_vm *b, uint64_t *s)
{
    wd_memory *ma = a->inst->memory, *mb = b->inst->memory;
    for (uint64_t j = 0; j < ma->size; j++)
        ma->data[j] = (uint8_t)wd_test_rnd(s, 255);
    memcpy(mb->data, ma->data, ma->size);
}

/* Invokes f with tick limit `limit` (ticks from now); when it stops there, resumes it
 * without one. The first status in *first. */
static wd_status copy_call(wd_test_vm *v, const char *nm, uint32_t d, uint32_t s, uint64_t limit,
                           wd_status *first)
{
    wd_func *f = wd_test_vm_export(v, nm);
    if (f == NULL)
        return WD_ERR_USAGE;
    wd_val args[2] = {{.u64 = d}, {.u64 = s}};
    v->err = (wd_error){0};
    v->t.tick_limit = limit == UINT64_MAX ? UINT64_MAX : v->t.ticks + limit;
    wd_status st = *first = wd_eval_invoke(&v->t, f, args, &v->err);
    v->t.tick_limit = UINT64_MAX;
    if (st == WD_OUT_OF_TICKS)
        st = wd_eval_resume(&v->t, &v->err);
    return st;
}

/* The fused and unfused instances of `count` functions (i32 address, i32 value) -> () with
 * bodies body_of(i), over one page of memory: the store fusions' tests. */
static bool start_store_pair(wd_test_vm *fused, wd_test_vm *plain, size_t count,
                             size_t (*body_of)(size_t i, uint8_t *out))
{
    static const uint8_t types[] = {0x01, 0x60, 0x02, 0x7F, 0x7F, 0x00};
    static const uint8_t mem[] = {0x01, 0x00, 0x01};
    static uint8_t bytes[4096];
    size_t n = build_module(&(modspec){.types = types, .types_len = sizeof types, .count = count,
                                       .body_of = body_of, .memory = mem,
                                       .memory_len = sizeof mem},
                            bytes);
    return wd_test_vm_start_pair(fused, plain, bytes, n);
}

/* Calls nm(a, b) on both, limited to `limit` ticks from now as copy_call: the same status
 * (and whether the limited call trapped), ticks, trap and memory. *cost: the plain call's
 * ticks. A failed check fails the calling test. */
static void same_outcome(wd_test_vm *fused, wd_test_vm *plain, const char *nm, uint32_t a,
                         uint32_t b, uint64_t limit, uint64_t *cost)
{
    wd_status f0, p0;
    uint64_t fb = fused->t.ticks, pb = plain->t.ticks;
    wd_status p = copy_call(plain, nm, a, b, limit, &p0);
    wd_status f = copy_call(fused, nm, a, b, limit, &f0);
    *cost = plain->t.ticks - pb;
    CHECK_EQ(f, p);
    CHECK_EQ(f0 == WD_TRAP, p0 == WD_TRAP);
    CHECK_EQ(fused->t.ticks - fb, *cost);
    if (p == WD_TRAP) {
        CHECK_EQ(fused->err.trap, plain->err.trap);
        CHECK_EQ(fused->err.offset, plain->err.offset);
    }
    CHECK(memcmp(fused->inst->memory->data, plain->inst->memory->data, 65536) == 0);
}

TEST(copy_fused_agrees_with_unfused_ticks_traps_and_memory)
{
    size_t count = CPAIRS * CSHAPES;
    wd_test_vm fused, plain;
    CHECK(start_store_pair(&fused, &plain, count, copy_body));
    for (size_t i = 0; i < count; i++) {
        int shape = (int)(i % CSHAPES);
        const wd_code *fc = fused.m->funcs[i].code;
        uint32_t copies = count_ops(fc, WD_OP_COPY8, WD_OP_COPY64_RI);
        uint8_t forms = copy_pairs[i / CSHAPES][3];
        bool fuses = shape == CP || shape == CP0 || (shape == CRI && (forms & STORE_RI)) ||
                     (shape == CMIX && !(forms & LOAD_RI));
        CHECK_EQ(copies, fuses ? 1u : 0u);
        CHECK_EQ(count_ops(plain.m->funcs[i].code, WD_OP_COPY8, WD_OP_COPY64_RI), 0);
        uint32_t ri = count_ops(fc, WD_OP_COPY8_RI, WD_OP_COPY64_RI);
        CHECK_EQ(ri, shape == CRI && fuses ? 1u : 0u);
    }
    uint64_t s = 17;
    for (size_t i = 0; i < count; i++) {
        char nm[4];
        name(i, nm);
        uint32_t w = copy_pairs[i / CSHAPES][2];
        for (int j = 0; j < 24; j++) {
            /* in bounds, at the end of memory (the load's or the store's trap), or wrapping */
            uint32_t at[] = {wd_test_rnd(&s, 60000), 65536 - w - (uint32_t)wd_test_rnd(&s, 12),
                             UINT32_MAX - (uint32_t)wd_test_rnd(&s, 12)};
            uint32_t d = at[j % 3 == 1 ? (j / 3) % 3 : 0], sa = at[j % 3];
            fill_memories(&fused, &plain, &s);
            uint64_t cost = 0, ignored = 0;
            same_outcome(&fused, &plain, nm, d, sa, UINT64_MAX, &cost);
            /* limits within the last ticks: a load that traps in them traps either way */
            for (uint64_t lim = cost > 24 ? cost - 24 : 0; lim <= cost; lim++)
                same_outcome(&fused, &plain, nm, d, sa, lim, &ignored);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}

/* ---- a loop's conditional head copied to its back edges ---- */

/* strlen(p) as a loop whose head loads a byte and leaves on zero (br_if out), its `br` back
 * taking a copy of the load and the branch, whose target (the block's end) is still to be
 * known then; and a countdown (3 * n) whose head is the branch alone. Past the end of memory
 * (six non-zero bytes there) the copied load traps. */
static const uint8_t strlen_body[] = {
    0x01, 0x01, 0x7F, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x2D, 0x00, 0x00, 0x45, 0x0D,
    0x01, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x21, 0x00, 0x20, 0x01, 0x41, 0x01, 0x6A, 0x21,
    0x01, 0x0C, 0x00, 0x0B, 0x0B, 0x20, 0x01, 0x0B};
static const uint8_t countdown_body[] = {
    0x01, 0x01, 0x7F, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x45, 0x0D, 0x01, 0x20, 0x00,
    0x41, 0x01, 0x6B, 0x21, 0x00, 0x20, 0x01, 0x41, 0x03, 0x6A, 0x21, 0x01, 0x0C, 0x00,
    0x0B, 0x0B, 0x20, 0x01, 0x0B};

TEST(conditional_loop_head_copies_agree_with_unfused_ticks)
{
    static const uint8_t types[] = {0x01, 0x60, 0x01, 0x7F, 0x01, 0x7F};
    static const uint8_t mem[] = {0x01, 0x00, 0x01};
    static const uint8_t data[] = {0x02, 0x00, 0x41, 0x00, 0x0B, 0x03, 0x61, 0x62, 0x63,
                                   0x00, 0x41, 0xFA, 0xFF, 0x03, 0x0B, 0x06, 0x78, 0x78,
                                   0x78, 0x78, 0x78, 0x78};
    static const fbody bodies[] = {FBODY(strlen_body), FBODY(countdown_body)};
    static uint8_t bytes[512];
    size_t n = build_module(&(modspec){.types = types, .types_len = sizeof types, .count = 2,
                                       .bodies = bodies,
                                       .memory = mem, .memory_len = sizeof mem, .data = data,
                                       .data_len = sizeof data},
                            bytes);
    wd_test_vm fused, plain;
    CHECK(wd_test_vm_start_pair(&fused, &plain, bytes, n));
    for (uint32_t i = 0; i < 2; i++) {
        /* the head's branch and its copy */
        const wd_code *c = fused.m->funcs[i].code;
        CHECK_EQ(count_ops(c, WD_OP_BR_IF_Z, WD_OP_BR_IF_Z) +
                     count_ops(c, WD_OP_BR_IF_NZ, WD_OP_BR_IF_NZ),
                 2);
    }
    static const uint32_t args_of[2][7] = {{0, 1, 3, 100, 65530, 65533, 65535},
                                           {0, 1, 2, 7, 19, 40, 1000}};
    for (uint32_t i = 0; i < 2; i++) {
        char nm[4];
        name(i, nm);
        wd_func *ff = wd_test_vm_export(&fused, nm), *pf = wd_test_vm_export(&plain, nm);
        CHECK(ff != NULL && pf != NULL);
        for (int j = 0; j < 7; j++) {
            uint32_t arg = args_of[i][j];
            wd_val args[1] = {{.u64 = arg}};
            uint64_t fb = fused.t.ticks, pb = plain.t.ticks;
            wd_status a = wd_eval_invoke(&fused.t, ff, args, &fused.err);
            wd_status b = wd_eval_invoke(&plain.t, pf, args, &plain.err);
            CHECK_EQ(a, b);
            CHECK_EQ(fused.t.ticks - fb, plain.t.ticks - pb);
            if (i == 0 && arg >= 65530) {
                CHECK_EQ(a, WD_TRAP); /* off the end of memory, in the copied load */
                CHECK_EQ(fused.err.offset, plain.err.offset);
                continue;
            }
            CHECK_EQ(a, WD_OK);
            uint32_t want = i == 1 ? 3 * arg : arg == 0 ? 3 : arg == 1 ? 2 : 0;
            CHECK_EQ(wd_eval_results(&fused.t)[0].u32, want);
            CHECK_EQ(wd_eval_results(&plain.t)[0].u32, want);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}

/* ---- a store of a slot plus a small constant (I32_STORE_ADDK..) ---- */

/* Functions (param d v), each storing v + k at d, for i32.store and i32.store8:
 *   P    d; v; k; add; store offset 3             I32_STORE(8)_ADDK
 *   RI   d + 7 (i32.add); v; k; add; store        I32_STORE(8)_RI_ADDK
 *   TEE  d; v; k; add; tee 2; store               the sum kept in a local: not fused
 * with k = 5, -3, 32767, -32768 and 40000 (over 16 bits: not fused). */
enum { AP, ARI, ATEE, ASHAPES };
static const int32_t addks[] = {5, -3, 32767, -32768, 40000};
enum { ADDKS = WD_ARRAY_COUNT(addks), AFNS = 2 * ASHAPES * ADDKS };

static size_t addk_body(size_t i, uint8_t *b)
{
    int shape = (int)(i % ASHAPES);
    int32_t k = addks[i / ASHAPES % ADDKS];
    uint8_t store = i / (ASHAPES * ADDKS) ? 0x3A : 0x36;
    size_t n = 0;
    b[n++] = 1, b[n++] = 1, b[n++] = 0x7F; /* local 2 */
    b[n++] = 0x20, b[n++] = 0;
    if (shape == ARI)
        b[n++] = 0x41, b[n++] = 7, b[n++] = 0x6A;
    b[n++] = 0x20, b[n++] = 1, b[n++] = 0x41;
    n += wd_test_put_leb(b + n, (uint64_t)(int64_t)k, true);
    b[n++] = 0x6A;
    if (shape == ATEE)
        b[n++] = 0x22, b[n++] = 2;
    b[n++] = store, b[n++] = 0, b[n++] = shape == AP ? 3 : 0;
    b[n++] = 0x0B;
    return n;
}

TEST(store_addk_fused_agrees_with_unfused_ticks_traps_and_memory)
{
    wd_test_vm fused, plain;
    CHECK(start_store_pair(&fused, &plain, AFNS, addk_body));
    uint64_t s = 23;
    for (size_t i = 0; i < AFNS; i++) {
        int shape = (int)(i % ASHAPES);
        bool fits = addks[i / ASHAPES % ADDKS] == (int16_t)addks[i / ASHAPES % ADDKS];
        uint32_t fused_ops =
            count_ops(fused.m->funcs[i].code, WD_OP_I32_STORE_ADDK, WD_OP_I32_STORE8_RI_ADDK);
        CHECK_EQ(fused_ops, shape != ATEE && fits ? 1u : 0u);
        CHECK_EQ(count_ops(plain.m->funcs[i].code, WD_OP_I32_STORE_ADDK,
                           WD_OP_I32_STORE8_RI_ADDK),
                 0);
        char nm[4];
        name(i, nm);
        for (int j = 0; j < 12; j++) {
            /* in bounds, at the end of memory, or wrapping (the RI form's sum) */
            uint32_t d = j % 3 == 0   ? wd_test_rnd(&s, 60000)
                         : j % 3 == 1 ? 65536 - 4 - (uint32_t)wd_test_rnd(&s, 8)
                                      : UINT32_MAX - (uint32_t)wd_test_rnd(&s, 6);
            uint32_t v = wd_test_rnd(&s, UINT32_MAX);
            fill_memories(&fused, &plain, &s);
            uint64_t cost = 0;
            same_outcome(&fused, &plain, nm, d, v, UINT64_MAX, &cost);
        }
    }
    wd_test_vm_stop(&fused);
    wd_test_vm_stop(&plain);
}
