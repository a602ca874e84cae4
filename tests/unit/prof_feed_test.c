/* prof_feed_test.c: events through a feed (profiler/feed.h), applied by its consumer thread
 * or where they were sent, give the profile they give applied straight to the profiler,
 * file for file: calls and returns by the hundred thousand (more chunks than may be in
 * flight, so the producer waits), symbols interned while events are in flight, strings
 * longer than a chunk, and every rare event; and with the stream's idle job (the files
 * written and the SVG's merge made as the runs are applied) run between events. */
#include "profiler/feed.h"
#include "profiler/output.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    return wd_test_rnd(&rng, n);
}

typedef struct sink sink;
static void events_job(void *arg);
static void join_feed(void *f);

static void no_join(void *arg)
{
    (void)arg;
}

/* Where the events go: the feed, or straight to the profiler (f NULL). */
typedef struct sink {
    wd_prof_feed *f;
    wd_prof *p;
    bool idle; /* wait for the consumer to catch up before the end */
    /* the end in two steps (wd_prof_feed_end_tree), the files written ahead into `files` */
    wd_prof_files *files;
    bool tree, taken;     /* what end_tree and end answered */
    const char *folded;   /* the folded stacks' file, and whether it was written ahead */
    bool folded_ahead;
    pthread_t maker;      /* the thread that sends the events */
    int events_runs;      /* the event files' job: its runs, and on which thread */
    bool events_on_maker;
    /* straight to the profiler, the stream's idle job run here between events, at random
     * points (its own generator), as the consumer runs it between chunks */
    wd_prof_files *stream;
    uint64_t srng;
    uint32_t idles, slices; /* the job's runs, and those that said there was more */
} sink;

static void s_idle(sink *s)
{
    if (s->stream == NULL || wd_test_rnd(&s->srng, 5) != 0)
        return;
    for (uint32_t n = 1 + wd_test_rnd(&s->srng, 3); n > 0; n--) {
        s->idles++;
        if (!wd_prof_files_stream(s->stream))
            break;
        s->slices++;
    }
}

static uint32_t s_symbol(sink *s, wd_prof_kind kind, uint32_t idx, const char *name)
{
    return s->f ? wd_prof_feed_symbol(s->f, kind, idx, name, strlen(name))
                : wd_prof_symbol(s->p, kind, idx, name, strlen(name));
}

static void s_call(sink *s, uint64_t t, int64_t ns, uint32_t sym)
{
    if (s->f)
        wd_prof_feed_call(s->f, t, ns, sym);
    else
        wd_prof_call(s->p, t, ns, sym);
    s_idle(s);
}

static void s_ret(sink *s, uint64_t t, int64_t ns)
{
    if (s->f)
        wd_prof_feed_ret(s->f, t, ns);
    else
        wd_prof_ret(s->p, t, ns);
    s_idle(s);
}

static void s_phase(sink *s, uint64_t t, int64_t ns, const char *name, bool begin)
{
    if (s->f)
        wd_prof_feed_phase(s->f, t, ns, name, begin);
    else
        wd_prof_phase(s->p, t, ns, name, begin);
    s_idle(s);
}

static void s_step(sink *s, uint64_t t, uint64_t cost, const char *what, uint64_t operand)
{
    if (s->f)
        wd_prof_feed_step(s->f, t, cost, what, operand);
    else
        wd_prof_step(s->p, t, cost, what, operand);
    s_idle(s);
}

static void s_level(sink *s, uint32_t level)
{
    if (s->f)
        wd_prof_feed_level(s->f, level);
    else
        wd_prof_level(s->p, level);
}

static void s_run(sink *s, const wd_prof_run_info *info)
{
    if (s->f)
        wd_prof_feed_run_info(s->f, info);
    else
        wd_prof_run_info_add(s->p, info);
    s_idle(s);
}

/* Three levels of runs; `calls` call events in all. Returns whether the feed had started
 * its thread before the end. */
static bool feed_events(sink *s, uint32_t calls)
{
    rng = 11;
    static char big[3 * WD_PROF_FEED_CHUNK * 8];
    memcpy(big, "section:", 8);
    for (size_t i = 8; i + 1 < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    big[sizeof big - 1] = '\0';
    uint32_t syms[40];
    uint32_t nsyms = 0;
    uint32_t entry = s_symbol(s, WD_PROF_ENTRY, 0, "kernel_run");
    uint32_t host = s_symbol(s, WD_PROF_HOST, 1, "smart_rollup_core.write_debug");
    uint64_t t = 10;
    int64_t ns = 100;
    uint32_t made = 0, bigs = calls >= 1000 ? 3 : 0;
    for (uint32_t run = 0; run < 6; run++) {
        if (run % 2 == 0)
            s_level(s, run / 2);
        uint64_t start = t;
        s_phase(s, t, ns, "decode", true);
        t += 50;
        s_phase(s, t, ns, "decode", false);
        s_call(s, t, ns, entry);
        uint32_t depth = 1;
        while (made < calls / 6 * (run + 1)) {
            t += 1 + rnd(20);
            ns += rnd(300);
            uint32_t c = rnd(16);
            if (c == 0 && nsyms < 40) { /* a function met for the first time */
                char name[32];
                snprintf(name, sizeof name, "_ZN3mod4f%uE", nsyms);
                syms[nsyms] = s_symbol(s, WD_PROF_DIRECT + nsyms % 2, nsyms, name);
                nsyms++;
            } else if (c == 1) {
                s_call(s, t, ns, host);
                bool b = bigs > 0 && rnd(1000) == 0;
                bigs -= b;
                s_phase(s, t, ns, b ? big : "section:s", rnd(2));
                s_ret(s, t + 5, ns);
            } else if (c == 2) {
                s_step(s, t, 1000 + rnd(90000), "memory.copy", rnd(5000));
            } else if (c < 9 && nsyms > 0 && depth < 30) {
                s_call(s, t, ns, syms[rnd(nsyms)]);
                made++;
                depth++;
            } else if (depth > 1) {
                s_ret(s, t, ns);
                depth--;
            }
        }
        if (run == 5) { /* stopped at the tick limit: open calls */
            wd_prof_run_info info = {run / 2, run % 2, start, t + 3 - start, WD_PROF_STUCK,
                                     false, "too many ticks", ns, NULL, 0, 0};
            s_run(s, &info);
            break;
        }
        while (depth-- > 0)
            s_ret(s, ++t, ns);
        /* the trap's backtrace goes through the feed too: one frame with a source line */
        static const wd_prof_frame bt[] = {{"_ZN3mod2f1E", 7, 0x1234, "src/lib.rs", 42},
                                           {"kernel_run", 3, 0x99, NULL, 0}};
        wd_prof_run_info info = {run / 2, run % 2, start, t - start + 1,
                                 run == 3 ? WD_PROF_TRAPPED : WD_PROF_OK, run % 2 == 0,
                                 run == 3 ? "unreachable" : "", ns, run == 3 ? bt : NULL,
                                 run == 3 ? 2 : 0, run == 3 ? 5 : 0};
        s_run(s, &info);
        t += 1000;
    }
    if (s->stream != NULL) { /* the end as `profile` makes it with a stream */
        wd_prof_end_tree(s->p, t + 100);
        wd_prof_files_write_ahead(s->stream);
        wd_prof_end_finish(s->p, t + 100);
        wd_prof_files_write_events(s->stream);
        wd_prof_files_events_taken(s->stream, no_join, NULL);
        return false;
    }
    if (s->f == NULL) {
        wd_prof_time_unit(s->p, 0.5);
        wd_prof_end(s->p, t + 100);
        return false;
    }
    bool started = s->f->started;
    wd_prof_feed_time_unit(s->f, 0.5);
    if (s->files != NULL) {
        s->tree = wd_prof_feed_end_tree(s->f, t + 100, events_job, s);
        struct stat st;
        if (s->tree)
            wd_prof_files_write_ahead(s->files);
        s->folded_ahead = stat(s->folded, &st) == 0 && st.st_size > 0;
        s->taken = wd_prof_feed_end(s->f, t + 100);
        if (s->taken)
            wd_prof_files_events_taken(s->files, join_feed, s->f);
        return started;
    }
    /* idle: the consumer has applied every chunk handed to it (waited for, up to 20 s), so
     * that the end applies the rest on this thread */
    struct timespec ms = {0, 1000000};
    for (int i = 0; s->idle && i < 20000 && !wd_prof_feed_caught_up(s->f); i++)
        nanosleep(&ms, NULL);
    wd_prof_feed_end(s->f, t + 100);
    return started && (!s->idle || s->f->took_back);
}

/* The event files' job, counted, on the thread it runs on. */
static void events_job(void *arg)
{
    sink *s = arg;
    s->events_runs++;
    s->events_on_maker = s->events_on_maker || pthread_equal(pthread_self(), s->maker);
    wd_prof_files_write_events(s->files);
}

static void join_feed(void *f)
{
    wd_prof_feed_join(f);
}

static const char *const exts[] = {".out", ".svg", ".trace.json", ".speedscope.json", ".json"};

enum how { DIRECT, FEED_HERE, FEED_THREAD, FEED_THREAD_IDLE, FEED_THREAD_SPLIT, STREAM_HERE };

/* The on-start job: counts its runs and whether one ran on the thread that made the feed. */
typedef struct start_job {
    pthread_t maker;
    int runs;
    bool on_maker;
} start_job;

static void start_job_run(void *arg)
{
    start_job *j = arg;
    j->runs++;
    j->on_maker = j->on_maker || pthread_equal(pthread_self(), j->maker);
}

/* Profiles `calls` calls into dir/t.*: events straight to the profiler, or through a feed
 * without or with its thread; stats out. */
static bool profile(enum how how, uint32_t calls, wd_prof_mode mode, const char *dir,
                    wd_prof_stats *stats, bool *started)
{
    wd_ctx pctx, fctx;
    wd_ctx_init(&pctx);
    wd_ctx_init(&fctx);
    wd_error err;
    wd_error_clear(&err);
    wd_prof_config cfg = {.mode = mode, .full_limit = 5000};
    wd_prof *p;
    if (wd_prof_new(&pctx, &cfg, &p, &err) != WD_OK)
        return false;
    wd_prof_feed f;
    bool threaded = how == FEED_THREAD || how == FEED_THREAD_IDLE || how == FEED_THREAD_SPLIT;
    wd_prof_feed_init(&f, &fctx, p, threaded);
    start_job job = {.maker = pthread_self()};
    wd_prof_out o = {.dir = dir, .base = "t", .with_time = true, .kernel = "k",
                     .tick_model = "m"};
    wd_prof_files *files = NULL;
    if (how == FEED_THREAD_SPLIT) { /* created as the consumer starts, as `profile` does */
        files = wd_prof_files_new(&o);
        if (files == NULL)
            return false;
        wd_prof_files_events_setup(files, p, &o);
        wd_prof_feed_on_start(&f, wd_prof_files_create, files);
        job.runs = -1; /* not counted here */
    } else if (how == STREAM_HERE) { /* the stream's files, its unit told at once */
        files = wd_prof_files_new(&o);
        if (files == NULL)
            return false;
        wd_prof_files_events_setup(files, p, &o);
        wd_prof_files_create(files);
        wd_prof_time_unit(p, 0.5);
    } else {
        wd_prof_feed_on_start(&f, start_job_run, &job);
    }
    bool may_thread = f.sh != NULL;
    char folded[700];
    snprintf(folded, sizeof folded, "%s/t.out", dir);
    sink s = {how == DIRECT || how == STREAM_HERE ? NULL : &f, p, how == FEED_THREAD_IDLE,
              how == STREAM_HERE ? NULL : files, false, false, folded, false, pthread_self(), 0,
              false, how == STREAM_HERE ? files : NULL, 7 + calls, 0, 0};
    *started = feed_events(&s, calls);
    if (files == NULL)
        wd_prof_feed_fini(&f);
    wd_prof_get_stats(p, stats);
    /* (split, this joins the consumer: what its job did is read after) */
    bool ok = may_thread == threaded && wd_prof_status(p, &err) == WD_OK &&
              wd_prof_write_files(p, &o, files, &err) == WD_OK;
    /* the job ran once on the consumer thread when there was one, else never; split, the
     * tree was read ahead and the event files written by the consumer */
    /* a full tree is merged in slices as it grows (an auto one turns early: given up) */
    ok = ok && (how == STREAM_HERE ? s.idles > 0 && (mode != WD_PROF_FULL || s.slices > 0)
                : files != NULL    ? s.tree && s.folded_ahead && s.taken && s.events_runs == 1 &&
                                      !s.events_on_maker
                                   : job.runs == (*started ? 1 : 0) && !job.on_maker);
    if (files != NULL)
        wd_prof_feed_fini(&f);
    wd_prof_run r; /* the trapped run's backtrace came through, strings and all */
    ok = ok && wd_prof_run_count(p) > 3;
    if (ok)
        wd_prof_run_get(p, 3, &r);
    ok = ok && r.frame_count == 2 && r.frames_more == 5 &&
         strcmp(r.frames[0].function, "_ZN3mod2f1E") == 0 && r.frames[0].offset == 0x1234 &&
         r.frames[0].file != NULL && strcmp(r.frames[0].file, "src/lib.rs") == 0 &&
         r.frames[0].line == 42 && r.frames[1].file == NULL && r.frames[1].func_idx == 3;
    wd_prof_free(p);
    return ok && pctx.live == 0 && fctx.live == 0;
}

/* The files of `how` against those of the events applied straight to the profiler. */
static bool same_as_direct(enum how how, uint32_t calls, wd_prof_mode mode, const char *da,
                           const char *db, wd_prof_stats *sb, bool *started)
{
    wd_prof_stats sa;
    bool direct_started;
    return profile(DIRECT, calls, mode, da, &sa, &direct_started) &&
           profile(how, calls, mode, db, sb, started) && sa.calls == sb->calls &&
           sa.nodes == sb->nodes && wd_test_same_files(da, db, "t", exts, 5);
}

static void compare_how(enum how how, uint32_t calls, wd_prof_mode mode, bool expect_thread)
{
    char dir[] = "/tmp/wasmdbg-feed-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char da[600], db[600];
    snprintf(da, sizeof da, "%s/a", dir);
    snprintf(db, sizeof db, "%s/b", dir);
    CHECK(mkdir(da, 0700) == 0 && mkdir(db, 0700) == 0);
    wd_prof_stats sa, sb;
    bool started_a, started_b;
    CHECK(same_as_direct(FEED_HERE, calls, mode, da, db, &sa, &started_a));
    bool two_cpus = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    CHECK(two_cpus || how == STREAM_HERE
              ? same_as_direct(how, calls, mode, da, db, &sb, &started_b)
                   : same_as_direct(FEED_HERE, calls, mode, da, db, &sb, &started_b));
    CHECK(!started_a);
    CHECK_EQ(started_b, two_cpus && expect_thread);
    CHECK_EQ(sa.calls, sb.calls);
    CHECK_EQ(sa.nodes, sb.nodes);
    CHECK(sa.calls >= calls / 6 * 5);
    rmdir(da);
    rmdir(db);
    rmdir(dir);
}

static void compare(uint32_t calls, wd_prof_mode mode, bool expect_thread)
{
    compare_how(FEED_THREAD, calls, mode, expect_thread);
}

TEST(prof_feed_same_profile)
{
    /* 300,000 calls: some 1.8M words, far more than WD_PROF_FEED_MAX_CHUNKS chunks */
    compare(300000, WD_PROF_AUTO, true);
}

TEST(prof_feed_full_tree)
{
    compare(20000, WD_PROF_FULL, true);
}

/* The consumer idle at the end: the last chunk is applied by the producer's thread, the
 * consumer joined later (wd_prof_feed_fini); feed_events checks that it was. */
TEST(prof_feed_end_takes_back_an_idle_consumer)
{
    compare_how(FEED_THREAD_IDLE, 20000, WD_PROF_FULL, true);
}

/* The end in two steps: the folded stacks written from the tree while the consumer computes
 * the figures, the event files by the consumer after them, every file as without. */
TEST(prof_feed_end_split_writes_ahead)
{
    compare_how(FEED_THREAD_SPLIT, 20000, WD_PROF_FULL, true);
    compare_how(FEED_THREAD_SPLIT, 300000, WD_PROF_AUTO, true);
}

/* The stream (wd_prof_files_stream: the time-ordered files run by run, the SVG's merge of
 * the runs as they are applied) run between events at random points, the split end after it:
 * every file as the events give it at once. A full tree (merged as it grows, waiting at open
 * nodes), then one that turns into a calling-context tree (the stream and the merge given up,
 * written at the end). */
TEST(prof_feed_stream_writes_the_same_files)
{
    for (uint32_t calls = 3000; calls <= 24000; calls *= 2)
        compare_how(STREAM_HERE, calls, WD_PROF_FULL, false);
    compare_how(STREAM_HERE, 60000, WD_PROF_AUTO, false);
}

TEST(prof_feed_small_profile_needs_no_thread)
{
    compare(50, WD_PROF_AUTO, false);
}

TEST(prof_feed_not_threaded_on_the_profilers_context)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_prof_config cfg = {.mode = WD_PROF_AUTO};
    wd_prof *p;
    CHECK_EQ(wd_prof_new(&ctx, &cfg, &p, &err), WD_OK);
    wd_prof_feed f;
    wd_prof_feed_init(&f, &ctx, p, true);
    CHECK(f.sh == NULL); /* no thread may be used */
    uint32_t a = wd_prof_feed_symbol(&f, WD_PROF_DIRECT, 3, "f", 1);
    uint32_t b = wd_prof_feed_symbol(&f, WD_PROF_DIRECT, 3, "f", 1);
    CHECK(a != b); /* feed ids are the feed's own ... */
    CHECK(strcmp(wd_prof_feed_symbol_raw(&f, b), "f") == 0);
    CHECK(strcmp(wd_prof_feed_symbol_raw(&f, 99), "") == 0);
    wd_prof_feed_call(&f, 10, 0, a);
    wd_prof_feed_call(&f, 20, 0, b);
    wd_prof_feed_ret(&f, 30, 0);
    wd_prof_feed_ret(&f, 40, 0);
    wd_prof_feed_end(&f, 50);
    size_t live = ctx.live;
    wd_prof_feed_call(&f, 60, 0, a); /* after the end: dropped (a run unwound late) */
    wd_prof_feed_ret(&f, 70, 0);
    CHECK_EQ(ctx.live, live);
    wd_prof_feed_fini(&f);
    CHECK_EQ(wd_prof_symbol_count(p), 2); /* ... one profiler symbol: root and f */
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    CHECK_EQ(st.calls, 2);
    CHECK_EQ(st.end_ticks, 50);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}
