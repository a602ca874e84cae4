/* validate_test.c: function-body validation and translation (decode/validate.c).
 *
 * Bodies are translated inside a hand-built module, so these tests need neither the
 * module reader nor the interpreter. Expected code is written as text: one
 * "name a b c" per instruction (CONST64: "name a bc"), separated by '|'. */
#include "decode/validate.h"
#include "decode/validate_priv.h"
#include "tests/unit/test.h"
#include "vm/tickmodel.h"

#include <stdlib.h>

#define BODY_AT 0x10u

typedef struct env {
    wd_ctx ctx;
    wd_module m;
    wd_functype types[4];
    wd_funcdef funcs[3];
    wd_tabletype tables[2];
    wd_memtype memory;
    wd_globaldef globals[2];
    wd_elemseg elems[1];
    uint8_t declared[3];
    uint8_t params[16], results[16], locals[16];
    wd_localdecl decls[16]; /* one per local */
    uint8_t bytes[8192];
    size_t size;
    wd_costs costs;
    wd_decode_opts opts;
    wd_error err;
    const wd_code *code;
} env;

static uint8_t vtype(char c)
{
    switch (c) {
    case 'i':
        return WD_I32;
    case 'I':
        return WD_I64;
    case 'f':
        return WD_F32;
    case 'F':
        return WD_F64;
    case 'r':
        return WD_FUNCREF;
    case 'e':
        return WD_EXTERNREF;
    default:
        return WD_V128;
    }
}

static uint32_t fill_types(uint8_t *out, const char *s)
{
    uint32_t n = 0;
    for (; s[n] != '\0'; n++)
        out[n] = vtype(s[n]);
    return n;
}

static const uint8_t i32x1[] = {WD_I32};
static const uint8_t i32x2[] = {WD_I32, WD_I32};
static const uint8_t i32_i64[] = {WD_I32, WD_I64};

/* Function 0: an import (i32) -> (i32); function 1: the body under test, of type 0
 * (`params` -> `results`, declared `locals`); function 2: (i32 i32) -> (i32 i64), not
 * declared for ref.func. Types 1: (i32) -> (i32), 2: () -> (), 3: (i32 i32) -> (i32 i64).
 * Tables: 0 funcref, 1 externref. One memory, one passive funcref elem segment, one data
 * segment with a DataCount section. Globals: 0 mutable i32, 1 immutable i64. Costs:
 * flat-1 (every instruction 1, structural costs 0). */
static void env_init(env *e, const char *params, const char *results, const char *locals)
{
    memset(e, 0, sizeof *e);
    wd_ctx_init(&e->ctx);
    wd_module *m = &e->m;
    m->ctx = &e->ctx;
    wd_arena_init(&m->arena, &e->ctx);
    e->types[0] = (wd_functype){fill_types(e->params, params), fill_types(e->results, results),
                                e->params, e->results};
    e->types[1] = (wd_functype){1, 1, i32x1, i32x1};
    e->types[2] = (wd_functype){0, 0, NULL, NULL};
    e->types[3] = (wd_functype){2, 2, i32x2, i32_i64};
    m->type_count = 4;
    m->types = e->types;
    e->funcs[0].type_idx = 1;
    e->funcs[1].type_idx = 0;
    e->funcs[1].local_count = fill_types(e->locals, locals);
    for (uint32_t i = 0; i < e->funcs[1].local_count; i++)
        e->decls[i] = (wd_localdecl){1, e->locals[i]};
    e->funcs[1].local_groups = e->funcs[1].local_count;
    e->funcs[1].local_decls = e->decls;
    e->funcs[2].type_idx = 3;
    m->import_func_count = 1;
    m->func_count = 3;
    m->funcs = e->funcs;
    e->tables[0].elem = WD_FUNCREF;
    e->tables[1].elem = WD_EXTERNREF;
    m->table_count = 2;
    m->tables = e->tables;
    m->memory_count = 1;
    m->memories = &e->memory;
    e->globals[0].type = (wd_globaltype){WD_I32, true};
    e->globals[1].type = (wd_globaltype){WD_I64, false};
    m->global_count = 2;
    m->globals = e->globals;
    e->elems[0].mode = WD_SEG_PASSIVE;
    e->elems[0].type = WD_FUNCREF;
    m->elem_count = 1;
    m->elems = e->elems;
    m->data_count = 1;
    m->has_data_count = true;
    e->declared[0] = 1;
    m->declared_funcs = e->declared;
    snprintf(e->costs.name, sizeof e->costs.name, "flat-1");
    for (size_t i = 0; i < WD_COST_OPS; i++)
        e->costs.op[i] = 1;
    e->opts.costs = &e->costs;
    e->opts.no_fuse = true; /* exact code checks below are of the unfused translation */
    wd_error_clear(&e->err);
}

/* Translates `body` (locals vector included) as function 1, followed by `tail` bytes. */
static wd_status env_run_tail(env *e, const uint8_t *body, size_t len, const uint8_t *tail,
                              size_t tail_len)
{
    memset(e->bytes, 0xEE, BODY_AT);
    memcpy(e->bytes + BODY_AT, body, len);
    if (tail_len > 0)
        memcpy(e->bytes + BODY_AT + len, tail, tail_len);
    e->size = BODY_AT + len + tail_len;
    e->funcs[1].body_offset = BODY_AT;
    e->funcs[1].body_size = (uint32_t)len;
    wd_error_clear(&e->err);
    wd_status st = wd_validate_func(&e->m, 1, e->bytes, e->size, &e->opts, &e->err);
    e->code = e->funcs[1].code;
    return st;
}

static wd_status env_run(env *e, const uint8_t *body, size_t len)
{
    return env_run_tail(e, body, len, NULL, 0);
}

#define RUN(e, ...)                                                                                \
    env_run((e), (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

/* Frees the arena; true when nothing leaked. */
static bool env_fini(env *e)
{
    wd_arena_fini(&e->m.arena);
    return e->ctx.live == 0;
}

static const char *code_text(const wd_code *c)
{
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < c->insn_count && n < sizeof buf; i++) {
        const wd_insn *in = &c->insns[i];
        const char *sep = i ? "|" : "";
        if (in->op == WD_OP_CONST64)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %u %" PRIu64, sep,
                                  wd_op_names[in->op], in->a, in->bc);
        else if (in->op == WD_OP_MOV2 || /* its second source is k, or the value's addend */
                 (in->op >= WD_OP_I32_STORE_ADDK && in->op <= WD_OP_I32_STORE8_RI_ADDK))
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %u %u %u %u", sep,
                                  wd_op_names[in->op], in->a, in->b, in->c, in->k);
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %u %u %u", sep,
                                  wd_op_names[in->op], in->a, in->b, in->c);
    }
    return buf;
}

#define CHECK_TEXT(got, want)                                                                      \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        if (strcmp(got_, want_) != 0) {                                                            \
            printf("  got:  %s\n  want: %s\n", got_, want_);                                       \
            CHECK(!"the translated code differs");                                                 \
        }                                                                                          \
    } while (0)

#define CHECK_ARRAY(arr, n, ...)                                                                   \
    do {                                                                                           \
        static const uint32_t want_[] = {__VA_ARGS__};                                             \
        CHECK_EQ((n), sizeof want_ / sizeof want_[0]);                                             \
        for (size_t k_ = 0; k_ < sizeof want_ / sizeof want_[0]; k_++)                             \
            CHECK_EQ((arr)[k_], want_[k_]);                                                        \
    } while (0)

static bool is_terminator(uint32_t op)
{
    return op == WD_OP_JMP || op == WD_OP_RETURN || op == WD_OP_UNREACHABLE || op == WD_OP_BR_TABLE;
}

static bool is_target(const wd_code *c, uint32_t t)
{
    return t > 0 && t < c->insn_count && c->insns[t].op == WD_OP_METER;
}

/* The structural promises of code.h, for any translated body. Returns 0 when they all
 * hold, else the index of the first offending instruction plus one. */
static uint32_t code_violation(const wd_code *c)
{
    if (c->insn_count == 0 || c->insns[0].op != WD_OP_METER || c->max_slots < c->local_slots ||
        c->max_slots < c->result_slots)
        return 1;
    uint64_t sum = 0;
    uint32_t meter = 0;
    for (uint32_t i = 0; i < c->insn_count; i++) {
        const wd_insn *in = &c->insns[i];
        if (in->op >= WD_OP_COUNT || in->op == WD_OP_BREAK)
            return i + 1;
        if (in->op == WD_OP_METER) {
            if ((i > 0 && c->costs[i] != 0) || (i > 0 && sum != c->insns[meter].a))
                return i + 1;
            meter = i;
            sum = 0;
        }
        sum += c->costs[i];
        bool branch = in->op == WD_OP_JMP || wd_op_is_cond_branch(in->op) || in->op == WD_OP_DATA;
        if (branch && !is_target(c, in->a))
            return i + 1;
        if (in->op == WD_OP_DATA &&
            (c->costs[i] != 0 || in->b >= c->max_slots || in->c >= c->max_slots || in->b > in->c))
            return i + 1;
        if (wd_op_has_data(in->op)) { /* its DATA: costs 0, not a branch */
            if (i + 1 >= c->insn_count || c->insns[i + 1].op != WD_OP_DATA ||
                c->costs[i + 1] != 0)
                return i + 2;
            /* a COPY's addresses are slots, and its store's cost is within its own */
            if (wd_op_is_copy(in->op) && (in->a >= c->max_slots || in->b >= c->max_slots ||
                                          in[1].a > c->costs[i]))
                return i + 1;
            i++;
            continue;
        }
        if (in->op == WD_OP_BR_TABLE) {
            if (in->b == 0 || i + in->b >= c->insn_count)
                return i + 1;
            for (uint32_t k = 1; k <= in->b; k++)
                if (c->insns[i + k].op != WD_OP_DATA)
                    return i + k + 1;
            i += in->b;
        }
        bool opens = wd_op_is_cond_branch(in->op) || in->op == WD_OP_CALL ||
                     in->op == WD_OP_CALL_INDIRECT;
        if (opens && (i + 1 >= c->insn_count || c->insns[i + 1].op != WD_OP_METER))
            return i + 1;
        if (is_terminator(in->op) && i + 1 < c->insn_count && c->insns[i + 1].op != WD_OP_METER)
            return i + 2;
        uint8_t kind = wd_op_info[in->op].kind;
        if ((kind == WD_KIND_UN || kind == WD_KIND_LOAD || in->op == WD_OP_MOV) &&
            (in->a >= c->max_slots || in->b >= c->max_slots))
            return i + 1;
        /* operands may be locals (fused local.get) but stay within the frame */
        if (kind == WD_KIND_BIN && (in->a >= c->max_slots || in->b >= c->max_slots ||
                                    in->c >= c->max_slots))
            return i + 1;
        bool imm_op = in->op >= WD_OP_I32_ADD_I && in->op <= WD_OP_I64_GE_U_I;
        if (imm_op && (in->a >= c->max_slots || in->b >= c->max_slots))
            return i + 1;
        if (((in->op >= WD_OP_BR_I32_EQ && in->op <= WD_OP_BR_I32_GE_U) ||
             (in->op >= WD_OP_BR_I64_EQ && in->op <= WD_OP_BR_I64_GE_U)) &&
            (in->b >= c->max_slots || in->c >= c->max_slots))
            return i + 1;
        if (in->op == WD_OP_RETURN && in->a + in->b > c->max_slots)
            return i + 1;
        /* a fused shift's count is below its width (ops.def, I32_XOR_SHL..) */
        bool narrow = (in->op >= WD_OP_I32_XOR_SHL && in->op <= WD_OP_I32_ADD_ROTL) ||
                      in->op == WD_OP_I32_ROTL_XOR;
        if ((narrow || (in->op >= WD_OP_I64_XOR_SHL && in->op <= WD_OP_I64_ROTL_XOR)) &&
            (in->a >= c->max_slots || in->b >= c->max_slots || in->c >= c->max_slots ||
             in->k >= (narrow ? 32 : 64)))
            return i + 1;
        /* a MOV2's second source, and a fused add's addend, are slots (I32_MUL_ADD) */
        if (in->op == WD_OP_MOV2 && (in->a >= c->max_slots || in->b >= c->max_slots ||
                                     in->c >= c->max_slots || in->k >= c->max_slots))
            return i + 1;
        if (in->op >= WD_OP_I32_STORE_ADDK && in->op <= WD_OP_I32_STORE8_RI_ADDK &&
            (in->a >= c->max_slots || in->b >= c->max_slots))
            return i + 1;
        if ((in->op == WD_OP_I32_MUL_ADD || in->op == WD_OP_I64_MUL_ADD) &&
            (in->a >= c->max_slots || in->b >= c->max_slots || in->c >= c->max_slots ||
             in->k >= c->max_slots))
            return i + 1;
    }
    if (sum != c->insns[meter].a)
        return meter + 1;
    uint32_t last = c->insn_count - 1;
    uint32_t op = c->insns[last].op;
    if (!is_terminator(op) && op != WD_OP_DATA)
        return last + 1;
    return 0;
}

/* ---- translation ---------------------------------------------------------------------- */

TEST(validate_const_add)
{
    env e;
    env_init(&e, "", "i", "");
    /* i32.const 1; i32.const 2; i32.add; end */
    CHECK_EQ(RUN(&e, 0x00, 0x41, 0x01, 0x41, 0x02, 0x6A, 0x0B), WD_OK);
    const wd_code *c = e.code;
    CHECK(c != NULL);
    CHECK_TEXT(code_text(c), "meter 4 0 0|const32 0 1 0|const32 1 2 0|i32.add 0 0 1|return 0 1 0");
    CHECK_ARRAY(c->costs, c->insn_count, 0, 1, 1, 1, 1);
    CHECK_ARRAY(c->offsets, c->insn_count, 0x11, 0x11, 0x13, 0x15, 0x16);
    CHECK_EQ(c->func_idx, 1);
    CHECK_EQ(c->param_slots, 0);
    CHECK_EQ(c->local_slots, 0);
    CHECK_EQ(c->result_slots, 1);
    CHECK_EQ(c->max_slots, 2);
    CHECK_EQ(c->wasm_insn_count, 4);
    CHECK_EQ(code_violation(c), 0);
    CHECK(env_fini(&e));
}

TEST(validate_consts_64_and_float_bits)
{
    env e;
    env_init(&e, "", "", "");
    /* i64.const -2; drop; f32.const 1.5; drop; f64.const -0.0; drop; end */
    CHECK_EQ(RUN(&e, 0x00, 0x42, 0x7E, 0x1A, 0x43, 0x00, 0x00, 0xC0, 0x3F, 0x1A, 0x44, 0, 0, 0, 0,
                 0, 0, 0, 0x80, 0x1A, 0x0B),
             WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 7 0 0|const64 0 18446744073709551614|"
                                  "const32 0 1069547520 0|const64 0 9223372036854775808|"
                                  "return 0 0 0");
    CHECK_ARRAY(e.code->costs, e.code->insn_count, 0, 1, 2, 2, 2);
    CHECK(env_fini(&e));
}

TEST(validate_locals)
{
    env e;
    env_init(&e, "ii", "i", "I");
    /* local.get 0; local.get 1; i32.sub; local.tee 0; drop; i64.const -1; local.set 2;
     * local.get 0; end */
    CHECK_EQ(RUN(&e, 0x01, 0x01, 0x7E, 0x20, 0x00, 0x20, 0x01, 0x6B, 0x22, 0x00, 0x1A, 0x42, 0x7F,
                 0x21, 0x02, 0x20, 0x00, 0x0B),
             WD_OK);
    const wd_code *c = e.code;
    CHECK_TEXT(code_text(c), "meter 9 0 0|mov 3 0 0|mov 4 1 0|i32.sub 3 3 4|mov 0 3 0|"
                             "const64 3 18446744073709551615|mov 2 3 0|mov 3 0 0|return 3 1 0");
    CHECK_ARRAY(c->costs, c->insn_count, 0, 1, 1, 1, 1, 2, 1, 1, 1);
    CHECK_EQ(c->param_slots, 2);
    CHECK_EQ(c->local_slots, 3);
    CHECK_EQ(c->max_slots, 5);
    CHECK_EQ(code_violation(c), 0);
    CHECK(env_fini(&e));
}

TEST(validate_loop_br_if)
{
    env e;
    env_init(&e, "i", "i", "");
    /* loop; local.get 0; i32.const 1; i32.sub; local.tee 0; br_if 0; end; local.get 0; end */
    CHECK_EQ(RUN(&e, 0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6B, 0x22, 0x00, 0x0D, 0x00, 0x0B,
                 0x20, 0x00, 0x0B),
             WD_OK);
    const wd_code *c = e.code;
    /* the loop instruction runs once: its cost is in the entry block (a NOP_COST) */
    CHECK_TEXT(code_text(c), "meter 1 0 0|nop 0 0 0|meter 5 0 0|mov 1 0 0|const32 2 1 0|"
                             "i32.sub 1 1 2|mov 0 1 0|br_if_nz 2 1 0|meter 3 0 0|mov 1 0 0|"
                             "return 1 1 0");
    CHECK_ARRAY(c->costs, c->insn_count, 0, 1, 0, 1, 1, 1, 1, 1, 0, 2, 1);
    CHECK_ARRAY(c->offsets, c->insn_count, 0x11, 0x11, 0x13, 0x13, 0x15, 0x17, 0x18, 0x1A, 0x1C,
                0x1D, 0x1F);
    CHECK_EQ(c->max_slots, 3);
    CHECK_EQ(code_violation(c), 0);
    CHECK(env_fini(&e));
}

TEST(validate_loop_at_entry_has_its_own_meter)
{
    env e;
    env_init(&e, "", "", "");
    e.costs.op[0x03] = 0; /* a free `loop` leaves no NOP_COST: the header must still not be 0 */
    /* loop; br 0; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x03, 0x40, 0x0C, 0x00, 0x0B, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 0 0 0|meter 1 0 0|jmp 1 0 0");
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_if_else_results)
{
    env e;
    env_init(&e, "i", "i", "");
    /* local.get 0; if (result i32); i32.const 10; else; i32.const 20; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x20, 0x00, 0x04, 0x7F, 0x41, 0x0A, 0x05, 0x41, 0x14, 0x0B, 0x0B),
             WD_OK);
    const wd_code *c = e.code;
    /* then path: get if | const else (jumps over the if's end) | end = 5 instructions;
     * else path: get if | const end | end = 5 */
    CHECK_TEXT(code_text(c), "meter 2 0 0|mov 1 0 0|br_if_z 6 1 0|meter 2 0 0|const32 1 10 0|"
                             "jmp 9 0 0|meter 2 0 0|const32 1 20 0|nop 0 0 0|meter 1 0 0|"
                             "return 1 1 0");
    CHECK_ARRAY(c->costs, c->insn_count, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1);
    CHECK_EQ(code_violation(c), 0);
    CHECK(env_fini(&e));
}

TEST(validate_if_without_else)
{
    env e;
    env_init(&e, "i", "", "");
    /* local.get 0; if; nop; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x20, 0x00, 0x04, 0x40, 0x01, 0x0B, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|mov 1 0 0|br_if_z 5 1 0|meter 2 0 0|nop 0 0 0|"
                                  "meter 1 0 0|return 1 0 0");
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_br_table)
{
    env e;
    env_init(&e, "i", "", "");
    /* block; block; local.get 0; br_table 0 1 2; end; nop; return; end; nop; end */
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0E, 0x02, 0x00, 0x01, 0x02, 0x0B,
                 0x01, 0x0F, 0x0B, 0x01, 0x0B),
             WD_OK);
    const wd_code *c = e.code;
    CHECK_TEXT(code_text(c), "meter 4 0 0|mov 1 0 0|br_table 1 3 0|data 6 1 1|data 8 1 1|"
                             "data 10 1 1|meter 2 0 0|return 1 0 0|meter 2 0 0|nop 0 0 0|"
                             "meter 0 0 0|return 1 0 0");
    CHECK_ARRAY(c->costs, c->insn_count, 0, 3, 1, 0, 0, 0, 0, 2, 0, 2, 0, 0);
    CHECK_EQ(code_violation(c), 0);
    CHECK(env_fini(&e));
}

TEST(validate_br_table_moves_values)
{
    env e;
    env_init(&e, "i", "i", "");
    /* block (result i32); i32.const 7; local.get 0; br_table 0 1; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x7F, 0x41, 0x07, 0x20, 0x00, 0x0E, 0x01, 0x00, 0x01, 0x0B, 0x0B),
             WD_OK);
    /* the block's exit runs the function's `end`; the branch to the function skips it */
    CHECK_TEXT(code_text(e.code), "meter 4 0 0|const32 1 7 0|mov 2 0 0|br_table 2 2 1|"
                                  "data 6 1 1|data 8 1 1|meter 1 0 0|nop 0 0 0|meter 0 0 0|"
                                  "return 1 1 0");
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_call)
{
    env e;
    env_init(&e, "i", "i", "");
    /* local.get 0; call 0; i32.const 1; i32.add; end */
    CHECK_EQ(RUN(&e, 0x00, 0x20, 0x00, 0x10, 0x00, 0x41, 0x01, 0x6A, 0x0B), WD_OK);
    /* func 0 is an import: after its call, the METER a host function's return steps over */
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|mov 1 0 0|call 0 1 0|meter 0 0 0|meter 3 0 0|"
                                  "const32 2 1 0|i32.add 1 1 2|return 1 1 0");
    CHECK_EQ(e.code->max_slots, 3);
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_call_multi_value_and_indirect)
{
    env e;
    env_init(&e, "", "", "");
    /* i32.const 1; i32.const 2; call 2; drop; drop;
     * i32.const 3; i32.const 0; call_indirect (type 1) 0; drop; end */
    CHECK_EQ(RUN(&e, 0x00, 0x41, 0x01, 0x41, 0x02, 0x10, 0x02, 0x1A, 0x1A, 0x41, 0x03, 0x41, 0x00,
                 0x11, 0x01, 0x00, 0x1A, 0x0B),
             WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 3 0 0|const32 0 1 0|const32 1 2 0|call 2 0 0|"
                                  "meter 5 0 0|const32 0 3 0|const32 1 0 0|"
                                  "call_indirect 1 0 0|meter 0 0 0|meter 2 0 0|return 0 0 0");
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_return_and_dead_code)
{
    env e;
    env_init(&e, "", "i", "");
    /* i32.const 7; return; i32.const 8; end */
    CHECK_EQ(RUN(&e, 0x00, 0x41, 0x07, 0x0F, 0x41, 0x08, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|const32 0 7 0|return 0 1 0");
    CHECK_EQ(e.code->wasm_insn_count, 4); /* dead code counts: it was decoded */
    CHECK(env_fini(&e));
}

TEST(validate_br_moves_values)
{
    env e;
    env_init(&e, "", "i", "");
    /* block (result i32); i32.const 1; i32.const 2; br 0; end; end */
    static const uint8_t body[] = {0x00, 0x02, 0x7F, 0x41, 0x01, 0x41,
                                   0x02, 0x0C, 0x00, 0x0B, 0x0B};
    CHECK_EQ(env_run(&e, body, sizeof body), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 4 0 0|const32 0 1 0|const32 1 2 0|mov 0 1 0|jmp 5 0 0|"
                                  "meter 1 0 0|return 0 1 0");
    CHECK_ARRAY(e.code->costs, e.code->insn_count, 0, 2, 1, 1, 0, 0, 1);
    /* structural costs: the entry; the branch's join (concat, per value carried); the
     * function's natural end (two label steps) */
    e.costs.call_entry = 1000;
    e.costs.concat = 10;
    e.costs.per_value = 100;
    e.costs.label_step = 10000;
    CHECK_EQ(env_run(&e, body, sizeof body), WD_OK);
    /* br: 1 + concat 10 + 100 for its value; the end: 1 + two label steps */
    CHECK_TEXT(code_text(e.code), "meter 1114 0 0|const32 0 1 0|const32 1 2 0|mov 0 1 0|"
                                  "jmp 5 0 0|meter 20001 0 0|return 0 1 0");
    CHECK_ARRAY(e.code->costs, e.code->insn_count, 1000, 2, 1, 111, 0, 0, 20001);
    CHECK(env_fini(&e));
}

TEST(validate_br_if_moves_values)
{
    env e;
    env_init(&e, "i", "i", "");
    /* block (result i32); i32.const 5; i32.const 6; local.get 0; br_if 0; drop; end; end */
    static const uint8_t body[] = {0x00, 0x02, 0x7F, 0x41, 0x05, 0x41, 0x06,
                                   0x20, 0x00, 0x0D, 0x00, 0x1A, 0x0B, 0x0B};
    CHECK_EQ(env_run(&e, body, sizeof body), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 5 0 0|const32 1 5 0|const32 2 6 0|mov 3 0 0|"
                                  "br_if_z 8 3 0|meter 0 0 0|mov 1 2 0|jmp 10 0 0|meter 2 0 0|"
                                  "nop 0 0 0|meter 1 0 0|return 1 1 0");
    CHECK_EQ(code_violation(e.code), 0);
    /* a branch carrying values that need no move pays for them on its taken edge */
    e.costs.per_value = 10;
    /* block (result i32); local.get 0; local.get 0; br_if 0; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x7F, 0x20, 0x00, 0x20, 0x00, 0x0D, 0x00, 0x0B, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 4 0 0|mov 1 0 0|mov 2 0 0|br_if_nz 6 2 0|"
                                  "meter 11 0 0|nop 0 0 0|meter 1 0 0|return 1 1 0");
    CHECK_EQ(e.code->insns[3].edge, 10);
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_if_without_else_carrying_values)
{
    env e;
    env_init(&e, "ii", "i", "");
    e.costs.per_value = 10;
    /* local.get 0; local.get 1; if (type 1: i32 -> i32); i32.const 1; i32.add; end; end */
    CHECK_EQ(RUN(&e, 0x00, 0x20, 0x00, 0x20, 0x01, 0x04, 0x01, 0x41, 0x01, 0x6A, 0x0B, 0x0B),
             WD_OK);
    /* the false edge runs the empty else arm: its branch charges that arm's end */
    CHECK_TEXT(code_text(e.code), "meter 3 0 0|mov 2 0 0|mov 3 1 0|br_if_z 8 3 0|meter 13 0 0|"
                                  "const32 3 1 0|i32.add 2 2 3|nop 0 0 0|meter 1 0 0|"
                                  "return 2 1 0");
    CHECK_EQ(e.code->insns[3].edge, 10);
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

/* Under the PVM's model each br_table entry carries what reaching its target costs: the
 * queued br (3), 3 per label left, then the join (4 + values carried + the values of the
 * target's enclosing label) and a loop's re-run (3), or the function's Label_result (3). */
TEST(validate_pvm_br_table_edges)
{
    env e;
    env_init(&e, "", "", "");
    e.costs = *wd_tickmodel_builtin("pvm");
    /* i32.const 7; block; loop; i32.const 0; br_table 0 1 2; end; end; drop; end */
    CHECK_EQ(RUN(&e, 0x00, 0x41, 0x07, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0x0E, 0x02, 0x00, 0x01,
                 0x02, 0x0B, 0x0B, 0x1A, 0x0B),
             WD_OK);
    uint32_t t = 0;
    while (t < e.code->insn_count && e.code->insns[t].op != WD_OP_BR_TABLE)
        t++;
    CHECK(t + 3 < e.code->insn_count);
    CHECK_EQ(e.code->insns[t + 1].edge, 3 + 4 + 0 + 3);     /* the loop: H 0 */
    CHECK_EQ(e.code->insns[t + 2].edge, 3 + 3 + 4 + 0 + 1); /* the block: 1 label, H 1 */
    CHECK_EQ(e.code->insns[t + 3].edge, 3 + 6 + 3);         /* the function: 2 labels */
    CHECK(env_fini(&e));
}

TEST(validate_memory_table_ref_ops)
{
    env e;
    env_init(&e, "i", "", "");
    static const uint8_t body[] = {
        0x00, 0x20, 0x00, 0x28, 0x02, 0x08, 0x1A, /* i32.load offset=8; drop */
        0x20, 0x00, 0x42, 0x05, 0x37, 0x03, 0x10, /* i64.store offset=16 */
        0x3F, 0x00, 0x40, 0x00, 0x1A,             /* memory.size; memory.grow; drop */
        0x20, 0x00, 0x41, 0x00, 0x41, 0x01, 0xFC, 0x08, 0x00, 0x00, /* memory.init 0 */
        0xFC, 0x09, 0x00,                                           /* data.drop 0 */
        0x41, 0x00, 0x25, 0x00,                                     /* table.get 0 */
        0xD1, 0x1A,                                                 /* ref.is_null; drop */
        0x41, 0x01, 0xD0, 0x70, 0x26, 0x00,             /* table.set 0 (ref.null func) */
        0xD2, 0x00, 0x41, 0x02, 0xFC, 0x0F, 0x00, 0x1A, /* table.grow 0 (ref.func 0); drop */
        0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0C, 0x00, 0x00, /* table.init 0 0 */
        0xFC, 0x0D, 0x00,                                           /* elem.drop 0 */
        0x23, 0x00, 0x24, 0x00,                                     /* global.get 0; global.set 0 */
        0x20, 0x00, 0x41, 0x02, 0x41, 0x03, 0x1B, 0x1A,             /* select; drop */
        0x0B};
    CHECK_EQ(env_run(&e, body, sizeof body), WD_OK);
    CHECK_TEXT(code_text(e.code),
               "meter 38 0 0|mov 1 0 0|i32.load 1 1 8|mov 1 0 0|const64 2 5|i64.store 1 2 16|"
               "memory.size 1 0 0|memory.grow 1 1 0|mov 1 0 0|const32 2 0 0|const32 3 1 0|"
               "memory.init 1 0 0|data.drop 0 0 0|const32 1 0 0|table.get 1 1 0|"
               "ref.is_null 1 1 0|const32 1 1 0|ref.null 2 0 0|table.set 1 0 0|"
               "ref.func 1 0 0|const32 2 2 0|table.grow 1 0 0|const32 1 0 0|const32 2 0 0|"
               "const32 3 0 0|table.init 1 0 0|elem.drop 0 0 0|global.get 1 0 0|"
               "global.set 1 0 0|mov 1 0 0|const32 2 2 0|const32 3 3 0|select 1 2 3|"
               "return 1 0 0");
    CHECK_EQ(code_violation(e.code), 0);
    CHECK(env_fini(&e));
}

TEST(validate_unreachable_code_is_typed_not_emitted)
{
    env e;
    env_init(&e, "", "i", "");
    /* unreachable; i32.add; end: the Unknown operands satisfy i32.add */
    CHECK_EQ(RUN(&e, 0x00, 0x00, 0x6A, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 1 0 0|unreachable 0 0 0");
    CHECK(env_fini(&e));
    /* the spec's meet-bottom: br_table over labels of different types in dead code */
    env_init(&e, "", "F", "");
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x7C, 0x02, 0x7D, 0x00, 0x0E, 0x02, 0x00, 0x01, 0x01, 0x0B, 0x1A,
                 0x44, 0, 0, 0, 0, 0, 0, 0, 0, 0x0B, 0x0B),
             WD_OK);
    CHECK(env_fini(&e));
    /* after a dead block end, live code resumes only if something branches there */
    env_init(&e, "", "", "");
    /* block; br 0; end; i32.const 1; drop; end */
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x40, 0x0C, 0x00, 0x0B, 0x41, 0x01, 0x1A, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|jmp 2 0 0|meter 3 0 0|const32 0 1 0|"
                                  "return 0 0 0");
    /* block; return; end; i32.const 1; drop; end: nothing reaches past the block */
    CHECK_EQ(RUN(&e, 0x00, 0x02, 0x40, 0x0F, 0x0B, 0x41, 0x01, 0x1A, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|return 0 0 0");
    CHECK(env_fini(&e));
}

TEST(validate_meter_offsets_and_pending_costs)
{
    env e;
    env_init(&e, "i", "", "");
    /* local.get 0; call 0; drop; nop; block; nop; end; end: after the call, the elided
     * drop/nop/block/nop/end costs go onto the return */
    CHECK_EQ(RUN(&e, 0x00, 0x20, 0x00, 0x10, 0x00, 0x1A, 0x01, 0x02, 0x40, 0x01, 0x0B, 0x0B),
             WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 2 0 0|mov 1 0 0|call 0 1 0|meter 0 0 0|meter 6 0 0|"
                                  "return 1 0 0");
    CHECK_ARRAY(e.code->offsets, e.code->insn_count, 0x11, 0x11, 0x13, 0x13, 0x15, 0x1B);
    CHECK_ARRAY(e.code->costs, e.code->insn_count, 0, 1, 1, 0, 0, 6);
    CHECK(env_fini(&e));
}

TEST(validate_entry_cost)
{
    env e;
    env_init(&e, "ii", "", "iII");
    e.costs.call_entry = 7;
    e.costs.call_per_param = 100;
    e.costs.call_per_local = 10000;
    CHECK_EQ(RUN(&e, 0x02, 0x01, 0x7F, 0x02, 0x7E, 0x0B), WD_OK);
    CHECK_TEXT(code_text(e.code), "meter 30208 0 0|return 5 0 0");
    CHECK_ARRAY(e.code->costs, e.code->insn_count, 30207, 1);
    CHECK_EQ(e.code->local_slots, 5);
    CHECK_EQ(e.code->max_slots, 5);
    CHECK(env_fini(&e));
}

TEST(validate_dump)
{
    env e;
    env_init(&e, "", "i", "");
    CHECK_EQ(RUN(&e, 0x00, 0x42, 0x01, 0xA7, 0x0B), WD_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    wd_code_dump(f, e.code);
    fclose(f);
    CHECK_STR_CONTAINS(text, "func 1: params 0, locals 0, results 1, slots 1, 4 insns");
    CHECK_STR_CONTAINS(text, "const64");
    CHECK_STR_CONTAINS(text, "i32.wrap_i64");
    CHECK_STR_CONTAINS(text, "; cost 1 @0x13");
    free(text);
    CHECK(env_fini(&e));
}

/* ---- errors --------------------------------------------------------------------------- */

/* Runs `body` in a fresh () -> () function and checks the status and message prefix. */
static bool fails_with(env *e, const uint8_t *body, size_t len, wd_status want, const char *msg)
{
    wd_status st = env_run(e, body, len);
    if (st != want || strncmp(e->err.msg, msg, strlen(msg)) != 0) {
        printf("  status %s, message \"%s\"; wanted %s \"%s\"\n", wd_status_name(st), e->err.msg,
               wd_status_name(want), msg);
        return false;
    }
    return e->err.func_idx == 1 && e->code == NULL;
}

#define FAILS(e, want, msg, ...)                                                                   \
    fails_with((e), (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}),        \
               (want), (msg))

TEST(validate_type_errors)
{
    env e;
    env_init(&e, "", "", "");
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch in i32.add: expected i32, got i64", 0x00, 0x41,
                0x00, 0x42, 0x00, 0x6A, 0x1A, 0x0B));
    CHECK_EQ(e.err.offset, BODY_AT + 5);
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x6A, 0x0B));       /* empty */
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x41, 0x00, 0x0B)); /* extra */
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown local 5", 0x00, 0x20, 0x05, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown label 1", 0x00, 0x0C, 0x01, 0x0B));
    CHECK_EQ(e.err.offset, BODY_AT + 1);
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown global 2", 0x00, 0x23, 0x02, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "global is immutable", 0x00, 0x42, 0x00, 0x24, 0x01, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown function 9", 0x00, 0x10, 0x09, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown table 5", 0x00, 0x41, 0x00, 0x11, 0x02, 0x05, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x41, 0x00, 0x11, 0x02, 0x01,
                0x0B)); /* externref table */
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown type 9", 0x00, 0x41, 0x00, 0x11, 0x09, 0x00, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown type 9", 0x00, 0x02, 0x09, 0x0B, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "undeclared function reference", 0x00, 0xD2, 0x02, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown function 3", 0x00, 0xD2, 0x03, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown elem segment 1", 0x00, 0xFC, 0x0D, 0x01, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown data segment 1", 0x00, 0xFC, 0x09, 0x01, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC,
                0x0E, 0x00, 0x01, 0x0B)); /* table.copy funcref <- externref */
    CHECK(FAILS(&e, WD_ERR_INVALID, "alignment must not be larger than natural", 0x00, 0x41, 0x00,
                0x28, 0x03, 0x00, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "invalid result arity", 0x00, 0x41, 0x00, 0x41, 0x00, 0x41,
                0x00, 0x1C, 0x02, 0x7F, 0x7F, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0xD0, 0x70, 0xD0, 0x70, 0x41, 0x00, 0x1B,
                0x1A, 0x0B)); /* untyped select on references */
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x41, 0x00, 0x04, 0x7F, 0x41, 0x01, 0x0B,
                0x1A, 0x0B)); /* if (result i32) without else */
    /* br_table labels of different arity */
    CHECK(FAILS(&e, WD_ERR_INVALID, "type mismatch", 0x00, 0x02, 0x7F, 0x41, 0x00, 0x41, 0x00, 0x0E,
                0x01, 0x01, 0x00, 0x0B, 0x1A, 0x0B));
    e.m.memory_count = 0;
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown memory 0", 0x00, 0x3F, 0x00, 0x1A, 0x0B));
    CHECK(env_fini(&e));
}

TEST(validate_malformed_bodies)
{
    env e;
    env_init(&e, "", "", "");
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "illegal opcode", 0x00, 0x06, 0x0B));
    CHECK_EQ(e.err.offset, BODY_AT + 1);
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "illegal opcode", 0x00, 0xFC, 0x20, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "illegal opcode", 0x00, 0xFC, 0x80, 0x02, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "SIMD not supported yet", 0x00, 0xFD, 0x0C, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "zero byte expected", 0x00, 0x41, 0x00, 0x40, 0x01, 0x1A,
                0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "zero byte expected", 0x00, 0x3F, 0x80, 0x00, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "malformed reference type", 0x00, 0xD0, 0x7F, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "END opcode expected", 0x00, 0x02, 0x40, 0x05, 0x0B,
                0x0B)); /* else in a block */
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "section size mismatch", 0x00, 0x0B, 0x01));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "integer representation too long", 0x00, 0x41, 0x80, 0x80,
                0x80, 0x80, 0x80, 0x00, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "unexpected end of section or function", 0x00, 0x41));
    /* a binary-format error anywhere in the body wins over a typing error before it */
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "illegal opcode", 0x00, 0x6A, 0x01, 0x06, 0x0B));
    CHECK_EQ(e.err.offset, BODY_AT + 3);
    /* bulk memory without a DataCount section */
    e.m.has_data_count = false;
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "data count section required", 0x00, 0x41, 0x00, 0x41, 0x00,
                0x41, 0x00, 0xFC, 0x08, 0x00, 0x00, 0x0B));
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "data count section required", 0x00, 0xFC, 0x09, 0x00, 0x0B));
    /* past the data segments it is a typing error (wabt omits DataCount without data) */
    CHECK(FAILS(&e, WD_ERR_INVALID, "unknown data segment 1", 0x00, 0xFC, 0x09, 0x01, 0x0B));
    CHECK(env_fini(&e));
}

TEST(validate_missing_end)
{
    /* the three cases of binary.wast: what follows the body decides the message */
    env e;
    env_init(&e, "", "", "");
    static const uint8_t body[] = {0x00, 0x41, 0x01, 0x1A};
    CHECK_EQ(env_run_tail(&e, body, sizeof body, (const uint8_t[]){0x05, 0x00}, 2),
             WD_ERR_MALFORMED);
    CHECK_STR_CONTAINS(e.err.msg, "END opcode expected");
    CHECK_EQ(env_run(&e, body, sizeof body), WD_ERR_MALFORMED);
    CHECK_STR_CONTAINS(e.err.msg, "unexpected end of section or function");
    CHECK_EQ(env_run_tail(&e, body, sizeof body, (const uint8_t[]){0x0B, 0x03}, 2),
             WD_ERR_MALFORMED);
    CHECK_STR_CONTAINS(e.err.msg, "section size mismatch");
    CHECK_EQ(e.err.offset, BODY_AT + sizeof body);
    CHECK(env_fini(&e));
}

TEST(validate_pvm_rejects_floats)
{
    env e;
    env_init(&e, "", "", "");
    e.opts.pvm = true;
    CHECK(FAILS(&e, WD_ERR_INVALID,
                "float instructions are forbidden in PVM mode: f32.const in function func[1] "
                "at offset 0x11",
                0x00, 0x43, 0, 0, 0x80, 0x3F, 0x1A, 0x0B));
    /* even in unreachable code, and named from the name section when it has the name */
    const char *names[3] = {NULL, "kernel_run", NULL};
    e.m.names.funcs = names;
    CHECK(FAILS(&e, WD_ERR_INVALID,
                "float instructions are forbidden in PVM mode: f64.add in function kernel_run",
                0x00, 0x00, 0xA0, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "float instructions are forbidden in PVM mode: block", 0x00,
                0x02, 0x7D, 0x00, 0x0B, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "float instructions are forbidden in PVM mode: select", 0x00,
                0x00, 0x1C, 0x01, 0x7C, 0x1A, 0x0B));
    CHECK(FAILS(&e, WD_ERR_INVALID, "float instructions are forbidden in PVM mode: i32.trunc", 0x00,
                0x00, 0xFC, 0x00, 0x1A, 0x0B));
    /* integers are fine */
    CHECK_EQ(RUN(&e, 0x00, 0x41, 0x01, 0x1A, 0x0B), WD_OK);
    CHECK(env_fini(&e));

    env_init(&e, "", "", "f");
    e.opts.pvm = true;
    CHECK(FAILS(&e, WD_ERR_INVALID, "float instructions are forbidden in PVM mode: f32 local", 0x01,
                0x01, 0x7D, 0x0B));
    CHECK(env_fini(&e));
}

TEST(validate_v128_types_are_unsupported)
{
    env e;
    env_init(&e, "", "", "v");
    CHECK(FAILS(&e, WD_ERR_MALFORMED, "SIMD not supported yet", 0x01, 0x01, 0x7B, 0x0B));
    CHECK(env_fini(&e));
    env_init(&e, "", "", "");
    CHECK(
        FAILS(&e, WD_ERR_MALFORMED, "SIMD not supported yet", 0x00, 0x02, 0x7B, 0x00, 0x0B, 0x0B));
    CHECK(env_fini(&e));
}

/* ---- robustness ----------------------------------------------------------------------- */

static const uint8_t sample_bodies[][48] = {
    {0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6B, 0x22, 0x00, 0x0D, 0x00, 0x0B, 0x0B},
    {0x00, 0x20, 0x00, 0x04, 0x7F, 0x41, 0x0A, 0x05, 0x41, 0x14, 0x0B, 0x1A, 0x0B},
    {0x00, 0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0E, 0x02, 0x00, 0x01, 0x02, 0x0B, 0x01, 0x0F, 0x0B,
     0x01, 0x0B},
    {0x00, 0x02, 0x7F, 0x41, 0x05, 0x41, 0x06, 0x20, 0x00, 0x0D, 0x00, 0x1A, 0x0B, 0x1A, 0x0B},
    {0x01, 0x01, 0x7E, 0x20, 0x00, 0x10, 0x00, 0x1A, 0x20, 0x00, 0x41, 0x00, 0x11, 0x01, 0x00, 0x1A,
     0x20, 0x00, 0x28, 0x02, 0x08, 0x20, 0x00, 0x36, 0x02, 0x00, 0x42, 0x01, 0x21, 0x01, 0x0B},
    {0x00, 0x20, 0x00, 0x20, 0x00, 0x04, 0x01, 0x41, 0x01, 0x6A, 0x0B, 0x1A,
     0xD2, 0x00, 0xD1, 0x1A, 0x3F, 0x00, 0x40, 0x00, 0x1A, 0x00, 0x0B},
    {0x00, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x0D, 0x01, 0x20, 0x00, 0x45, 0x0D, 0x00,
     0x0C, 0x01, 0x0B, 0x0B, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0B, 0x00, 0x0B},
};

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

static size_t sample_len(const uint8_t *b)
{
    size_t n = 48;
    while (n > 0 && b[n - 1] == 0)
        n--;
    return n; /* every sample ends with 0x0B */
}

TEST(validate_samples_are_valid)
{
    env e;
    env_init(&e, "i", "", "");
    for (size_t i = 0; i < WD_ARRAY_COUNT(sample_bodies); i++) {
        const uint8_t *b = sample_bodies[i];
        e.funcs[1].local_count = e.funcs[1].local_groups = b[0] ? 1 : 0;
        e.decls[0] = (wd_localdecl){1, WD_I64};
        e.funcs[1].local_decls = e.decls;
        wd_status st = env_run(&e, b, sample_len(b));
        if (st != WD_OK)
            printf("  sample %zu: %s\n", i, e.err.msg);
        CHECK_EQ(st, WD_OK);
        CHECK_EQ(code_violation(e.code), 0);
    }
    CHECK(env_fini(&e));
}

TEST(validate_truncated_and_mutated_bodies)
{
    env e;
    env_init(&e, "i", "", "I");
    uint8_t body[64];
    for (size_t i = 0; i < WD_ARRAY_COUNT(sample_bodies); i++) {
        size_t len = sample_len(sample_bodies[i]);
        e.funcs[1].local_count = sample_bodies[i][0] ? 1 : 0;
        for (size_t cut = 0; cut < len; cut++) {
            wd_status st = env_run(&e, sample_bodies[i], cut);
            CHECK(st == WD_ERR_MALFORMED || st == WD_ERR_INVALID);
        }
    }
    int valid = 0;
    for (int round = 0; round < 40000; round++) {
        size_t i = rng() % WD_ARRAY_COUNT(sample_bodies);
        size_t len = sample_len(sample_bodies[i]);
        memcpy(body, sample_bodies[i], len);
        int flips = 1 + (int)(rng() % 3);
        for (int k = 0; k < flips; k++) {
            uint32_t r = rng();
            if (r & 1)
                body[1 + r % (len - 1)] = (uint8_t)(r >> 8);
            else
                body[1 + r % (len - 1)] ^= (uint8_t)(1u << ((r >> 8) % 8));
        }
        if ((rng() & 3) == 0 && len < sizeof body)
            body[len++] = (uint8_t)rng();
        e.funcs[1].local_count = body[0] == 1 ? 1 : 0;
        wd_status st = env_run(&e, body, len);
        CHECK(st == WD_OK || st == WD_ERR_MALFORMED || st == WD_ERR_INVALID);
        if (st == WD_OK) {
            valid++;
            uint32_t bad = code_violation(e.code);
            if (bad != 0) {
                printf("  round %d: violation at insn %u\n", round, bad - 1);
                wd_code_dump(stdout, e.code);
            }
            CHECK_EQ(bad, 0);
        } else {
            CHECK(e.err.msg[0] != '\0' && e.err.func_idx == 1);
        }
        /* keep the arena small */
        wd_arena_fini(&e.m.arena);
    }
    CHECK(valid > 500); /* the invariants were exercised (1716 valid with this seed) */
    CHECK(env_fini(&e));
}

TEST(validate_deep_nesting_and_wide_br_table)
{
    enum { N = 1200 };
    static uint8_t body[8000];
    size_t n = 0;
    body[n++] = 0x00;
    for (int i = 0; i < N; i++) {
        body[n++] = 0x02;
        body[n++] = 0x40;
    }
    body[n++] = 0x20; /* local.get 0; br_table 0 1 ... N-1 N */
    body[n++] = 0x00;
    body[n++] = 0x0E;
    body[n++] = (uint8_t)(0x80 | (N & 0x7F));
    body[n++] = (uint8_t)(N >> 7);
    for (int i = 0; i <= N; i++) {
        body[n++] = (uint8_t)(0x80 | (i & 0x7F));
        body[n++] = (uint8_t)(i >> 7);
    }
    for (int i = 0; i <= N; i++)
        body[n++] = 0x0B;
    env e;
    env_init(&e, "i", "", "");
    CHECK_EQ(env_run(&e, body, n), WD_OK);
    CHECK_EQ(code_violation(e.code), 0);
    CHECK_EQ(e.code->insns[2].op, WD_OP_BR_TABLE);
    CHECK_EQ(e.code->insns[2].b, N + 1);
    CHECK_EQ(e.code->wasm_insn_count, N + 3 + N);
    /* one `end` short: the frames are still open when the body ends */
    CHECK_EQ(env_run(&e, body, n - 1), WD_ERR_MALFORMED);
    CHECK(env_fini(&e));
}

TEST(validate_out_of_memory)
{
    env e;
    env_init(&e, "i", "", "I");
    const uint8_t *b = sample_bodies[4];
    e.funcs[1].local_count = 1;
    for (size_t n = 1;; n++) {
        e.ctx.fail_after = e.ctx.count + n;
        wd_status st = env_run(&e, b, sample_len(b));
        e.ctx.fail_after = 0;
        if (st == WD_OK)
            break;
        CHECK_EQ(st, WD_ERR_NOMEM);
        wd_arena_fini(&e.m.arena);
        CHECK_EQ(e.ctx.live, 0);
        CHECK(n < 100);
    }
    CHECK(env_fini(&e));
}

/* The peephole fusion of code.h: operands read straight from locals, constant right
 * operands as immediates, results written into a local.set's local, compare-and-branch;
 * the block charges and the sums of costs are those of the unfused code. */
TEST(validate_fused_code)
{
    const uint8_t body[] = {
        0x01, 0x01, 0x7F,             /* (local i32) */
        0x20, 0x00, 0x41, 0x0A, 0x48, /* local.get 0; i32.const 10; i32.lt_s */
        0x04, 0x7F,                   /* if (result i32) */
        0x20, 0x00, 0x41, 0x01, 0x6A, /*   local.get 0; i32.const 1; i32.add */
        0x21, 0x01,                   /*   local.set 1 */
        0x20, 0x01, 0x28, 0x02, 0x04, /*   local.get 1; i32.load offset=4 */
        0x05, 0x41, 0x07,             /* else i32.const 7 */
        0x0B, 0x0B,                   /* end end */
    };
    env e;
    env_init(&e, "i", "i", "i");
    e.opts.no_fuse = false;
    wd_status st = env_run(&e, body, sizeof body);
    if (st != WD_OK)
        printf("  %s\n", e.err.msg);
    CHECK_EQ(st, WD_OK);
    const wd_code *c = e.code;
    CHECK_TEXT(code_text(c), "meter 4 0 0|br_i32.ge_s_imm 6 0 10|meter 7 0 0|"
                             "i32.add_imm 1 0 1|i32.load 2 1 4|jmp 8 0 0|meter 2 0 0|"
                             "const32 2 7 0|meter 1 0 0|return 2 1 0");
    /* local.get+const+lt_s+if; local.get+const+add+local.set; local.get+load; else;
     * const+end (the if's end, on the path that falls through it); the function's end */
    CHECK_ARRAY(c->costs, c->insn_count, 0, 4, 0, 4, 2, 1, 0, 2, 0, 1);
    CHECK_EQ(code_violation(c), 0);
    uint64_t fused = 0, unfused = 0;
    uint32_t fused_count = c->insn_count;
    for (uint32_t i = 0; i < c->insn_count; i++)
        fused += c->costs[i];
    CHECK(env_fini(&e));
    /* the same body unfused: the same charges in all */
    env u;
    env_init(&u, "i", "i", "i");
    CHECK_EQ(env_run(&u, body, sizeof body), WD_OK);
    for (uint32_t i = 0; i < u.code->insn_count; i++)
        unfused += u.code->costs[i];
    CHECK_EQ(fused, unfused);
    CHECK(u.code->insn_count >= fused_count + 5);
    CHECK(env_fini(&u));
}

/* Lazy operands (translate.c): local.get and constants are read in place; they are
 * materialized before their local is written and before a block; local.tee retargets
 * its producer and keeps the value in the local; a constant left operand of a commutative
 * operation or a comparison becomes an immediate. Charges sum to the unfused code's. */
TEST(validate_lazy_operands)
{
    static const struct {
        const char *params, *results, *locals;
        uint8_t body[24];
        size_t len;
        const char *code;
    } cases[] = {
        /* local.get 0; i32.const 5; local.set 0; local.get 0; i32.sub */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x41, 0x05, 0x21, 0x00, 0x20, 0x00, 0x6B, 0x0B}, 11,
         "meter 6 0 0|mov 1 0 0|const32 0 5 0|i32.sub 1 1 0|return 1 1 0"},
        /* i32.const 10; local.get 0; i32.lt_u */
        {"i", "i", "", {0x00, 0x41, 0x0A, 0x20, 0x00, 0x49, 0x0B}, 7,
         "meter 4 0 0|i32.gt_u_imm 1 0 10|return 1 1 0"},
        /* local.get 0; i32.const 3; i32.mul; local.tee 1; local.get 1; i32.add */
        {"i", "i", "i",
         {0x01, 0x01, 0x7F, 0x20, 0x00, 0x41, 0x03, 0x6C, 0x22, 0x01, 0x20, 0x01, 0x6A, 0x0B},
         14, "meter 7 0 0|i32.mul_imm 1 0 3|i32.add 2 1 1|return 2 1 0"},
        /* local.get 0; block; end; local.get 0; i32.add */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x02, 0x40, 0x0B, 0x20, 0x00, 0x6A, 0x0B}, 10,
         "meter 6 0 0|mov 1 0 0|i32.add 1 1 0|return 1 1 0"},
        /* local.get 1; local.get 0; local.set 1; (the first still reads the old local 1): the
         * two moves in one */
        {"ii", "i", "", {0x00, 0x20, 0x01, 0x20, 0x00, 0x21, 0x01, 0x0B}, 8,
         "meter 4 0 0|mov2 2 1 1 0|return 2 1 0"},
        /* local.get 1; local.get 0; local.set 1; local.set 0; local.get 0: a swap. The last
         * set is not folded into the MOV2's first move (it would then come before the second
         * move's read of local 0) */
        {"ii", "i", "",
         {0x00, 0x20, 0x01, 0x20, 0x00, 0x21, 0x01, 0x21, 0x00, 0x20, 0x00, 0x0B}, 12,
         "meter 6 0 0|mov2 2 1 1 0|mov 0 2 0|return 0 1 0"},
        /* local.get 1 is returned from the local */
        {"ii", "i", "", {0x00, 0x20, 0x01, 0x0B}, 4, "meter 2 0 0|return 1 1 0"},
        /* local.get 0; local.get 1; i32.add; i32.load: the address's add fused */
        {"ii", "i", "", {0x00, 0x20, 0x00, 0x20, 0x01, 0x6A, 0x28, 0x02, 0x00, 0x0B}, 10,
         "meter 5 0 0|i32.load_rr 2 0 1|return 2 1 0"},
        /* local.get 0; i32.const 8; i32.add; i32.load8_u */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x41, 0x08, 0x6A, 0x2D, 0x00, 0x00, 0x0B}, 10,
         "meter 5 0 0|i32.load8_u_ri 1 0 8|return 1 1 0"},
        /* local.get 0; local.get 1; i32.add; local.get 1; i32.store; local.get 0;
         * i32.const 7; i32.store8 offset=3: a fused address, a constant value */
        {"ii", "", "",
         {0x00, 0x20, 0x00, 0x20, 0x01, 0x6A, 0x20, 0x01, 0x36, 0x02, 0x00, 0x20, 0x00, 0x41,
          0x07, 0x3A, 0x00, 0x03, 0x0B},
         19, "meter 9 0 0|i32.store_rr 0 1 1|i32.store8_imm 0 7 3|return 2 0 0"},
        /* local.get 0; local.get 1; i32.add; i32.const 1; i32.store8; then
         * local.get 0; i32.const 4; i32.and; br_if 0 */
        {"ii", "", "",
         {0x00, 0x20, 0x00, 0x20, 0x01, 0x6A, 0x41, 0x01, 0x3A, 0x00, 0x00, 0x20, 0x00, 0x41,
          0x04, 0x71, 0x0D, 0x00, 0x0B},
         19, "meter 9 0 0|i32.store8_rri 0 1 1|br_i32.and_nz_imm 5 0 4|meter 1 0 0|nop 0 0 0|"
         "meter 0 0 0|return 2 0 0"},
        /* local.get 0; i32.const 1; i32.add; local.get 1; i32.const 1; i32.add;
         * i32.load8_u; i32.store8: both sums lazy (LZ_ADDK), both accesses fused, and the
         * load with the store of its value (a COPY, its DATA the store's cost and offset) */
        {"ii", "", "",
         {0x00, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x20, 0x01, 0x41, 0x01, 0x6A, 0x2D, 0x00, 0x00,
          0x3A, 0x00, 0x00, 0x0B},
         18, "meter 9 0 0|copy8_ri 0 1 1|data 1 1 0|return 2 0 0"},
        /* i32.const 4; local.get 0; i32.add; i32.const 2; i32.add; i32.load: one sum */
        {"i", "i", "", {0x00, 0x41, 0x04, 0x20, 0x00, 0x6A, 0x41, 0x02, 0x6A, 0x28, 0x02, 0x00,
                        0x0B},
         13, "meter 7 0 0|i32.load_ri 1 0 6|return 1 1 0"},
        /* local.get 0; i32.const 5; i32.add; i32.const 9; local.set 0; local.get 0;
         * i32.add: the sum is taken before its local is written */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x41, 0x05, 0x6A, 0x41, 0x09, 0x21, 0x00, 0x20, 0x00,
                        0x6A, 0x0B},
         14, "meter 8 0 0|i32.add_imm 1 0 5|const32 0 9 0|i32.add 1 1 0|return 1 1 0"},
        /* local.get 0; i32.const -1; i32.add; local.tee 0; local.get 0; i32.mul: the tee's
         * value is read from the local it was written to, not added again */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x41, 0x7F, 0x6A, 0x22, 0x00, 0x20, 0x00, 0x6C, 0x0B},
         12, "meter 7 0 0|i32.add_imm 0 0 4294967295|i32.mul 1 0 0|return 1 1 0"},
        /* local.get 0; i64.const 0xFFFFFFFF; i64.and: a zero extension */
        {"I", "I", "", {0x00, 0x20, 0x00, 0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x83, 0x0B}, 11,
         "meter 4 0 0|i64.extend_i32_u 1 0 0|return 1 1 0"},
        /* local.get 0; i64.const 0x123456789; i64.mul; local.set 0; local.get 0: a wide
         * constant in a DATA, the set folded */
        {"I", "I", "",
         {0x00, 0x20, 0x00, 0x42, 0x89, 0xCF, 0x95, 0x9A, 0x12, 0x7E, 0x21, 0x00, 0x20, 0x00,
          0x0B},
         15, "meter 6 0 0|i64.mul_wide 0 0 0|data 4294967295 591751049 1|return 0 1 0"},
        /* local.get 0; i32.const 3; i32.rotl */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x41, 0x03, 0x77, 0x0B}, 7,
         "meter 4 0 0|i32.rotl_imm 1 0 3|return 1 1 0"},
        /* i64: local.get 0; i64.const 7; i64.lt_u; if (result i32) 1 else 2 end */
        {"I", "i", "",
         {0x00, 0x20, 0x00, 0x42, 0x07, 0x54, 0x04, 0x7F, 0x41, 0x01, 0x05, 0x41, 0x02, 0x0B,
          0x0B},
         15,
         "meter 4 0 0|br_i64.ge_u_imm 5 0 7|meter 2 0 0|const32 1 1 0|jmp 7 0 0|"
         "meter 2 0 0|const32 1 2 0|meter 1 0 0|return 1 1 0"},
        /* local.get 0; i32.const 1; i32.add; local.get 1; i32.const 2; i32.add; i32.store8:
         * the address's sum read by the store where it is, the value's fused into it (its
         * constant in k) */
        {"ii", "", "",
         {0x00, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x20, 0x01, 0x41, 0x02, 0x6A, 0x3A, 0x00, 0x00,
          0x0B},
         15, "meter 8 0 0|i32.store8_ri_addk 0 1 1 2|return 2 0 0"},
        /* local.get 0; local.get 0; i32.const 13; i32.shl; i32.xor: x ^ x << 13 */
        {"i", "i", "", {0x00, 0x20, 0x00, 0x20, 0x00, 0x41, 0x0D, 0x74, 0x73, 0x0B}, 10,
         "meter 6 0 0|i32.xor_shl 1 0 0|return 1 1 0"},
        /* local.get 0; local.get 1; i64.xor; i64.const 24; i64.rotr */
        {"II", "I", "", {0x00, 0x20, 0x00, 0x20, 0x01, 0x85, 0x42, 0x18, 0x8A, 0x0B}, 10,
         "meter 6 0 0|i64.rotl_xor 2 0 1|return 2 1 0"},
        /* i64: local.get 0; i64.eqz; if (result i32) 1 else 2 end */
        {"I", "i", "",
         {0x00, 0x20, 0x00, 0x50, 0x04, 0x7F, 0x41, 0x01, 0x05, 0x41, 0x02, 0x0B, 0x0B}, 13,
         "meter 3 0 0|br_i64_nz 5 0 0|meter 2 0 0|const32 1 1 0|jmp 7 0 0|"
         "meter 2 0 0|const32 1 2 0|meter 1 0 0|return 1 1 0"},
    };
    for (size_t i = 0; i < WD_ARRAY_COUNT(cases); i++) {
        env e;
        env_init(&e, cases[i].params, cases[i].results, cases[i].locals);
        e.opts.no_fuse = false;
        wd_status st = env_run(&e, cases[i].body, cases[i].len);
        if (st != WD_OK)
            printf("  case %zu: %s\n", i, e.err.msg);
        CHECK_EQ(st, WD_OK);
        CHECK_TEXT(code_text(e.code), cases[i].code);
        CHECK_EQ(code_violation(e.code), 0);
        uint64_t fused = 0, unfused = 0;
        for (uint32_t k = 0; k < e.code->insn_count; k++)
            fused += e.code->costs[k];
        CHECK(env_fini(&e));
        env u;
        env_init(&u, cases[i].params, cases[i].results, cases[i].locals);
        CHECK_EQ(env_run(&u, cases[i].body, cases[i].len), WD_OK);
        for (uint32_t k = 0; k < u.code->insn_count; k++)
            unfused += u.code->costs[k];
        CHECK_EQ(fused, unfused);
        CHECK(env_fini(&u));
    }
}
