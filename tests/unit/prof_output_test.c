/* prof_output_test.c: the profile's files (profiler/output.h) read back: folded stacks (both
 * orders, depth cuts), Chrome trace events, speedscope and the JSON profile parsed with
 * jansson, and the SVG checked for balance and self-containment; every total must agree. */
#include "profiler/output.h"
#include "profiler/wbuf.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    return wd_test_rnd(&rng, n);
}

/* Names that need escaping in every format. */
static const char *const names[] = {"plain", "semi;colon", "quote\"and\\back", "<tag&amp>",
                                    "new\nline", "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE",
                                    "bad\xff\xfeutf8", "_Z3fooi"};

/* Two levels of kernel runs with nested calls; returns the total ticks of the runs. */
static uint64_t feed(wd_prof *p, uint64_t seed)
{
    rng = seed;
    uint32_t syms[8];
    for (int i = 0; i < 8; i++)
        syms[i] = wd_prof_symbol(p, i % 2 ? WD_PROF_INDIRECT : WD_PROF_DIRECT, (uint32_t)i,
                                 names[i], strlen(names[i]));
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 9, "kernel_run", 10);
    uint64_t t = 1000, total = 0;
    int64_t ns = 0;
    for (int run = 0; run < 4; run++) {
        if (run % 2 == 0)
            wd_prof_level(p, (uint32_t)run / 2);
        uint64_t start = t;
        wd_prof_phase(p, t, ns, "decode", true);
        wd_prof_phase(p, t + 1, ns, "decode:code", true);
        t += 20;
        wd_prof_phase(p, t, ns, "decode:code", false);
        wd_prof_phase(p, t, ns, "decode", false);
        wd_prof_phase(p, t, ns, "link", true);
        t += 3;
        wd_prof_phase(p, t, ns, "link", false);
        wd_prof_call(p, t, ns, entry);
        int depth = 1;
        for (int e = 0; e < 300; e++) {
            t += rnd(15);
            ns += rnd(50);
            if (rnd(2) && depth < 12) {
                wd_prof_call(p, t, ns, syms[rnd(8)]);
                depth++;
            } else if (depth > 1) {
                wd_prof_ret(p, t, ns);
                depth--;
            }
        }
        while (depth-- > 0)
            wd_prof_ret(p, ++t, ns);
        total += t - start;
        wd_prof_run_info info = {(uint32_t)run / 2, (uint32_t)run % 2, start, t - start + 1,
                                 WD_PROF_OK, run % 2 == 0, "", ns, NULL, 0, 0};
        wd_prof_run_info_add(p, &info);
        t += 100000;
    }
    wd_prof_end(p, t);
    return total;
}

static char *slurp_base(const char *dir, const char *base, const char *ext)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s%s", dir, base, ext);
    size_t n;
    uint8_t *b = wd_test_read_file(path, &n);
    if (b == NULL)
        return NULL;
    char *s = realloc(b, n + 1);
    if (s == NULL) {
        free(b);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

static char *slurp(const char *dir, const char *ext)
{
    return slurp_base(dir, "prof", ext);
}

/* Sum of the counts of folded lines; checks the depth and, collapsed, the order. */
static bool folded_sum(const char *text, uint32_t max_depth, bool sorted, uint64_t *sum)
{
    *sum = 0;
    const char *line = text, *prev = NULL;
    size_t prev_len = 0;
    while (*line) {
        const char *end = strchr(line, '\n');
        if (end == NULL)
            return false;
        const char *sp = end;
        while (sp > line && sp[-1] != ' ')
            sp--;
        if (sp == line)
            return false;
        *sum += strtoull(sp, NULL, 10);
        uint32_t frames = 1;
        for (const char *c = line; c < sp; c++)
            frames += *c == ';';
        if (frames > max_depth)
            return false;
        size_t len = (size_t)(sp - 1 - line);
        if (sorted && prev != NULL) {
            size_t k = prev_len < len ? prev_len : len;
            int c = memcmp(prev, line, k);
            if (c > 0 || (c == 0 && prev_len >= len))
                return false;
        }
        prev = line;
        prev_len = len;
        line = end + 1;
    }
    return true;
}

static uint64_t ju(json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* The Chrome trace: every node's self ticks sum to the total; runs' ticks too. */
static bool check_chrome(const char *text, uint64_t total)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    if (doc == NULL)
        return false;
    json_t *ev = json_object_get(doc, "traceEvents");
    uint64_t self = 0, runs = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0)
            continue;
        json_t *args = json_object_get(e, "args");
        if (strcmp(json_string_value(json_object_get(e, "cat")), "run") == 0)
            runs += ju(args, "ticks");
        else
            self += ju(args, "self");
    }
    /* the unit: 1 tick = 1 ns, displayTimeUnit at the head, where Perfetto reads it */
    const char *unit =
        json_string_value(json_object_get(json_object_get(doc, "otherData"), "time_unit"));
    bool ok = unit != NULL && strcmp(unit, "1 ns = 1 tick") == 0 &&
              strncmp(text, "{\"displayTimeUnit\":\"ns\",", 23) == 0;
    json_decref(doc);
    return ok && self == total && runs == total;
}

/* speedscope: one profile, "all runs", whose events open and close a frame per kernel run
 * (`level L run I`, named as the run's slice) where the Chrome trace puts that slice, the runs
 * one after the other from 0 to endValue; inside them the ticks on top of the stack sum to
 * the total, and events nest and go forward. */
static bool check_speedscope(const char *text, const char *chrome, uint64_t total)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je), *tr = json_loads(chrome, 0, &je);
    if (doc == NULL || tr == NULL) {
        json_decref(doc);
        json_decref(tr);
        return false;
    }
    json_t *frames = json_object_get(json_object_get(doc, "shared"), "frames");
    json_t *profiles = json_object_get(doc, "profiles"), *pr = json_array_get(profiles, 0);
    json_t *runs = json_array(); /* the Chrome trace's run slices: name, ts, dur */
    json_t *tev = json_object_get(tr, "traceEvents");
    for (size_t i = 0; i < json_array_size(tev); i++) {
        json_t *e = json_array_get(tev, i);
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (cat != NULL && strcmp(cat, "run") == 0)
            json_array_append(runs, e);
    }
    size_t nruns = json_array_size(runs), nframes = json_array_size(frames), used = 0;
    bool ok = nruns == 4 && nframes > nruns && json_array_size(profiles) == 1 &&
              strcmp(json_string_value(json_object_get(pr, "name")), "all runs") == 0 &&
              strcmp(json_string_value(json_object_get(pr, "unit")), "none") == 0 &&
              strcmp(json_string_value(json_object_get(pr, "type")), "evented") == 0 &&
              ju(pr, "startValue") == 0;
    json_t *events = json_object_get(pr, "events");
    int64_t stack[256];
    int depth = 0;
    uint64_t last = 0, on_top = 0, run_end = 0;
    size_t run = 0;
    for (size_t k = 0; ok && k < json_array_size(events); k++) {
        json_t *e = json_array_get(events, k);
        uint64_t at = ju(e, "at");
        size_t fr = (size_t)ju(e, "frame");
        bool open = strcmp(json_string_value(json_object_get(e, "type")), "O") == 0;
        /* frames are numbered as first used; a run's frame, named as its slice, is opened
         * at depth 0 and no other frame is */
        ok = at >= last && fr < nframes && fr <= used;
        used += fr == used;
        bool is_run = false;
        for (size_t r = 0; ok && r < nruns; r++)
            is_run = is_run || json_equal(json_object_get(json_array_get(frames, fr), "name"),
                                          json_object_get(json_array_get(runs, r), "name"));
        ok = ok && (depth == 0) == (is_run && open);
        if (depth > 1)
            on_top += at - last;
        last = at;
        if (ok && depth == 0) { /* a run opens: its slice in the trace, after the last */
            json_t *slice = json_array_get(runs, run);
            ok = json_equal(json_object_get(json_array_get(frames, fr), "name"),
                            json_object_get(slice, "name")) &&
                 at == run_end && ju(slice, "ts") == at;
            run_end = at + ju(slice, "dur");
            run++;
        }
        if (ok && open) {
            ok = depth < 256;
            if (ok)
                stack[depth++] = (int64_t)fr;
        } else if (ok) {
            ok = depth > 0 && stack[depth - 1] == (int64_t)fr && (depth > 1 || at == run_end);
            depth--;
        }
    }
    ok = ok && depth == 0 && run == nruns && used == nframes && ju(pr, "endValue") == run_end;
    json_decref(runs);
    json_decref(doc);
    json_decref(tr);
    return ok && on_top == total;
}

/* The JSON profile: totals, phases and functions agree. */
static bool check_json(const char *text, uint64_t total)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    if (doc == NULL)
        return false;
    uint64_t self = 0, runs = 0, phases = 0;
    json_t *fs = json_object_get(doc, "functions");
    for (size_t i = 0; i < json_array_size(fs); i++)
        self += ju(json_array_get(fs, i), "self");
    json_t *levels = json_object_get(doc, "levels");
    for (size_t l = 0; l < json_array_size(levels); l++) {
        json_t *rs = json_object_get(json_array_get(levels, l), "runs");
        for (size_t r = 0; r < json_array_size(rs); r++) {
            json_t *run = json_array_get(rs, r);
            runs += ju(run, "full_execution");
            const char *key;
            json_t *v;
            json_object_foreach(json_object_get(run, "phases"), key, v)
                phases += (uint64_t)json_integer_value(v);
        }
    }
    /* the tree holds full_execution; a run's ticks are its effective ticks when the PVM gave
     * them (run_info), else the same */
    bool ok = ju(doc, "full_execution") == total && self == total && runs == total &&
              json_array_size(levels) == 2 && ju(doc, "kernel_runs") == 4 &&
              strcmp(json_string_value(json_object_get(doc, "tick_model")), "test-model") == 0;
    /* link + decode + kernel_run: every tick of these runs is in a phase */
    ok = ok && phases == total;
    json_decref(doc);
    return ok;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

static bool check_svg(const char *text)
{
    size_t n = strlen(text);
    return strncmp(text, "<?xml", 5) == 0 && n > 8 && strcmp(text + n - 7, "</svg>\n") == 0 &&
           count(text, "<g ") + count(text, "<g>") == count(text, "</g>") &&
           count(text, "<title>") == count(text, "</title>") && count(text, "http") == 1 &&
           count(text, "xmlns=\"http://www.w3.org/2000/svg\"") == 1 && count(text, "href") == 0 &&
           count(text, "url(") == 0 && count(text, "@import") == 0 &&
           count(text, "<script") == 1 && count(text, "\n") > 10 && count(text, "<g data-name") > 5;
}

static char *read_stream(FILE *f)
{
    long size = ftell(f);
    char *s = size >= 0 ? calloc(1, (size_t)size + 1) : NULL;
    rewind(f);
    if (s != NULL && fread(s, 1, (size_t)size, f) != (size_t)size) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* Removes the five files of a profile named `base` in dir, and dir. */
static void remove_outputs(const char *dir, const char *base)
{
    for (int i = 0; i < WD_PROF_FILE_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s%s", dir, base, wd_prof_file_ext[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A profiler in `mode` on ctx, NULL when none can be made. */
static wd_prof *new_prof(wd_ctx *ctx, wd_prof_mode mode)
{
    wd_prof_config cfg = {.mode = mode};
    wd_prof *p = NULL;
    wd_error err;
    wd_error_clear(&err);
    return wd_prof_new(ctx, &cfg, &p, &err) == WD_OK ? p : NULL;
}

static void outputs(wd_prof_mode mode, bool collapsed, uint32_t max_depth)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, mode);
    CHECK(p != NULL);
    wd_error err;
    wd_error_clear(&err);
    uint64_t total = feed(p, 42);
    char dir[] = "/tmp/wasmdbg-prof-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    wd_prof_out o = {.dir = dir, .base = "prof", .collapsed = collapsed, .with_time = true,
                     .max_depth = max_depth, .kernel = "k.wasm", .tick_model = "test-model"};
    CHECK_EQ(wd_prof_write_files(p, &o, NULL, &err), WD_OK);
    char *folded = slurp(dir, ".out"), *chrome = slurp(dir, ".trace.json");
    char *ss = slurp(dir, ".speedscope.json"), *json = slurp(dir, ".json"),
         *svg = slurp(dir, ".svg");
    CHECK(folded && chrome && ss && json && svg);
    uint64_t sum;
    CHECK(folded_sum(folded, max_depth ? max_depth : 100, collapsed, &sum));
    CHECK_EQ(sum, total);
    CHECK(check_chrome(chrome, total));
    CHECK(check_speedscope(ss, chrome, total));
    CHECK(check_json(json, total));
    CHECK(check_svg(svg));
    /* a `;` in a name is escaped in folded stacks only, where it separates frames */
    CHECK(strstr(folded, "semi:colon") != NULL && strstr(folded, "semi;colon") == NULL);
    CHECK(strstr(json, "\"semi;colon\"") != NULL && strstr(json, "semi:colon") == NULL);
    CHECK(strstr(ss, "\"semi;colon\"") != NULL && strstr(chrome, "\"semi;colon\"") != NULL);
    /* the other folded order, written directly */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_EQ(wd_prof_write_folded(p, f, !collapsed, max_depth, &err), WD_OK);
    char *other = read_stream(f);
    CHECK(other != NULL);
    CHECK(folded_sum(other, max_depth ? max_depth : 100, !collapsed, &sum));
    CHECK_EQ(sum, total);
    free(other);
    remove_outputs(dir, "prof");
    free(folded);
    free(chrome);
    free(ss);
    free(json);
    free(svg);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

TEST(prof_outputs_full)
{
    outputs(WD_PROF_FULL, false, 0);
}

TEST(prof_outputs_cct_collapsed)
{
    outputs(WD_PROF_CCT, true, 0);
}

TEST(prof_outputs_depth_cut)
{
    outputs(WD_PROF_FULL, true, 3);
    outputs(WD_PROF_AUTO, false, 2);
}

TEST(prof_names_for_display)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL);
    CHECK(p != NULL);
    wd_error err;
    wd_error_clear(&err);
    struct {
        wd_prof_kind kind;
        const char *raw, *name;
    } cases[] = {
        {WD_PROF_DIRECT, "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE", "core::fmt::Formatter::pad"},
        {WD_PROF_DIRECT, "_RNvCs1234_7mycrate3foo", "mycrate::foo"},
        {WD_PROF_INDIRECT, "_ZN3foo3barEv", "foo::bar()"},
        {WD_PROF_DIRECT, "_Z3fooi", "foo(int)"},
        {WD_PROF_DIRECT, "main", "main"},
        {WD_PROF_DIRECT, "func[12]", "func[12]"},
        {WD_PROF_INTERNAL, "decode:code", "%interpreter(decode:code)"},
        {WD_PROF_DIRECT, "a;b\nc", "a;b?c"}, /* `;` becomes `:` in folded stacks only */
        {WD_PROF_SECTION, "bad\xff", "bad\\xff"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t s = wd_prof_symbol(p, cases[i].kind, 1, cases[i].raw, strlen(cases[i].raw));
        wd_prof_sym_info info;
        wd_prof_symbol_get(p, s, &info);
        CHECK_STR_CONTAINS(info.name, cases[i].name);
        CHECK_EQ(strlen(info.name), strlen(cases[i].name));
        CHECK(cases[i].kind == WD_PROF_SECTION || strcmp(info.raw, cases[i].raw) == 0);
    }
    /* a function called directly and indirectly is one function in statistics */
    uint32_t d = wd_prof_symbol(p, WD_PROF_DIRECT, 7, "g", 1);
    uint32_t in = wd_prof_symbol(p, WD_PROF_INDIRECT, 7, "g", 1);
    wd_prof_sym_info a, b;
    wd_prof_symbol_get(p, d, &a);
    wd_prof_symbol_get(p, in, &b);
    CHECK(d != in && a.func == b.func);
    CHECK_EQ(wd_prof_symbol(p, WD_PROF_DIRECT, 7, "g", 1), d);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}

/* The writers' number formatting (wbuf.h) against printf. */
TEST(prof_numbers_as_printf)
{
    uint64_t v = 1;
    rng = 7;
    for (int i = 0; i < 200000; i++) {
        if (i < 100000)
            v = (uint64_t)i;
        else if (i < 100200)
            v = v * 10 + (uint64_t)(i % 3) - 1 + (v == 0); /* around powers of ten */
        else
            v = ((uint64_t)rnd(1u << 31) << 33 ^ rnd(1u << 31)) >> rnd(64);
        char want[48], got[48];
        snprintf(want, sizeof want, "%" PRIu64, v);
        *wp_u64(got, v) = '\0';
        CHECK(strcmp(want, got) == 0);
        snprintf(want, sizeof want, "%" PRId64, -(int64_t)(v >> 1));
        *wp_i64(got, -(int64_t)(v >> 1)) = '\0';
        CHECK(strcmp(want, got) == 0);
    }
    char got[48];
    *wp_u64(got, UINT64_MAX) = '\0';
    CHECK(strcmp(got, "18446744073709551615") == 0);
    *wp_i64(got, INT64_MIN) = '\0';
    CHECK(strcmp(got, "-9223372036854775808") == 0);
}

/* A profile big enough for wd_prof_write_files to write the event files on a thread: they
 * are the bytes the writers give one by one, and nothing leaks; files named ahead get the
 * same bytes whether created ahead or at the write, are removed when discarded, and a
 * failure names the file. */
TEST(prof_files_on_a_thread)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_prof *p = new_prof(&ctx, WD_PROF_FULL);
    CHECK(p != NULL);
    wd_error err;
    wd_error_clear(&err);
    rng = 99;
    uint32_t syms[5];
    for (uint32_t i = 0; i < 5; i++)
        syms[i] = wd_prof_symbol(p, WD_PROF_DIRECT, i, names[i], strlen(names[i]));
    uint32_t entry = wd_prof_symbol(p, WD_PROF_ENTRY, 9, "kernel_run", 10);
    uint64_t t = 100;
    for (int run = 0; run < 2; run++) {
        wd_prof_phase(p, t, (int64_t)t, "decode", true);
        wd_prof_phase(p, t + 5, (int64_t)t + 5, "decode", false);
        t += 7;
        wd_prof_call(p, t, (int64_t)t, entry);
        int depth = 1;
        for (int e = 0; e < 8000; e++) {
            t += rnd(9);
            if (rnd(2) && depth < 30) {
                wd_prof_call(p, t, (int64_t)t * 3, syms[rnd(5)]);
                depth++;
            } else if (depth > 1) {
                wd_prof_ret(p, t, (int64_t)t * 3);
                depth--;
            }
        }
        while (depth-- > 0) {
            t++;
            wd_prof_ret(p, t, (int64_t)t * 3);
        }
        t += 1000;
    }
    wd_prof_end(p, t + 100);
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    CHECK(st.nodes > 4096);
    char dir[] = "/tmp/wasmdbg-prof-thread-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    wd_prof_out o = {.dir = dir, .base = "t", .with_time = true, .kernel = "k", .tick_model = "m"};
    CHECK_EQ(wd_prof_write_files(p, &o, NULL, &err), WD_OK);
    char *chrome = slurp_base(dir, "t", ".trace.json"), *ss = slurp_base(dir, "t", ".speedscope.json");
    char *folded = slurp_base(dir, "t", ".out");
    FILE *f1 = tmpfile(), *f2 = tmpfile(), *f3 = tmpfile();
    CHECK(f1 != NULL && f2 != NULL && f3 != NULL);
    CHECK_EQ(wd_prof_write_chrome(p, f1, &o, &err), WD_OK);
    CHECK_EQ(wd_prof_write_speedscope(p, f2, &o, &err), WD_OK);
    CHECK_EQ(wd_prof_write_folded(p, f3, false, 0, &err), WD_OK);
    char *chrome1 = read_stream(f1), *ss1 = read_stream(f2), *folded1 = read_stream(f3);
    CHECK(chrome && ss && folded && chrome1 && ss1 && folded1);
    CHECK(strlen(chrome) > 100000 && strcmp(chrome, chrome1) == 0);
    CHECK(strcmp(ss, ss1) == 0 && strcmp(folded, folded1) == 0);
    /* files named ahead get the same bytes, created ahead (u) or by the write (w) */
    static const char *const same_exts[] = {".out", ".svg", ".trace.json", ".speedscope.json"};
    static const char *const bases[] = {"u", "w"};
    char path[512];
    for (int b = 0; b < 2; b++) {
        o.base = bases[b];
        wd_prof_files *pre = wd_prof_files_new(&o);
        CHECK(pre != NULL);
        snprintf(path, sizeof path, "%s/%s.json", dir, bases[b]);
        if (b == 0) {
            wd_prof_files_create(pre);
            CHECK(access(path, F_OK) == 0);
        } else {
            CHECK(access(path, F_OK) != 0);
        }
        CHECK_EQ(wd_prof_write_files(p, &o, pre, &err), WD_OK);
        for (int k = 0; k < 4; k++) {
            char *x = slurp_base(dir, "t", same_exts[k]);
            char *y = slurp_base(dir, bases[b], same_exts[k]);
            CHECK(x != NULL && y != NULL && strcmp(x, y) == 0);
            free(x);
            free(y);
        }
        remove_outputs(dir, bases[b]);
    }
    /* discarded, created or not: nothing is left */
    o.base = "v";
    wd_prof_files *made = wd_prof_files_new(&o);
    CHECK(made != NULL);
    wd_prof_files_create(made);
    snprintf(path, sizeof path, "%s/v.svg", dir);
    CHECK(access(path, F_OK) == 0);
    wd_prof_files_discard(made);
    CHECK(access(path, F_OK) != 0);
    wd_prof_files_discard(wd_prof_files_new(&o));
    snprintf(path, sizeof path, "%s/v.out", dir);
    CHECK(access(path, F_OK) != 0);
    /* names taken (a profile started in the same millisecond, a stray file): the next free
     * base, all five files under it, nothing of the others' touched; a fixed base is refused */
    o.base = "c";
    wd_prof_files *c1 = wd_prof_files_new(&o), *c2 = wd_prof_files_new(&o);
    CHECK(c1 != NULL && c2 != NULL);
    snprintf(path, sizeof path, "%s/c-2.json", dir);
    FILE *stray = fopen(path, "w");
    CHECK(stray != NULL && fputs("stray", stray) >= 0 && fclose(stray) == 0);
    CHECK_EQ(wd_prof_files_ready(c1, &err), WD_OK);
    CHECK_EQ(wd_prof_files_ready(c2, &err), WD_OK);
    CHECK(strcmp(wd_prof_files_base(c1), "c") == 0 && strcmp(wd_prof_files_base(c2), "c-3") == 0);
    char *kept = slurp_base(dir, "c-2", ".json");
    snprintf(path, sizeof path, "%s/c-2.out", dir);
    CHECK(kept != NULL && strcmp(kept, "stray") == 0 && access(path, F_OK) != 0);
    free(kept);
    snprintf(path, sizeof path, "%s/c-3.speedscope.json", dir);
    CHECK(access(path, F_OK) == 0);
    o.fixed_base = true;
    wd_prof_files *c3 = wd_prof_files_new(&o);
    CHECK(c3 != NULL);
    CHECK_EQ(wd_prof_files_ready(c3, &err), WD_ERR_IO);
    CHECK(strstr(err.msg, "/c.out: cannot write: File exists") != NULL);
    wd_error_clear(&err);
    o.fixed_base = false;
    wd_prof_files_discard(c3);
    wd_prof_files_discard(c2);
    wd_prof_files_discard(c1);
    snprintf(path, sizeof path, "%s/c.svg", dir);
    CHECK(access(path, F_OK) != 0);
    remove_outputs(dir, "c-2");
    remove_outputs(dir, "t");
    /* created ahead in a directory that is not there: the write names the file */
    o.base = "v";
    o.dir = "/nonexistent-wasmdbg-dir";
    wd_prof_files *pre = wd_prof_files_new(&o);
    CHECK(pre != NULL);
    wd_prof_files_create(pre);
    CHECK_EQ(wd_prof_write_files(p, &o, pre, &err), WD_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent-wasmdbg-dir/v.out: cannot write") != NULL);
    free(chrome);
    free(ss);
    free(folded);
    free(chrome1);
    free(ss1);
    free(folded1);
    wd_prof_free(p);
    CHECK_EQ(ctx.live, 0);
}
