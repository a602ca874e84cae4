/* prof_test.c: the profiler's call-stack engine (profiler/prof.h): DESIGN.md's worked example,
 * full and calling-context trees agreeing on every figure (also across the auto switch),
 * traps, reboots, runs stopped at the tick limit, deep recursion, sections and hot steps. */
#include "profiler/prof.h"
#include "profiler/prof_priv.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdlib.h>

typedef struct fig {
    uint64_t self, total, calls;
} fig;

static wd_ctx *prof_ctx; /* the context of the profiler under test */

static wd_prof *new_prof(wd_ctx *ctx, wd_prof_mode mode, uint32_t limit)
{
    prof_ctx = ctx;
    wd_prof_config cfg = {.mode = mode, .full_limit = limit};
    wd_prof *p = NULL;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_new(ctx, &cfg, &p, &err) != WD_OK)
        return NULL;
    return p;
}

static uint32_t fn(wd_prof *p, const char *name)
{
    return wd_prof_symbol(p, WD_PROF_DIRECT, 0, name, strlen(name));
}

/* The figures of the function displayed as `name` over all runs (zeros when absent). */
static fig figures(wd_prof *p, const char *name)
{
    fig r = {0, 0, 0};
    wd_prof_func *fs;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_functions(p, UINT32_MAX, false, &fs, &n, &err) != WD_OK)
        return r;
    for (uint32_t i = 0; i < n; i++) {
        wd_prof_sym_info s;
        wd_prof_symbol_get(p, fs[i].sym, &s);
        if (strcmp(s.name, name) == 0) {
            r.self += fs[i].self;
            r.total += fs[i].total;
            r.calls += fs[i].calls;
        }
    }
    wd_free(prof_ctx, fs);
    return r;
}

/* DESIGN.md: f is called at 0, calls g at 10, g calls h at 30, h ends at 60, g at 100, f at
 * 160: f 70 self ticks, g 60, h 30. */
static void worked_example(wd_prof_mode mode)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, mode, 0);
    CHECK(p != NULL);
    uint32_t f = fn(p, "f"), g = fn(p, "g"), h = fn(p, "h");
    wd_prof_call(p, 0, 0, f);
    wd_prof_call(p, 10, 1, g);
    wd_prof_call(p, 30, 2, h);
    wd_prof_ret(p, 60, 3);
    wd_prof_ret(p, 100, 5);
    wd_prof_ret(p, 160, 9);
    wd_prof_end(p, 160);
    CHECK_EQ(wd_prof_status(p, NULL), WD_OK);
    fig F = figures(p, "f"), G = figures(p, "g"), H = figures(p, "h");
    CHECK_EQ(F.self, 70);
    CHECK_EQ(G.self, 60);
    CHECK_EQ(H.self, 30);
    CHECK_EQ(F.total, 160);
    CHECK_EQ(G.total, 90);
    CHECK_EQ(H.total, 30);
    CHECK_EQ(F.calls + G.calls + H.calls, 3);
    wd_prof_run r;
    CHECK_EQ(wd_prof_run_count(p), 1);
    wd_prof_run_get(p, 0, &r);
    CHECK_EQ(r.ticks, 160);
    CHECK_EQ(r.ns, 9);
    CHECK(!r.inconsistent && !r.stopped);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_worked_example_full)
{
    worked_example(WD_PROF_FULL);
}

TEST(prof_worked_example_cct)
{
    worked_example(WD_PROF_CCT);
}

/* Self time follows the same rule as self ticks; events stamped by a clock of `per_ns` units
 * per ns (wd_prof_time_unit) give the same ns. */
static void self_time(wd_prof_mode mode, int64_t per_ns)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, mode, 0);
    CHECK(p != NULL);
    uint32_t f = fn(p, "f"), g = fn(p, "g");
    int64_t u = per_ns;
    wd_prof_call(p, 0, 1000 * u, f);
    wd_prof_call(p, 5, 1400 * u, g);
    wd_prof_ret(p, 9, 1500 * u);
    wd_prof_ret(p, 20, 2000 * u);
    if (per_ns != 1)
        wd_prof_time_unit(p, 1.0 / (double)per_ns);
    wd_prof_end(p, 20);
    wd_prof_func *fs;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_prof_functions(p, UINT32_MAX, false, &fs, &n, &err), WD_OK);
    CHECK_EQ(n, 2);
    /* f: 400 + 500 ns self, g: 100 */
    for (uint32_t i = 0; i < n; i++) {
        wd_prof_sym_info s;
        wd_prof_symbol_get(p, fs[i].sym, &s);
        if (strcmp(s.name, "f") == 0) {
            CHECK_EQ(fs[i].self_ns, 900);
            CHECK_EQ(fs[i].total_ns, 1000);
        } else {
            CHECK_EQ(fs[i].self_ns, 100);
        }
    }
    wd_free(&ctx, fs);
    wd_prof_run r;
    wd_prof_run_get(p, 0, &r);
    CHECK_EQ(r.ns, 1000);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_self_time)
{
    self_time(WD_PROF_FULL, 1);
}

/* The fast clock (the TSC at 2.5 GHz here: 2.5 units per ns; 3 keeps the figures whole). */
TEST(prof_self_time_clock_unit)
{
    self_time(WD_PROF_FULL, 3);
    self_time(WD_PROF_CCT, 3);
}

/* ---- kernel runs, traps, stops ---- */

/* One kernel run as vm/pvm.c reports it: decode (with a section), link, init, kernel_run
 * calling f. Returns the tick after it. */
static uint64_t pvm_run(wd_prof *p, uint64_t t, uint32_t entry, uint32_t f, uint64_t f_ticks)
{
    wd_prof_phase(p, t, 0, "decode", true);
    wd_prof_phase(p, t + 1, 0, "decode:code", true);
    wd_prof_phase(p, t + 11, 0, "decode:code", false);
    wd_prof_phase(p, t + 11, 0, "decode", false);
    wd_prof_phase(p, t + 11, 0, "link", true);
    wd_prof_phase(p, t + 13, 0, "link", false);
    wd_prof_phase(p, t + 13, 0, "init", true);
    wd_prof_phase(p, t + 20, 0, "init", false);
    wd_prof_call(p, t + 20, 0, entry);
    wd_prof_call(p, t + 25, 0, f);
    wd_prof_ret(p, t + 25 + f_ticks, 0);
    wd_prof_ret(p, t + 30 + f_ticks, 0);
    return t + 30 + f_ticks;
}

TEST(prof_reboots_are_separate_runs)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_AUTO, 0);
    CHECK(p != NULL);
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 3, "kernel_run", 10), f = fn(p, "f");
    wd_prof_level(p, 0);
    uint64_t t = pvm_run(p, 1000, entry, f, 100);
    pvm_run(p, 5000, entry, f, 200);
    wd_prof_run_info info = {0, 0, 1000, t - 1000 + 1, WD_PROF_OK, true, "", 7, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    info = (wd_prof_run_info){0, 1, 5000, 231, WD_PROF_OK, false, "", 8, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    wd_prof_level(p, 1);
    pvm_run(p, 9000, entry, f, 300);
    wd_prof_end(p, 20000);
    CHECK_EQ(wd_prof_run_count(p), 3);
    wd_prof_run r;
    wd_prof_run_get(p, 1, &r);
    CHECK_EQ(r.level, 0);
    CHECK_EQ(r.index, 1);
    CHECK_EQ(r.phase[WD_PROF_PH_DECODE], 11);
    CHECK_EQ(r.phase[WD_PROF_PH_LINK], 2);
    CHECK_EQ(r.phase[WD_PROF_PH_INIT], 7);
    CHECK_EQ(r.phase[WD_PROF_PH_KERNEL_RUN], 210);
    CHECK_EQ(r.ticks, 230);
    CHECK(r.has_info && r.effective == 231 && r.wall_ns == 8);
    wd_prof_run_get(p, 2, &r);
    CHECK_EQ(r.level, 1);
    CHECK_EQ(r.index, 0);
    CHECK_EQ(r.phase[WD_PROF_PH_KERNEL_RUN], 310);
    CHECK(!r.has_info);
    fig F = figures(p, "f");
    CHECK_EQ(F.self, 600);
    CHECK_EQ(F.calls, 3);
    CHECK_EQ(figures(p, "kernel_run").total, 630);
    CHECK_EQ(figures(p, "%interpreter(decode:code)").self, 30);
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    CHECK_EQ(st.levels, 2);
    CHECK_EQ(st.end_ticks, 20000);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

/* A trap unwinds every frame at the trap's tick: those calls are the run's backtrace. */
TEST(prof_trap_unwinds)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    CHECK(p != NULL);
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 0, "kernel_run", 10);
    uint32_t f = fn(p, "f"), g = fn(p, "g"), h = fn(p, "h");
    wd_prof_phase(p, 0, 0, "decode", true);
    wd_prof_phase(p, 5, 0, "decode", false);
    wd_prof_call(p, 5, 0, entry);
    wd_prof_call(p, 10, 0, f);
    wd_prof_call(p, 12, 0, g);
    wd_prof_ret(p, 14, 0); /* g returns at 14 */
    wd_prof_call(p, 15, 0, g);
    wd_prof_call(p, 20, 0, h);
    for (int i = 0; i < 4; i++) /* unreachable in h at 33 */
        wd_prof_ret(p, 33, 0);
    wd_prof_ret(p, 40, 0); /* stray: nothing open */
    wd_prof_run_info info = {0, 0, 0, 34, WD_PROF_TRAPPED, false, "unreachable in h", 0, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    wd_prof_end(p, 100);
    wd_prof_run r;
    wd_prof_run_get(p, 0, &r);
    CHECK_EQ(r.ticks, 33);
    CHECK_EQ(r.phase[WD_PROF_PH_KERNEL_RUN], 28);
    CHECK(r.outcome == WD_PROF_TRAPPED && strcmp(r.reason, "unreachable in h") == 0);
    CHECK(!r.stopped && !r.inconsistent);
    CHECK_EQ(r.unwound_count, 4);
    CHECK_EQ(r.unwound[0], h);
    CHECK_EQ(r.unwound[1], g);
    CHECK_EQ(r.unwound[2], f);
    CHECK_EQ(r.unwound[3], entry);
    CHECK_EQ(figures(p, "h").self, 13);
    CHECK_EQ(figures(p, "g").self, 7);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

/* A run stopped at the tick limit: the PVM is stuck with calls open; they are closed at the
 * stop tick the run report gives. */
static void tick_limit(wd_prof_mode mode)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, mode, 0);
    CHECK(p != NULL);
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 0, "kernel_run", 10);
    uint32_t loop = fn(p, "loop"), host = wd_prof_symbol(p, WD_PROF_HOST, 0, "smart_rollup_core.store_read", 28);
    wd_prof_level(p, 0);
    wd_prof_phase(p, 100, 0, "decode", true);
    wd_prof_phase(p, 101, 0, "decode", false);
    wd_prof_call(p, 101, 0, entry);
    wd_prof_call(p, 110, 0, loop);
    wd_prof_call(p, 900, 0, host); /* its ticks never get paid */
    wd_prof_run_info info = {0, 0, 100, 999, WD_PROF_STUCK, false, "too many ticks", 0, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    wd_prof_end(p, 2000);
    wd_prof_run r;
    wd_prof_run_get(p, 0, &r);
    CHECK(r.stopped && !r.inconsistent);
    CHECK_EQ(r.stop_tick, 1099);
    CHECK_EQ(r.phase[WD_PROF_PH_KERNEL_RUN], 998);
    CHECK_EQ(r.ticks, 999);
    CHECK_EQ(r.open_count, 3);
    CHECK_EQ(r.open[0], host);
    CHECK_EQ(r.open[2], entry);
    CHECK_EQ(figures(p, "loop").total, 989);
    CHECK_EQ(figures(p, "smart_rollup_core.store_read").self, 199);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

/* wd_prof_stop: a run stopped (Ctrl-C, --max-ticks) closes its open calls at the clock it
 * was stopped at, not at their last event's; without it, at the last event's. */
static void stopped_loop(bool stop, int64_t *ns)
{
    *ns = -1;
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 0, "kernel_run", 10), loop = fn(p, "loop");
    wd_prof_level(p, 0);
    wd_prof_call(p, 101, 1000, entry);
    wd_prof_call(p, 110, 2000, loop); /* then it loops, no event, for 3 s */
    if (stop)
        wd_prof_stop(p, 3000002000);
    wd_prof_run_info info = {0, 0, 100, 999, WD_PROF_STUCK, false, "interrupted", 0, NULL, 0, 0};
    wd_prof_run_info_add(p, &info);
    wd_prof_end(p, 2000);
    wd_prof_func *fs;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_functions(p, UINT32_MAX, false, &fs, &n, &err) == WD_OK) {
        for (uint32_t i = 0; i < n; i++) {
            wd_prof_sym_info s;
            wd_prof_symbol_get(p, fs[i].sym, &s);
            if (strcmp(s.name, "loop") == 0)
                *ns = fs[i].total_ns;
        }
        wd_free(&ctx, fs);
    }
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_stop_closes_at_its_clock)
{
    int64_t with = 0, without = 0;
    stopped_loop(true, &with);
    stopped_loop(false, &without);
    CHECK_EQ(with, 3000000000);
    CHECK_EQ(without, 0);
}

TEST(prof_tick_limit_full)
{
    tick_limit(WD_PROF_FULL);
}

TEST(prof_tick_limit_cct)
{
    tick_limit(WD_PROF_CCT);
}

/* 200,000 nested calls (the PVM allows 60,000 frames): nothing recurses in C, and a
 * recursive function's total counts once. */
TEST(prof_deep_recursion)
{
    for (int mode = WD_PROF_AUTO; mode <= WD_PROF_CCT; mode++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_prof *p = new_prof(&ctx, (wd_prof_mode)mode, mode == WD_PROF_AUTO ? 5000 : 0);
        CHECK(p != NULL);
        uint32_t r = fn(p, "rec");
        const uint64_t n = 200000;
        for (uint64_t i = 0; i < n; i++)
            wd_prof_call(p, 2 * i, 0, r);
        for (uint64_t i = 0; i < n; i++)
            wd_prof_ret(p, 2 * n + 3 * i, 0);
        wd_prof_end(p, 5 * n);
        CHECK_EQ(wd_prof_status(p, NULL), WD_OK);
        fig R = figures(p, "rec");
        CHECK_EQ(R.self, 5 * n - 3);
        CHECK_EQ(R.total, 5 * n - 3);
        CHECK_EQ(R.calls, n);
        wd_prof_stats st;
        wd_prof_get_stats(p, &st);
        CHECK_EQ(st.mode, mode == WD_PROF_FULL ? WD_PROF_FULL : WD_PROF_CCT);
        wd_prof_free(p);
        CHECK_EQ(ctx.live, 0);
    }
}

/* The node totals' arrays are written ahead of the tree while events come (their page
 * faults are not taken at the end), the end does not grow them again (no copy, no new
 * pages), and prof_finish's totals are prof_totals' sums. */
TEST(prof_totals_written_ahead)
{
    for (int mode = WD_PROF_FULL; mode <= WD_PROF_CCT; mode++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_prof *p = new_prof(&ctx, (wd_prof_mode)mode, 0);
        CHECK(p != NULL);
        uint32_t f[3] = {fn(p, "a"), fn(p, "b"), fn(p, "c")};
        uint64_t t = 0;
        bool ahead = true;
        for (uint32_t i = 0; i < 30000; i++) { /* a, then b or c under it, 3 deep at most */
            wd_prof_call(p, t++, 0, f[0]);
            wd_prof_call(p, t++, 0, f[1 + i % 2]);
            if (i % 3 == 0) {
                wd_prof_call(p, t++, 0, f[i % 7 == 0 ? 0 : 2]);
                wd_prof_ret(p, t++, 0);
            }
            ahead = ahead && p->tot_ready >= p->tree.count;
            wd_prof_ret(p, t++, 0);
            wd_prof_ret(p, t++, 0);
        }
        CHECK(ahead);
        const uint64_t *before = p->tot;
        uint32_t cap = p->tot_cap;
        wd_prof_end(p, t + 1);
        CHECK_EQ(wd_prof_status(p, NULL), WD_OK);
        CHECK(p->tot == before);
        CHECK_EQ(p->tot_cap, cap);
        uint64_t *tot = NULL;
        int64_t *tns = NULL;
        CHECK(prof_totals(&p->tree, &tot, &tns));
        CHECK_EQ(p->tot_count, p->tree.count);
        bool same = true;
        for (uint32_t i = 0; i < p->tree.count; i++)
            same = same && p->tot[i] == tot[i] && p->tns[i] == tns[i];
        CHECK(same);
        wd_free(&ctx, tot);
        wd_free(&ctx, tns);
        wd_prof_free(p);
        CHECK_EQ(ctx.live, 0);
    }
}

/* ---- every mode gives the same figures ---- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    return wd_test_rnd(&rng_state, n);
}

static const char *const names[] = {"a", "b", "c", "d", "e", "f"};

/* A pseudo-random stream: runs of phases and nested calls of 6 functions, some indirect,
 * host calls reporting sections, traps (returns at one tick), a run left open at the end. */
static void random_stream(wd_prof *p, uint64_t seed)
{
    rng_state = seed;
    uint32_t syms[12];
    for (int i = 0; i < 6; i++) {
        syms[i] = wd_prof_symbol(p, WD_PROF_DIRECT, (uint32_t)i, names[i], 1);
        syms[6 + i] = wd_prof_symbol(p, WD_PROF_INDIRECT, (uint32_t)i, names[i], 1);
    }
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 9, "kernel_run", 10);
    uint32_t host = wd_prof_symbol(p, WD_PROF_HOST, 0, "smart_rollup_core.write_debug", 29);
    uint64_t t = 0;
    int64_t ns = 0;
    for (int run = 0; run < 6; run++) {
        if (run % 2 == 0)
            wd_prof_level(p, (uint32_t)run / 2);
        wd_prof_phase(p, t, ns, "decode", true);
        t += 1 + rnd(9);
        wd_prof_phase(p, t, ns, "decode", false);
        wd_prof_phase(p, t, ns, "init", true);
        t += rnd(5);
        wd_prof_phase(p, t, ns, "init", false);
        wd_prof_call(p, t, ns, entry);
        int depth = 1;
        for (int e = 0; e < 400; e++) {
            t += rnd(20);
            ns += rnd(100);
            uint32_t k = rnd(10);
            if (k < 5 && depth < 25) {
                wd_prof_call(p, t, ns, syms[rnd(12)]);
                depth++;
            } else if (k < 6) {
                wd_prof_call(p, t, ns, host);
                wd_prof_phase(p, t, ns, rnd(2) ? "section:s1" : "section:s2", rnd(2) != 0);
                t += rnd(3);
                wd_prof_ret(p, t, ns);
            } else if (depth > 1) {
                wd_prof_ret(p, t, ns);
                depth--;
            }
        }
        if (run == 5)
            break; /* left open: closed at the end */
        bool trap = rnd(2) != 0;
        while (depth-- > 0)
            wd_prof_ret(p, trap ? t : t++, ns);
    }
    wd_prof_end(p, t + 1000000);
}

static void check_same(wd_prof *a, wd_prof *b)
{
    CHECK_EQ(wd_prof_run_count(a), wd_prof_run_count(b));
    for (uint32_t i = 0; i < wd_prof_run_count(a); i++) {
        wd_prof_run x, y;
        wd_prof_run_get(a, i, &x);
        wd_prof_run_get(b, i, &y);
        CHECK_EQ(x.ticks, y.ticks);
        CHECK_EQ(x.ns, y.ns);
        CHECK_EQ(x.calls, y.calls);
        for (int k = 0; k < WD_PROF_PH_COUNT; k++)
            CHECK_EQ(x.phase[k], y.phase[k]);
    }
    const char *all[] = {"a", "b", "c", "d", "e", "f", "kernel_run", "s1", "s2",
                         "smart_rollup_core.write_debug", "%interpreter(init)"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        wd_ctx *keep = prof_ctx;
        fig x = figures(a, all[i]), y = figures(b, all[i]);
        prof_ctx = keep;
        CHECK_EQ(x.self, y.self);
        CHECK_EQ(x.total, y.total);
        CHECK_EQ(x.calls, y.calls);
    }
}

TEST(prof_modes_agree)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_prof *full = new_prof(&ctx, WD_PROF_FULL, 0);
        CHECK(full != NULL);
        random_stream(full, seed);
        wd_prof_stats st;
        wd_prof_get_stats(full, &st);
        CHECK_EQ(st.mode, WD_PROF_FULL);
        const uint32_t limits[] = {0, 3, 40, 333, 1000};
        for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
            wd_prof *other = new_prof(&ctx, i == 0 ? WD_PROF_CCT : WD_PROF_AUTO, limits[i]);
            CHECK(other != NULL);
            random_stream(other, seed);
            CHECK_EQ(wd_prof_status(other, NULL), WD_OK);
            wd_prof_get_stats(other, &st);
            CHECK_EQ(st.mode, WD_PROF_CCT);
            CHECK(i == 0 || st.switched);
            check_same(full, other);
            wd_prof_free(other);
        }
        wd_prof_free(full);
        CHECK_EQ(ctx.live, 0);
    }
}

/* ---- sections and hot steps ---- */

TEST(prof_sections)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    CHECK(p != NULL);
    uint32_t f = fn(p, "f"), g = fn(p, "g");
    uint32_t wd = wd_prof_symbol(p, WD_PROF_HOST, 0, "smart_rollup_core.write_debug", 29);
    wd_prof_call(p, 0, 0, f);
    /* start_section(load) inside write_debug: the section opens when it returns */
    wd_prof_call(p, 10, 0, wd);
    wd_prof_phase(p, 10, 0, "section:load", true);
    wd_prof_ret(p, 12, 0);
    wd_prof_call(p, 20, 0, g);
    wd_prof_phase(p, 25, 0, "section:load", false); /* stray: the section is in f's frame */
    wd_prof_phase(p, 26, 0, "section:inner", true); /* closed with g */
    wd_prof_ret(p, 30, 0);
    wd_prof_phase(p, 35, 0, "section:other", false); /* stray: nothing open */
    wd_prof_call(p, 40, 0, wd);
    wd_prof_phase(p, 40, 0, "section:load", false);
    wd_prof_ret(p, 42, 0);
    wd_prof_ret(p, 50, 0);
    wd_prof_end(p, 50);
    CHECK_EQ(wd_prof_status(p, NULL), WD_OK);
    CHECK_EQ(figures(p, "load").total, 30);   /* 12 .. 42 */
    CHECK_EQ(figures(p, "load").self, 18);
    CHECK_EQ(figures(p, "inner").total, 4);
    CHECK_EQ(figures(p, "g").self, 6);
    CHECK_EQ(figures(p, "f").self, 18);
    CHECK_EQ(figures(p, "smart_rollup_core.write_debug").self, 4);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_phase_end_closes_what_is_open)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    CHECK(p != NULL);
    uint32_t start = wd_prof_symbol(p, WD_PROF_ENTRY, 1, "start", 5);
    wd_prof_phase(p, 0, 0, "decode", true);
    wd_prof_phase(p, 3, 0, "decode", false);
    wd_prof_phase(p, 3, 0, "init", true);
    wd_prof_call(p, 5, 0, start); /* the start function, stopped at the limit */
    wd_prof_phase(p, 50, 0, "init", false);
    wd_prof_phase(p, 60, 0, "nosuch", false); /* ignored */
    wd_prof_end(p, 100);
    wd_prof_run r;
    wd_prof_run_get(p, 0, &r);
    CHECK_EQ(r.phase[WD_PROF_PH_INIT], 47);
    CHECK(!r.has_phase[WD_PROF_PH_KERNEL_RUN] && !r.has_phase[WD_PROF_PH_LINK]);
    CHECK_EQ(figures(p, "start").self, 45);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_hot_steps)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    CHECK(p != NULL);
    uint32_t f = fn(p, "f");
    uint32_t rd = wd_prof_symbol(p, WD_PROF_HOST, 0, "smart_rollup_core.store_read", 28);
    wd_prof_phase(p, 0, 0, "decode", true);
    wd_prof_phase(p, 0, 0, "decode:data", true);
    wd_prof_phase(p, 50000, 0, "decode:data", false);
    wd_prof_phase(p, 50000, 0, "decode", false);
    wd_prof_call(p, 50000, 0, f);
    wd_prof_step(p, 50100, 300000, "memory.copy", 12500);
    wd_prof_step(p, 50200, 10, "memory.fill", 10); /* below the floor */
    wd_prof_call(p, 350300, 0, rd);
    wd_prof_ret(p, 436316, 0);
    wd_prof_ret(p, 1000000, 0);
    wd_prof_end(p, 1000000);
    wd_prof_hot *h;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_prof_hot_steps(p, 0.02, 10, &h, &n, &err), WD_OK);
    CHECK_EQ(n, 3);
    wd_prof_sym_info s;
    wd_prof_symbol_get(p, h[0].what, &s);
    CHECK(strcmp(s.raw, "memory.copy") == 0 && s.kind == WD_PROF_STEP);
    CHECK_EQ(h[0].in, f);
    CHECK_EQ(h[0].operand, 12500);
    CHECK_EQ(h[1].what, rd);
    CHECK_EQ(h[1].ticks, 86016);
    wd_prof_symbol_get(p, h[2].what, &s);
    CHECK(strcmp(s.name, "%interpreter(decode:data)") == 0);
    wd_free(&ctx, h);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

/* Allocation failures: every event after one is ignored, the status says so, nothing leaks. */
TEST(prof_out_of_memory)
{
    for (size_t fail = 1; fail < 60; fail++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        ctx.fail_after = fail;
        wd_prof *p = new_prof(&ctx, WD_PROF_AUTO, 7);
        if (p == NULL) {
            CHECK_EQ(ctx.live, 0);
            continue;
        }
        random_stream(p, fail);
        if (wd_prof_status(p, NULL) == WD_OK) {
            wd_prof_func *fs;
            uint32_t n;
            wd_error err;
            wd_error_clear(&err);
            if (wd_prof_functions(p, UINT32_MAX, true, &fs, &n, &err) == WD_OK)
                wd_free(&ctx, fs);
        }
        wd_prof_free(p);
        CHECK_EQ(ctx.live, 0);
    }
}

/* Functions come sorted by ticks, then name, then symbol (many ties here); each run's list
 * and the list over all runs agree with a walk of the events; results asked for again after
 * more events are computed afresh. */
TEST(prof_functions_order)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL, 0);
    CHECK(p != NULL);
    static const char *const many[] = {"m", "b", "zz", "a", "b", "k", "a", "c", "y", "d"};
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 0, "kernel_run", 10), syms[10];
    for (uint32_t i = 0; i < 10; i++) /* same names, distinct functions (by index) */
        syms[i] = wd_prof_symbol(p, WD_PROF_DIRECT, i + 1, many[i], strlen(many[i]));
    rng_state = 11;
    uint64_t t = 0;
    for (int run = 0; run < 3; run++) {
        wd_prof_phase(p, t, 0, "decode", true);
        wd_prof_phase(p, ++t, 0, "decode", false);
        wd_prof_call(p, t, 0, entry);
        for (int c = 0; c < 40; c++) {
            wd_prof_call(p, t, 0, syms[rnd(10)]);
            t += rnd(3) * 5; /* ticks 0, 5 or 10: ties */
            wd_prof_ret(p, t, 0);
        }
        wd_prof_ret(p, ++t, 0);
    }
    wd_prof_end(p, t + 10);
    wd_error err;
    wd_error_clear(&err);
    for (uint32_t run = 0; run <= 3; run++) {
        for (int by_total = 0; by_total < 2; by_total++) {
            wd_prof_func *fs;
            uint32_t n;
            CHECK_EQ(wd_prof_functions(p, run == 3 ? UINT32_MAX : run, by_total, &fs, &n, &err),
                     WD_OK);
            CHECK(n >= 3);
            for (uint32_t i = 1; i < n; i++) {
                const wd_prof_func *x = &fs[i - 1], *y = &fs[i];
                uint64_t kx = by_total ? x->total : x->self, ky = by_total ? y->total : y->self;
                wd_prof_sym_info a, b;
                wd_prof_symbol_get(p, x->sym, &a);
                wd_prof_symbol_get(p, y->sym, &b);
                int c = strcmp(a.name, b.name);
                CHECK(kx > ky || (kx == ky && (c < 0 || (c == 0 && x->sym < y->sym))));
            }
            /* the top `limit` are the list's first ones, ties included */
            const uint32_t limits[] = {0, 1, 2, 3, 5, n - 1, n, n + 5};
            for (size_t l = 0; l < WD_ARRAY_COUNT(limits); l++) {
                wd_prof_func *top;
                uint32_t m;
                CHECK_EQ(wd_prof_top_functions(p, run == 3 ? UINT32_MAX : run, by_total,
                                               limits[l], &top, &m, &err),
                         WD_OK);
                CHECK_EQ(m, limits[l] < n ? limits[l] : n);
                for (uint32_t i = 0; i < m; i++) {
                    CHECK_EQ(top[i].sym, fs[i].sym);
                    CHECK_EQ(top[i].self, fs[i].self);
                    CHECK_EQ(top[i].total, fs[i].total);
                    CHECK_EQ(top[i].calls, fs[i].calls);
                }
                wd_free(&ctx, top);
            }
            wd_free(&ctx, fs);
        }
    }
    /* the sum of the runs' lists is the list over all runs */
    wd_prof_func *all;
    uint32_t nall;
    CHECK_EQ(wd_prof_functions(p, UINT32_MAX, false, &all, &nall, &err), WD_OK);
    for (uint32_t i = 0; i < nall; i++) {
        uint64_t self = 0, calls = 0;
        for (uint32_t run = 0; run < 3; run++) {
            wd_prof_func *fs;
            uint32_t n;
            CHECK_EQ(wd_prof_functions(p, run, false, &fs, &n, &err), WD_OK);
            for (uint32_t k = 0; k < n; k++)
                if (fs[k].sym == all[i].sym)
                    self += fs[k].self, calls += fs[k].calls;
            wd_free(&ctx, fs);
        }
        CHECK_EQ(self, all[i].self);
        CHECK_EQ(calls, all[i].calls);
    }
    wd_free(&ctx, all);
    /* an event after the end: the figures follow it */
    uint64_t before = figures(p, "a").calls;
    wd_prof_call(p, t + 20, 0, syms[3]);
    wd_prof_ret(p, t + 25, 0);
    CHECK_EQ(figures(p, "a").calls, before + 1);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}
