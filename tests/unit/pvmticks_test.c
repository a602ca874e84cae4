/* pvmticks_test.c: decode, link and init cost the Octez PVM's own steps (vm/pvmticks.c,
 * shared/reference/octez-ticks/RULES.md), checked against figures worked out by hand from
 * the rules and against Octez's regression outputs (truth.json, the link_* scenarios). */
#include "tests/unit/test.h"
#include "tests/unit/util.h"
#include "vm/pvm.h"
#include "vm/pvmticks.h"
#include "vm/tickmodel.h"

#include <stdlib.h>

/* ---- modules ------------------------------------------------------------------------------ */

typedef struct mod {
    uint8_t b[256];
    size_t n;
} mod;

static void put(mod *m, const void *bytes, size_t n)
{
    memcpy(m->b + m->n, bytes, n);
    m->n += n;
}

static void put_byte(mod *m, uint8_t x)
{
    m->b[m->n++] = x;
}

static void put_name(mod *m, const char *s)
{
    put_byte(m, (uint8_t)strlen(s));
    put(m, s, strlen(s));
}

/* A section: id, size (under 128 bytes here), contents. */
static void put_section(mod *m, uint8_t id, const mod *contents)
{
    put_byte(m, id);
    put_byte(m, (uint8_t)contents->n);
    put(m, contents->b, contents->n);
}

/* The regression's link kernel (tezos_scoru_wasm_regressions.ml link_kernel):
 *   (module (import "smart_rollup_core" NAME (func (param i32 * params) (result i32)))
 *     (memory 1) (export "mem" (memory 0)) (func (export "kernel_run") nop))
 * written as wat2wasm writes it (truth.json's wasm_hex). */
static mod link_kernel(const char *name, int params)
{
    mod m = {.n = 0}, s;
    put(&m, "\0asm\1\0\0\0", 8);
    s.n = 0; /* type: [i32 * params] -> [i32], [] -> [] */
    put_byte(&s, 2);
    put_byte(&s, 0x60);
    put_byte(&s, (uint8_t)params);
    for (int i = 0; i < params; i++)
        put_byte(&s, 0x7F);
    put(&s, "\x01\x7F\x60\x00\x00", 5);
    put_section(&m, 1, &s);
    s.n = 0; /* import: one function of type 0 */
    put_byte(&s, 1);
    put_name(&s, "smart_rollup_core");
    put_name(&s, name);
    put(&s, "\x00\x00", 2);
    put_section(&m, 2, &s);
    s.n = 0; /* func: one, of type 1 */
    put(&s, "\x01\x01", 2);
    put_section(&m, 3, &s);
    s.n = 0; /* memory: min 1 */
    put(&s, "\x01\x00\x01", 3);
    put_section(&m, 5, &s);
    s.n = 0; /* export: "mem" memory 0, "kernel_run" func 1 */
    put_byte(&s, 2);
    put_name(&s, "mem");
    put(&s, "\x02\x00", 2);
    put_name(&s, "kernel_run");
    put(&s, "\x00\x01", 2);
    put_section(&m, 7, &s);
    s.n = 0; /* code: one body of 3 bytes: no locals, nop, end */
    put(&s, "\x01\x03\x00\x01\x0B", 5);
    put_section(&m, 10, &s);
    return m;
}

/* link_store_exists as truth.json has it, byte for byte. */
static const uint8_t store_exists_hex[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60, 0x02, 0x7f, 0x7f, 0x01,
    0x7f, 0x60, 0x00, 0x00, 0x02, 0x22, 0x01, 0x11, 's',  'm',  'a',  'r',  't',  '_',  'r',  'o',
    'l',  'l',  'u',  'p',  '_',  'c',  'o',  'r',  'e',  0x0c, 's',  't',  'o',  'r',  'e',  '_',
    'e',  'x',  'i',  's',  't',  's',  0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x05, 0x03, 0x01, 0x00,
    0x01, 0x07, 0x14, 0x02, 0x03, 'm',  'e',  'm',  0x02, 0x00, 0x0a, 'k',  'e',  'r',  'n',  'e',
    'l',  '_',  'r',  'u',  'n',  0x00, 0x01, 0x0a, 0x05, 0x01, 0x03, 0x00, 0x01, 0x0b,
};

/* (module (memory 1) (export "mem" (memory 0)) (func $s) (start $s)
 *   (func (export "kernel_run"))) */
static const uint8_t start_kernel[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03,
    0x03, 0x02, 0x00, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x14, 0x02, 0x03, 'm',  'e',
    'm',  0x02, 0x00, 0x0a, 'k',  'e',  'r',  'n',  'e',  'l',  '_',  'r',  'u',  'n',  0x00,
    0x01, 0x08, 0x01, 0x00, 0x0a, 0x07, 0x02, 0x02, 0x00, 0x0b, 0x02, 0x00, 0x0b,
};

/* (module (func (export "kernel_run"))): no memory to export */
static const uint8_t no_memory_kernel[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00, 0x07, 0x0e, 0x01, 0x0a, 'k',  'e',  'r',  'n',  'e',  'l',
    '_',  'r',  'u',  'n',  0x00, 0x00, 0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
};

/* (module (memory 1) (export "mem" (memory 0))): no kernel_run */
static const uint8_t no_entry_kernel[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x03, 0x01,
    0x00, 0x01, 0x07, 0x07, 0x01, 0x03, 'm',  'e',  'm',  0x02, 0x00,
};

/* One function whose locals are declared as (0 i32) (2 i64) (0 i32) (0 i64), a custom
 * section named "é", and one global:
 *   (global i32 (i32.const 7)) (func (local i64 i64) i32.const 1 drop) */
static const uint8_t groups_module[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x02, 0xc3, 0xa9,
    0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x06, 0x06,
    0x01, 0x7f, 0x00, 0x41, 0x07, 0x0b, 0x0a, 0x0f, 0x01, 0x0d, 0x04, 0x00, 0x7f,
    0x02, 0x7e, 0x00, 0x7f, 0x00, 0x7e, 0x41, 0x01, 0x1a, 0x0b,
};

static wd_module *decode(wd_ctx *ctx, const uint8_t *bytes, size_t size)
{
    wd_error err;
    wd_error_clear(&err);
    wd_decode_opts opts = {.costs = wd_tickmodel_builtin("pvm"), .pvm = true};
    wd_module *m = NULL;
    if (opts.costs == NULL || wd_decode_module(ctx, bytes, size, &opts, &m, &err) != WD_OK)
        return NULL;
    return m;
}

/* ---- decode and init, statically ------------------------------------------------------------ */

TEST(pvmticks_link_store_exists_steps)
{
    mod k = link_kernel("store_exists", 2);
    CHECK_EQ(k.n, sizeof store_exists_hex);
    CHECK(memcmp(k.b, store_exists_hex, k.n) == 0);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m = decode(&ctx, k.b, k.n);
    CHECK(m != NULL);
    wd_error err;
    wd_error_clear(&err);
    wd_pvmticks_decode d;
    CHECK_EQ(wd_pvmticks_decode_steps(m, k.b, k.n, &d, &err), WD_OK);
    /* RULES.md 9: ticks 5001-5130 */
    CHECK_EQ(d.total, 130);
    CHECK_EQ(d.part[WD_PVMTICKS_TYPE], 16);   /* 1 + 1 + [5 + 2 + 1] + [5] + 1 */
    CHECK_EQ(d.part[WD_PVMTICKS_IMPORT], 41); /* 1 + 1 + (9 + 17 + 12) + 1 */
    CHECK_EQ(d.part[WD_PVMTICKS_FUNCTION], 4);
    CHECK_EQ(d.part[WD_PVMTICKS_TABLE], 0); /* absent: in the module's part */
    CHECK_EQ(d.part[WD_PVMTICKS_MEMORY], 4);
    CHECK_EQ(d.part[WD_PVMTICKS_EXPORT], 28); /* 1 + 1 + (6 + 3) + (6 + 10) + 1 */
    /* 1 + 1 + body (7 + 2 opcodes + 1 end) + 1, elaboration: setup, nop, list end, done */
    CHECK_EQ(d.part[WD_PVMTICKS_CODE], 17);
    /* MKStart, table 3, global 3, start 2, elem 3, datacount 2, data 3, skip-custom None,
     * -> MKBuild, MKBuild -> MKStop */
    CHECK_EQ(d.part[WD_PVMTICKS_MODULE], 20);
    wd_pvmticks_init n;
    wd_pvmticks_init_steps(m, wd_tickmodel_builtin("pvm"), &n);
    /* RULES.md 5: 1 + 2 + 3 + 7 + 2 + 2 + 6 + 3 (exports) + 1 + 1 + 2 + 2 + 4 + 4 + 1 */
    CHECK_EQ(n.exports_checked, 26);
    CHECK_EQ(n.before_admin, 36);
    CHECK_EQ(n.segments, 0);
    CHECK_EQ(n.start_call + n.start_return, 0);
    CHECK_EQ(n.total, 41);
    CHECK_EQ(wd_pvmticks_link(m), 2);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(pvmticks_local_groups_custom_and_global)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m = decode(&ctx, groups_module, sizeof groups_module);
    CHECK(m != NULL);
    wd_error err;
    wd_error_clear(&err);
    wd_pvmticks_decode d;
    CHECK_EQ(wd_pvmticks_decode_steps(m, groups_module, sizeof groups_module, &d, &err), WD_OK);
    CHECK_EQ(d.per_custom, 1);
    CHECK_EQ(d.part[WD_PVMTICKS_TYPE], 3 + 5);
    CHECK_EQ(d.part[WD_PVMTICKS_GLOBAL], 3 + 5 + 1);
    /* body: G = 4, L = 2, the last two groups never fetched, 3 opcodes, 1 end:
     * 7 + 2G - 2 + L + 3 + 1 = 19; elaboration 2 + 2 instructions + 1 list = 5 */
    CHECK_EQ(d.part[WD_PVMTICKS_CODE], 3 + 19 + 5);
    /* the fixed 37, the custom section, the items, the elaboration's last step (the
     * model's octez_static.decode_steps gives 75 too) */
    CHECK_EQ(d.total, 37 + 1 + 5 + 1 + 6 + 19 + 5 + 1);
    wd_pvmticks_init n;
    wd_pvmticks_init_steps(m, wd_tickmodel_builtin("pvm"), &n);
    /* a defined global: create_global_step 1 + eval_const (6 + 7 + 1) + 1, concat 1 */
    CHECK_EQ(n.exports_checked, 1 + 1 + 2 + 6 + (16 + 1 + 1 + 1) + 2 + 2 + 1);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(pvmticks_start_function_in_init)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m = decode(&ctx, start_kernel, sizeof start_kernel);
    CHECK(m != NULL);
    const wd_costs *c = wd_tickmodel_builtin("pvm");
    wd_pvmticks_init n;
    wd_pvmticks_init_steps(m, c, &n);
    /* IK_Start 1, imports 1, types 2, funcs 3 * 2 + 1 + 2 + 1, globals 2, tables 2, memories
     * 3 + 1 + 1 + 1, exports 3 */
    CHECK_EQ(n.exports_checked, 27);
    /* elems 1, datas 1, es_elems 2, es_datas 2, join_admin J([0, 0, 1]) + 1 = 5 */
    CHECK_EQ(n.before_admin, 38);
    CHECK_EQ(n.start_call, 3);   /* Plain (Call start) */
    CHECK_EQ(n.start_return, 2); /* SK_Consolidate_label_result, no values */
    CHECK_EQ(n.total, 38 + 3 + 2 + 5);
    wd_error err;
    wd_error_clear(&err);
    wd_pvmticks_decode d;
    CHECK_EQ(wd_pvmticks_decode_steps(m, start_kernel, sizeof start_kernel, &d, &err), WD_OK);
    CHECK_EQ(d.total, 95); /* the model's octez_static.decode_steps */
    CHECK_EQ(d.part[WD_PVMTICKS_START], 2);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

/* ---- kernel runs -------------------------------------------------------------------------- */

typedef struct phase_log {
    struct {
        char name[16];
        uint64_t ticks;
        bool begin;
    } e[16];
    int n;
} phase_log;

static void on_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    phase_log *l = ud;
    if (strchr(name, ':') == NULL && l->n < 16) { /* decode, link, init */
        snprintf(l->e[l->n].name, sizeof l->e[l->n].name, "%s", name);
        l->e[l->n].ticks = ticks;
        l->e[l->n].begin = begin;
        l->n++;
    }
}

/* (module (memory 1) (export "mem" (memory 0)) (func (export "kernel_run"))) */
static const uint8_t plain_kernel[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00,
    0x00, 0x03, 0x02, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x14, 0x02,
    0x03, 'm',  'e',  'm',  0x02, 0x00, 0x0a, 'k',  'e',  'r',  'n',  'e',  'l',
    '_',  'r',  'u',  'n',  0x00, 0x00, 0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
};

/* One kernel run of `kernel` at version `version` as the regression runs it: period 5000,
 * an empty inbox collected in the first period, the run's Snapshot at tick 5000. The PVM
 * starts with a plain kernel and `kernel` is installed in its durable storage, so that
 * kernels the version cannot link are run too. */
static bool run_once(const uint8_t *kernel, size_t size, int version, wd_run_report *out,
                     phase_log *log)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_hooks hooks = {.ud = log, .phase = on_phase};
    wd_pvm_config cfg = {.version = version,
                         .costs = wd_tickmodel_builtin("pvm"),
                         .period = 5000,
                         .hooks = log != NULL ? &hooks : NULL};
    wd_pvm *p = NULL;
    bool ok = cfg.costs != NULL &&
              wd_pvm_new(&ctx, &cfg, plain_kernel, sizeof plain_kernel, &p, &err) == WD_OK &&
              wd_durable_set(wd_pvm_durable(p), "/kernel/boot.wasm", 17, kernel, size) == 0 &&
              wd_pvm_load_inbox(p, NULL, &err) == WD_OK && wd_pvm_kernel_run(p, &err) == WD_OK;
    uint32_t n = 0;
    const wd_run_report *r = ok ? wd_pvm_runs(p, &n) : NULL;
    ok = ok && n == 1 && r[0].start == 5000;
    if (ok)
        *out = r[0];
    wd_pvm_free(p);
    return ok && ctx.live == 0;
}

TEST(pvmticks_link_store_exists_run)
{
    mod k = link_kernel("store_exists", 2);
    wd_run_report r;
    phase_log log = {.n = 0};
    CHECK(run_once(k.b, k.n, WD_PVM_V6, &r, &log));
    CHECK_EQ(r.phase[WD_PHASE_DECODE], 130);
    CHECK_EQ(r.phase[WD_PHASE_LINK], 2);
    CHECK_EQ(r.phase[WD_PHASE_INIT], 42);
    /* the reference profiler's phases open and close at these ticks (RULES.md 9 and 10) */
    static const struct {
        const char *name;
        uint64_t ticks;
        bool begin;
    } want[] = {{"decode", 5001, true}, {"decode", 5131, false}, {"link", 5131, true},
                {"link", 5133, false},  {"init", 5133, true},    {"init", 5175, false}};
    CHECK_EQ(log.n, 6);
    for (int i = 0; i < 6; i++) {
        CHECK(strcmp(log.e[i].name, want[i].name) == 0 && log.e[i].begin == want[i].begin);
        CHECK_EQ(log.e[i].ticks, want[i].ticks);
    }
    /* eval: IK_Stop -> Eval 1, invoke 8, nop 6, From_block end 3, Label_result 3 in
     * kernel_run's phase; the frame's return 2, frame0's label 3, SK_Result 1 outside;
     * Padding from 5203 (the eval's part is vm/'s once eval/ counts Octez's steps) */
    CHECK_EQ(r.phase[WD_PHASE_EVAL], 21);
    CHECK_EQ(r.effective, 203);
    CHECK(r.outcome == WD_RUN_OK);
}

/* truth.json: every link_* scenario at every version, a Stuck state (a Link_error with no
 * fallback kernel) at offset `stuck` from the Snapshot, else Padding from `padding`. */
TEST(pvmticks_link_scenarios_match_octez)
{
    static const struct {
        const char *name;
        int params;
        int since; /* the first version that has it */
        uint64_t stuck, padding;
    } cases[] = {
        {"store_exists", 2, WD_PVM_V2, 133, 203},
        {"store_create", 3, WD_PVM_V1, 134, 204},
        {"store_delete_value", 2, WD_PVM_V1, 139, 209},
        {"__internal_store_get_hash", 4, WD_PVM_V1, 148, 218},
        {"reveal", 4, WD_PVM_V3, 129, 199},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mod k = link_kernel(cases[i].name, cases[i].params);
        for (int v = WD_PVM_V0; v <= WD_PVM_V6; v++) {
            wd_run_report r;
            CHECK(run_once(k.b, k.n, v, &r, NULL));
            if (v < cases[i].since) {
                CHECK(r.outcome == WD_RUN_STUCK);
                CHECK_STR_CONTAINS(r.reason, "unknown import");
                CHECK_EQ(r.effective, cases[i].stuck); /* S + 3 + D + 0 */
                CHECK_EQ(r.phase[WD_PHASE_DECODE], cases[i].stuck - 3);
                CHECK_EQ(r.phase[WD_PHASE_LINK], 2);
            } else {
                CHECK(r.outcome == WD_RUN_OK);
                CHECK_EQ(r.effective, cases[i].padding);
            }
        }
    }
}

TEST(pvmticks_init_errors_stop_where_octez_does)
{
    wd_run_report r;
    /* the model (pvm.py kernel_run): no memory 0 export, Stuck at 3 + D + I + the init
     * steps up to the exports' check: 3 + 72 + 0 + 18 */
    CHECK(run_once(no_memory_kernel, sizeof no_memory_kernel, WD_PVM_V6, &r, NULL));
    CHECK(r.outcome == WD_RUN_STUCK);
    CHECK_STR_CONTAINS(r.reason, "memory 0");
    CHECK_EQ(r.effective, 93);
    /* no kernel_run: Stuck at IK_Stop -> Eval, 4 + D + I + N = 4 + 48 + 0 + 32 */
    CHECK(run_once(no_entry_kernel, sizeof no_entry_kernel, WD_PVM_V6, &r, NULL));
    CHECK(r.outcome == WD_RUN_STUCK);
    CHECK_STR_CONTAINS(r.reason, "kernel_run");
    CHECK_EQ(r.effective, 84);
    CHECK_EQ(r.phase[WD_PHASE_DECODE] + r.phase[WD_PHASE_LINK] + r.phase[WD_PHASE_INIT],
             48 + 1 + 33);
}

TEST(pvmticks_start_function_run)
{
    wd_run_report r;
    CHECK(run_once(start_kernel, sizeof start_kernel, WD_PVM_V6, &r, NULL));
    CHECK(r.outcome == WD_RUN_OK);
    CHECK_EQ(r.phase[WD_PHASE_DECODE], 95);
    /* 1 + N (48) + the start function: invoke 8, From_block end 3, Label_result 3 (the
     * interpreter's) */
    CHECK_EQ(r.phase[WD_PHASE_INIT], 1 + 48 + 14);
}

TEST(pvmticks_trap_ends_at_sk_trapped)
{
    char path[512];
    size_t size;
    uint8_t *bytes = wd_test_read_file(
        wd_test_shared("kernels", "unreachable_kernel.wasm", path, sizeof path), &size);
    CHECK(bytes != NULL);
    wd_run_report r;
    bool ok = run_once(bytes, size, WD_PVM_V6, &r, NULL);
    free(bytes);
    CHECK(ok);
    CHECK(r.outcome == WD_RUN_TRAPPED);
    /* the model (octez_ticks.py): decode 87, link 1, init 39, kernel_run 18 (up to the
     * Trapping step), then SK_Trapped 1 and the step to Padding: 1 + 145 + 2 */
    CHECK_EQ(r.phase[WD_PHASE_DECODE], 87);
    CHECK_EQ(r.phase[WD_PHASE_LINK], 1);
    CHECK_EQ(r.phase[WD_PHASE_INIT], 39);
    CHECK_EQ(r.effective, 148);
}
