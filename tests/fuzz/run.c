/* run.c: a module decoded, linked, instantiated and run (decode/, link/, eval/): its start
 * function, then up to MAX_CALLS of its exported functions with zero arguments, each under a
 * budget of BUDGET ticks, so that loops end. Imports from `spectest` get the spec tests' host
 * module (vm/spectest.c); any other import a host object of its type (functions return
 * zeros). The module is run three times (DESIGN.md's invariant: the tick counter at every
 * stop is the sum of the costs of what ran):
 *   fast     fused code (the default), basic blocks charged at once;
 *   slow     the same code charged instruction by instruction (for inputs of odd size, one
 *            instruction at a time, resumed after each), with call and return hooks, which
 *            must hear a return for every call: its outcomes, ticks and results must be
 *            fast's;
 *   unfused  one internal instruction per WebAssembly instruction, blocks charged at once:
 *            the same outcomes, ticks and results up to the first call stopped by the
 *            budget, where only the ticks of a stop in front of the same bulk instruction
 *            (a dynamic cost that did not fit) must agree: elsewhere a limit may fall inside
 *            what fused code charges at once. */
#include "decode/code.h"
#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "tests/fuzz/fuzz.h"
#include "vm/spectest.h"
#include "vm/tickmodel.h"

#include <inttypes.h>

#define BUDGET      20000u
#define MAX_CALLS   6u
#define STACK_SLOTS ((size_t)1 << 16)
#define MAX_FRAMES  1000u
#define MAX_RESULTS 8u

typedef struct outcome {
    wd_status st;
    wd_trap trap;
    uint64_t ticks;
    uint32_t result_slots;
    uint64_t results[MAX_RESULTS];
    /* out of ticks in front of a bulk instruction: where (function, code offset, depth) */
    bool at_bulk;
    uint32_t stop_func, stop_offset, stop_depth;
} outcome;

typedef struct run {
    const char *name;
    bool slow;    /* every instruction charged on its own; hooks */
    bool step;    /* slow: paused after every instruction */
    bool unfused; /* no_fuse */
    wd_status decoded, linked;
    uint32_t count;
    outcome out[1 + MAX_CALLS];
    int64_t depth; /* calls the hooks heard minus returns */
} run;

static wd_status host_stub(wd_thread *t, void *ud, wd_val *args, wd_error *err)
{
    const wd_functype *type = ud;
    (void)err;
    uint32_t slots = 0;
    for (uint32_t i = 0; i < type->result_count; i++)
        slots += type->results[i] == WD_V128 ? 2 : 1;
    memset(args, 0, slots * sizeof *args);
    wd_eval_charge(t, 3);
    return WD_OK;
}

typedef struct linker {
    wd_spectest spectest;
    wd_store *store;
    const wd_module *m;
} linker;

static wd_status resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    linker *l = ud;
    if (imp->module_size == 8 && memcmp(imp->module, "spectest", 8) == 0 &&
        wd_spectest_lookup(&l->spectest, imp->name, imp->name_size, out))
        return WD_OK;
    out->kind = imp->kind;
    switch (imp->kind) {
    case WD_EXTERN_FUNC: {
        const wd_functype *type = &l->m->types[imp->desc.type_idx];
        return wd_store_host_func(l->store, type, host_stub, (void *)type, "fuzz", "stub",
                                  &out->u.func, err);
    }
    case WD_EXTERN_TABLE:
        return wd_store_table(l->store, imp->desc.table, &out->u.table, err);
    case WD_EXTERN_MEMORY:
        return wd_store_memory(l->store, imp->desc.memory, &out->u.memory, err);
    default: {
        wd_val zero = {0};
        return wd_store_global(l->store, imp->desc.global, zero, &out->u.global, err);
    }
    }
}

static void on_call(void *ud, uint64_t ticks, const wd_func *callee, wd_call_kind kind)
{
    (void)ticks, (void)callee, (void)kind;
    ((run *)ud)->depth++;
}

static void on_ret(void *ud, uint64_t ticks, const wd_func *callee)
{
    (void)ticks, (void)callee;
    ((run *)ud)->depth--;
}

static void on_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    (void)ud, (void)ticks, (void)name, (void)begin;
}

static bool is_bulk(uint32_t op)
{
    return op == WD_OP_MEMORY_FILL || op == WD_OP_MEMORY_COPY || op == WD_OP_MEMORY_INIT ||
           op == WD_OP_MEMORY_GROW || op == WD_OP_TABLE_FILL || op == WD_OP_TABLE_COPY ||
           op == WD_OP_TABLE_INIT || op == WD_OP_TABLE_GROW;
}

/* Where a thread stopped by the budget is: in front of a bulk instruction, or not. */
static void stop_place(const wd_thread *t, outcome *o)
{
    if (t->frame_count == 0)
        return;
    const wd_frame *fr = &t->frames[t->frame_count - 1];
    const wd_code *code = fr->func->code;
    uint32_t i = (uint32_t)(fr->ip - code->insns);
    if (i >= code->insn_count || !is_bulk(fr->ip->op))
        return;
    o->at_bulk = true;
    o->stop_func = code->func_idx;
    o->stop_offset = code->offsets[i];
    o->stop_depth = t->frame_count;
}

/* Calls f with zero arguments under the budget; records how it ended. */
static void call(run *r, wd_thread *t, wd_func *f)
{
    outcome *o = &r->out[r->count++];
    wd_val args[2 * 64 + 2] = {{0}};
    wd_error err;
    wd_error_clear(&err);
    t->tick_limit = t->ticks + BUDGET;
    t->single_step = r->step;
    t->always_slow = r->slow && !r->step;
    wd_status st = wd_eval_invoke(t, f, args, &err);
    while (st == WD_PAUSED && r->step) {
        wd_error_clear(&err);
        st = wd_eval_resume(t, &err);
    }
    if (st == WD_OUT_OF_TICKS)
        stop_place(t, o);
    if (st == WD_OUT_OF_TICKS || st == WD_PAUSED)
        wd_eval_abort(t);
    if (r->slow && r->depth != 0)
        wd_fuzz_fail("after %s, %" PRId64 " calls without their return", wd_status_name(st),
                     r->depth);
    o->st = st;
    o->trap = st == WD_TRAP ? err.trap : WD_TRAP_NONE;
    o->ticks = t->ticks;
    if (st != WD_OK)
        return;
    const wd_val *res = wd_eval_results(t);
    for (uint32_t i = 0; i < f->type->result_count && o->result_slots + 2 <= MAX_RESULTS; i++) {
        uint8_t type = f->type->results[i];
        uint64_t v = res->u64;
        if (type == WD_FUNCREF && v != 0) { /* a wd_func *: its index, the same in both runs */
            const wd_func *g = (const wd_func *)(uintptr_t)v;
            v = g->inst != NULL ? (uint64_t)g->idx + 1 : UINT64_MAX;
        }
        o->results[o->result_slots++] = v;
        if (type == WD_V128)
            o->results[o->result_slots++] = res[1].u64;
        res += type == WD_V128 ? 2 : 1;
    }
}

static bool callable(const wd_func *f)
{
    return f->type->param_count <= 64;
}

static void invoke_all(run *r, wd_ctx *ctx, const wd_module *m, wd_instance *inst,
                       const wd_costs *costs)
{
    wd_thread t;
    wd_error err;
    wd_error_clear(&err);
    if (wd_thread_init(&t, ctx, STACK_SLOTS, MAX_FRAMES, costs, &err) != WD_OK)
        wd_fuzz_fail("wd_thread_init: %s", err.msg);
    wd_hooks hooks = {.ud = r, .call = on_call, .ret = on_ret, .phase = on_phase};
    t.hooks = r->slow ? &hooks : NULL;
    bool ok = true;
    if (m->has_start) {
        call(r, &t, inst->funcs[m->start_idx]);
        ok = r->out[0].st == WD_OK;
    }
    for (uint32_t i = 0; ok && i < m->export_count && r->count < 1 + MAX_CALLS; i++) {
        if (m->exports[i].kind != WD_EXTERN_FUNC || !callable(inst->exports[i].u.func))
            continue;
        call(r, &t, inst->exports[i].u.func);
    }
    wd_thread_fini(&t);
}

static void run_module(run *r, const uint8_t *data, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    const wd_costs *costs = wd_tickmodel_builtin("pvm");
    wd_decode_opts opts = {.costs = costs, .no_fuse = r->unfused, .threads = 1};
    wd_error err;
    wd_error_clear(&err);
    wd_module *m;
    r->decoded = wd_decode_module(&ctx, data, size, &opts, &m, &err);
    if (r->decoded != WD_OK)
        return;
    linker l = {.store = wd_store_new(&ctx), .m = m};
    wd_extern *externs = wd_calloc(&ctx, m->import_count + 1u, sizeof *externs);
    if (l.store == NULL || externs == NULL)
        wd_fuzz_fail("out of memory");
    wd_instance *inst = NULL;
    r->linked = wd_spectest_init(&l.spectest, l.store, &err);
    if (r->linked == WD_OK)
        r->linked = wd_link_resolve(m, resolve, &l, externs, &err);
    if (r->linked == WD_OK)
        r->linked = wd_link_instantiate(l.store, m, externs, &inst, &err);
    wd_free(&ctx, externs);
    if (r->linked == WD_OK)
        invoke_all(r, &ctx, m, inst, costs);
    wd_store_free(l.store);
    wd_module_free(m);
    wd_fuzz_check_freed(&ctx, "run");
}

static bool same_outcome(const outcome *x, const outcome *y)
{
    return x->st == y->st && x->trap == y->trap && x->ticks == y->ticks &&
           x->result_slots == y->result_slots &&
           memcmp(x->results, y->results, x->result_slots * sizeof x->results[0]) == 0;
}

/* b's outcomes against a's (see the top of the file); `exact`: all of them. */
static void compare(const run *a, const run *b, bool exact)
{
    if (a->decoded != b->decoded || a->linked != b->linked || a->count != b->count)
        wd_fuzz_fail("%s: decoded %s, linked %s, %u calls; %s: %s, %s, %u", a->name,
                     wd_status_name(a->decoded), wd_status_name(a->linked), a->count, b->name,
                     wd_status_name(b->decoded), wd_status_name(b->linked), b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        const outcome *x = &a->out[i], *y = &b->out[i];
        bool same = same_outcome(x, y), last = !exact && x->st == WD_OUT_OF_TICKS;
        if (last) /* the state may differ from here on */
            same = y->st == WD_OUT_OF_TICKS &&
                   (!x->at_bulk || !y->at_bulk || x->stop_func != y->stop_func ||
                    x->stop_offset != y->stop_offset || x->stop_depth != y->stop_depth ||
                    x->ticks == y->ticks);
        if (!same)
            wd_fuzz_fail("call %u: %s: %s (trap %d) at tick %" PRIu64 "; %s: %s (trap %d) at tick "
                         "%" PRIu64 "%s",
                         i, a->name, wd_status_name(x->st), (int)x->trap, x->ticks, b->name,
                         wd_status_name(y->st), (int)y->trap, y->ticks,
                         x->ticks == y->ticks ? " (the results differ)" : "");
        if (last)
            break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run fast = {.name = "fast"}, unfused = {.name = "unfused", .unfused = true},
        slow = {.name = size % 2 == 1 ? "stepped" : "slow", .slow = true, .step = size % 2 == 1};
    run_module(&fast, data, size);
    run_module(&slow, data, size);
    compare(&fast, &slow, true);
    run_module(&unfused, data, size);
    compare(&fast, &unfused, false);
    return 0;
}
