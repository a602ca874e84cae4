/* eval_test.c: the interpreter (eval/), on internal code built by hand. */
#include "eval/eval.h"
#include "link/link.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdlib.h>

/* ---- building code by hand ---- */

#define MAX_INSNS 96

typedef struct prog {
    wd_insn insns[MAX_INSNS];
    uint32_t costs[MAX_INSNS], offsets[MAX_INSNS];
    uint32_t n;
    wd_code code;
} prog;

static uint32_t emit(prog *p, uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint32_t cost)
{
    uint32_t i = p->n++;
    if (i >= MAX_INSNS)
        abort();
    p->insns[i] = (wd_insn){.op = op, .a = a, .b = b, .c = c};
    p->costs[i] = cost;
    p->offsets[i] = 0x100 + i;
    return i;
}

/* op a b c, cost 1 (the flat model). METERs cost 0 (their charge is filled in by done()). */
#define E(p, op, a, b, c) emit(p, WD_OP_##op, a, b, c, 1)
#define METER(p)          emit(p, WD_OP_METER, 0, 0, 0, 0)
/* call_indirect of type `type` (its `params`, the element index after them) from `table`,
 * the arguments at slot `args` (decode/code.h: the param count in k) */
#define CALL_INDIRECT(p, type, args, table, params)                                                \
    ((p)->insns[emit(p, WD_OP_CALL_INDIRECT, type, args, table, 1)].k = (params))
#define ENTRY(p, cost)    emit(p, WD_OP_METER, 0, 0, 0, cost)
/* After a call that may reach a host function (call_indirect, a call to an import): the
 * METER of what only a wasm callee's return costs, which a host function's return steps
 * over (decode/translate.c post_call). */
#define WASM_RETURN_METER(p) METER(p)

static uint32_t const64(prog *p, uint32_t dst, uint64_t v)
{
    uint32_t i = emit(p, WD_OP_CONST64, dst, 0, 0, 1);
    p->insns[i].bc = v;
    return i;
}

/* GCC 12.2 at -O2 miscompiles callers of done(): ipa-modref lets them keep the METER
 * charges they saw before the call (a 40-line reproducer exists; clang and -O1 are fine).
 * Keeping the function out of interprocedural analysis avoids it. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOIPA __attribute__((noipa))
#else
#define NOIPA
#endif

/* Fills in every METER's charge and the code header. */
NOIPA static wd_code *done(prog *p, uint32_t params, uint32_t locals, uint32_t results,
                           uint32_t max)
{
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->insns[i].op != WD_OP_METER)
            continue;
        uint32_t sum = p->costs[i];
        for (uint32_t j = i + 1; j < p->n && p->insns[j].op != WD_OP_METER; j++)
            sum += p->costs[j];
        p->insns[i].a = sum;
    }
    p->code = (wd_code){.insns = p->insns,
                        .insn_count = p->n,
                        .costs = p->costs,
                        .offsets = p->offsets,
                        .param_slots = params,
                        .local_slots = locals,
                        .result_slots = results,
                        .max_slots = max};
    return &p->code;
}

/* ---- a module, an instance and a thread ---- */

static const uint8_t i64x2[2] = {WD_I64, WD_I64};
static const uint8_t i32x4[4] = {WD_I32, WD_I32, WD_I32, WD_I32};

typedef struct fix {
    wd_ctx ctx;
    wd_store *store;
    wd_module m;
    wd_instance *inst;
    wd_thread t;
    wd_error err;
    wd_costs costs;
    wd_functype types[6];
    wd_funcdef funcs[16];
    wd_import imports[2];
    wd_extern externs[2];
    wd_tabletype tables[2];
    wd_memtype mems[1];
    wd_globaldef globals[2];
    wd_elemseg elems[2];
    wd_constexpr items[4];
    wd_dataseg datas[2];
} fix;

/* Types: 0 (i64 i64) -> i64, 1 (i32) -> i32, 2 (i32 i32) -> (i32 i32), 3 () -> (),
 * 4 (i32 i32 i32) -> (), 5 (i32 i32 i32) -> i32. */
static void fix_init(fix *f)
{
    memset(f, 0, sizeof *f);
    wd_ctx_init(&f->ctx);
    f->store = wd_store_new(&f->ctx);
    wd_error_clear(&f->err);
    f->m.ctx = &f->ctx;
    f->types[0] = (wd_functype){2, 1, i64x2, i64x2};
    f->types[1] = (wd_functype){1, 1, i32x4, i32x4};
    f->types[2] = (wd_functype){2, 2, i32x4, i32x4};
    f->types[3] = (wd_functype){0, 0, NULL, NULL};
    f->types[4] = (wd_functype){3, 0, i32x4, NULL};
    f->types[5] = (wd_functype){3, 1, i32x4, i32x4};
    f->m.types = f->types;
    f->m.type_count = 6;
    f->m.funcs = f->funcs;
    f->m.imports = f->imports;
    f->m.tables = f->tables;
    f->m.memories = f->mems;
    f->m.globals = f->globals;
    f->m.elems = f->elems;
    f->m.datas = f->datas;
}

static uint32_t fix_func(fix *f, wd_code *code, uint32_t type_idx)
{
    uint32_t i = f->m.func_count++;
    f->funcs[i].type_idx = type_idx;
    f->funcs[i].code = code;
    code->func_idx = i;
    return i;
}

/* Imports host function `fn` as the next function (imports come first). */
static uint32_t fix_host(fix *f, uint32_t type_idx, wd_host_fn fn, void *ud)
{
    uint32_t i = f->m.import_count++;
    f->imports[i] = (wd_import){
        .module = "env", .name = "host", .module_size = 3, .name_size = 4, .kind = WD_EXTERN_FUNC};
    f->imports[i].desc.type_idx = type_idx;
    f->externs[i].kind = WD_EXTERN_FUNC;
    if (wd_store_host_func(f->store, &f->types[type_idx], fn, ud, "env", "host",
                           &f->externs[i].u.func, &f->err) != WD_OK)
        abort();
    f->m.import_func_count++;
    return f->m.func_count++;
}

static void fix_memory(fix *f, uint64_t min, uint64_t max)
{
    f->mems[0] = (wd_memtype){{min, max, max != 0}};
    f->m.memory_count = 1;
}

static wd_status fix_inst(fix *f, size_t slots, uint32_t frames)
{
    wd_status st = wd_link_instantiate(f->store, &f->m, f->externs, &f->inst, &f->err);
    if (st != WD_OK)
        return st;
    return wd_thread_init(&f->t, &f->ctx, slots, frames, &f->costs, &f->err);
}

/* Frees everything; false if anything leaked. */
static bool fix_fini(fix *f)
{
    wd_thread_fini(&f->t);
    wd_store_free(f->store);
    return f->ctx.live == 0;
}

static wd_status call(fix *f, uint32_t func, uint64_t x, uint64_t y)
{
    wd_val args[4] = {{.u64 = x}, {.u64 = y}, {.u64 = 0}, {.u64 = 0}};
    wd_error_clear(&f->err);
    return wd_eval_invoke(&f->t, f->inst->funcs[func], args, &f->err);
}

static uint64_t result(const fix *f, uint32_t i)
{
    return wd_eval_results(&f->t)[i].u64;
}

/* ---- numeric ops, one instruction at a time ---- */

typedef struct op_result {
    wd_status st;
    uint64_t val;
    wd_trap trap;
    char msg[192];
} op_result;

/* Runs `op` as fp[2] = op(fp[0], fp[1]) in a function of its own. */
static op_result run_op(uint32_t op, uint64_t x, uint64_t y)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    ENTRY(&p, 1);
    emit(&p, op, 2, 0, 1, 1);
    E(&p, RETURN, 2, 1, 0);
    fix_func(&f, done(&p, 2, 2, 1, 3), 0);
    op_result r = {0};
    r.st = fix_inst(&f, 64, 8);
    if (r.st == WD_OK)
        r.st = call(&f, 0, x, y);
    if (r.st == WD_OK)
        r.val = result(&f, 0);
    r.trap = f.err.trap;
    snprintf(r.msg, sizeof r.msg, "%s", f.err.msg);
    if (!fix_fini(&f))
        r.st = WD_ERR_NOMEM; /* a leak */
    return r;
}

static uint64_t op2(uint32_t op, uint64_t x, uint64_t y)
{
    op_result r = run_op(op, x, y);
    return r.st == WD_OK ? r.val : 0xDEADDEADDEADDEADu;
}

static uint64_t f32b(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static uint64_t f64b(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

#define OPC(name) WD_OP_##name

TEST(eval_i32_arithmetic)
{
    CHECK_EQ(op2(OPC(I32_ADD), 0xFFFFFFFF, 2), 1);
    CHECK_EQ(op2(OPC(I32_SUB), 1, 2), 0xFFFFFFFF);
    CHECK_EQ(op2(OPC(I32_MUL), 0x10000, 0x10000), 0);
    CHECK_EQ(op2(OPC(I32_DIV_S), (uint32_t)-7, 2), (uint32_t)-3);
    CHECK_EQ(op2(OPC(I32_DIV_U), (uint32_t)-7, 2), 0x7FFFFFFC);
    CHECK_EQ(op2(OPC(I32_REM_S), (uint32_t)-7, 2), (uint32_t)-1);
    CHECK_EQ(op2(OPC(I32_REM_S), 0x80000000, (uint32_t)-1), 0);
    CHECK_EQ(op2(OPC(I32_REM_U), (uint32_t)-7, 2), 1);
    CHECK_EQ(op2(OPC(I32_SHL), 1, 33), 2);
    CHECK_EQ(op2(OPC(I32_SHR_S), 0x80000000, 31 + 32), 0xFFFFFFFF);
    CHECK_EQ(op2(OPC(I32_SHR_U), 0x80000000, 31), 1);
    CHECK_EQ(op2(OPC(I32_ROTL), 0x80000001, 1), 3);
    CHECK_EQ(op2(OPC(I32_ROTR), 3, 33), 0x80000001);
    CHECK_EQ(op2(OPC(I32_ROTL), 0x12345678, 0), 0x12345678);
    CHECK_EQ(op2(OPC(I32_CLZ), 0, 0), 32);
    CHECK_EQ(op2(OPC(I32_CLZ), 1, 0), 31);
    CHECK_EQ(op2(OPC(I32_CTZ), 0, 0), 32);
    CHECK_EQ(op2(OPC(I32_CTZ), 0x80000000, 0), 31);
    CHECK_EQ(op2(OPC(I32_POPCNT), 0xFFFFFFFF, 0), 32);
    CHECK_EQ(op2(OPC(I32_EQZ), 0, 0), 1);
    CHECK_EQ(op2(OPC(I32_LT_S), 0xFFFFFFFF, 0), 1);
    CHECK_EQ(op2(OPC(I32_LT_U), 0xFFFFFFFF, 0), 0);
    CHECK_EQ(op2(OPC(I32_GE_S), 0, 0xFFFFFFFF), 1);
    CHECK_EQ(op2(OPC(I32_EXTEND8_S), 0x80, 0), 0xFFFFFF80);
    CHECK_EQ(op2(OPC(I32_EXTEND16_S), 0x17FFF, 0), 0x7FFF);
    /* i32 results are zero-extended in their slot, whatever the inputs' high halves. */
    CHECK_EQ(op2(OPC(I32_ADD), 0xFFFFFFFF00000001u, 0xFFFFFFFF00000001u), 2);
    CHECK_EQ(op2(OPC(I32_WRAP_I64), 0x123456789u, 0), 0x23456789);
}

TEST(eval_i64_arithmetic)
{
    const uint64_t min = 0x8000000000000000u;
    CHECK(op2(OPC(I64_MUL), 0x100000000u, 0x100000000u) == 0);
    CHECK(op2(OPC(I64_DIV_S), (uint64_t)-9, 2) == (uint64_t)-4);
    CHECK(op2(OPC(I64_REM_S), min, (uint64_t)-1) == 0);
    CHECK(op2(OPC(I64_REM_S), (uint64_t)-9, 4) == (uint64_t)-1);
    CHECK(op2(OPC(I64_DIV_U), (uint64_t)-1, 2) == 0x7FFFFFFFFFFFFFFFu);
    CHECK(op2(OPC(I64_SHL), 1, 65) == 2);
    CHECK(op2(OPC(I64_SHR_S), min, 63) == UINT64_MAX);
    CHECK(op2(OPC(I64_SHR_U), min, 127) == 1);
    CHECK(op2(OPC(I64_ROTL), min | 1, 1) == 3);
    CHECK(op2(OPC(I64_ROTR), 1, 64) == 1);
    CHECK(op2(OPC(I64_CLZ), 0, 0) == 64);
    CHECK(op2(OPC(I64_CTZ), 0, 0) == 64);
    CHECK(op2(OPC(I64_POPCNT), min | 5, 0) == 3);
    CHECK(op2(OPC(I64_EQZ), min, 0) == 0);
    CHECK(op2(OPC(I64_LT_S), min, 0) == 1);
    CHECK(op2(OPC(I64_GT_U), min, 0) == 1);
    CHECK(op2(OPC(I64_EXTEND_I32_S), 0x80000000u, 0) == 0xFFFFFFFF80000000u);
    CHECK(op2(OPC(I64_EXTEND_I32_U), 0xFFFFFFFF80000000u, 0) == 0x80000000u);
    CHECK(op2(OPC(I64_EXTEND8_S), 0xFF, 0) == UINT64_MAX);
    CHECK(op2(OPC(I64_EXTEND16_S), 0x8000, 0) == 0xFFFFFFFFFFFF8000u);
    CHECK(op2(OPC(I64_EXTEND32_S), 0x7FFFFFFF, 0) == 0x7FFFFFFF);
}

TEST(eval_float_ops)
{
    const uint64_t nan32 = 0x7FC00000, snan32 = 0x7FA00001, nan64 = 0x7FF8000000000000u;
    /* min/max: NaN propagates, -0 < +0 */
    CHECK(op2(OPC(F32_MIN), f32b(-0.0f), f32b(0.0f)) == f32b(-0.0f));
    CHECK(op2(OPC(F32_MIN), f32b(0.0f), f32b(-0.0f)) == f32b(-0.0f));
    CHECK(op2(OPC(F32_MAX), f32b(-0.0f), f32b(0.0f)) == f32b(0.0f));
    CHECK((op2(OPC(F32_MIN), nan32, f32b(1.0f)) & 0x7FC00000) == 0x7FC00000);
    CHECK((op2(OPC(F32_MAX), f32b(1.0f), snan32) & 0x7FC00000) == 0x7FC00000);
    CHECK(op2(OPC(F64_MIN), f64b(-0.0), f64b(0.0)) == f64b(-0.0));
    CHECK(op2(OPC(F64_MAX), f64b(-0.0), f64b(0.0)) == f64b(0.0));
    CHECK(op2(OPC(F64_MAX), f64b(1.0), f64b(2.0)) == f64b(2.0));
    CHECK((op2(OPC(F64_MIN), f64b(1.0), nan64) & nan64) == nan64);
    /* nearest: half to even */
    CHECK(op2(OPC(F32_NEAREST), f32b(2.5f), 0) == f32b(2.0f));
    CHECK(op2(OPC(F32_NEAREST), f32b(-3.5f), 0) == f32b(-4.0f));
    CHECK(op2(OPC(F64_NEAREST), f64b(-0.5), 0) == f64b(-0.0));
    CHECK(op2(OPC(F64_NEAREST), f64b(4503599627370497.0), 0) == f64b(4503599627370497.0));
    CHECK(op2(OPC(F64_CEIL), f64b(-0.5), 0) == f64b(-0.0));
    CHECK(op2(OPC(F32_FLOOR), f32b(-0.5f), 0) == f32b(-1.0f));
    CHECK(op2(OPC(F64_TRUNC), f64b(-1.5), 0) == f64b(-1.0));
    CHECK(op2(OPC(F64_SQRT), f64b(2.0), 0) == f64b(sqrt(2.0)));
    /* abs/neg/copysign: bit operations, NaN payloads kept */
    CHECK(op2(OPC(F32_NEG), snan32, 0) == (snan32 | 0x80000000u));
    CHECK(op2(OPC(F32_ABS), snan32 | 0x80000000u, 0) == snan32);
    CHECK(op2(OPC(F32_COPYSIGN), snan32, f32b(-1.0f)) == (snan32 | 0x80000000u));
    CHECK(op2(OPC(F64_NEG), f64b(0.0), 0) == f64b(-0.0));
    CHECK(op2(OPC(F64_COPYSIGN), f64b(2.0), f64b(-0.0)) == f64b(-2.0));
    CHECK(op2(OPC(F64_ABS), 0xFFF0000000000001u, 0) == 0x7FF0000000000001u);
    /* arithmetic and comparisons */
    CHECK(op2(OPC(F32_ADD), f32b(1.5f), f32b(2.25f)) == f32b(3.75f));
    CHECK(op2(OPC(F64_DIV), f64b(1.0), f64b(0.0)) == f64b(INFINITY));
    CHECK(op2(OPC(F32_EQ), nan32, nan32) == 0);
    CHECK(op2(OPC(F32_NE), nan32, nan32) == 1);
    CHECK(op2(OPC(F64_LE), f64b(-0.0), f64b(0.0)) == 1);
    CHECK(op2(OPC(F64_LT), f64b(-0.0), f64b(0.0)) == 0);
    /* conversions */
    CHECK(op2(OPC(F32_CONVERT_I64_U), UINT64_MAX, 0) == f32b(18446744073709551616.0f));
    /* 2^63 + 2^39 + 1 rounds up to 2^63 + 2^40 in f32 (a double rounding would tie to even) */
    CHECK(op2(OPC(F32_CONVERT_I64_U), 0x8000008000000001u, 0) == 0x5F000001u);
    CHECK(op2(OPC(F32_CONVERT_I64_S), 0x8000000000000000u, 0) == f32b(-9223372036854775808.0f));
    CHECK(op2(OPC(F64_CONVERT_I64_U), 0xFFFFFFFFFFFFFBFFu, 0) == f64b(18446744073709549568.0));
    CHECK(op2(OPC(F64_CONVERT_I32_U), 0xFFFFFFFF, 0) == f64b(4294967295.0));
    CHECK(op2(OPC(F64_CONVERT_I32_S), 0xFFFFFFFF, 0) == f64b(-1.0));
    CHECK(op2(OPC(F32_DEMOTE_F64), f64b(1.0 + 0x1p-24), 0) == f32b(1.0f));
    CHECK(op2(OPC(F64_PROMOTE_F32), f32b(0.1f), 0) == f64b((double)0.1f));
    CHECK(op2(OPC(I32_REINTERPRET_F32), 0xFFFFFFFF7FA00001u, 0) == 0x7FA00001u);
    CHECK(op2(OPC(F64_REINTERPRET_I64), nan64 | 1, 0) == (nan64 | 1));
}

TEST(eval_trunc_bounds)
{
    /* exact edges of every trapping truncation */
    CHECK(op2(OPC(I32_TRUNC_F64_S), f64b(-2147483648.9), 0) == 0x80000000u);
    CHECK_EQ(run_op(OPC(I32_TRUNC_F64_S), f64b(-2147483649.0), 0).trap, WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I32_TRUNC_F64_S), f64b(2147483647.9), 0) == 0x7FFFFFFFu);
    CHECK_EQ(run_op(OPC(I32_TRUNC_F64_S), f64b(2147483648.0), 0).trap, WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I32_TRUNC_F32_S), f32b(-2147483648.0f), 0) == 0x80000000u);
    CHECK_EQ(run_op(OPC(I32_TRUNC_F32_S), f32b(2147483648.0f), 0).trap, WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I32_TRUNC_F64_U), f64b(-0.9), 0) == 0);
    CHECK_EQ(run_op(OPC(I32_TRUNC_F64_U), f64b(-1.0), 0).trap, WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I32_TRUNC_F64_U), f64b(4294967295.9), 0) == 0xFFFFFFFFu);
    CHECK_EQ(run_op(OPC(I32_TRUNC_F32_U), f32b(4294967296.0f), 0).trap, WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I64_TRUNC_F64_S), f64b(-9223372036854775808.0), 0) == 0x8000000000000000u);
    CHECK_EQ(run_op(OPC(I64_TRUNC_F64_S), f64b(9223372036854775808.0), 0).trap,
             WD_TRAP_INT_OVERFLOW);
    CHECK_EQ(run_op(OPC(I64_TRUNC_F32_S), f32b(-9223373136366403584.0f), 0).trap,
             WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I64_TRUNC_F64_U), f64b(18446744073709549568.0), 0) == 0xFFFFFFFFFFFFF800u);
    CHECK_EQ(run_op(OPC(I64_TRUNC_F64_U), f64b(18446744073709551616.0), 0).trap,
             WD_TRAP_INT_OVERFLOW);
    CHECK(op2(OPC(I64_TRUNC_F32_U), f32b(-0.5f), 0) == 0);
    op_result r = run_op(OPC(I64_TRUNC_F64_U), f64b(NAN), 0);
    CHECK_EQ(r.st, WD_TRAP);
    CHECK_EQ(r.trap, WD_TRAP_INVALID_CONVERSION);
    CHECK_STR_CONTAINS(r.msg, "invalid conversion to integer");
    r = run_op(OPC(I32_TRUNC_F32_S), f32b(INFINITY), 0);
    CHECK_STR_CONTAINS(r.msg, "integer overflow");
    /* saturating forms */
    CHECK(op2(OPC(I32_TRUNC_SAT_F32_S), f32b(NAN), 0) == 0);
    CHECK(op2(OPC(I32_TRUNC_SAT_F32_S), f32b(-3e9f), 0) == 0x80000000u);
    CHECK(op2(OPC(I32_TRUNC_SAT_F64_S), f64b(3e9), 0) == 0x7FFFFFFFu);
    CHECK(op2(OPC(I32_TRUNC_SAT_F64_U), f64b(-1e9), 0) == 0);
    CHECK(op2(OPC(I32_TRUNC_SAT_F64_U), f64b(5e9), 0) == 0xFFFFFFFFu);
    CHECK(op2(OPC(I32_TRUNC_SAT_F32_U), f32b(3.9f), 0) == 3);
    CHECK(op2(OPC(I64_TRUNC_SAT_F64_S), f64b(-1e30), 0) == 0x8000000000000000u);
    CHECK(op2(OPC(I64_TRUNC_SAT_F32_S), f32b(1e30f), 0) == 0x7FFFFFFFFFFFFFFFu);
    CHECK(op2(OPC(I64_TRUNC_SAT_F64_U), f64b(1e30), 0) == UINT64_MAX);
    CHECK(op2(OPC(I64_TRUNC_SAT_F32_U), f32b(-INFINITY), 0) == 0);
    CHECK(op2(OPC(I64_TRUNC_SAT_F64_S), f64b(-7.9), 0) == (uint64_t)-7);
}

TEST(eval_integer_traps_have_spec_messages)
{
    op_result r = run_op(OPC(I32_DIV_S), 1, 0);
    CHECK_EQ(r.st, WD_TRAP);
    CHECK_EQ(r.trap, WD_TRAP_DIV_ZERO);
    CHECK_STR_CONTAINS(r.msg, "integer divide by zero");
    r = run_op(OPC(I32_DIV_S), 0x80000000u, 0xFFFFFFFFu);
    CHECK_EQ(r.trap, WD_TRAP_INT_OVERFLOW);
    CHECK_STR_CONTAINS(r.msg, "integer overflow");
    CHECK_EQ(run_op(OPC(I64_DIV_S), 0x8000000000000000u, UINT64_MAX).trap, WD_TRAP_INT_OVERFLOW);
    CHECK_EQ(run_op(OPC(I32_REM_U), 1, 0).trap, WD_TRAP_DIV_ZERO);
    CHECK_EQ(run_op(OPC(I64_REM_S), 1, 0).trap, WD_TRAP_DIV_ZERO);
    CHECK_EQ(run_op(OPC(I64_DIV_U), 1, 0).trap, WD_TRAP_DIV_ZERO);
    /* rem_s by -1 never traps */
    CHECK_EQ(run_op(OPC(I32_REM_S), 0x80000000u, 0xFFFFFFFFu).st, WD_OK);
}

TEST(eval_trap_reports_function_and_offset)
{
    fix f;
    fix_init(&f);
    prog p0 = {0}, p1 = {0};
    ENTRY(&p0, 1);
    E(&p0, CALL, 1, 0, 0);
    METER(&p0);
    E(&p0, RETURN, 0, 0, 0);
    ENTRY(&p1, 1);
    E(&p1, NOP_COST, 0, 0, 0);
    uint32_t at = E(&p1, UNREACHABLE, 0, 0, 0);
    fix_func(&f, done(&p0, 0, 0, 0, 2), 3);
    fix_func(&f, done(&p1, 0, 0, 0, 2), 3);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 0, 0), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_UNREACHABLE);
    CHECK_STR_CONTAINS(f.err.msg, "unreachable");
    CHECK_EQ(f.err.func_idx, 1);
    CHECK_EQ(f.err.offset, 0x100 + at);
    CHECK_EQ(f.t.state, WD_THREAD_IDLE);
    CHECK_EQ(f.t.frame_count, 0);
    CHECK(fix_fini(&f));
}

/* ---- memory ---- */

/* fp[1] = load(fp[0] + offset) with `op`; or store fp[1] at fp[0] + offset and return 0. */
static op_result run_mem(uint32_t op, uint32_t offset, uint64_t addr, uint64_t val, uint64_t pages)
{
    fix f;
    fix_init(&f);
    fix_memory(&f, pages, 0);
    static const uint8_t init[8] = {0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88};
    bool store = op >= OPC(I32_STORE);
    f.datas[0] = (wd_dataseg){.mode = WD_SEG_ACTIVE, .size = 8, .bytes = init};
    f.m.data_count = pages > 0;
    prog p = {0};
    ENTRY(&p, 1);
    emit(&p, op, store ? 0 : 2, store ? 1 : 0, offset, 1);
    E(&p, RETURN, store ? 0 : 2, 1, 0);
    fix_func(&f, done(&p, 2, 2, 1, 3), 0);
    op_result r = {0};
    r.st = fix_inst(&f, 64, 8);
    if (r.st == WD_OK && store) {
        wd_val args[3] = {{.u64 = addr}, {.u64 = val}, {.u64 = 0}};
        r.st = wd_eval_invoke(&f.t, f.inst->funcs[0], args, &f.err);
        if (r.st == WD_OK)
            memcpy(&r.val, f.inst->memory->data + (uint32_t)addr + offset, 8);
    } else if (r.st == WD_OK) {
        r.st = call(&f, 0, addr, val);
        if (r.st == WD_OK)
            r.val = result(&f, 0);
    }
    r.trap = f.err.trap;
    snprintf(r.msg, sizeof r.msg, "%s", f.err.msg);
    if (!fix_fini(&f))
        r.st = WD_ERR_NOMEM;
    return r;
}

TEST(eval_loads_and_stores)
{
    CHECK(run_mem(OPC(I32_LOAD), 0, 0, 0, 1).val == 0x84838281u);
    CHECK(run_mem(OPC(I32_LOAD), 1, 0, 0, 1).val == 0x85848382u); /* unaligned */
    CHECK(run_mem(OPC(I64_LOAD), 0, 0, 0, 1).val == 0x8887868584838281u);
    CHECK(run_mem(OPC(I32_LOAD8_S), 0, 0, 0, 1).val == 0xFFFFFF81u);
    CHECK(run_mem(OPC(I32_LOAD8_U), 0, 0, 0, 1).val == 0x81u);
    CHECK(run_mem(OPC(I32_LOAD16_S), 0, 0, 0, 1).val == 0xFFFF8281u);
    CHECK(run_mem(OPC(I32_LOAD16_U), 0, 1, 0, 1).val == 0x8382u);
    CHECK(run_mem(OPC(I64_LOAD8_S), 0, 0, 0, 1).val == 0xFFFFFFFFFFFFFF81u);
    CHECK(run_mem(OPC(I64_LOAD16_U), 0, 0, 0, 1).val == 0x8281u);
    CHECK(run_mem(OPC(I64_LOAD32_S), 0, 0, 0, 1).val == 0xFFFFFFFF84838281u);
    CHECK(run_mem(OPC(I64_LOAD32_U), 0, 0, 0, 1).val == 0x84838281u);
    CHECK(run_mem(OPC(F64_LOAD), 0, 0, 0, 1).val == 0x8887868584838281u);
    CHECK((run_mem(OPC(I32_STORE8), 0, 3, 0x1FF, 1).val & 0xFFFF) == 0x85FF);
    CHECK((run_mem(OPC(I32_STORE16), 2, 0, 0xABCD, 1).val & 0xFFFFFF) == 0x85ABCD);
    CHECK(run_mem(OPC(I64_STORE), 0, 0, 0x1122334455667788u, 1).val == 0x1122334455667788u);
    CHECK(run_mem(OPC(I64_STORE32), 0, 0, 0x1122334455667788u, 1).val == 0x8887868555667788u);
    /* bounds: the whole access must fit */
    CHECK_EQ(run_mem(OPC(I32_LOAD), 0, 65532, 0, 1).st, WD_OK);
    op_result r = run_mem(OPC(I32_LOAD), 0, 65533, 0, 1);
    CHECK_EQ(r.st, WD_TRAP);
    CHECK_EQ(r.trap, WD_TRAP_MEMORY_OOB);
    CHECK_STR_CONTAINS(r.msg, "out of bounds memory access");
    CHECK_EQ(run_mem(OPC(I64_LOAD8_U), 65535, 0, 0, 1).st, WD_OK);
    CHECK_EQ(run_mem(OPC(I64_LOAD8_U), 65535, 1, 0, 1).trap, WD_TRAP_MEMORY_OOB);
    /* address + offset beyond 2^32 is out of bounds, not wrapped */
    CHECK_EQ(run_mem(OPC(I32_LOAD), 0xFFFFFFFFu, 4, 0, 1).trap, WD_TRAP_MEMORY_OOB);
    CHECK_EQ(run_mem(OPC(I32_STORE), 1, 0xFFFFFFFFu, 0, 1).trap, WD_TRAP_MEMORY_OOB);
    CHECK_EQ(run_mem(OPC(I32_LOAD8_U), 0, 0, 0, 0).trap, WD_TRAP_MEMORY_OOB);
}

TEST(eval_memory_grow_and_bulk)
{
    fix f;
    fix_init(&f);
    fix_memory(&f, 1, 4000);
    static const uint8_t seg[4] = {1, 2, 3, 4};
    f.datas[0] = (wd_dataseg){.mode = WD_SEG_PASSIVE, .size = 4, .bytes = seg};
    f.m.data_count = 1;
    f.m.has_data_count = true;
    /* func 0 (i32 delta) -> i32: memory.grow; func 1: memory.size;
     * func 2 (d, s, n): memory.copy; func 3 (d, v, n): memory.fill;
     * func 4 (d, s, n): memory.init 0; func 5: data.drop 0 */
    prog p[6];
    memset(p, 0, sizeof p);
    ENTRY(&p[0], 1);
    E(&p[0], MEMORY_GROW, 1, 0, 0);
    E(&p[0], RETURN, 1, 1, 0);
    ENTRY(&p[1], 1);
    E(&p[1], MEMORY_SIZE, 0, 0, 0);
    E(&p[1], RETURN, 0, 1, 0);
    static const uint32_t bulk[3] = {WD_OP_MEMORY_COPY, WD_OP_MEMORY_FILL, WD_OP_MEMORY_INIT};
    for (int i = 0; i < 3; i++) {
        ENTRY(&p[2 + i], 1);
        emit(&p[2 + i], bulk[i], 0, 0, 0, 1);
        E(&p[2 + i], RETURN, 0, 0, 0);
    }
    ENTRY(&p[5], 1);
    E(&p[5], DATA_DROP, 0, 0, 0);
    E(&p[5], RETURN, 0, 0, 0);
    fix_func(&f, done(&p[0], 1, 1, 1, 2), 1);
    fix_func(&f, done(&p[1], 0, 0, 1, 1), 1);
    for (int i = 2; i < 6; i++)
        fix_func(&f, done(&p[i], 3, 3, 0, 3), 4);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    wd_val a[3];

    CHECK_EQ(call(&f, 0, 3000, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 1);
    CHECK_EQ(call(&f, 1, 0, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 3001);
    CHECK(f.inst->memory->data[3001 * 65536 - 1] == 0);
    CHECK_EQ(call(&f, 0, 1000, 0), WD_OK);
    CHECK_EQ(result(&f, 0), (uint32_t)-1); /* beyond the max */
    CHECK_EQ(call(&f, 0, 0, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 3001);
    CHECK_EQ(call(&f, 0, 999, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 3001);
    uint64_t size = f.inst->memory->size;
    CHECK(size == 4000u * 65536);

    /* fill at the very end, n = 0 at the end, one byte past the end traps */
    a[0].u64 = size - 3, a[1].u64 = 0x1AB, a[2].u64 = 3;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[3], a, &f.err), WD_OK);
    CHECK(f.inst->memory->data[size - 1] == 0xAB && f.inst->memory->data[size - 4] == 0);
    a[0].u64 = size, a[1].u64 = 1, a[2].u64 = 0;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[3], a, &f.err), WD_OK);
    a[0].u64 = size - 2, a[1].u64 = 7, a[2].u64 = 3;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[3], a, &f.err), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_MEMORY_OOB);
    CHECK(f.inst->memory->data[size - 2] == 0xAB); /* nothing written */

    /* init then overlapping copy (memmove semantics) */
    wd_error_clear(&f.err);
    a[0].u64 = 10, a[1].u64 = 0, a[2].u64 = 4;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[4], a, &f.err), WD_OK);
    a[0].u64 = 11, a[1].u64 = 10, a[2].u64 = 4;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[2], a, &f.err), WD_OK);
    const uint8_t *d = f.inst->memory->data;
    CHECK(d[10] == 1 && d[11] == 1 && d[12] == 2 && d[13] == 3 && d[14] == 4);
    a[0].u64 = 10, a[1].u64 = 11, a[2].u64 = 4;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[2], a, &f.err), WD_OK);
    CHECK(d[10] == 1 && d[11] == 2 && d[12] == 3 && d[13] == 4 && d[14] == 4);
    a[0].u64 = 0, a[1].u64 = size - 1, a[2].u64 = 2;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[2], a, &f.err), WD_TRAP);
    /* init past the segment traps; after data.drop only n = 0 at 0 works */
    wd_error_clear(&f.err);
    a[0].u64 = 0, a[1].u64 = 2, a[2].u64 = 3;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[4], a, &f.err), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_MEMORY_OOB);
    CHECK_EQ(call(&f, 5, 0, 0), WD_OK);
    a[0].u64 = 0, a[1].u64 = 0, a[2].u64 = 1;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[4], a, &f.err), WD_TRAP);
    wd_error_clear(&f.err);
    a[0].u64 = 0, a[1].u64 = 0, a[2].u64 = 0;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[4], a, &f.err), WD_OK);
    CHECK(fix_fini(&f));
}

/* ---- calls ---- */

TEST(eval_calls_and_multi_value_returns)
{
    fix f;
    fix_init(&f);
    /* f0 (a, b) -> a*10 + b computed via f1 (a, b) -> (b, a) (a swap) and f2 (x) -> x*10 */
    prog p0 = {0}, p1 = {0}, p2 = {0};
    ENTRY(&p0, 2);
    E(&p0, MOV, 2, 0, 0);
    E(&p0, MOV, 3, 1, 0);
    E(&p0, CALL, 1, 2, 0); /* slots 2,3 = (b, a) */
    METER(&p0);
    E(&p0, CALL, 2, 3, 0); /* slot 3 = a * 10 */
    METER(&p0);
    E(&p0, I32_ADD, 2, 2, 3);
    E(&p0, RETURN, 2, 1, 0);
    ENTRY(&p1, 2);
    E(&p1, MOV, 2, 1, 0);
    E(&p1, MOV, 3, 0, 0);
    E(&p1, RETURN, 2, 2, 0);
    ENTRY(&p2, 2);
    E(&p2, CONST32, 1, 10, 0);
    E(&p2, I32_MUL, 1, 0, 1);
    E(&p2, RETURN, 1, 1, 0);
    fix_func(&f, done(&p0, 2, 2, 1, 4), 2);
    fix_func(&f, done(&p1, 2, 2, 2, 4), 2);
    fix_func(&f, done(&p2, 1, 1, 1, 2), 1);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 4, 7), WD_OK);
    CHECK_EQ(result(&f, 0), 47);
    CHECK_EQ(call(&f, 1, 4, 7), WD_OK);
    CHECK_EQ(result(&f, 0), 7);
    CHECK_EQ(result(&f, 1), 4);
    CHECK(f.t.entry_type == &f.types[2]);
    CHECK(fix_fini(&f));
}

/* f0 (i32 n): n == 0 ? 0 : f0(n - 1) + 1, with `locals` extra declared locals. */
static void build_recursive(prog *p, uint32_t locals)
{
    ENTRY(p, 1 + locals);
    uint32_t br = E(p, BR_IF_NZ, 0, 0, 0);
    METER(p);
    E(p, RETURN, 0, 1, 0); /* n == 0: returns 0 */
    p->insns[br].a = METER(p);
    E(p, CONST32, 2 + locals, 1, 0);
    E(p, I32_SUB, 1 + locals, 0, 2 + locals);
    E(p, CALL, 0, 1 + locals, 0);
    METER(p);
    E(p, CONST32, 2 + locals, 1, 0);
    E(p, I32_ADD, 1 + locals, 1 + locals, 2 + locals);
    E(p, RETURN, 1 + locals, 1, 0);
    done(p, 1, 1 + locals, 1, 3 + locals);
}

TEST(eval_recursion_exhausts_cleanly)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    build_recursive(&p, 0);
    fix_func(&f, &p.code, 1);
    CHECK_EQ(fix_inst(&f, 1 << 20, 1000), WD_OK);
    CHECK_EQ(call(&f, 0, 999, 0), WD_OK); /* 1000 frames */
    CHECK_EQ(result(&f, 0), 999);
    CHECK_EQ(call(&f, 0, 1000, 0), WD_EXHAUSTED);
    CHECK_STR_CONTAINS(f.err.msg, "call stack exhausted");
    CHECK_EQ(f.err.func_idx, 0);
    CHECK_EQ(f.t.state, WD_THREAD_IDLE);
    CHECK_EQ(f.t.frame_count, 0);
    /* the thread is reusable */
    CHECK_EQ(call(&f, 0, 5, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 5);
    CHECK(fix_fini(&f));

    /* the value stack runs out first: 3 + 4 slots per frame, 700 slots */
    fix_init(&f);
    prog q = {0};
    build_recursive(&q, 4);
    fix_func(&f, &q.code, 1);
    CHECK_EQ(fix_inst(&f, 700, 1000), WD_OK);
    CHECK_EQ(call(&f, 0, 50, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 50);
    CHECK_EQ(call(&f, 0, 500, 0), WD_EXHAUSTED);
    CHECK_EQ(call(&f, 0, 3, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 3);
    CHECK(fix_fini(&f));
}

/* A table of 3: [0] f1 (type 1), [1] f2 (type 3), [2] null. f0 (i, x) = call_indirect type 1
 * table[i](x). */
static void build_indirect(fix *f, prog p[3])
{
    ENTRY(&p[0], 1);
    E(&p[0], MOV, 2, 1, 0);
    E(&p[0], MOV, 3, 0, 0);
    CALL_INDIRECT(&p[0], 1, 2, 0, 1);
    WASM_RETURN_METER(&p[0]);
    METER(&p[0]);
    E(&p[0], RETURN, 2, 1, 0);
    ENTRY(&p[1], 1);
    E(&p[1], CONST32, 1, 100, 0);
    E(&p[1], I32_ADD, 0, 0, 1);
    E(&p[1], RETURN, 0, 1, 0);
    ENTRY(&p[2], 1);
    E(&p[2], RETURN, 0, 0, 0);
    fix_func(f, done(&p[0], 2, 2, 1, 4), 0);
    fix_func(f, done(&p[1], 1, 1, 1, 2), 1);
    fix_func(f, done(&p[2], 0, 0, 0, 0), 3);
    f->tables[0] = (wd_tabletype){WD_FUNCREF, {3, 0, false}};
    f->m.table_count = 1;
    f->items[0] = (wd_constexpr){.kind = WD_CONST_REFFUNC, .type = WD_FUNCREF, .idx = 1};
    f->items[1] = (wd_constexpr){.kind = WD_CONST_REFFUNC, .type = WD_FUNCREF, .idx = 2};
    f->elems[0] = (wd_elemseg){.mode = WD_SEG_ACTIVE,
                               .type = WD_FUNCREF,
                               .count = 2,
                               .items = f->items,
                               .offset = {.kind = WD_CONST_I32, .type = WD_I32}};
    f->m.elem_count = 1;
}

TEST(eval_call_indirect_and_its_traps)
{
    fix f;
    fix_init(&f);
    prog p[3];
    memset(p, 0, sizeof p);
    build_indirect(&f, p);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 0, 5), WD_OK);
    CHECK_EQ(result(&f, 0), 105);
    CHECK_EQ(call(&f, 0, 1, 5), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_INDIRECT_TYPE_MISMATCH);
    CHECK_STR_CONTAINS(f.err.msg, "indirect call type mismatch");
    CHECK_EQ(f.err.offset, 0x103);
    CHECK_EQ(call(&f, 0, 2, 5), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_UNINITIALIZED_ELEMENT);
    CHECK_STR_CONTAINS(f.err.msg, "uninitialized element 2");
    CHECK_EQ(call(&f, 0, 3, 5), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_UNDEFINED_ELEMENT);
    CHECK_STR_CONTAINS(f.err.msg, "undefined element 3");
    CHECK_EQ(call(&f, 0, 0xFFFFFFFF, 5), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_UNDEFINED_ELEMENT);
    CHECK(fix_fini(&f));
}

TEST(eval_table_ops)
{
    fix f;
    fix_init(&f);
    prog p[3];
    memset(p, 0, sizeof p);
    build_indirect(&f, p);
    f.elems[1] =
        (wd_elemseg){.mode = WD_SEG_PASSIVE, .type = WD_FUNCREF, .count = 2, .items = f.items};
    f.m.elem_count = 2;
    /* f3 (op args...) runs one table instruction on slots 0..2 and returns slot 0 */
    static const uint32_t ops[] = {
        WD_OP_TABLE_GET,  WD_OP_TABLE_SET,  WD_OP_TABLE_SIZE, WD_OP_TABLE_GROW, WD_OP_TABLE_FILL,
        WD_OP_TABLE_COPY, WD_OP_TABLE_INIT, WD_OP_ELEM_DROP,  WD_OP_REF_FUNC,   WD_OP_REF_IS_NULL};
    prog q[10];
    memset(q, 0, sizeof q);
    for (int i = 0; i < 10; i++) {
        ENTRY(&q[i], 1);
        uint32_t op = ops[i];
        if (op == WD_OP_TABLE_COPY)
            emit(&q[i], op, 0, 0, 0, 1);
        else if (op == WD_OP_TABLE_INIT || op == WD_OP_ELEM_DROP)
            emit(&q[i], op, op == WD_OP_ELEM_DROP ? 1 : 0, 1, 0, 1);
        else if (op == WD_OP_REF_FUNC)
            emit(&q[i], op, 0, 1, 0, 1);
        else
            emit(&q[i], op, 0, 0, 0, 1);
        E(&q[i], RETURN, 0, 1, 0);
        fix_func(&f, done(&q[i], 3, 3, 1, 3), 5);
    }
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    wd_table *tab = f.inst->tables[0];
    uint64_t f1 = (uint64_t)(uintptr_t)f.inst->funcs[1];
    uint64_t f2 = (uint64_t)(uintptr_t)f.inst->funcs[2];
    wd_val a[3];
#define RUN(i, x, y, z)                                                                            \
    (a[0].u64 = (x), a[1].u64 = (y), a[2].u64 = (z),                                               \
     wd_eval_invoke(&f.t, f.inst->funcs[3 + (i)], a, &f.err))
    CHECK_EQ(RUN(0, 1, 0, 0), WD_OK); /* table.get 1 */
    CHECK(result(&f, 0) == f2);
    CHECK_EQ(RUN(0, 3, 0, 0), WD_TRAP);
    CHECK_STR_CONTAINS(f.err.msg, "out of bounds table access");
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(1, 2, f1, 0), WD_OK); /* table.set 2 f1 */
    CHECK(tab->elems[2] == f1);
    CHECK_EQ(RUN(1, 3, f1, 0), WD_TRAP);
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(3, 0, 2, 0), WD_OK); /* table.grow null 2 */
    CHECK_EQ(result(&f, 0), 3);
    CHECK_EQ(RUN(2, 0, 0, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 5);
    CHECK_EQ(RUN(3, 0, 0xFFFFFFFF, 0), WD_OK); /* past the u32 range */
    CHECK_EQ(result(&f, 0), 0xFFFFFFFF);
    CHECK_EQ(RUN(4, 3, f2, 2), WD_OK); /* table.fill 3 f2 2 */
    CHECK(tab->elems[3] == f2 && tab->elems[4] == f2);
    CHECK_EQ(RUN(4, 5, f2, 0), WD_OK);
    CHECK_EQ(RUN(4, 4, f1, 2), WD_TRAP);
    CHECK(tab->elems[4] == f2);
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(5, 1, 2, 3), WD_OK); /* table.copy 1 <- 2, 3 (overlapping) */
    CHECK(tab->elems[1] == f1 && tab->elems[2] == f2 && tab->elems[3] == f2);
    CHECK_EQ(RUN(5, 3, 0, 3), WD_TRAP);
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(6, 3, 0, 2), WD_OK); /* table.init 3 <- seg 1 [0, 2) */
    CHECK(tab->elems[3] == f1 && tab->elems[4] == f2);
    CHECK_EQ(RUN(6, 0, 1, 2), WD_TRAP);
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(7, 0, 0, 0), WD_OK); /* elem.drop 1 */
    CHECK_EQ(RUN(6, 0, 0, 1), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_TABLE_OOB);
    wd_error_clear(&f.err);
    CHECK_EQ(RUN(6, 5, 0, 0), WD_OK);
    /* segment 0 was active: dropped at instantiation */
    CHECK(f.inst->elem_dropped[0] && f.inst->elem_dropped[1]);
    CHECK_EQ(RUN(8, 0, 0, 0), WD_OK); /* ref.func 1 */
    CHECK(result(&f, 0) == f1);
    CHECK_EQ(RUN(9, 0, 0, 0), WD_OK); /* ref.is_null */
    CHECK_EQ(result(&f, 0), 1);
    CHECK_EQ(RUN(9, f1, 0, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 0);
#undef RUN
    CHECK(fix_fini(&f));
}

TEST(eval_globals_select_br_table)
{
    fix f;
    fix_init(&f);
    f.globals[0] = (wd_globaldef){{WD_I64, true}, {.kind = WD_CONST_I64, .type = WD_I64}};
    f.globals[0].init.value.u64 = 40;
    f.m.global_count = 1;
    /* f0 (i, x): g += x; return br_table i [10, 20, default 30] + select(g, 7, i) */
    prog p = {0};
    ENTRY(&p, 1);
    E(&p, GLOBAL_GET, 2, 0, 0);
    E(&p, I64_ADD, 2, 2, 1);
    E(&p, GLOBAL_SET, 2, 0, 0);
    uint32_t bt = E(&p, BR_TABLE, 0, 3, 0);
    uint32_t d[3];
    for (int i = 0; i < 3; i++)
        d[i] = emit(&p, WD_OP_DATA, 0, 0, 0, 0);
    (void)bt;
    uint32_t t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = METER(&p);
        E(&p, CONST32, 3, 10 * (i + 1), 0);
        if (i < 2)
            E(&p, JMP, 0, 0, 0);
    }
    uint32_t join = METER(&p);
    p.insns[t[0] + 2].a = join;
    p.insns[t[1] + 2].a = join;
    for (int i = 0; i < 3; i++)
        p.insns[d[i]].a = t[i];
    E(&p, MOV, 4, 2, 0);
    const64(&p, 5, 7);
    E(&p, SELECT, 4, 5, 0); /* fp[4] = fp[0] ? fp[4] : fp[5] */
    E(&p, I64_ADD, 3, 3, 4);
    E(&p, RETURN, 3, 1, 0);
    fix_func(&f, done(&p, 2, 2, 1, 7), 0);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 0, 2), WD_OK);
    CHECK_EQ(result(&f, 0), 10 + 7);
    CHECK_EQ(call(&f, 0, 1, 2), WD_OK);
    CHECK_EQ(result(&f, 0), 20 + 44);
    CHECK_EQ(call(&f, 0, 9, 2), WD_OK);
    CHECK_EQ(result(&f, 0), 30 + 46);
    CHECK_EQ(f.inst->globals[0]->val[0].u64, 46);
    CHECK(fix_fini(&f));
}

/* ---- host functions ---- */

typedef struct host_state {
    int calls;
    uint64_t charge;
    bool fail;
    wd_memory *seen_mem;
} host_state;

/* (i32) -> i32: x * 2 + memory[0]; charges hs->charge ticks. */
static wd_status host_double(wd_thread *t, void *ud, wd_val *args, wd_error *err)
{
    host_state *hs = ud;
    hs->calls++;
    hs->seen_mem = wd_eval_caller_memory(t);
    if (hs->fail)
        return wd_fail_trap(err, WD_TRAP_HOST, 0);
    wd_eval_charge(t, hs->charge);
    uint32_t extra = hs->seen_mem != NULL ? hs->seen_mem->data[0] : 0;
    args[0].u64 = (uint32_t)(args[0].u32 * 2 + extra);
    return WD_OK;
}

TEST(eval_host_calls)
{
    fix f;
    fix_init(&f);
    host_state hs = {0};
    fix_host(&f, 1, host_double, &hs);
    fix_memory(&f, 1, 0);
    prog p = {0};
    ENTRY(&p, 1);
    E(&p, CALL, 0, 0, 0);
    WASM_RETURN_METER(&p);
    METER(&p);
    E(&p, RETURN, 0, 1, 0);
    fix_func(&f, done(&p, 1, 1, 1, 1), 1);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    f.inst->memory->data[0] = 3;
    hs.charge = 100;
    CHECK_EQ(call(&f, 1, 20, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 43);
    CHECK(hs.seen_mem == f.inst->memory);
    CHECK_EQ(f.t.ticks, 1 + 1 + 100 + 1);
    /* invoked directly (as spec tests do with re-exported host functions) */
    CHECK_EQ(call(&f, 0, 20, 0), WD_OK);
    CHECK_EQ(result(&f, 0), 40);
    CHECK(hs.seen_mem == NULL);
    CHECK_EQ(f.t.ticks, 103 + 100);
    /* a host trap ends the invocation at the call site */
    hs.fail = true;
    CHECK_EQ(call(&f, 1, 20, 0), WD_TRAP);
    CHECK_EQ(f.err.trap, WD_TRAP_HOST);
    CHECK_EQ(f.err.func_idx, 1);
    CHECK_EQ(f.err.offset, 0x101);
    CHECK_EQ(f.t.state, WD_THREAD_IDLE);
    hs.fail = false;
    /* host ticks beyond the limit: stop exactly at the limit, the rest paid on resume */
    uint64_t t0 = f.t.ticks;
    f.t.tick_limit = t0 + 50;
    CHECK_EQ(call(&f, 1, 1, 0), WD_OUT_OF_TICKS);
    CHECK_EQ(f.t.ticks, t0 + 50);
    f.t.tick_limit = t0 + 102;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OUT_OF_TICKS);
    CHECK_EQ(f.t.ticks, t0 + 102);
    f.t.tick_limit = UINT64_MAX;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OK);
    CHECK_EQ(f.t.ticks, t0 + 103);
    CHECK_EQ(result(&f, 0), 5);
    CHECK_EQ(hs.calls, 4);
    CHECK(fix_fini(&f));
}

/* ---- ticks ---- */

TEST(eval_flat_ticks_of_a_loop)
{
    fix f;
    fix_init(&f);
    /* f0 (n): do { n = n - 1 } while (n != 0); entry 5 */
    prog p = {0};
    ENTRY(&p, 5);
    E(&p, CONST32, 1, 1, 0);
    uint32_t loop = METER(&p);
    E(&p, I32_SUB, 0, 0, 1);
    E(&p, BR_IF_NZ, loop, 0, 0);
    METER(&p);
    E(&p, RETURN, 0, 1, 0);
    fix_func(&f, done(&p, 1, 1, 1, 2), 1);
    CHECK_EQ(p.insns[0].a, 6);
    CHECK_EQ(p.insns[loop].a, 2);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 1000, 0), WD_OK);
    CHECK_EQ(f.t.ticks, 6 + 2 * 1000 + 1);
    CHECK(fix_fini(&f));
}

TEST(eval_trap_refunds_the_rest_of_its_block)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    ENTRY(&p, 3);
    E(&p, CONST32, 2, 0, 0);
    emit(&p, WD_OP_I32_DIV_U, 2, 0, 2, 4);
    emit(&p, WD_OP_I32_ADD, 2, 2, 2, 50);
    E(&p, RETURN, 2, 1, 0);
    fix_func(&f, done(&p, 2, 2, 1, 3), 0);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 1, 0), WD_TRAP);
    CHECK_EQ(f.t.ticks, 3 + 1 + 4);
    /* the same in slow mode (a limit below the block's charge) */
    f.t.ticks = 0;
    f.t.tick_limit = 20;
    CHECK_EQ(call(&f, 0, 1, 0), WD_TRAP);
    CHECK_EQ(f.t.ticks, 3 + 1 + 4);
    CHECK(fix_fini(&f));
}

/* A trapping instruction that writes a local carries a folded local.set (code.h): the
 * set's cost, in its own, is refunded when it traps, in fast and in slow mode. */
TEST(eval_trap_refunds_a_folded_local_set)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    ENTRY(&p, 3);
    emit(&p, WD_OP_I32_DIV_U, 2, 0, 1, 4 + 7); /* div_u into local 2: local.set 2 */
    E(&p, RETURN, 2, 1, 0);
    wd_code *c = done(&p, 2, 3, 1, 4);
    c->set_cost = 7;
    fix_func(&f, c, 0);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    CHECK_EQ(call(&f, 0, 1, 0), WD_TRAP);
    CHECK_EQ(f.t.ticks, 3 + 4);
    f.t.ticks = 0;
    f.t.tick_limit = 20;
    CHECK_EQ(call(&f, 0, 1, 0), WD_TRAP);
    CHECK_EQ(f.t.ticks, 3 + 4);
    /* 10 / 5 does not trap: all is charged */
    f.t.ticks = 0;
    f.t.tick_limit = UINT64_MAX;
    CHECK_EQ(call(&f, 0, 10, 5), WD_OK);
    CHECK_EQ(result(&f, 0), 2);
    CHECK_EQ(f.t.ticks, 3 + 11 + 1);
    CHECK(fix_fini(&f));
}

/* Events heard by the hooks. */
typedef struct event {
    char kind; /* 'c' call, 'r' return */
    uint64_t ticks;
    const wd_func *f;
    wd_call_kind how;
} event;

typedef struct recorder {
    event ev[512];
    int n;
} recorder;

static void rec_call(void *ud, uint64_t ticks, const struct wd_func *f, wd_call_kind how)
{
    recorder *r = ud;
    if (r->n < 512)
        r->ev[r->n++] = (event){'c', ticks, f, how};
}

static void rec_ret(void *ud, uint64_t ticks, const struct wd_func *f)
{
    recorder *r = ud;
    if (r->n < 512)
        r->ev[r->n++] = (event){'r', ticks, f, 0};
}

/* The workload for the invariant tests: loops, direct, indirect and host calls, a bulk
 * fill with a dynamic cost and a memory.grow. funcs: 0 host (charges 7), 1 main (n),
 * 2 square, 3 (table[0] = square). */
typedef struct workload {
    fix f;
    host_state hs;
    prog p[3];
    recorder rec;
    wd_hooks hooks;
} workload;

static void build_workload(workload *w)
{
    fix *f = &w->f;
    fix_init(f);
    w->hs.charge = 7;
    f->costs.bulk_per_byte = 2;
    f->costs.grow_per_page = 5;
    fix_host(f, 1, host_double, &w->hs);
    fix_memory(f, 1, 10);
    prog *m = &w->p[0], *sq = &w->p[1];
    /* main: s0 = n, s1 = acc */
    ENTRY(m, 3);
    uint32_t head = METER(m);
    uint32_t exit_br = E(m, BR_IF_Z, 0, 0, 0);
    METER(m);
    E(m, MOV, 2, 0, 0);
    E(m, CALL, 2, 2, 0); /* s2 = n * n */
    METER(m);
    E(m, I32_ADD, 1, 1, 2);
    E(m, MOV, 2, 0, 0);
    E(m, CONST32, 3, 0, 0);
    CALL_INDIRECT(m, 1, 2, 0, 1); /* s2 = square(n) via the table */
    WASM_RETURN_METER(m);
    METER(m);
    E(m, I32_ADD, 1, 1, 2);
    E(m, CONST32, 3, 1, 0);
    E(m, I32_SUB, 0, 0, 3);
    E(m, JMP, head, 0, 0);
    m->insns[exit_br].a = METER(m);
    E(m, CONST32, 2, 1, 0);
    E(m, MEMORY_GROW, 2, 2, 0); /* grow 1: dynamic 5 */
    E(m, CONST32, 2, 0, 0);
    E(m, CONST32, 3, 9, 0);
    E(m, MOV, 4, 1, 0);
    E(m, CONST32, 5, 15, 0);
    E(m, I32_AND, 4, 4, 5);
    E(m, MEMORY_FILL, 2, 0, 0); /* fill(0, 9, acc & 15): dynamic 2 per byte */
    E(m, MOV, 2, 1, 0);
    E(m, CALL, 0, 2, 0); /* host: acc * 2 + mem[0] */
    WASM_RETURN_METER(m);
    METER(m);
    E(m, MEMORY_SIZE, 3, 0, 0);
    E(m, I32_ADD, 2, 2, 3);
    E(m, RETURN, 2, 1, 0);
    fix_func(f, done(m, 1, 2, 1, 6), 1);
    ENTRY(sq, 2);
    E(sq, I32_MUL, 0, 0, 0);
    E(sq, RETURN, 0, 1, 0);
    fix_func(f, done(sq, 1, 1, 1, 1), 1);
    f->tables[0] = (wd_tabletype){WD_FUNCREF, {1, 0, false}};
    f->m.table_count = 1;
    f->items[0] = (wd_constexpr){.kind = WD_CONST_REFFUNC, .type = WD_FUNCREF, .idx = 2};
    f->elems[0] = (wd_elemseg){.mode = WD_SEG_ACTIVE,
                               .type = WD_FUNCREF,
                               .count = 1,
                               .items = f->items,
                               .offset = {.kind = WD_CONST_I32, .type = WD_I32}};
    f->m.elem_count = 1;
    w->hooks = (wd_hooks){.ud = &w->rec, .call = rec_call, .ret = rec_ret};
}

static wd_status workload_start(workload *w, uint64_t limit, bool step)
{
    fix *f = &w->f;
    if (f->inst == NULL && fix_inst(f, 256, 16) != WD_OK)
        return WD_ERR_USAGE;
    /* the memory is reset so every run sees the same state */
    if (f->inst->memory->pages > 1)
        f->inst->memory->pages = 1, f->inst->memory->size = 65536;
    memset(f->inst->memory->data, 0, 65536);
    f->t.ticks = 0;
    f->t.tick_limit = limit;
    f->t.single_step = step;
    f->t.hooks = &w->hooks;
    w->rec.n = 0;
    return call(f, 1, 6, 0);
}

static bool same_events(const recorder *a, const recorder *b)
{
    if (getenv("WD_DEBUG_EVENTS"))
        for (int i = 0; i < WD_MAX(a->n, b->n); i++)
            printf("%d: %c %llu %p %d | %c %llu %p %d\n", i, a->ev[i].kind,
                   (unsigned long long)a->ev[i].ticks, (const void *)a->ev[i].f, a->ev[i].how,
                   b->ev[i].kind, (unsigned long long)b->ev[i].ticks, (const void *)b->ev[i].f,
                   b->ev[i].how);
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].ticks != b->ev[i].ticks ||
            a->ev[i].f->idx != b->ev[i].f->idx || a->ev[i].how != b->ev[i].how)
            return false;
    return true;
}

/* The static cost of the instruction the thread stops in front of, plus its dynamic cost
 * (fill bytes, grown pages) where it has one. */
static uint64_t next_cost(const fix *f)
{
    const wd_frame *fr = &f->t.frames[f->t.frame_count - 1];
    const wd_code *code = fr->func->code;
    uint32_t i = (uint32_t)(fr->ip - code->insns);
    uint64_t c = code->costs[i];
    if (code->insns[i].op == WD_OP_MEMORY_FILL)
        c += 2 * fr->fp[code->insns[i].a + 2].u32;
    if (code->insns[i].op == WD_OP_MEMORY_GROW)
        c += 5 * fr->fp[code->insns[i].b].u32;
    return c;
}

/* A listener taking calls and returns from the interpreter's records (eval/hooks.h): it
 * tags each wasm function at its first call of each kind, its hooks append to the same
 * stream as the records, and the records' window is kept to 7 words, so that the two paths
 * take turns (two records, then a hook). */
typedef struct rec_listener {
    wd_hook_records out;
    uint64_t words[3 * 512];
    struct {
        const wd_func *f;
        wd_call_kind how;
    } tags[16];
    uint32_t tag_count, heard; /* heard: events that came through the hooks */
} rec_listener;

static void rl_put(rec_listener *l, uint64_t code, uint64_t ticks)
{
    if (l->out.w + 3 <= l->words + WD_ARRAY_COUNT(l->words)) {
        l->out.w[0] = code;
        l->out.w[1] = ticks;
        l->out.w[2] = 0;
        l->out.w += 3;
    }
    l->heard++;
    uint64_t *end = l->words + WD_ARRAY_COUNT(l->words);
    l->out.end = end - l->out.w > 7 ? l->out.w + 7 : end;
}

static void rl_call(void *ud, uint64_t ticks, const struct wd_func *f, wd_call_kind how)
{
    rec_listener *l = ud;
    uint32_t tag = 0;
    while (tag < l->tag_count && (l->tags[tag].f != f || l->tags[tag].how != how))
        tag++;
    if (tag == l->tag_count && tag < WD_ARRAY_COUNT(l->tags))
        l->tags[l->tag_count++].f = f, l->tags[tag].how = how;
    if (f->code != NULL && (how == WD_CALL_DIRECT || how == WD_CALL_INDIRECT)) {
        wd_func *m = (wd_func *)f;
        if (m->hook_gen != 77)
            m->hook_gen = 77, m->hook_tag[0] = m->hook_tag[1] = UINT32_MAX;
        m->hook_tag[how - WD_CALL_DIRECT] = tag;
    }
    rl_put(l, WD_HOOK_REC_CALL | (uint64_t)tag << 8, ticks);
}

static void rl_ret(void *ud, uint64_t ticks, const struct wd_func *f)
{
    (void)f;
    rl_put(ud, WD_HOOK_REC_RET, ticks);
}

TEST(eval_records_give_the_hooks_stream)
{
    static workload ref, w;
    static rec_listener l;
    memset(&ref, 0, sizeof ref);
    build_workload(&ref);
    CHECK_EQ(workload_start(&ref, UINT64_MAX, false), WD_OK);
    memset(&w, 0, sizeof w);
    memset(&l, 0, sizeof l);
    build_workload(&w);
    l.out.w = l.words;
    l.out.end = l.words + 7;
    w.hooks = (wd_hooks){.ud = &l, .call = rl_call, .ret = rl_ret, .records = &l.out,
                         .records_gen = 77};
    CHECK_EQ(workload_start(&w, UINT64_MAX, false), WD_OK);
    CHECK_EQ(result(&w.f, 0), result(&ref.f, 0));
    size_t n = (size_t)(l.out.w - l.words) / 3;
    CHECK_EQ(n, (size_t)ref.rec.n);
    CHECK(l.heard > 0 && l.heard < n); /* both paths were taken */
    for (size_t i = 0; i < n && i < (size_t)ref.rec.n; i++) {
        const uint64_t *e = l.words + 3 * i;
        const event *want = &ref.rec.ev[i];
        CHECK_EQ(e[1], want->ticks);
        CHECK_EQ(e[2], (uint64_t)0); /* records_timed false: no clock */
        if (want->kind == 'r') {
            CHECK_EQ(e[0], (uint64_t)WD_HOOK_REC_RET);
            continue;
        }
        CHECK_EQ(e[0] & 0xff, (uint64_t)WD_HOOK_REC_CALL);
        uint64_t tag = e[0] >> 8;
        CHECK(tag < l.tag_count);
        if (tag < l.tag_count) {
            CHECK(l.tags[tag].f->idx == want->f->idx);
            CHECK(l.tags[tag].how == (wd_call_kind)want->how);
        }
    }
}

TEST(eval_tick_limits_are_exact_and_resumable)
{
    static workload w, ref; /* large: keep off the stack */
    memset(&ref, 0, sizeof ref);
    build_workload(&ref);
    CHECK_EQ(workload_start(&ref, UINT64_MAX, false), WD_OK);
    uint64_t total = ref.f.t.ticks, want = result(&ref.f, 0);
    CHECK(want == (2 * 2 * (36 + 25 + 16 + 9 + 4 + 1) + 9) + 2);
    CHECK(ref.rec.n == 2 + 2 * 12 + 2);
    CHECK(ref.rec.ev[0].kind == 'c' && ref.rec.ev[0].how == WD_CALL_ENTRY);
    CHECK(ref.rec.ev[0].ticks == 0 && ref.rec.ev[ref.rec.n - 1].ticks == total);
    CHECK(ref.rec.ev[2].kind == 'r' && ref.rec.ev[3].how == WD_CALL_INDIRECT);
    CHECK(ref.rec.ev[ref.rec.n - 3].how == WD_CALL_HOST);

    memset(&w, 0, sizeof w);
    build_workload(&w);
    for (uint64_t limit = 0; limit <= total; limit++) {
        wd_status st = workload_start(&w, limit, false);
        int stops = 0;
        uint64_t lim = limit;
        while (st == WD_OUT_OF_TICKS) {
            stops++;
            CHECK(w.f.t.ticks <= lim);
            /* exact: the next step does not fit, or a host call owes ticks */
            CHECK(w.f.t.ticks == lim || w.f.t.ticks + next_cost(&w.f) > lim);
            w.f.t.tick_limit = lim = lim + 1 + (lim % 3 == 0 ? 50 : 0);
            st = wd_eval_resume(&w.f.t, &w.f.err);
        }
        CHECK_EQ(st, WD_OK);
        CHECK(stops > 0 || limit == total);
        CHECK_EQ(w.f.t.ticks, total);
        CHECK_EQ(result(&w.f, 0), want);
        CHECK(same_events(&w.rec, &ref.rec));
    }
    CHECK(fix_fini(&w.f));
    CHECK(fix_fini(&ref.f));
}

TEST(eval_single_step_gives_the_same_ticks)
{
    static workload w, ref;
    memset(&ref, 0, sizeof ref);
    build_workload(&ref);
    CHECK_EQ(workload_start(&ref, UINT64_MAX, false), WD_OK);
    memset(&w, 0, sizeof w);
    build_workload(&w);
    wd_status st = workload_start(&w, UINT64_MAX, true);
    int steps = 1;
    uint64_t before = 0;
    while (st == WD_PAUSED) {
        /* one instruction per step: never more than the costliest single instruction */
        CHECK(w.f.t.ticks - before <= 3 + 1 + 2 * 15 + 7);
        before = w.f.t.ticks;
        st = wd_eval_resume(&w.f.t, &w.f.err);
        steps++;
    }
    CHECK_EQ(st, WD_OK);
    CHECK_EQ(w.f.t.ticks, ref.f.t.ticks);
    CHECK_EQ(result(&w.f, 0), result(&ref.f, 0));
    CHECK(same_events(&w.rec, &ref.rec));
    /* every non-METER instruction executed is one step */
    CHECK(steps > 90);
    CHECK(fix_fini(&w.f));
    CHECK(fix_fini(&ref.f));
}

TEST(eval_pending_pauses_at_the_next_block)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    ENTRY(&p, 5);
    E(&p, CONST32, 1, 1, 0);
    uint32_t loop = METER(&p);
    E(&p, I32_SUB, 0, 0, 1);
    E(&p, BR_IF_NZ, loop, 0, 0);
    METER(&p);
    E(&p, RETURN, 0, 1, 0);
    fix_func(&f, done(&p, 1, 1, 1, 2), 1);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    f.t.pending = 1;
    CHECK_EQ(call(&f, 0, 10, 0), WD_PAUSED);
    CHECK_EQ(f.t.ticks, 0);
    CHECK_EQ(f.t.state, WD_THREAD_PAUSED);
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_PAUSED);
    f.t.pending = 0;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OK);
    CHECK_EQ(f.t.ticks, 6 + 20 + 1);
    /* abort abandons a suspended invocation */
    f.t.tick_limit = f.t.ticks + 3;
    CHECK_EQ(call(&f, 0, 10, 0), WD_OUT_OF_TICKS);
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OUT_OF_TICKS);
    wd_eval_abort(&f.t);
    CHECK_EQ(f.t.state, WD_THREAD_IDLE);
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_ERR_USAGE);
    CHECK(fix_fini(&f));
}

TEST(eval_dynamic_cost_over_the_limit_stops_before_the_instruction)
{
    fix f;
    fix_init(&f);
    f.costs.bulk_per_byte = 3;
    fix_memory(&f, 1, 0);
    prog p = {0};
    ENTRY(&p, 1);
    E(&p, MEMORY_FILL, 0, 0, 0);
    E(&p, NOP_COST, 0, 0, 0);
    E(&p, RETURN, 0, 0, 0);
    fix_func(&f, done(&p, 3, 3, 0, 3), 4);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    wd_val a[3] = {{.u64 = 0}, {.u64 = 5}, {.u64 = 100}};
    f.t.tick_limit = 300;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[0], a, &f.err), WD_OUT_OF_TICKS);
    CHECK_EQ(f.t.ticks, 1);
    CHECK(f.inst->memory->data[0] == 0);
    f.t.tick_limit = 302;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OUT_OF_TICKS);
    CHECK_EQ(f.t.ticks, 302);
    CHECK(f.inst->memory->data[99] == 5);
    f.t.tick_limit = UINT64_MAX;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OK);
    CHECK_EQ(f.t.ticks, 304);
    /* with the whole budget, one fast block */
    f.t.ticks = 0;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[0], a, &f.err), WD_OK);
    CHECK_EQ(f.t.ticks, 304);
    /* out of bounds: trap without the per-byte cost */
    f.t.ticks = 0;
    a[0].u64 = 65500;
    CHECK_EQ(wd_eval_invoke(&f.t, f.inst->funcs[0], a, &f.err), WD_TRAP);
    CHECK_EQ(f.t.ticks, 2);
    CHECK(fix_fini(&f));
}

TEST(eval_hooks_see_unwinding_on_a_trap)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    build_recursive(&p, 0);
    fix_func(&f, &p.code, 1);
    static recorder rec;
    rec.n = 0;
    wd_hooks hooks = {.ud = &rec, .call = rec_call, .ret = rec_ret};
    CHECK_EQ(fix_inst(&f, 1024, 4), WD_OK);
    f.t.hooks = &hooks;
    CHECK_EQ(call(&f, 0, 10, 0), WD_EXHAUSTED);
    /* entry + 3 direct calls, then 4 returns at the same tick */
    CHECK_EQ(rec.n, 8);
    CHECK(rec.ev[0].how == WD_CALL_ENTRY && rec.ev[1].how == WD_CALL_DIRECT);
    for (int i = 4; i < 8; i++) {
        CHECK(rec.ev[i].kind == 'r');
        CHECK_EQ(rec.ev[i].ticks, f.t.ticks);
    }
    /* ticks: each frame ran entry(1) + br_if + const + sub + call = 5; the failing call's
     * invoke runs to its end (entry 1) before the stack is found exhausted */
    CHECK_EQ(f.t.ticks, 4 * 5 + 1);
    CHECK_EQ(rec.ev[3].ticks, 3 * 5);
    CHECK(fix_fini(&f));
}

/* Calls across instances switch memory: instance B's function reads its own memory. */
TEST(eval_calls_across_instances_switch_memory)
{
    fix a, b;
    fix_init(&b);
    fix_memory(&b, 1, 0);
    static wd_export bex[1];
    bex[0] = (wd_export){.name = "peek", .name_size = 4, .kind = WD_EXTERN_FUNC, .idx = 0};
    b.m.exports = bex;
    b.m.export_count = 1;
    prog pb = {0};
    ENTRY(&pb, 1);
    E(&pb, I32_LOAD8_U, 0, 0, 0);
    E(&pb, RETURN, 0, 1, 0);
    fix_func(&b, done(&pb, 1, 1, 1, 1), 1);
    CHECK_EQ(fix_inst(&b, 64, 8), WD_OK);
    b.inst->memory->data[5] = 77;

    fix_init(&a);
    wd_store_free(a.store);
    a.store = b.store; /* one store */
    fix_memory(&a, 1, 0);
    a.imports[0] = (wd_import){
        .module = "b", .name = "peek", .module_size = 1, .name_size = 4, .kind = WD_EXTERN_FUNC};
    a.imports[0].desc.type_idx = 1;
    a.m.import_count = 1;
    a.m.import_func_count = 1;
    a.m.func_count = 1;
    CHECK(wd_instance_export(b.inst, "peek", &a.externs[0]));
    prog pa = {0};
    ENTRY(&pa, 1);
    E(&pa, CALL, 0, 0, 0);
    WASM_RETURN_METER(&pa);
    METER(&pa);
    E(&pa, I32_LOAD8_U, 1, 0, 0); /* own memory: 0 */
    E(&pa, I32_ADD, 0, 0, 1);
    E(&pa, RETURN, 0, 1, 0);
    fix_func(&a, done(&pa, 1, 1, 1, 2), 1);
    CHECK_EQ(wd_link_instantiate(a.store, &a.m, a.externs, &a.inst, &a.err), WD_OK);
    a.inst->memory->data[77] = 1;
    CHECK_EQ(wd_eval_invoke(&b.t, a.inst->funcs[1], (wd_val[]){{.u64 = 5}}, &b.err), WD_OK);
    CHECK_EQ(wd_eval_results(&b.t)[0].u64, 78);
    CHECK(fix_fini(&b));
}

TEST(eval_break_stops_in_front_of_the_instruction)
{
    fix f;
    fix_init(&f);
    prog p = {0};
    ENTRY(&p, 2);
    E(&p, CONST32, 1, 5, 0);
    uint32_t at = emit(&p, WD_OP_I32_ADD, 0, 0, 1, 3);
    E(&p, RETURN, 0, 1, 0);
    fix_func(&f, done(&p, 1, 1, 1, 2), 1);
    CHECK_EQ(fix_inst(&f, 64, 8), WD_OK);
    p.insns[at].op = WD_OP_BREAK; /* a debugger patches it in, keeping the original aside */
    CHECK_EQ(call(&f, 0, 10, 0), WD_PAUSED);
    CHECK_EQ(f.t.ticks, 2 + 1); /* what ran before it, nothing of it or after it */
    CHECK(f.t.frames[0].ip == &p.insns[at]);
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_PAUSED);
    CHECK_EQ(f.t.ticks, 3);
    p.insns[at].op = WD_OP_I32_ADD;
    CHECK_EQ(wd_eval_resume(&f.t, &f.err), WD_OK);
    CHECK_EQ(f.t.ticks, 3 + 3 + 1);
    CHECK_EQ(result(&f, 0), 15);
    CHECK(fix_fini(&f));
}
