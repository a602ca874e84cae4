/* pvm_test.c: the real kernels of ../shared/kernels do what their README says. */
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdlib.h>

#include "vm/base58.h"
#include "vm/pvm.h"
#include "vm/tickmodel.h"

typedef struct kfx {
    wd_ctx ctx;
    wd_pvm *pvm;
    wd_inputs *inputs;
    wd_error err;
    char debug[512];
    size_t debug_size;
} kfx;

static void on_debug(void *ud, const uint8_t *bytes, size_t size)
{
    kfx *k = ud;
    size_t n = WD_MIN(size, sizeof k->debug - 1 - k->debug_size);
    memcpy(k->debug + k->debug_size, bytes, n);
    k->debug_size += n;
    k->debug[k->debug_size] = '\0';
}

/* Loads kernel and inputs (both from ../shared/kernels; inputs may be NULL). */
static wd_status kfx_init_rollup(kfx *k, const char *kernel, const char *inputs, int version,
                                 const char *model, const char *rollup)
{
    memset(k, 0, sizeof *k);
    wd_ctx_init(&k->ctx);
    wd_error_clear(&k->err);
    char path[512];
    size_t size;
    uint8_t *bytes = wd_test_read_file(wd_test_shared("kernels", kernel, path, sizeof path), &size);
    if (bytes == NULL)
        return wd_fail(&k->err, WD_ERR_IO, 0, "cannot read %s", path);
    wd_pvm_config cfg = {.version = version, .costs = wd_tickmodel_builtin(model),
                         .debug = on_debug, .debug_ud = k};
    wd_address_kind kind;
    if (rollup != NULL && wd_base58_decode_address(rollup, strlen(rollup), WD_ADDR_BIT(WD_ADDR_SR1),
                                                   &kind, cfg.rollup, &k->err) != WD_OK) {
        free(bytes);
        return k->err.status;
    }
    wd_status st = wd_pvm_new(&k->ctx, &cfg, bytes, size, &k->pvm, &k->err);
    free(bytes);
    if (st == WD_OK && inputs != NULL)
        st = wd_inputs_load(&k->ctx, wd_test_shared("kernels", inputs, path, sizeof path),
                            cfg.rollup, &k->inputs, &k->err);
    return st;
}

static wd_status kfx_init(kfx *k, const char *kernel, const char *inputs, int version,
                          const char *model)
{
    return kfx_init_rollup(k, kernel, inputs, version, model, NULL);
}

#define TX_ROLLUP "sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg"

static wd_status kfx_level(kfx *k, uint32_t i)
{
    const wd_inbox *inbox = k->inputs && i < k->inputs->count ? &k->inputs->inboxes[i] : NULL;
    WD_TRY(wd_pvm_load_inbox(k->pvm, inbox, &k->err));
    return wd_pvm_run_until_input(k->pvm, NULL, NULL, &k->err);
}

static void kfx_fini(kfx *k)
{
    wd_pvm_free(k->pvm);
    wd_inputs_free(k->inputs);
}

static uint32_t runs_at(kfx *k, uint32_t level)
{
    uint32_t n, count = 0;
    const wd_run_report *r = wd_pvm_runs(k->pvm, &n);
    for (uint32_t i = 0; i < n; i++)
        count += r[i].level == level;
    return count;
}

static bool outbox_is(kfx *k, uint32_t level, uint32_t i, const char *bytes, size_t size)
{
    uint32_t n;
    const wd_msg *m = wd_pvm_outbox(k->pvm, level, &n);
    return i < n && m[i].size == size && memcmp(m[i].bytes, bytes, size) == 0;
}

TEST(pvm_echo_kernel)
{
    kfx k;
    CHECK_EQ(kfx_init(&k, "echo.wasm", "echo.inputs.json", WD_PVM_V6, "pvm"), WD_OK);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    CHECK_EQ(kfx_level(&k, 1), WD_OK);
    CHECK_EQ(runs_at(&k, 0), 5); /* SOL, IPL, 2 messages, EOL */
    CHECK_EQ(runs_at(&k, 1), 5);
    uint32_t n;
    wd_pvm_outbox(k.pvm, 0, &n);
    CHECK_EQ(n, 2);
    CHECK(outbox_is(&k, 0, 0, "Hello", 5));
    CHECK(outbox_is(&k, 0, 1, "\x01\x02", 2));
    wd_pvm_outbox(k.pvm, 1, &n);
    CHECK_EQ(n, 1); /* the 65-byte Unit transfer asks for -3 bytes: rejected */
    CHECK(outbox_is(&k, 1, 0, "world", 5));
    CHECK(wd_pvm_get_state(k.pvm) == WD_PVM_COLLECT);
    kfx_fini(&k);
    CHECK_EQ(k.ctx.live, 0);
}

TEST(pvm_same_ticks_every_run)
{
    uint64_t ticks[2];
    for (int i = 0; i < 2; i++) {
        kfx k;
        CHECK_EQ(kfx_init_rollup(&k, "tx-kernel-no-verif.wasm", "tx-kernel.inputs.json",
                                 WD_PVM_V6, "pvm", TX_ROLLUP),
                 WD_OK);
        CHECK_EQ(kfx_level(&k, 0), WD_OK);
        CHECK_EQ(kfx_level(&k, 1), WD_OK);
        uint32_t n;
        const wd_run_report *r = wd_pvm_runs(k.pvm, &n);
        ticks[i] = 0;
        for (uint32_t j = 0; j < n; j++)
            ticks[i] += r[j].effective;
        kfx_fini(&k);
    }
    CHECK(ticks[0] > 1000000);
    CHECK_EQ(ticks[0], ticks[1]);
}

TEST(pvm_unreachable_kernel_sets_stuck_flag)
{
    const char *kernels[] = {"unreachable_kernel.wasm", "unreachable_rust.wasm"};
    for (int i = 0; i < 2; i++) {
        kfx k;
        CHECK_EQ(kfx_init(&k, kernels[i], "empty-two-levels.inputs.json", WD_PVM_V6, "pvm"),
                 WD_OK);
        CHECK_EQ(kfx_level(&k, 0), WD_OK);
        CHECK_EQ(wd_durable_has(wd_pvm_durable(k.pvm), "/readonly/kernel/env/stuck", 26), 1);
        CHECK_EQ(kfx_level(&k, 1), WD_OK); /* the PVM goes on with the next inbox */
        CHECK(wd_pvm_get_state(k.pvm) == WD_PVM_COLLECT);
        uint32_t n;
        const wd_run_report *r = wd_pvm_runs(k.pvm, &n);
        CHECK_EQ(n, 2);
        CHECK(r[0].outcome == WD_RUN_TRAPPED && r[1].outcome == WD_RUN_TRAPPED);
        CHECK_STR_CONTAINS(r[0].reason, "unreachable");
        if (i == 1) { /* the Rust kernel: the panic's function, called through two frames */
            CHECK_EQ(r[0].backtrace_count, 3);
            CHECK(strcmp(r[0].backtrace[0].name, "func[31]") == 0 &&
                  r[0].backtrace[0].offset == 0xed9);
            CHECK(strcmp(r[0].backtrace[1].name, "func[0]") == 0 &&
                  r[0].backtrace[1].offset == 0x155);
            CHECK(strcmp(r[0].backtrace[2].name, "func[1]") == 0 &&
                  r[0].backtrace[2].offset == 0x1ba);
        }
        kfx_fini(&k);
    }
}

TEST(pvm_stack_overflow_is_stuck_for_good)
{
    kfx k;
    CHECK_EQ(kfx_init(&k, "stack_overflow.wasm", NULL, WD_PVM_V6, "pvm"), WD_OK);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    CHECK(wd_pvm_get_state(k.pvm) == WD_PVM_STUCK);
    CHECK_STR_CONTAINS(wd_pvm_stuck_reason(k.pvm), "call stack exhausted");
    CHECK_EQ(wd_pvm_load_inbox(k.pvm, NULL, &k.err), WD_ERR_USAGE);
    kfx_fini(&k);
}

TEST(pvm_nds_kernel_links_from_r6_only)
{
    kfx k;
    CHECK_EQ(kfx_init(&k, "nds_host_func_kernel.wasm", NULL, WD_PVM_V5, "pvm"),
             WD_ERR_UNLINKABLE);
    CHECK_STR_CONTAINS(k.err.msg, "nds_store_exists exists only from PVM version 2.0.0-r6");
    kfx_fini(&k);
    CHECK_EQ(kfx_init(&k, "nds_host_func_kernel.wasm", NULL, WD_PVM_V6, "pvm"), WD_OK);
    kfx_fini(&k);
}

TEST(pvm_tx_kernel_deposit_and_withdrawal)
{
    kfx k;
    CHECK_EQ(kfx_init_rollup(&k, "tx-kernel-no-verif.wasm", "tx-kernel.inputs.json", WD_PVM_V6,
                             "flat-1", TX_ROLLUP),
             WD_OK);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    CHECK_STR_CONTAINS(k.debug, "Processing MessageData 2 at level 0");
    CHECK_EQ(kfx_level(&k, 1), WD_OK);
    uint32_t n;
    wd_pvm_outbox(k.pvm, 0, &n);
    CHECK_EQ(n, 0);
    wd_pvm_outbox(k.pvm, 1, &n);
    CHECK_EQ(n, 1); /* the withdrawal's outbox message */
    CHECK(wd_pvm_get_state(k.pvm) == WD_PVM_COLLECT);
    kfx_fini(&k);
}

TEST(pvm_debug_kernel_and_computation)
{
    kfx k;
    CHECK_EQ(kfx_init(&k, "debug_kernel.wasm", NULL, WD_PVM_V6, "pvm"), WD_OK);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    CHECK_STR_CONTAINS(k.debug, "hello");
    kfx_fini(&k);
    CHECK_EQ(kfx_init(&k, "computation.wasm", NULL, WD_PVM_V6, "pvm"), WD_OK);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    uint32_t n;
    const wd_run_report *r = wd_pvm_runs(k.pvm, &n);
    CHECK(n == 1 && r[0].outcome == WD_RUN_OK && r[0].phase[WD_PHASE_EVAL] > 0);
    kfx_fini(&k);
}

TEST(pvm_too_many_ticks)
{
    kfx k;
    memset(&k, 0, sizeof k);
    wd_ctx_init(&k.ctx);
    wd_error_clear(&k.err);
    char path[512];
    size_t size;
    uint8_t *bytes =
        wd_test_read_file(wd_test_shared("kernels", "computation.wasm", path, sizeof path), &size);
    CHECK(bytes != NULL);
    wd_pvm_config cfg = {.version = WD_PVM_V6, .costs = wd_tickmodel_builtin("pvm"),
                         .period = 5000};
    CHECK_EQ(wd_pvm_new(&k.ctx, &cfg, bytes, size, &k.pvm, &k.err), WD_OK);
    free(bytes);
    CHECK_EQ(kfx_level(&k, 0), WD_OK);
    CHECK(wd_pvm_get_state(k.pvm) == WD_PVM_STUCK);
    CHECK_STR_CONTAINS(wd_pvm_stuck_reason(k.pvm), "Too_many_ticks");
    CHECK_EQ(wd_pvm_ticks(k.pvm) % 5000, 0); /* stopped exactly at the period's end */
    kfx_fini(&k);
}

/* Runs the counter example kernel's first inbox in steps of `ticks` (0: straight through);
 * returns the final tick counter and the level's outbox size. */
static bool counter_stepped(uint64_t ticks, bool instrs, uint64_t *final, uint32_t *outbox,
                            uint32_t *pauses)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    size_t size;
    uint8_t *bytes = wd_test_read_file("kernels/counter/counter.wasm", &size);
    wd_pvm_config cfg = {.version = WD_PVM_V6, .costs = wd_tickmodel_builtin("pvm")};
    wd_pvm *p = NULL;
    wd_inputs *in = NULL;
    bool ok = bytes != NULL && wd_pvm_new(&ctx, &cfg, bytes, size, &p, &err) == WD_OK &&
              wd_inputs_load(&ctx, "kernels/counter/counter.inputs.json", NULL, &in, &err) ==
                  WD_OK &&
              wd_pvm_load_inbox(p, &in->inboxes[1], &err) == WD_OK;
    free(bytes);
    *pauses = 0;
    while (ok && wd_pvm_get_state(p) != WD_PVM_COLLECT) {
        wd_pvm_stop stop;
        wd_pvm_goal goal = ticks == 0 ? WD_GOAL_INPUT : instrs ? WD_GOAL_INSTRS : WD_GOAL_TICKS;
        ok = wd_pvm_advance(p, goal, ticks, &stop, &err) == WD_OK && stop != WD_STOP_STUCK;
        if (ok && wd_pvm_get_state(p) == WD_PVM_EVAL && wd_pvm_memory(p) == NULL)
            ok = false; /* mid-run: the instance's memory is inspectable */
        (*pauses)++;
    }
    if (ok) {
        *final = wd_pvm_ticks(p);
        wd_pvm_outbox(p, 0, outbox);
    }
    wd_pvm_free(p);
    wd_inputs_free(in);
    return ok && ctx.live == 0;
}

TEST(pvm_stepping_gives_the_same_ticks)
{
    uint64_t straight, stepped;
    uint32_t out1, out2, pauses;
    CHECK(counter_stepped(0, false, &straight, &out1, &pauses));
    CHECK_EQ(out1, 1); /* only "hash" succeeds on a fresh ledger */
    CHECK(counter_stepped(997, false, &stepped, &out2, &pauses));
    CHECK(pauses > 100);
    CHECK_EQ(stepped, straight);
    CHECK_EQ(out2, out1);
    CHECK(counter_stepped(1, false, &stepped, &out2, &pauses));
    CHECK_EQ(stepped, straight);
    CHECK(counter_stepped(5000, true, &stepped, &out2, &pauses));
    CHECK_EQ(stepped, straight);
    CHECK_EQ(out2, out1);
}

TEST(pvm_step_result_keeps_the_instance)
{
    kfx k;
    CHECK_EQ(kfx_init(&k, "debug_kernel.wasm", NULL, WD_PVM_V6, "pvm"), WD_OK);
    CHECK_EQ(wd_pvm_load_inbox(k.pvm, NULL, &k.err), WD_OK);
    wd_pvm_stop stop;
    char buf[300];
    CHECK_EQ(wd_pvm_advance(k.pvm, WD_GOAL_RESULT, 0, &stop, &k.err), WD_OK);
    CHECK(stop == WD_STOP_GOAL);
    CHECK(strcmp(wd_pvm_internal_status(k.pvm, buf, sizeof buf), "Evaluation succeeded") == 0);
    CHECK(wd_pvm_memory(k.pvm) != NULL);
    CHECK_EQ(wd_pvm_advance(k.pvm, WD_GOAL_RESULT, 0, &stop, &k.err), WD_OK);
    CHECK(stop == WD_STOP_INPUT); /* no reboot asked: the PVM waits for input */
    CHECK(strcmp(wd_pvm_internal_status(k.pvm, buf, sizeof buf), "Collect") == 0);
    uint32_t n;
    wd_pvm_runs(k.pvm, &n);
    CHECK_EQ(n, 1);
    kfx_fini(&k);
}
