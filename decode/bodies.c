/* bodies.c: validates and translates every function body of a module, on several threads
 * when the module is large.
 *
 * Bodies are independent: each is checked against the module's types, functions, tables
 * and globals (read only by then) and its code stored in funcs[i].code, a slot of its own.
 * Each thread has its own translator, context (a fork of the module's, base/alloc.h) and
 * arena; the arenas join the module's at the end. Threads take batches of functions in
 * index order from a shared counter, so the work balances however the sizes fall.
 *
 * Errors are those of a translation in index order: the module's error is that of the
 * lowest function that fails. A thread stops at its first failure and none starts a batch
 * above the lowest failure known, so every function below the reported one was
 * translated, and succeeded. Contexts that count or fail allocations on purpose (tests)
 * are not thread-safe: their modules are translated on the calling thread. */
#include "base/thread.h"
#include "decode/validate_priv.h"

#include <stdatomic.h>
#include <string.h>

enum { BATCH = 8, MAX_THREADS = 4 };
#define PARALLEL_MIN_BYTES ((uint64_t)64 * 1024)

typedef struct pool {
    wd_module *m;
    const uint8_t *bytes;
    size_t size;
    atomic_size_t next;   /* the first function of the next batch */
    atomic_size_t lowest; /* the lowest function that failed, or SIZE_MAX */
} pool;

typedef struct worker {
    pool *p;
    wd_ctx ctx;
    wd_arena arena;
    wd_translator *t;
    wd_error err;
    wd_status st;
    size_t failed; /* the function that failed, or SIZE_MAX */
} worker;

static void lower_to(atomic_size_t *v, size_t x)
{
    size_t cur = atomic_load(v);
    while (x < cur && !atomic_compare_exchange_weak(v, &cur, x))
        ;
}

/* Translates batches of functions until none is left or one below them failed. */
static void *work(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    size_t end = p->m->func_count;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, BATCH);
        if (i >= end || i > atomic_load(&p->lowest))
            return NULL;
        for (size_t e = WD_MIN(i + BATCH, end); i < e; i++) {
            w->st = wd_validate_func_with(w->t, p->m, (uint32_t)i, p->bytes, p->size, &w->err);
            if (w->st != WD_OK) {
                w->failed = i;
                lower_to(&p->lowest, i);
                return NULL;
            }
        }
    }
}

/* How many threads: opts->threads, or for 0 the CPUs for a large code section (`bytes`). */
static uint32_t thread_count(uint64_t bytes, wd_ctx *ctx, const wd_decode_opts *opts)
{
    if (!wd_ctx_forkable(ctx) || opts->threads == 1)
        return 1;
    if (opts->threads != 0)
        return WD_MIN(opts->threads, MAX_THREADS);
    if (bytes < PARALLEL_MIN_BYTES || wd_cpu_count() < 2)
        return 1;
    return WD_MIN(wd_cpu_count(), (unsigned)MAX_THREADS);
}

/* Translates on `n` threads (this one included), each worker's translator made. */
static void run_workers(worker *w, uint32_t n)
{
    wd_thread th[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    for (uint32_t k = 1; k < n; k++) /* a thread that cannot start leaves its share to others */
        started[k] = wd_thread_start(&th[k], work, &w[k]);
    work(&w[0]);
    for (uint32_t k = 1; k < n; k++)
        if (started[k])
            wd_thread_join(&th[k]);
}

wd_status wd_translate_bodies(wd_module *m, wd_ctx *ctx, const uint8_t *bytes, size_t size,
                              const wd_decode_opts *opts, wd_error *err)
{
    uint64_t code_bytes = 0;
    for (uint32_t i = m->import_func_count; i < m->func_count; i++)
        code_bytes += m->funcs[i].body_size;
    uint32_t n = thread_count(code_bytes, ctx, opts);
    pool p = {.m = m, .bytes = bytes, .size = size};
    atomic_init(&p.next, m->import_func_count);
    atomic_init(&p.lowest, SIZE_MAX);
    worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    wd_status st = WD_OK;
    for (uint32_t k = 0; k < n; k++) {
        w[k].p = &p;
        w[k].failed = SIZE_MAX;
        wd_error_clear(&w[k].err);
        if (n == 1) { /* on the module's context and arena */
            w[k].t = wd_translator_new(ctx, opts);
        } else {
            wd_ctx_fork(ctx, &w[k].ctx);
            wd_arena_init(&w[k].arena, &w[k].ctx);
            /* code takes 8-9 times the bytes of its bodies (big.wasm, tx-kernel) */
            wd_arena_expect(&w[k].arena, (size_t)WD_MIN(code_bytes * 8 / n, SIZE_MAX / 2));
            w[k].t = wd_translator_new(&w[k].ctx, opts);
            if (w[k].t != NULL)
                wd_translator_set_arena(w[k].t, &w[k].arena);
        }
        if (w[k].t == NULL)
            st = WD_ERR_NOMEM;
    }
    if (st == WD_OK)
        run_workers(w, n);
    const worker *first = NULL; /* the lowest failure */
    for (uint32_t k = 0; k < n; k++) {
        wd_translator_free(w[k].t);
        if (w[k].failed != SIZE_MAX && (first == NULL || w[k].failed < first->failed))
            first = &w[k];
        if (n > 1) {
            wd_arena_adopt(&m->arena, &w[k].arena);
            wd_ctx_join(ctx, &w[k].ctx);
        }
    }
    if (st != WD_OK) {
        st =
            wd_fail(err, WD_ERR_NOMEM, m->funcs[m->import_func_count].body_offset, "out of memory");
        err->func_idx = m->import_func_count;
        return st;
    }
    if (first == NULL)
        return WD_OK;
    *err = first->err;
    return first->st;
}
