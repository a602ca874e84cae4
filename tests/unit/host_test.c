/* host_test.c: every smart_rollup_core error code and limit of reference/pvm.md 4.2, through
 * a module whose exports call the host functions (tests/unit/data/host.wat). */
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdarg.h>
#include <stdlib.h>

#include "decode/decode.h"
#include "vm/host.h"
#include "vm/tickmodel.h"

typedef struct fx {
    wd_ctx ctx;
    wd_module *m;
    wd_store *s;
    wd_instance *inst;
    wd_thread t;
    wd_host_env env;
    wd_durable *d;
    wd_error err;
    uint8_t revealed[64];
    size_t revealed_size;
} fx;

static wd_status test_reveal(void *ud, const uint8_t *req, size_t req_size, uint8_t *buf,
                             size_t max, size_t *size, wd_error *err)
{
    (void)err;
    fx *f = ud;
    memcpy(f->revealed, req, WD_MIN(req_size, sizeof f->revealed));
    f->revealed_size = req_size;
    static const uint8_t answer[24] = "0123456789abcdefghijklmn";
    memcpy(buf, answer, WD_MIN(max, sizeof answer));
    *size = sizeof answer;
    return WD_OK;
}

/* meter: NULL, or counts the bytes the context allocates. */
static bool fx_init_metered(fx *f, int version, wd_meter *meter)
{
    memset(f, 0, sizeof *f);
    if (meter != NULL)
        wd_ctx_metered(&f->ctx, meter, 0);
    else
        wd_ctx_init(&f->ctx);
    wd_error_clear(&f->err);
    size_t size;
    uint8_t *bytes = wd_test_read_file("tests/unit/data/host.wasm", &size);
    if (bytes == NULL)
        return false;
    const wd_costs *costs = wd_tickmodel_builtin("pvm");
    wd_decode_opts opts = {.costs = costs, .pvm = true};
    wd_status st = wd_decode_module(&f->ctx, bytes, size, &opts, &f->m, &f->err);
    free(bytes);
    f->d = wd_durable_new(&f->ctx);
    f->s = wd_store_new(&f->ctx);
    f->env = (wd_host_env){.ctx = &f->ctx, .version = version, .costs = costs, .durable = f->d,
                           .reveal = test_reveal, .reveal_ud = f};
    wd_extern ext[32];
    if (st == WD_OK)
        st = wd_host_register(&f->env, f->s, &f->err);
    if (st == WD_OK)
        st = wd_link_resolve(f->m, wd_host_resolve, &f->env, ext, &f->err);
    if (st == WD_OK)
        st = wd_link_instantiate(f->s, f->m, ext, &f->inst, &f->err);
    if (st == WD_OK)
        st = wd_thread_init(&f->t, &f->ctx, 4096, 100, costs, &f->err);
    return st == WD_OK;
}

static bool fx_init(fx *f, int version)
{
    return fx_init_metered(f, version, NULL);
}

static void fx_fini(fx *f)
{
    wd_thread_fini(&f->t);
    wd_store_free(f->s);
    wd_module_free(f->m);
    wd_host_env_fini(&f->env);
    wd_durable_free(f->d);
}

/* Calls export `name` with n i32 arguments (an i64 where the type says so). */
static int64_t call(fx *f, const char *name, int n, ...)
{
    wd_extern e;
    if (!wd_instance_export(f->inst, name, &e))
        return 999;
    wd_val args[8];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        args[i].i64 = va_arg(ap, int64_t);
    va_end(ap);
    wd_error_clear(&f->err);
    if (wd_eval_invoke(&f->t, e.u.func, args, &f->err) != WD_OK)
        return 998;
    if (e.u.func->type->result_count == 0)
        return 0;
    const wd_val *r = wd_eval_results(&f->t);
    return e.u.func->type->results[0] == WD_I64 ? r[0].i64 : r[0].i32;
}

#define CALL(f, name, ...) call(f, name, WD_ARRAY_COUNT(((int64_t[]){__VA_ARGS__})), __VA_ARGS__)

static uint32_t put(fx *f, uint32_t addr, const char *s)
{
    memcpy(f->inst->memory->data + addr, s, strlen(s));
    return (uint32_t)strlen(s);
}

#define MEM_END ((int64_t)65536)

TEST(host_store_keys_and_values)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    uint32_t k = put(&f, 100, "/a/b");
    put(&f, 200, "hello");
    CHECK_EQ(CALL(&f, "store_has", 100, k), 0);
    CHECK_EQ(CALL(&f, "store_write", 100, k, 0, 200, 5), 0);
    CHECK_EQ(CALL(&f, "store_has", 100, k), 1);
    CHECK_EQ(CALL(&f, "store_has", 100, 2), 2); /* "/a" */
    CHECK_EQ(CALL(&f, "store_exists", 100, 2), 1);
    CHECK_EQ(CALL(&f, "store_value_size", 100, k), 5);
    CHECK_EQ(CALL(&f, "store_value_size", 100, 2), WD_DURABLE_ENOT_A_VALUE);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 1, 300, 10), 4);
    CHECK(memcmp(f.inst->memory->data + 300, "ello", 4) == 0);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 5, 300, 10), WD_DURABLE_EINVALID_ACCESS);
    CHECK_EQ(CALL(&f, "store_read", 100, 2, 0, 300, 10), WD_DURABLE_ENOT_A_VALUE);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 0, 300, 2049), WD_HOST_ETOO_LARGE);
    CHECK_EQ(CALL(&f, "store_write", 100, k, 6, 200, 1), WD_DURABLE_EINVALID_ACCESS);
    CHECK_EQ(CALL(&f, "store_write", 100, k, 0, 200, 2049), WD_HOST_ETOO_LARGE);
    CHECK_EQ(CALL(&f, "store_list_size", 100, 2), 1);
    CHECK_EQ(CALL(&f, "store_get_nth_key", 100, 2, 0, 400, 10), 1);
    CHECK_EQ(f.inst->memory->data[400], 'b');
    CHECK_EQ(CALL(&f, "store_get_nth_key", 100, 2, 1, 400, 10), WD_DURABLE_ESUBKEY_INDEX);
    CHECK_EQ(CALL(&f, "store_create", 100, k, 3), WD_DURABLE_EVALUE_EXISTS);
    uint32_t k2 = put(&f, 500, "/new");
    CHECK_EQ(CALL(&f, "store_create", 500, k2, -1), WD_DURABLE_EVALUE_SIZE);
    CHECK_EQ(CALL(&f, "store_create", 500, k2, 3000), 0);
    CHECK_EQ(CALL(&f, "store_value_size", 500, k2), 3000);
    CHECK_EQ(CALL(&f, "store_delete_value", 100, k), 0);
    CHECK_EQ(CALL(&f, "store_has", 100, k), 0);
    CHECK_EQ(CALL(&f, "store_delete", 100, k), 0); /* absent: still 0 */
    fx_fini(&f);
    CHECK_EQ(f.ctx.live, 0);
}

/* Two store_create(2^31 - 1) take memory for the bytes written only (they took 4.48 GB when
 * values were zero-filled at once); their bytes read as zeros but where written. */
TEST(host_store_create_largest_values)
{
    fx f;
    wd_meter meter;
    CHECK(fx_init_metered(&f, WD_PVM_V6, &meter));
    size_t before = meter.now;
    uint32_t k = put(&f, 100, "/big/a"), k2 = put(&f, 120, "/big/b");
    CHECK_EQ(CALL(&f, "store_create", 100, k, 0x7FFFFFFF), 0);
    CHECK_EQ(CALL(&f, "store_create", 120, k2, 0x7FFFFFFF), 0);
    CHECK_EQ(CALL(&f, "store_create", 120, k2, 1), WD_DURABLE_EVALUE_EXISTS);
    CHECK_EQ(CALL(&f, "store_value_size", 100, k), 0x7FFFFFFF);
    CHECK_EQ(CALL(&f, "store_value_size", 120, k2), 0x7FFFFFFF);
    uint8_t *mem = f.inst->memory->data;
    memset(mem + 1000, 0xff, 4096);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 1000000000, 1000, 2048), 2048);
    for (int i = 0; i < 2048; i++)
        CHECK_EQ(mem[1000 + i], 0);
    put(&f, 200, "tail!");
    CHECK_EQ(CALL(&f, "store_write", 120, k2, 0x7FFFFFFF - 5, 200, 5), 0);
    CHECK_EQ(CALL(&f, "store_write", 120, k2, 0x7FFFFFFF - 4, 200, 5), WD_DURABLE_EVALUE_SIZE);
    CHECK_EQ(CALL(&f, "store_write", 100, k, 1500000000, 200, 5), 0);
    CHECK_EQ(CALL(&f, "store_read", 120, k2, 0x7FFFFFFF - 8, 3000, 100), 8);
    CHECK(memcmp(mem + 3000, "\0\0\0tail!", 8) == 0);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 1500000000 - 1, 3000, 7), 7);
    CHECK(memcmp(mem + 3000, "\0tail!\0", 7) == 0);
    CHECK_EQ(CALL(&f, "store_read", 120, k2, 1500000000, 3000, 5), 5); /* only /big/a there */
    CHECK(memcmp(mem + 3000, "\0\0\0\0\0", 5) == 0);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 0x7FFFFFFF, 3000, 1), WD_DURABLE_EINVALID_ACCESS);
    CHECK(meter.peak - before < 50u << 20);
    /* a copy shares the pages: no 2 GiB more either */
    uint32_t k3 = put(&f, 140, "/big/c");
    CHECK_EQ(CALL(&f, "store_copy", 100, k, 140, k3), 0);
    CHECK_EQ(CALL(&f, "store_write", 140, k3, 0, 200, 5), 0);
    CHECK_EQ(CALL(&f, "store_read", 100, k, 0, 3000, 5), 5);
    CHECK(memcmp(mem + 3000, "\0\0\0\0\0", 5) == 0);
    CHECK_EQ(CALL(&f, "store_delete", 100, 4), 0); /* "/big" */
    CHECK(meter.peak - before < 50u << 20);
    CHECK(meter.now - before < 1u << 20);
    fx_fini(&f);
    CHECK_EQ(f.ctx.live, 0);
}

TEST(host_key_errors_in_order)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    /* length first, then memory bounds, then syntax */
    CHECK_EQ(CALL(&f, "store_has", 100, 241), WD_DURABLE_EKEY_TOO_LARGE);
    CHECK_EQ(CALL(&f, "store_has", MEM_END - 4, 10), WD_HOST_EMEMORY);
    CHECK_EQ(CALL(&f, "store_has", 0xFFFFFFF0, 200), WD_HOST_EMEMORY);
    put(&f, 100, "a/b");
    CHECK_EQ(CALL(&f, "store_has", 100, 3), WD_DURABLE_EINVALID_KEY);
    put(&f, 100, "/a//b");
    CHECK_EQ(CALL(&f, "store_has", 100, 5), WD_DURABLE_EINVALID_KEY);
    put(&f, 100, "/a/");
    CHECK_EQ(CALL(&f, "store_value_size", 100, 3), WD_DURABLE_EINVALID_KEY);
    /* the reference requires addr + len strictly below the memory size */
    put(&f, (uint32_t)MEM_END - 2, "/x");
    CHECK_EQ(CALL(&f, "store_has", MEM_END - 2, 2), WD_HOST_EMEMORY);
    fx_fini(&f);
}

TEST(host_readonly_copy_move)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    uint32_t ro = put(&f, 100, "/readonly/x"), a = put(&f, 200, "/a"), b = put(&f, 300, "/b");
    put(&f, 400, "v");
    CHECK_EQ(CALL(&f, "store_write", 100, ro, 0, 400, 1), WD_HOST_EREADONLY);
    CHECK_EQ(wd_durable_set(f.d, "/readonly/x", 11, (const uint8_t *)"r", 1), 0);
    CHECK_EQ(CALL(&f, "store_delete", 100, ro), WD_HOST_EREADONLY);
    CHECK_EQ(CALL(&f, "store_delete_value", 100, ro), WD_HOST_EREADONLY);
    CHECK_EQ(CALL(&f, "store_create", 100, ro, 1), WD_HOST_EREADONLY);
    CHECK_EQ(CALL(&f, "store_copy", 200, a, 300, b), WD_DURABLE_ENOT_A_NODE);
    CHECK_EQ(CALL(&f, "store_copy", 100, ro, 200, a), 0); /* a readonly source is fine */
    CHECK_EQ(CALL(&f, "store_copy", 200, a, 100, ro), WD_HOST_EREADONLY);
    CHECK_EQ(CALL(&f, "store_move", 100, ro, 300, b), WD_HOST_EREADONLY);
    CHECK_EQ(CALL(&f, "store_move", 200, a, 300, b), 0);
    CHECK_EQ(CALL(&f, "store_has", 200, a), 0);
    CHECK_EQ(CALL(&f, "store_has", 300, b), 1);
    CHECK_EQ(CALL(&f, "store_get_hash", 200, a, 500, 32), WD_DURABLE_ENOT_A_NODE);
    CHECK_EQ(CALL(&f, "store_get_hash", 300, b, 500, 32), 32);
    CHECK_EQ(CALL(&f, "store_get_hash", 300, b, 600, 8), 8);
    CHECK(memcmp(f.inst->memory->data + 500, f.inst->memory->data + 600, 8) == 0);
    fx_fini(&f);
}

TEST(host_input_output)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    CHECK_EQ(CALL(&f, "read_input", 100, 200, 50), 0); /* empty buffer */
    uint8_t m0[] = {0x01, 'h', 'i'};
    wd_msg msgs[1] = {{m0, sizeof m0, 7, 3}};
    f.env.inputs = msgs;
    f.env.input_count = 1;
    CHECK_EQ(CALL(&f, "read_input", MEM_END - 8, 200, 50), WD_HOST_EMEMORY);
    CHECK_EQ(CALL(&f, "read_input", 100, MEM_END - 50, 50), WD_HOST_EMEMORY);
    CHECK_EQ(CALL(&f, "read_input", 100, 200, 2), 2); /* truncated; consumed anyway */
    CHECK_EQ(f.inst->memory->data[100], 7);
    CHECK_EQ(f.inst->memory->data[104], 3);
    CHECK_EQ(f.inst->memory->data[201], 'h');
    CHECK_EQ(CALL(&f, "read_input", 100, 200, 50), 0);
    put(&f, 300, "out");
    CHECK_EQ(CALL(&f, "write_output", 300, 4097), WD_HOST_ETOO_LARGE);
    CHECK_EQ(CALL(&f, "write_output", MEM_END - 3, 3), WD_HOST_EMEMORY);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(CALL(&f, "write_output", 300, 3), 0);
    CHECK_EQ(CALL(&f, "write_output", 300, 3), WD_HOST_EFULL_OUTBOX);
    CHECK_EQ(f.env.outbox_count, 100);
    CHECK(memcmp(f.env.outbox[99].bytes, "out", 3) == 0);
    CHECK_EQ(CALL(&f, "write_debug", MEM_END, 10), 0); /* never fails */
    fx_fini(&f);
    CHECK_EQ(f.ctx.live, 0);
}

TEST(host_reveals)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    CHECK_EQ(CALL(&f, "reveal_metadata", 100, 24), 24);
    CHECK_EQ(f.revealed_size, 1);
    CHECK_EQ(f.revealed[0], 0x01);
    CHECK(memcmp(f.inst->memory->data + 100, "0123456789abcdefghijklmn", 24) == 0);
    CHECK_EQ(CALL(&f, "reveal_metadata", 200, 4), 4);
    CHECK_EQ(CALL(&f, "reveal_preimage", 300, 4097, 400, 100), WD_HOST_ETOO_LARGE);
    CHECK_EQ(CALL(&f, "reveal_preimage", 300, 33, 400, 100), 24);
    CHECK_EQ(f.revealed_size, 34);
    CHECK_EQ(f.revealed[0], 0x00);
    CHECK_EQ(CALL(&f, "reveal_preimage", 300, 33, MEM_END - 10, 100), WD_HOST_EMEMORY);
    fx_fini(&f);
}

/* pvm.md 4.4: 42 ticks per byte moved and 1 per storage access, on success only. */
TEST(host_tick_costs)
{
    fx f;
    CHECK(fx_init(&f, WD_PVM_V6));
    uint32_t k = put(&f, 100, "/key");
    put(&f, 200, "12345");
    uint64_t t0 = f.t.ticks;
    CHECK_EQ(CALL(&f, "store_write", 100, k, 9, 200, 5), WD_DURABLE_EINVALID_ACCESS);
    uint64_t failed = f.t.ticks - t0;
    t0 = f.t.ticks;
    CHECK_EQ(CALL(&f, "store_write", 100, k, 0, 200, 5), 0);
    CHECK_EQ(f.t.ticks - t0 - failed, 42 * (4 + 5) + 1);
    t0 = f.t.ticks;
    CHECK_EQ(CALL(&f, "store_read", 100, k, 0, 300, 5), 5);
    CHECK_EQ(f.t.ticks - t0 - failed, 42 * (4 + 5) + 1);
    t0 = f.t.ticks;
    CHECK_EQ(CALL(&f, "write_output", 200, 5), 0);
    uint64_t out = f.t.ticks - t0;
    t0 = f.t.ticks;
    CHECK_EQ(CALL(&f, "write_output", 200, 5000), WD_HOST_ETOO_LARGE);
    CHECK_EQ(f.t.ticks - t0, out); /* write_output is free either way (pvm.md quirk) */
    fx_fini(&f);
}

TEST(host_functions_by_version)
{
    fx f;
    CHECK(!fx_init(&f, WD_PVM_V1)); /* store_exists is from 2.0.0-r2 */
    CHECK_EQ(f.err.status, WD_ERR_UNLINKABLE);
    CHECK_STR_CONTAINS(f.err.msg, "store_exists exists only from PVM version 2.0.0-r2");
    fx_fini(&f);
    CHECK(fx_init(&f, WD_PVM_V2));
    fx_fini(&f);
}
