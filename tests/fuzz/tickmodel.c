/* tickmodel.c: tick model files (vm/tickmodel.c, as --tick-model FILE reads them), written
 * from the input. A model that loads then meters a small module (its wat text below): each
 * export called with the arguments ARGS, from fused code with basic blocks charged at once,
 * instruction by instruction, and from unfused code, which must give the same outcomes,
 * results and ticks whatever the costs (DESIGN.md's invariant). */
#include "vm/tickmodel.h"

#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "tests/fuzz/fuzz.h"

#include <inttypes.h>

/* (module
 *   (type $ii (func (param i32) (result i32)))
 *   (memory 1 1)
 *   (table 2 funcref)
 *   (elem (i32.const 0) $fib $sum)
 *   (func $fib (export "fib") (type $ii)
 *     (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
 *       (then (local.get 0))
 *       (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
 *                      (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
 *   (func $sum (export "sum") (type $ii) (local i32)
 *     (block $out (loop $l
 *       (br_if $out (i32.eqz (local.get 0)))
 *       (local.set 1 (i32.add (local.get 1) (local.get 0)))
 *       (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
 *       (br $l)))
 *     (local.get 1))
 *   (func (export "indirect") (param i32) (result i32)
 *     (call_indirect (type $ii) (i32.const 9) (i32.and (local.get 0) (i32.const 1))))
 *   (func (export "bulk") (param i32) (result i32)
 *     (memory.fill (i32.const 16) (local.get 0) (i32.const 300))
 *     (memory.copy (i32.const 400) (i32.const 16) (i32.const 200))
 *     (drop (memory.grow (i32.const 0)))
 *     (i32.load8_u (i32.const 599)))
 *   (func (export "switch") (param i32) (result i32)
 *     (block $a (block $b (block $c
 *       (br_table $a $b $c (local.get 0)))
 *       (return (i32.const 3)))
 *       (return (i32.const 2)))
 *     (i32.div_u (i32.const 1) (local.get 0)))) */
static const uint8_t module[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
    0x03, 0x06, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x04, 0x01, 0x70, 0x00, 0x02, 0x05, 0x04,
    0x01, 0x01, 0x01, 0x01, 0x07, 0x28, 0x05, 0x03, 0x66, 0x69, 0x62, 0x00, 0x00, 0x03, 0x73, 0x75,
    0x6d, 0x00, 0x01, 0x08, 0x69, 0x6e, 0x64, 0x69, 0x72, 0x65, 0x63, 0x74, 0x00, 0x02, 0x04, 0x62,
    0x75, 0x6c, 0x6b, 0x00, 0x03, 0x06, 0x73, 0x77, 0x69, 0x74, 0x63, 0x68, 0x00, 0x04, 0x09, 0x08,
    0x01, 0x00, 0x41, 0x00, 0x0b, 0x02, 0x00, 0x01, 0x0a, 0x8f, 0x01, 0x05, 0x1c, 0x00, 0x20, 0x00,
    0x41, 0x02, 0x49, 0x04, 0x7f, 0x20, 0x00, 0x05, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x20,
    0x00, 0x41, 0x02, 0x6b, 0x10, 0x00, 0x6a, 0x0b, 0x0b, 0x21, 0x01, 0x01, 0x7f, 0x02, 0x40, 0x03,
    0x40, 0x20, 0x00, 0x45, 0x0d, 0x01, 0x20, 0x01, 0x20, 0x00, 0x6a, 0x21, 0x01, 0x20, 0x00, 0x41,
    0x01, 0x6b, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b, 0x20, 0x01, 0x0b, 0x0c, 0x00, 0x41, 0x09, 0x20,
    0x00, 0x41, 0x01, 0x71, 0x11, 0x00, 0x00, 0x0b, 0x23, 0x00, 0x41, 0x10, 0x20, 0x00, 0x41, 0xac,
    0x02, 0xfc, 0x0b, 0x00, 0x41, 0x90, 0x03, 0x41, 0x10, 0x41, 0xc8, 0x01, 0xfc, 0x0a, 0x00, 0x00,
    0x41, 0x00, 0x40, 0x00, 0x1a, 0x41, 0xd7, 0x04, 0x2d, 0x00, 0x00, 0x0b, 0x1d, 0x00, 0x02, 0x40,
    0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0e, 0x02, 0x02, 0x01, 0x00, 0x0b, 0x41, 0x03, 0x0f, 0x0b,
    0x41, 0x02, 0x0f, 0x0b, 0x41, 0x01, 0x20, 0x00, 0x6e, 0x0b,
};

/* Each export is called with these, in turn; "switch" 0 traps (division by zero). */
static const uint32_t args[] = {0, 1, 5, 9};

#define LIMIT_TICKS ((uint64_t)1 << 62)

typedef struct outcome {
    wd_status st;
    uint64_t ticks, result;
} outcome;

typedef struct run {
    wd_status decoded;
    uint32_t count;
    outcome out[64];
} run;

static void run_module(const wd_costs *costs, bool no_fuse, bool slow, run *r)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_decode_opts opts = {.costs = costs, .no_fuse = no_fuse, .threads = 1};
    wd_module *m;
    r->decoded = wd_decode_module(&ctx, module, sizeof module, &opts, &m, &err);
    if (r->decoded != WD_OK)
        return;
    wd_store *s = wd_store_new(&ctx);
    wd_instance *inst;
    wd_thread t;
    if (s == NULL || wd_link_instantiate(s, m, NULL, &inst, &err) != WD_OK ||
        wd_thread_init(&t, &ctx, 4096, 200, costs, &err) != WD_OK)
        wd_fuzz_fail("instantiate: %s", err.msg);
    t.always_slow = slow;
    for (uint32_t e = 0; e < m->export_count; e++) {
        if (m->exports[e].kind != WD_EXTERN_FUNC)
            continue;
        for (size_t a = 0; a < WD_ARRAY_COUNT(args) && r->count < WD_ARRAY_COUNT(r->out); a++) {
            outcome *o = &r->out[r->count++];
            wd_val v[2] = {{.u64 = args[a]}, {0}};
            wd_error_clear(&err);
            t.tick_limit = t.ticks + LIMIT_TICKS;
            o->st = wd_eval_invoke(&t, inst->exports[e].u.func, v, &err);
            if (o->st == WD_OUT_OF_TICKS)
                wd_eval_abort(&t);
            o->ticks = t.ticks;
            o->result = o->st == WD_OK ? wd_eval_results(&t)[0].u64 : 0;
        }
    }
    wd_thread_fini(&t);
    wd_store_free(s);
    wd_module_free(m);
    wd_fuzz_check_freed(&ctx, "tickmodel run");
}

static void compare(const char *what, const run *a, const run *b)
{
    if (a->decoded != b->decoded || a->count != b->count)
        wd_fuzz_fail("%s: decoded %s, %u calls; %s, %u", what, wd_status_name(a->decoded), a->count,
                     wd_status_name(b->decoded), b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        const outcome *x = &a->out[i], *y = &b->out[i];
        if (x->st != y->st || x->ticks != y->ticks || x->result != y->result)
            wd_fuzz_fail("%s: call %u: %s at tick %" PRIu64 " (result %" PRIu64 "), but %s at tick "
                         "%" PRIu64 " (result %" PRIu64 ")",
                         what, i, wd_status_name(x->st), x->ticks, x->result, wd_status_name(y->st),
                         y->ticks, y->result);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wd_fuzz_file("model.json", data, size);
    wd_error err;
    wd_error_clear(&err);
    wd_costs costs;
    wd_status st = wd_tickmodel_load(path, &costs, &err);
    if (st != WD_OK) {
        if (err.msg[0] == '\0' || (st != WD_ERR_USAGE && st != WD_ERR_NOMEM))
            wd_fuzz_fail("model: %s, \"%s\"", wd_status_name(st), err.msg);
        return 0;
    }
    if (costs.name[0] == '\0' || memchr(costs.name, '\0', sizeof costs.name) == NULL)
        wd_fuzz_fail("model named \"%.*s\"", (int)sizeof costs.name, costs.name);
    static run fast, slow, unfused; /* large: off the stack */
    memset(&fast, 0, sizeof fast);
    memset(&slow, 0, sizeof slow);
    memset(&unfused, 0, sizeof unfused);
    run_module(&costs, false, false, &fast);
    run_module(&costs, false, true, &slow);
    compare("fast, slow", &fast, &slow);
    run_module(&costs, true, false, &unfused);
    compare("fast, unfused", &fast, &unfused);
    return 0;
}
