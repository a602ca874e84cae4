/* profhook.c: engine hooks to profiler events, source lines, and the profile summary. */
#include "cli/profhook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"

/* ---- the adapter ------------------------------------------------------------------------ */

static int64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t wd_profhook_now(const wd_profhook *h)
{
    return h->with_time ? clock_ns() - h->t0 : 0;
}

static void forget(wd_profhook *h)
{
    wd_free(h->ctx, h->cache);
    h->cache = NULL;
    h->cache_count = 0;
    h->module = NULL;
    h->host_count = 0;
}

/* Symbols are cached per module by function index; a new module (another run decodes the
 * kernel again, and may have upgraded it) starts a new cache. */
static void use_module(wd_profhook *h, const wd_module *m)
{
    forget(h);
    h->module = m;
    h->cache = wd_alloc(h->ctx, (size_t)m->func_count * 3 * sizeof *h->cache + 1);
    if (h->cache != NULL) {
        h->cache_count = m->func_count;
        for (size_t i = 0; i < (size_t)m->func_count * 3; i++)
            h->cache[i] = UINT32_MAX;
    }
    int64_t e = wd_module_find_export(m, "kernel_run", WD_EXTERN_FUNC);
    h->kernel_run = e >= 0 ? (int64_t)m->exports[e].idx : -1;
}

static WD_NOINLINE uint32_t host_symbol(wd_profhook *h, const wd_func *f)
{
    for (uint32_t i = 0; i < h->host_count; i++)
        if (h->hosts[i].func == f)
            return h->hosts[i].sym;
    char name[160];
    snprintf(name, sizeof name, "%s.%s", f->host_module ? f->host_module : "?",
             f->host_name ? f->host_name : "?");
    uint32_t sym = wd_prof_symbol(h->prof, WD_PROF_HOST, f->idx, name, strlen(name));
    if (h->host_count < WD_ARRAY_COUNT(h->hosts))
        h->hosts[h->host_count++] = (wd_profhook_host){f, sym};
    return sym;
}

static WD_NOINLINE uint32_t wasm_symbol(wd_profhook *h, const wd_func *f, int slot,
                                        wd_prof_kind kind)
{
    const wd_module *m = f->inst->module;
    char buf[48];
    const char *name = kind == WD_PROF_ENTRY && (int64_t)f->idx == h->kernel_run
                           ? "kernel_run"
                           : wd_module_func_name(m, f->idx, buf, sizeof buf);
    uint32_t sym = wd_prof_symbol(h->prof, kind, f->idx, name, strlen(name));
    if (h->cache != NULL && f->idx < h->cache_count)
        h->cache[(size_t)slot * h->cache_count + f->idx] = sym;
    return sym;
}

static void on_call(void *ud, uint64_t ticks, const struct wd_func *f, wd_call_kind kind)
{
    wd_profhook *h = ud;
    uint32_t sym;
    if (f->code == NULL) {
        sym = host_symbol(h, f);
    } else {
        if (WD_UNLIKELY(f->inst->module != h->module))
            use_module(h, f->inst->module);
        int slot = kind == WD_CALL_ENTRY ? 0 : kind == WD_CALL_INDIRECT ? 2 : 1;
        sym = h->cache != NULL && f->idx < h->cache_count
                  ? h->cache[(size_t)slot * h->cache_count + f->idx]
                  : UINT32_MAX;
        if (WD_UNLIKELY(sym == UINT32_MAX))
            sym = wasm_symbol(h, f, slot,
                              slot == 0   ? WD_PROF_ENTRY
                              : slot == 2 ? WD_PROF_INDIRECT
                                          : WD_PROF_DIRECT);
    }
    wd_prof_call(h->prof, ticks, wd_profhook_now(h), sym);
}

static void on_ret(void *ud, uint64_t ticks, const struct wd_func *f)
{
    wd_profhook *h = ud;
    (void)f;
    wd_prof_ret(h->prof, ticks, wd_profhook_now(h));
}

static void on_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    wd_profhook *h = ud;
    if (begin && strcmp(name, "decode") == 0)
        forget(h); /* a new run: its module and host functions are new objects */
    wd_prof_phase(h->prof, ticks, wd_profhook_now(h), name, begin);
}

static void on_big_step(void *ud, uint64_t ticks, uint64_t cost, const char *what,
                        uint64_t operand)
{
    wd_profhook *h = ud;
    if (cost >= h->step_floor)
        wd_prof_step(h->prof, ticks, cost, what, operand);
}

void wd_profhook_init(wd_profhook *h, wd_ctx *ctx, wd_prof *prof, bool with_time,
                      uint64_t step_floor)
{
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    h->prof = prof;
    h->with_time = with_time;
    h->t0 = clock_ns();
    h->step_floor = step_floor;
    h->kernel_run = -1;
    h->hooks = (wd_hooks){h, on_call, on_ret, on_phase, on_big_step};
}

void wd_profhook_fini(wd_profhook *h)
{
    forget(h);
}

/* ---- source lines ----------------------------------------------------------------------- */

void wd_srcloc_init(wd_srcloc *s, wd_ctx *ctx)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
}

void wd_srcloc_fini(wd_srcloc *s)
{
    wd_dwarf_lines_free(s->lines);
    s->lines = NULL;
    s->module = NULL;
}

static uint32_t leb_size(uint64_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static const wd_custom *custom(const wd_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->custom_count; i++)
        if (strcmp(m->customs[i].name, name) == 0)
            return &m->customs[i];
    return NULL;
}

/* DWARF addresses in wasm count from the code section's contents (its function count
 * first). The module keeps where each body starts (after its size): the contents start
 * that size's and the count's LEB128 bytes earlier (as producers write them: minimal). */
static void load_lines(wd_srcloc *s, const wd_module *m)
{
    wd_srcloc_fini(s);
    s->module = m;
    const wd_custom *line = custom(m, ".debug_line");
    uint32_t first = m->import_func_count;
    if (line == NULL || first >= m->func_count)
        return;
    const wd_funcdef *fd = &m->funcs[first];
    uint64_t back = leb_size(fd->body_size) + leb_size(m->func_count - first);
    if (fd->body_offset < back)
        return;
    s->code_start = fd->body_offset - back;
    const wd_custom *ls = custom(m, ".debug_line_str"), *str = custom(m, ".debug_str");
    wd_dwarf_sections secs = {line->data, line->size, ls ? ls->data : NULL, ls ? ls->size : 0,
                              str ? str->data : NULL, str ? str->size : 0};
    wd_error err;
    wd_error_clear(&err);
    if (wd_dwarf_lines_parse(s->ctx, &secs, &s->lines, &err) != WD_OK)
        s->lines = NULL; /* custom sections never make a module unusable */
}

bool wd_srcloc_lookup(void *ud, const wd_module *m, uint32_t offset, const char **file,
                      uint32_t *line, uint32_t *column)
{
    wd_srcloc *s = ud;
    if (m != s->module)
        load_lines(s, m);
    if (s->lines == NULL || offset < s->code_start)
        return false;
    return wd_dwarf_lookup(s->lines, offset - s->code_start, file, line, column);
}

/* ---- files and summary ------------------------------------------------------------------ */

bool wd_cli_prof_dir(const char *asked, char **made, const char **dir)
{
    *made = NULL;
    if (asked != NULL) {
        struct stat st;
        if (stat(asked, &st) != 0 && mkdir(asked, 0777) != 0) {
            fprintf(stderr, "wasmdbg: %s: cannot create the directory: %s\n", asked,
                    strerror(errno));
            return false;
        }
        *dir = asked;
        return true;
    }
    const char *tmp = getenv("TMPDIR");
    size_t n = strlen(tmp && *tmp ? tmp : "/tmp") + 32;
    char *t = malloc(n);
    if (t == NULL)
        return false;
    snprintf(t, n, "%s/wasmdbg-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(t) == NULL) {
        fprintf(stderr, "wasmdbg: %s: cannot create a directory: %s\n", t, strerror(errno));
        free(t);
        return false;
    }
    *made = t;
    *dir = t;
    return true;
}

static const char *fmt_ns(int64_t ns, char *buf, size_t size)
{
    if (ns < 1000)
        snprintf(buf, size, "%lldns", (long long)ns);
    else if (ns < 1000000)
        snprintf(buf, size, "%.3fus", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, size, "%.3fms", (double)ns / 1e6);
    else
        snprintf(buf, size, "%.3fs", (double)ns / 1e9);
    return buf;
}

static void ticks_line(const char *label, uint64_t ticks, int64_t ns, bool with_time)
{
    char b[32];
    if (with_time)
        printf("%s: %llu ticks (%s)\n", label, (unsigned long long)ticks, fmt_ns(ns, b, sizeof b));
    else
        printf("%s: %llu ticks\n", label, (unsigned long long)ticks);
}

static const char *sym_name(const wd_prof *p, uint32_t sym)
{
    wd_prof_sym_info s;
    wd_prof_symbol_get(p, sym, &s);
    return s.name;
}

static void print_stack(const wd_prof *p, const uint32_t *syms, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (n > 24 && i == 16) {
            printf("  ... %u more frames\n", n - 24);
            i = n - 8;
        }
        printf("  #%u %s\n", i, sym_name(p, syms[i]));
    }
}

/* The reference's per-run block, with the outcome when it is not a plain return. */
static void print_run(const wd_prof *p, uint32_t i, bool with_time)
{
    wd_prof_run r;
    wd_prof_run_get(p, i, &r);
    static const char *const labels[WD_PROF_PH_COUNT] = {
        "%interpreter(decode)", "%interpreter(link)", "%interpreter(init)", "kernel_run"};
    printf("----------------------\nDetailed results for a `kernel_run`:\n");
    for (int k = 0; k < WD_PROF_PH_COUNT; k++)
        if (r.has_phase[k])
            ticks_line(labels[k], r.phase[k], r.phase_ns[k], with_time);
    printf("\n");
    ticks_line("Full execution", r.ticks, r.ns, with_time);
    printf("(level %u, kernel run %u%s)\n", r.level, r.index, r.reboot ? ", reboot" : "");
    if (r.has_info && r.outcome != WD_PROF_OK)
        printf("kernel_run %s: %s\n", wd_prof_outcome_name(r.outcome), r.reason);
    if (r.stopped) {
        printf("stopped at tick %llu with %u call%s open (closed there):\n",
               (unsigned long long)r.stop_tick, r.open_count, r.open_count == 1 ? "" : "s");
        print_stack(p, r.open, r.open_count);
    } else if (r.inconsistent) {
        printf("The resulting call graph is inconsistent for this specific `kernel_run`, please "
               "open an issue.\n");
    } else if (r.has_info && r.outcome != WD_PROF_OK && r.unwound_count > 0) {
        printf("backtrace (the calls that ended at the trap's tick, innermost first):\n");
        print_stack(p, r.unwound, r.unwound_count);
    }
}

static void print_functions(wd_ctx *ctx, wd_prof *p, bool by_total, uint64_t all, bool with_time)
{
    wd_prof_func *fs;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_functions(p, UINT32_MAX, by_total, &fs, &n, &err) != WD_OK)
        return;
    printf("\ntop %u functions by %s ticks:\n", n < 20 ? n : 20, by_total ? "total" : "self");
    printf("  %14s %7s %14s %7s %10s  %s\n", by_total ? "total" : "self", "%",
           by_total ? "self" : "total", "%", "calls", with_time ? "function (time)" : "function");
    for (uint32_t i = 0; i < n && i < 20; i++) {
        uint64_t a = by_total ? fs[i].total : fs[i].self, b = by_total ? fs[i].self : fs[i].total;
        char t[32] = "";
        if (with_time)
            fmt_ns(by_total ? fs[i].total_ns : fs[i].self_ns, t, sizeof t);
        printf("  %14llu %6.2f%% %14llu %6.2f%% %10llu  %s%s%s%s\n", (unsigned long long)a,
               all ? 100.0 * (double)a / (double)all : 0.0, (unsigned long long)b,
               all ? 100.0 * (double)b / (double)all : 0.0, (unsigned long long)fs[i].calls,
               sym_name(p, fs[i].sym), with_time ? " (" : "", t, with_time ? ")" : "");
    }
    wd_free(ctx, fs);
}

static void print_hot(wd_prof *p, const wd_cli_prof_opts *o)
{
    wd_prof_hot *h;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_hot_steps(p, 0.02, 10, &h, &n, &err) != WD_OK)
        return;
    printf("\nhot steps (single steps costing 2%% or more of their kernel run):\n");
    if (n == 0)
        printf("  none\n");
    for (uint32_t i = 0; i < n; i++) {
        wd_prof_sym_info w;
        wd_prof_symbol_get(p, h[i].what, &w);
        printf("  %12llu ticks %5.1f%%  %s", (unsigned long long)h[i].ticks, 100.0 * h[i].share,
               w.name);
        if (h[i].in != UINT32_MAX && w.kind != WD_PROF_INTERNAL)
            printf(" in %s", sym_name(p, h[i].in));
        if (w.kind == WD_PROF_STEP) {
            const char *unit = strstr(w.raw, "grow") ? "pages" : strncmp(w.raw, "table", 5) == 0
                                                                     ? "elements"
                                                                     : "bytes";
            printf(": %llu %s", (unsigned long long)h[i].operand, unit);
        } else if (w.kind == WD_PROF_HOST && o->host_per_byte != 0) {
            printf(": up to %llu bytes moved",
                   (unsigned long long)(h[i].ticks / o->host_per_byte));
        }
        printf(" (level %u run %u", h[i].level, h[i].run);
        if (h[i].count > 1)
            printf("; %llu such steps, %llu ticks in all", (unsigned long long)h[i].count,
                   (unsigned long long)h[i].total);
        printf(")\n");
    }
    wd_free(o->ctx, h);
}

static void print_mode(const wd_prof *p)
{
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    if (st.mode == WD_PROF_FULL)
        printf("\nmode: full call tree (%s%llu calls, %u nodes)\n",
               st.asked == WD_PROF_AUTO ? "auto; " : "", (unsigned long long)st.calls, st.nodes);
    else if (!st.switched)
        printf("\nmode: calling-context tree (%llu calls merged into %u nodes)\n",
               (unsigned long long)st.calls, st.nodes);
    else
        printf("\nmode: calling-context tree (%s: the full tree reached its node limit at call "
               "%llu; %llu calls merged into %u nodes; time-ordered files show each call path "
               "once, in first-call order)\n",
               wd_prof_mode_name(st.asked), (unsigned long long)st.switched_at,
               (unsigned long long)st.calls, st.nodes);
}

static void print_summary(wd_prof *p, const wd_cli_prof_opts *o)
{
    const wd_prof_out *out = &o->out;
    bool wt = out->with_time;
    printf("Profiling result can be found in %s/%s%s\n", out->dir, out->base,
           wd_prof_file_ext[WD_PROF_FILE_FOLDED]);
    uint32_t nruns = wd_prof_run_count(p);
    uint64_t total = 0, ph[WD_PROF_PH_COUNT] = {0};
    int64_t ns = 0;
    for (uint32_t i = 0; i < nruns; i++) {
        print_run(p, i, wt);
        wd_prof_run r;
        wd_prof_run_get(p, i, &r);
        total += r.ticks;
        ns += r.ns;
        for (int k = 0; k < WD_PROF_PH_COUNT; k++)
            ph[k] += r.phase[k];
    }
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    printf("----------------------\nFull execution with padding: %llu ticks\n",
           (unsigned long long)st.end_ticks);

    char b[32];
    printf("\n== wasmdbg: %u kernel run%s on %u level%s ==\n", nruns, nruns == 1 ? "" : "s",
           st.levels, st.levels == 1 ? "" : "s");
    printf("total: %llu ticks in kernel runs", (unsigned long long)total);
    if (wt)
        printf(" (%s)", fmt_ns(ns, b, sizeof b));
    printf("\n");
    for (int k = 0; k < WD_PROF_PH_COUNT; k++)
        printf("  %-10s %16llu %7.2f%%\n", wd_prof_phase_names[k], (unsigned long long)ph[k],
               total ? 100.0 * (double)ph[k] / (double)total : 0.0);
    printf("padding: %llu ticks (inbox collection, entering padding, the unused ticks of each "
           "period)\n",
           (unsigned long long)(st.end_ticks > total ? st.end_ticks - total : 0));
    print_functions(o->ctx, p, false, total, wt);
    print_functions(o->ctx, p, true, total, wt);
    print_hot(p, o);
    print_mode(p);
    printf("files (in %s):\n", out->dir);
    int width = (int)strlen(out->base) + (int)strlen(".speedscope.json");
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        char name[1024];
        snprintf(name, sizeof name, "%s%s", out->base, wd_prof_file_ext[k]);
        printf("  %-*s  %s%s\n", width, name, wd_prof_file_what[k],
               k != WD_PROF_FILE_FOLDED ? ""
               : out->collapsed         ? ", collapsed"
                                        : ", time-ordered (flamechart)");
    }
    printf("tick model: %s\n", out->tick_model ? out->tick_model : "?");
}

int wd_cli_prof_finish(wd_prof *p, const wd_cli_prof_opts *o)
{
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_status(p, &err) != WD_OK || wd_prof_write_files(p, &o->out, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return WD_EXIT_USAGE;
    }
    if (o->json) {
        if (wd_prof_write_json(p, stdout, &o->out, &err) != WD_OK) {
            fprintf(stderr, "wasmdbg: %s\n", err.msg);
            return WD_EXIT_USAGE;
        }
    } else {
        print_summary(p, o);
    }
    fflush(stdout);
    return WD_EXIT_OK;
}

wd_prof_run_info wd_profhook_run_info(const wd_run_report *r, uint64_t base, const char *reason,
                                      bool with_time)
{
    static const wd_prof_outcome outcome[] = {
        [WD_RUN_OK] = WD_PROF_OK,
        [WD_RUN_TRAPPED] = WD_PROF_TRAPPED,
        [WD_RUN_FAILED] = WD_PROF_FAILED,
        [WD_RUN_STUCK] = WD_PROF_STUCK,
    };
    uint64_t start = r->start > base ? r->start - base : 0;
    uint64_t end = r->start + r->effective > base ? r->start + r->effective - base : 0;
    wd_prof_run_info info = {r->level, r->index, start, end - start, outcome[r->outcome],
                             r->reboot, reason != NULL ? reason : r->reason,
                             with_time ? (int64_t)(r->seconds * 1e9) : 0};
    return info;
}
