/* pvm.c: the input as a kernel run by the PVM (vm/pvm.c) over two levels of fixed inputs:
 * wd_pvm_new (decode in PVM mode, link against smart_rollup_core), then kernel runs with
 * their decode, link, init and kernel_run, reboots, the host functions acting on the
 * kernel's pointers and lengths (vm/host.c: durable storage, inbox, outbox, reveals,
 * write_debug) and durable storage (vm/durable.c). At most BUDGET ticks of kernel code run
 * per input (the PVM's 50e12-tick period would let a loop run for days), in steps of STEP
 * ticks so that kernel runs are also suspended and resumed in their middle; the PVM is
 * freed wherever it is then. */
#include "vm/pvm.h"

#include "tests/fuzz/fuzz.h"
#include "vm/host.h"
#include "vm/inputs.h"
#include "vm/tickmodel.h"

#define BUDGET 400000u
#define STEP   30011u /* prime: the steps end at varied points */
#define ROUNDS 3000u  /* advances per input, whatever they did */

static const char inputs_text[] = "[[{\"external\": \"0001020304\"},"
                                  "  {\"payload\": \"Pair 1 (Left 0x00ff)\", \"sender\": "
                                  "\"KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHT\"},"
                                  "  {\"serialized\": \"01ff\"}],"
                                  " [{\"external\": \"\"}]]";

static wd_inputs *inputs;

static void on_debug(void *ud, const uint8_t *bytes, size_t size)
{
    (void)ud, (void)bytes, (void)size;
}

/* Runs the PVM until it waits for input, is stuck, or the budget is spent. */
static void drive(wd_pvm *p, uint64_t *spent, uint32_t *rounds)
{
    while (*spent < BUDGET && (*rounds)++ < ROUNDS) {
        wd_pvm_state state = wd_pvm_get_state(p);
        if (state == WD_PVM_COLLECT || state == WD_PVM_STUCK)
            return;
        wd_pvm_goal goal = WD_GOAL_KERNEL_RUN; /* a kernel_run over: on to the next run */
        uint64_t n = 0, before = wd_pvm_ticks(p);
        if (state == WD_PVM_SNAPSHOT) {
            goal = WD_GOAL_TICKS; /* decode, link and init */
            n = 1;
        } else if (wd_pvm_running(p)) {
            goal = WD_GOAL_TICKS;
            n = WD_MIN(STEP, BUDGET - *spent);
        }
        wd_error err;
        wd_error_clear(&err);
        wd_pvm_stop stop;
        if (wd_pvm_advance(p, goal, n, &stop, &err) != WD_OK)
            return;
        if (goal == WD_GOAL_TICKS)
            *spent += wd_pvm_ticks(p) - before;
        if (stop == WD_STOP_INPUT || stop == WD_STOP_STUCK || stop == WD_STOP_PAUSED)
            return;
    }
}

void wd_fuzz_setup(void)
{
    static wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    if (wd_inputs_parse(&ctx, "inputs", inputs_text, sizeof inputs_text - 1, NULL, &inputs, &err) !=
        WD_OK)
        wd_fuzz_fail("the fixed inputs: %s", err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    /* the newest version; inputs of odd size the first, 2.0.0 (other host functions, 300
     * frames, another period) */
    wd_pvm_config cfg = {.version = size % 2 == 1 ? WD_PVM_V0 : WD_PVM_VERSION_COUNT - 1,
                         .costs = wd_tickmodel_builtin("pvm"),
                         .debug = on_debug};
    wd_error err;
    wd_error_clear(&err);
    wd_pvm *p;
    if (wd_pvm_new(&ctx, &cfg, data, size, &p, &err) == WD_OK) {
        uint64_t spent = 0;
        uint32_t rounds = 0;
        for (uint32_t level = 0; level < inputs->count && spent < BUDGET; level++) {
            wd_error_clear(&err);
            if (wd_pvm_get_state(p) != WD_PVM_COLLECT ||
                wd_pvm_load_inbox(p, &inputs->inboxes[level], &err) != WD_OK)
                break;
            drive(p, &spent, &rounds);
        }
        wd_pvm_free(p);
    }
    wd_fuzz_check_freed(&ctx, "pvm");
    return 0;
}
