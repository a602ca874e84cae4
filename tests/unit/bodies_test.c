/* bodies_test.c: bodies translated on several threads (decode/bodies.c) give the code and
 * the errors of a translation on one. */
#include "decode/decode.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"
#include "vm/tickmodel.h"

#include <stdlib.h>

/* Whether every function of a and b has the same code. */
static bool same_code(const wd_module *a, const wd_module *b)
{
    if (a->func_count != b->func_count)
        return false;
    for (uint32_t i = a->import_func_count; i < a->func_count; i++) {
        const wd_code *x = a->funcs[i].code, *y = b->funcs[i].code;
        if (x == NULL || y == NULL || x->insn_count != y->insn_count ||
            x->func_idx != y->func_idx || x->param_slots != y->param_slots ||
            x->local_slots != y->local_slots || x->result_slots != y->result_slots ||
            x->max_slots != y->max_slots || x->wasm_insn_count != y->wasm_insn_count ||
            x->set_cost != y->set_cost)
            return false;
        size_t n = x->insn_count;
        if (memcmp(x->insns, y->insns, n * sizeof *x->insns) != 0 ||
            memcmp(x->costs, y->costs, n * sizeof *x->costs) != 0 ||
            memcmp(x->offsets, y->offsets, n * sizeof *x->offsets) != 0)
            return false;
    }
    return true;
}

/* Decodes bytes with 1 to 4 threads; each must give the code of the first. */
static bool same_on_threads(const uint8_t *bytes, size_t size, bool pvm)
{
    wd_costs costs;
    wd_error err;
    wd_error_clear(&err);
    if (wd_tickmodel_get("pvm", &costs, &err) != WD_OK)
        return false;
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *one = NULL;
    wd_decode_opts opts = {.costs = &costs, .pvm = pvm, .threads = 1};
    bool ok = wd_decode_module(&ctx, bytes, size, &opts, &one, &err) == WD_OK;
    for (uint32_t n = 2; ok && n <= 4; n++) {
        wd_module *many = NULL;
        opts.threads = n;
        ok = wd_decode_module(&ctx, bytes, size, &opts, &many, &err) == WD_OK &&
             same_code(one, many);
        wd_module_free(many);
    }
    wd_module_free(one);
    return ok && ctx.live == 0; /* the threads' allocations are counted, and all freed */
}

TEST(bodies_threads_translate_tx_kernel_alike)
{
    char path[512];
    size_t size = 0;
    uint8_t *bytes = wd_test_read_file(
        wd_test_shared("kernels", "tx-kernel-no-verif.wasm", path, sizeof path), &size);
    CHECK(bytes != NULL);
    bool same = same_on_threads(bytes, size, true);
    free(bytes);
    CHECK(same);
}

TEST(bodies_threads_translate_workloads_alike)
{
    static const char *const files[] = {"bench/workloads/qsort.wasm", "bench/workloads/interp.wasm",
                                        "bench/workloads/memops_bulk.wasm"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t size = 0;
        uint8_t *bytes = wd_test_read_file(files[i], &size);
        CHECK(bytes != NULL);
        bool same = same_on_threads(bytes, size, false);
        free(bytes);
        CHECK(same);
    }
}

/* A module of `n` (< 16384) functions () -> (), each GROUPS times `i32.const 1 drop`,
 * except that the last 3 bytes of function bad[k] are bad_body[k]. Returns the size. */
enum { GROUPS = 40, BODY = 3 * GROUPS + 2 }; /* one byte of locals, the groups, end */
static size_t make_module(uint8_t *out, uint32_t n, const uint32_t *bad,
                          const uint8_t (*bad_body)[3], size_t nbad)
{
    static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00,
                                   0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00};
    memcpy(out, head, sizeof head);
    size_t at = sizeof head;
    /* the function section: n (two-byte LEB) then n type indices */
    out[at++] = 0x03;
    out[at++] = (uint8_t)(0x80 | ((n + 2) & 0x7F)); /* size n + 2 (n < 16384) */
    out[at++] = (uint8_t)(0x80 | (((n + 2) >> 7) & 0x7F));
    out[at++] = (uint8_t)((n + 2) >> 14);
    out[at++] = (uint8_t)(0x80 | (n & 0x7F));
    out[at++] = (uint8_t)(n >> 7);
    memset(out + at, 0, n);
    at += n;
    uint32_t csize = 2 + (BODY + 1) * n; /* each body: its size (one byte), then BODY */
    out[at++] = 0x0A;
    out[at++] = (uint8_t)(0x80 | (csize & 0x7F));
    out[at++] = (uint8_t)(0x80 | ((csize >> 7) & 0x7F));
    out[at++] = (uint8_t)(csize >> 14);
    out[at++] = (uint8_t)(0x80 | (n & 0x7F));
    out[at++] = (uint8_t)(n >> 7);
    for (uint32_t i = 0; i < n; i++) {
        out[at++] = BODY;
        out[at++] = 0;
        for (int g = 0; g < GROUPS; g++, at += 3)
            memcpy(out + at, (const uint8_t[]){0x41, 0x01, 0x1A}, 3);
        for (size_t k = 0; k < nbad; k++)
            if (bad[k] == i)
                memcpy(out + at - 3, bad_body[k], 3);
        out[at++] = 0x0B;
    }
    return at;
}

TEST(bodies_threads_report_the_lowest_failure)
{
    /* Failures close together, so that threads meet them at about the same time: function
     * 2604 has an illegal opcode, 2600 (the lowest) and 2611 unknown locals, 2609 a type
     * mismatch. A module of 500 KB, so that the threads overlap. */
    enum { N = 4000 };
    static uint8_t bytes[64 + (BODY + 2) * N];
    static const uint32_t bad[] = {2611, 2604, 2600, 2609};
    static const uint8_t bodies[][3] = {
        {0x20, 0x07, 0x1A}, {0x41, 0x01, 0xFF}, {0x20, 0x07, 0x1A}, {0x41, 0x01, 0x01}};
    size_t size = make_module(bytes, N, bad, bodies, 4);
    wd_costs costs;
    wd_error serial;
    wd_error_clear(&serial);
    CHECK_EQ(wd_tickmodel_get("pvm", &costs, &serial), WD_OK);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m = NULL;
    wd_decode_opts opts = {.costs = &costs, .threads = 1};
    CHECK_EQ(wd_decode_module(&ctx, bytes, size, &opts, &m, &serial), WD_ERR_INVALID);
    CHECK(m == NULL);
    CHECK_EQ(serial.func_idx, 2600);
    CHECK_STR_CONTAINS(serial.msg, "unknown local");
    for (int rep = 0; rep < 40; rep++) { /* threads race differently each time */
        wd_error e;
        wd_error_clear(&e);
        opts.threads = 2 + (uint32_t)rep % 3;
        CHECK_EQ(wd_decode_module(&ctx, bytes, size, &opts, &m, &e), WD_ERR_INVALID);
        CHECK(m == NULL);
        CHECK_EQ(e.func_idx, serial.func_idx);
        CHECK_EQ(e.offset, serial.offset);
        CHECK(strcmp(e.msg, serial.msg) == 0);
    }
    /* the illegal opcode first: a malformed body */
    size = make_module(bytes, N, bad, bodies, 2);
    for (uint32_t threads = 1; threads <= 4; threads++) {
        wd_error e;
        wd_error_clear(&e);
        opts.threads = threads;
        CHECK_EQ(wd_decode_module(&ctx, bytes, size, &opts, &m, &e), WD_ERR_MALFORMED);
        CHECK_EQ(e.func_idx, 2604);
        CHECK_STR_CONTAINS(e.msg, "illegal opcode");
    }
    /* and a valid one: every function translated, on any number of threads */
    size = make_module(bytes, N, NULL, NULL, 0);
    CHECK(same_on_threads(bytes, size, false));
    CHECK_EQ(ctx.live, 0);
}
