/* prof_trace_test.c: recorded traces (profiler/trace.h): a replay rebuilds outputs identical
 * to the live profiler's, whatever order the header's tables give event and symbol kinds;
 * unknown event kinds are skipped; cut or broken traces are reported. */
#include "profiler/output.h"
#include "profiler/trace.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    return wd_test_rnd(&rng, n);
}

/* Every kind of event, with times. */
static void feed(wd_prof *p)
{
    rng = 7;
    uint32_t f = wd_prof_symbol(p, WD_PROF_DIRECT, 1, "f", 1);
    uint32_t g = wd_prof_symbol(p, WD_PROF_INDIRECT, 2, "_ZN3foo3barEv", 13);
    uint32_t e = wd_prof_symbol(p, WD_PROF_ENTRY, 3, "kernel_run", 10);
    uint32_t h = wd_prof_symbol(p, WD_PROF_HOST, 4, "smart_rollup_core.write_debug", 29);
    uint32_t calls[3] = {f, g, h};
    uint64_t t = 50;
    int64_t ns = 1000;
    for (uint32_t run = 0; run < 3; run++) {
        wd_prof_level(p, run);
        uint64_t start = t;
        wd_prof_phase(p, t, ns, "decode", true);
        t += 77;
        ns += 1234;
        wd_prof_phase(p, t, ns, "decode", false);
        wd_prof_call(p, t, ns, e);
        int depth = 1;
        for (int k = 0; k < 200; k++) {
            t += rnd(1000);
            ns += rnd(5000);
            uint32_t c = rnd(6);
            if (c < 3 && depth < 10) {
                wd_prof_call(p, t, ns, calls[c]);
                if (c == 2)
                    wd_prof_phase(p, t, ns, rnd(2) ? "section:x" : "section:y", rnd(2));
                depth++;
            } else if (c == 3) {
                wd_prof_step(p, t, 5000 + rnd(100000), "memory.copy", rnd(4000));
            } else if (depth > 1) {
                wd_prof_ret(p, t, ns);
                depth--;
            }
        }
        if (run == 2) { /* stopped at the limit */
            /* its open calls close at the stop's clock, far past their last event's: a
             * replay must get it from the trace to give the same times */
            wd_prof_stop(p, ns + 5000000);
            wd_prof_run_info info = {run, 0, start, t + 10 - start, WD_PROF_STUCK, false,
                                     "too many ticks", 99, NULL, 0, 0};
            wd_prof_run_info_add(p, &info);
            break;
        }
        while (depth-- > 0)
            wd_prof_ret(p, t, ns);
        static const wd_prof_frame bt[] = {{"f", 2, 0x40, "k.c", 9}, {"e", 1, 0x20, NULL, 0}};
        wd_prof_run_info info = {run, 0, start, t - start + 1, WD_PROF_TRAPPED, true,
                                 "unreachable in f", 12345, bt, 2, 1};
        wd_prof_run_info_add(p, &info);
        t += 1000000;
    }
    wd_prof_end(p, t + 5000000);
}

static const char *const exts[] = {".out", ".svg", ".trace.json", ".speedscope.json", ".json"};

static bool write_outputs(wd_prof *p, const char *dir)
{
    wd_error err;
    wd_error_clear(&err);
    wd_prof_out o = {.dir = dir, .base = "t", .with_time = true, .kernel = "k",
                     .tick_model = "m"};
    return wd_prof_write_files(p, &o, NULL, &err) == WD_OK;
}

/* Records a live profile into `path` (kinds in `order`), replays it, compares the files. */
static void round_trip(const char *const *order, uint32_t code_base)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    char dir[] = "/tmp/wasmdbg-trace-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[600], da[600], db[600];
    snprintf(path, sizeof path, "%s/trace", dir);
    snprintf(da, sizeof da, "%s/a", dir);
    snprintf(db, sizeof db, "%s/b", dir);
    CHECK(mkdir(da, 0700) == 0 && mkdir(db, 0700) == 0);
    wd_prof_config cfg = {.mode = WD_PROF_AUTO, .full_limit = 150};
    wd_prof *live, *again;
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &live, &err), WD_OK);
    wd_trace_writer *w;
    const wd_trace_meta meta[] = {{"kernel", "k.wasm"}, {"tick_model", "pvm-2.0"}};
    CHECK_EQ(wd_trace_writer_open(&ctx, path, meta, 2, order, code_base, &w, &err), WD_OK);
    wd_prof_record(live, w);
    feed(live);
    wd_prof_record(live, NULL);
    CHECK_EQ(wd_trace_writer_close(w, &err), WD_OK);

    wd_trace_reader *r;
    CHECK_EQ(wd_trace_open(&ctx, path, &r, &err), WD_OK);
    CHECK(strcmp(wd_trace_meta_get(r, "kernel"), "k.wasm") == 0);
    CHECK(wd_trace_meta_get(r, "nosuch") == NULL);
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &again, &err), WD_OK);
    bool truncated = true;
    CHECK_EQ(wd_trace_replay(r, again, &truncated, &err), WD_OK);
    CHECK(!truncated);
    wd_trace_close(r);

    wd_prof_run run; /* a trapped run's backtrace, replayed */
    wd_prof_run_get(again, 1, &run);
    CHECK(run.frame_count == 2 && run.frames_more == 1 && run.frames[0].file != NULL &&
          strcmp(run.frames[0].file, "k.c") == 0 && run.frames[0].line == 9 &&
          run.frames[0].offset == 0x40 && strcmp(run.frames[1].function, "e") == 0 &&
          run.frames[1].file == NULL);
    wd_prof_stats s1, s2;
    wd_prof_get_stats(live, &s1);
    wd_prof_get_stats(again, &s2);
    CHECK(s1.switched && s2.switched && s1.calls == s2.calls && s1.nodes == s2.nodes);
    CHECK(write_outputs(live, da) && write_outputs(again, db));
    CHECK(wd_test_same_files(da, db, "t", exts, 5));
    rmdir(da);
    rmdir(db);
    unlink(path);
    rmdir(dir);
    wd_prof_free(live);
    wd_prof_free(again);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_trace_round_trip)
{
    round_trip(NULL, 0);
}

/* Another writer's table order: readers go by names, not codes. */
TEST(prof_trace_other_kind_order)
{
    static const char *const order[] = {"stop",  "frame", "end",  "run",   "level",
                                        "step",  "phase", "ret",  "call",  "symbol"};
    round_trip(order, 17);
}

/* ---- a trace written by hand: an event kind this reader does not know ---- */

typedef struct bytes {
    uint8_t b[4096];
    size_t n;
} bytes;

static void u(bytes *x, uint64_t v)
{
    do {
        uint8_t c = v & 0x7F;
        v >>= 7;
        x->b[x->n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
}

static void str(bytes *x, const char *s)
{
    u(x, strlen(s));
    memcpy(x->b + x->n, s, strlen(s));
    x->n += strlen(s);
}

static void event(bytes *x, uint64_t code, const bytes *payload)
{
    u(x, code);
    u(x, payload->n);
    memcpy(x->b + x->n, payload->b, payload->n);
    x->n += payload->n;
}

TEST(prof_trace_unknown_kinds_are_skipped)
{
    bytes t = {.n = 0}, e;
    memcpy(t.b, "WDTRACE\n", 8);
    t.n = 8;
    u(&t, 1);           /* version */
    u(&t, 1);           /* meta */
    str(&t, "tick_model");
    str(&t, "flat-1");
    u(&t, 5);           /* event kinds, codes chosen freely */
    u(&t, 40), str(&t, "future"), str(&t, "whatever");
    u(&t, 3), str(&t, "call"), str(&t, "");
    u(&t, 9), str(&t, "symbol"), str(&t, "");
    u(&t, 1), str(&t, "ret"), str(&t, "");
    u(&t, 7), str(&t, "end"), str(&t, "");
    u(&t, 2);           /* symbol kinds */
    u(&t, 5), str(&t, "direct");
    u(&t, 6), str(&t, "hologram"); /* unknown: called like a function */
    e.n = 0, u(&e, 0), u(&e, 5), u(&e, 0), str(&e, "f"), event(&t, 9, &e);
    e.n = 0, u(&e, 1), u(&e, 6), u(&e, 0), str(&e, "g"), event(&t, 9, &e);
    e.n = 0, u(&e, 10 << 1), u(&e, 0), u(&e, 0), event(&t, 3, &e); /* f at 10 */
    e.n = 0, str(&e, "some future payload"), event(&t, 40, &e);
    e.n = 0, u(&e, 5 << 1), u(&e, 0), u(&e, 1), event(&t, 3, &e);  /* g at 15 */
    e.n = 0, u(&e, 5 << 1), u(&e, 0), event(&t, 1, &e);            /* ends at 20 */
    e.n = 0, u(&e, 20 << 1), u(&e, 0), event(&t, 1, &e);           /* f ends at 40 */
    e.n = 0, u(&e, 60 << 1), event(&t, 7, &e);                     /* end at 100 */
    char path[] = "/tmp/wasmdbg-trace-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, t.b, t.n) == (ssize_t)t.n);
    close(fd);

    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_trace_reader *r;
    CHECK_EQ(wd_trace_open(&ctx, path, &r, &err), WD_OK);
    CHECK(strcmp(wd_trace_meta_get(r, "tick_model"), "flat-1") == 0);
    wd_prof_config cfg = {.mode = WD_PROF_FULL};
    wd_prof *p;
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
    bool truncated;
    CHECK_EQ(wd_trace_replay(r, p, &truncated, &err), WD_OK);
    CHECK(!truncated);
    wd_trace_close(r);
    wd_prof_func *fs;
    uint32_t n;
    CHECK_EQ(wd_prof_functions(p, UINT32_MAX, false, &fs, &n, &err), WD_OK);
    CHECK_EQ(n, 2);
    wd_prof_sym_info s0, s1;
    wd_prof_symbol_get(p, fs[0].sym, &s0);
    wd_prof_symbol_get(p, fs[1].sym, &s1);
    CHECK(strcmp(s0.name, "f") == 0 && s0.kind == WD_PROF_DIRECT && fs[0].self == 25);
    CHECK(strcmp(s1.name, "g") == 0 && s1.kind == WD_PROF_DIRECT && fs[1].self == 5);
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    CHECK_EQ(st.end_ticks, 100);
    wd_free(&ctx, fs);
    wd_prof_free(p);

    /* cut at an event boundary: replayed as far as it goes */
    size_t cut = t.n - 3; /* the end event is 3 bytes */
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, t.b, cut) == (ssize_t)cut);
    close(fd);
    CHECK_EQ(wd_trace_open(&ctx, path, &r, &err), WD_OK);
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
    CHECK_EQ(wd_trace_replay(r, p, &truncated, &err), WD_OK);
    CHECK(truncated);
    wd_trace_close(r);
    wd_prof_free(p);

    /* cut inside an event: an error naming the offset */
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, t.b, cut - 2) == (ssize_t)(cut - 2));
    close(fd);
    CHECK_EQ(wd_trace_open(&ctx, path, &r, &err), WD_OK);
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
    CHECK_EQ(wd_trace_replay(r, p, &truncated, &err), WD_ERR_MALFORMED);
    CHECK_STR_CONTAINS(err.msg, "malformed trace: unexpected end");
    wd_trace_close(r);
    wd_prof_free(p);

    /* not a trace */
    wd_error_clear(&err);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, "{\"json\": 1}\n", 12) == 12);
    close(fd);
    CHECK_EQ(wd_trace_open(&ctx, path, &r, &err), WD_ERR_MALFORMED);
    CHECK_STR_CONTAINS(err.msg, "not a wasmdbg trace");
    unlink(path);
    CHECK_EQ(ctx.live, 0);
}

/* Every prefix of a real trace, and every byte flipped: an error or a replay, never a crash
 * (run under the sanitizers by the asan build). */
TEST(prof_trace_damage)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    char path[] = "/tmp/wasmdbg-trace-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    wd_prof_config cfg = {.mode = WD_PROF_CCT};
    wd_prof *p;
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
    wd_trace_writer *w;
    CHECK_EQ(wd_trace_writer_open(&ctx, path, NULL, 0, NULL, 0, &w, &err), WD_OK);
    wd_prof_record(p, w);
    uint32_t f = wd_prof_symbol(p, WD_PROF_DIRECT, 1, "f", 1);
    wd_prof_phase(p, 0, 0, "decode", true);
    wd_prof_phase(p, 10, 5, "decode", false);
    wd_prof_call(p, 10, 6, f);
    wd_prof_step(p, 11, 2000, "memory.grow", 3);
    wd_prof_ret(p, 20, 9);
    wd_prof_run_info info = {0, 0, 0, 21, WD_PROF_OK, false, "", 1, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    wd_prof_end(p, 100);
    wd_prof_record(p, NULL);
    CHECK_EQ(wd_trace_writer_close(w, &err), WD_OK);
    wd_prof_free(p);
    size_t n;
    uint8_t *orig = wd_test_read_file(path, &n);
    CHECK(orig != NULL && n > 40);
    for (size_t k = 0; k < 2 * n; k++) {
        uint8_t *b = malloc(n);
        CHECK(b != NULL);
        memcpy(b, orig, n);
        size_t len = k < n ? k : n;
        if (k >= n)
            b[k - n] ^= 0x5A;
        fd = open(path, O_WRONLY | O_TRUNC);
        CHECK(fd >= 0 && write(fd, b, len) == (ssize_t)len);
        close(fd);
        free(b);
        wd_trace_reader *r;
        wd_error_clear(&err);
        if (wd_trace_open(&ctx, path, &r, &err) != WD_OK)
            continue;
        CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
        bool truncated;
        wd_status st = wd_trace_replay(r, p, &truncated, &err);
        CHECK(st == WD_OK || st == WD_ERR_MALFORMED);
        wd_trace_close(r);
        wd_prof_free(p);
        CHECK_EQ(ctx.live, 0);
    }
    free(orig);
    unlink(path);
}

/* Writes a trace: f called at tick 100, a hot step reported at 150 (steps are exact to their
 * basic block only), f returning at `ret`; then replays it. */
static wd_status replay_ret_at(uint64_t ret, uint64_t *total)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    char path[] = "/tmp/wasmdbg-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return WD_ERR_IO;
    close(fd);
    wd_trace_writer *w;
    wd_status st = wd_trace_writer_open(&ctx, path, NULL, 0, NULL, 0, &w, &err);
    if (st != WD_OK)
        return st;
    wd_trace_put_symbol(w, 0, WD_PROF_DIRECT, 1, "f");
    wd_trace_put_call(w, 100, 0, 0);
    wd_trace_put_step(w, 150, 2000, "memory.fill", 40);
    wd_trace_put_ret(w, ret, 0);
    wd_trace_put_end(w, 200);
    st = wd_trace_writer_close(w, &err);
    wd_trace_reader *r = NULL;
    wd_prof *p = NULL;
    wd_prof_config cfg = {.mode = WD_PROF_FULL};
    if (st == WD_OK)
        st = wd_trace_open(&ctx, path, &r, &err);
    if (st == WD_OK)
        st = wd_prof_new(&ctx, &cfg, &p, &err);
    bool truncated;
    if (st == WD_OK)
        st = wd_trace_replay(r, p, &truncated, &err);
    if (st == WD_OK) {
        wd_prof_run run;
        wd_prof_run_get(p, 0, &run);
        *total = run.ticks;
    }
    wd_prof_free(p);
    wd_trace_close(r);
    unlink(path);
    return st;
}

TEST(prof_trace_ticks_going_back_are_refused)
{
    uint64_t total = 0;
    CHECK_EQ(replay_ret_at(120, &total), WD_OK); /* after the call, before the step: fine */
    CHECK_EQ(total, 20);
    /* before the call: f's self ticks would wrap around (the SVG's percentages were 1e18) */
    CHECK_EQ(replay_ret_at(50, &total), WD_ERR_MALFORMED);
}
