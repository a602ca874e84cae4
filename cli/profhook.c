/* profhook.c: engine hooks to profiler events, source lines, and the profile summary. */
#include "cli/profhook.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "cli/cli.h"
#include "cli/pvmopts.h"
#include "profiler/wbuf.h"

/* ---- the adapter ------------------------------------------------------------------------ */

int64_t wd_profhook_now(const wd_profhook *h)
{
    if (h->clock == WD_PROFHOOK_FAST)
        return (int64_t)(wd_clock_fast() - h->c0);
    return h->clock == WD_PROFHOOK_NS ? wd_clock_ns() - h->t0 : 0;
}

/* The clock's unit, once: at the end of the first kernel run UNIT_SPAN_NS after init, or
 * at the end of the profile, whichever comes first; from then on the profile's files can be
 * written as runs end (profiler/output.h, wd_prof_files_stream). The fast clock's is its span
 * against the monotonic clock's since init (the two reads at each end are some ns apart: a
 * relative error of 2.5e-5 over 2 ms); the others' is 1 (ns, or no time). */
#define UNIT_SPAN_NS 2000000
static void send_unit(wd_profhook *h)
{
    if (h->unit_sent)
        return;
    h->unit_sent = true;
    double unit = 1;
    if (h->clock == WD_PROFHOOK_FAST) {
        int64_t ns = wd_clock_ns() - h->t0;
        uint64_t units = wd_clock_fast() - h->c0;
        if (units != 0 && ns > 0)
            unit = (double)ns / (double)units;
    }
    wd_prof_feed_time_unit(&h->feed, unit);
}

bool wd_profhook_end_tree(wd_profhook *h, uint64_t ticks, void (*after)(void *), void *arg)
{
    send_unit(h);
    return wd_prof_feed_end_tree(&h->feed, ticks, after, arg);
}

bool wd_profhook_end(wd_profhook *h, uint64_t ticks)
{
    send_unit(h);
    return wd_prof_feed_end(&h->feed, ticks);
}

void wd_profhook_join(void *h)
{
    wd_prof_feed_join(&((wd_profhook *)h)->feed);
}

void wd_profhook_level(wd_profhook *h, uint32_t level)
{
    wd_prof_feed_level(&h->feed, level);
}

void wd_profhook_stop(wd_profhook *h)
{
    wd_prof_feed_stop(&h->feed, wd_profhook_now(h));
}

void wd_profhook_add_run(wd_profhook *h, const wd_prof_run_info *info)
{
    /* A stuck run (a tick limit, Ctrl-C) was stopped moments ago: its open calls close at
     * the clock now, not at their last event's (a loop may have run for seconds since). */
    if (info->outcome == WD_PROF_STUCK)
        wd_profhook_stop(h);
    wd_prof_feed_run_info(&h->feed, info);
    if (!h->unit_sent && (h->clock != WD_PROFHOOK_FAST || wd_clock_ns() - h->t0 >= UNIT_SPAN_NS))
        send_unit(h);
    wd_prof_feed_publish(&h->feed); /* the run is over: its files may be written now */
}

static void forget(wd_profhook *h)
{
    wd_free(h->ctx, h->cache);
    h->cache = NULL;
    h->cache_count = 0;
    h->module = NULL;
    h->host_count = 0;
}

/* Where a function's name comes from (wd_module_func_name): its entry in the module's name
 * section, the fallback func[idx], or kernel_run for the kernel_run export's entry. */
enum { HOW_NAMED, HOW_FALLBACK, HOW_KERNEL_RUN };

static uint8_t name_how(const wd_profhook *h, const wd_module *m, uint32_t idx, int slot)
{
    if (slot == 0 && (int64_t)idx == h->kernel_run)
        return HOW_KERNEL_RUN;
    return m->names.funcs != NULL && idx < m->func_count && m->names.funcs[idx] != NULL
               ? HOW_NAMED
               : HOW_FALLBACK;
}

/* A new module object (each run decodes the kernel again; an upgrade brings another
 * kernel): a new generation, whose entries are checked on first use. */
static void use_module(wd_profhook *h, const wd_module *m)
{
    h->module = m;
    h->gen++;
    int64_t e = wd_module_find_export(m, "kernel_run", WD_EXTERN_FUNC);
    h->kernel_run = e >= 0 ? (int64_t)m->exports[e].idx : -1;
    if (h->cache != NULL && h->cache_count == m->func_count)
        return;
    wd_free(h->ctx, h->cache);
    h->cache = wd_alloc(h->ctx, (size_t)m->func_count * 3 * sizeof *h->cache + 1);
    h->cache_count = 0;
    if (h->cache != NULL) {
        h->cache_count = m->func_count;
        for (size_t i = 0; i < (size_t)m->func_count * 3; i++)
            h->cache[i] = (wd_profhook_sym){UINT32_MAX, 0, 0};
    }
}

static WD_NOINLINE uint32_t host_symbol(wd_profhook *h, const wd_func *f)
{
    const char *mod = f->host_module ? f->host_module : "?";
    const char *fn = f->host_name ? f->host_name : "?";
    for (uint32_t i = 0; i < h->host_count; i++) {
        wd_profhook_host *x = &h->hosts[i];
        if (x->func == f)
            return x->sym;
        if (x->func != NULL || x->idx != f->idx)
            continue;
        /* an earlier run's: the same symbol when the same import */
        const char *raw = wd_prof_feed_symbol_raw(&h->feed, x->sym);
        size_t n = strlen(mod);
        if (strncmp(raw, mod, n) == 0 && raw[n] == '.' && strcmp(raw + n + 1, fn) == 0) {
            x->func = f;
            return x->sym;
        }
    }
    char name[160];
    wd_concat(name, sizeof name, (const char *const[]){mod, ".", fn, NULL});
    uint32_t sym = wd_prof_feed_symbol(&h->feed, WD_PROF_HOST, f->idx, name, strlen(name));
    if (h->host_count < WD_ARRAY_COUNT(h->hosts))
        h->hosts[h->host_count++] = (wd_profhook_host){f, f->idx, sym};
    return sym;
}

/* The symbol of a call of f the cache could not give: an entry kept from an earlier module
 * is checked (same name, same source), else the symbol is looked up. */
static WD_NOINLINE uint32_t wasm_symbol(wd_profhook *h, const wd_func *f, int slot)
{
    static const wd_prof_kind kinds[3] = {WD_PROF_ENTRY, WD_PROF_DIRECT, WD_PROF_INDIRECT};
    const wd_module *m = f->inst->module;
    uint8_t how = name_how(h, m, f->idx, slot);
    wd_profhook_sym *e = h->cache != NULL && f->idx < h->cache_count
                             ? &h->cache[(size_t)slot * h->cache_count + f->idx]
                             : NULL;
    if (e != NULL && e->sym != UINT32_MAX && e->how == how) {
        if (how != HOW_NAMED ||
            strcmp(wd_prof_feed_symbol_raw(&h->feed, e->sym), m->names.funcs[f->idx]) == 0) {
            e->gen = h->gen;
            return e->sym;
        }
    }
    char buf[48];
    const char *name = how == HOW_KERNEL_RUN ? "kernel_run"
                                             : wd_module_func_name(m, f->idx, buf, sizeof buf);
    uint32_t sym = wd_prof_feed_symbol(&h->feed, kinds[slot], f->idx, name, strlen(name));
    if (e != NULL && sym != UINT32_MAX)
        *e = (wd_profhook_sym){sym, h->gen, how};
    return sym;
}

/* The interpreter records the next calls of f of this kind (slot 1: direct, 2: indirect)
 * itself, as this call's symbol (eval/hooks.h, wd_hook_records). The tags are the hook's to
 * write (link/runtime.h). */
static void tag(wd_profhook *h, const wd_func *f, int slot, uint32_t sym)
{
    wd_func *m = (wd_func *)f;
    if (m->hook_gen != h->hooks.records_gen) {
        m->hook_gen = h->hooks.records_gen;
        m->hook_tag[0] = m->hook_tag[1] = UINT32_MAX;
    }
    m->hook_tag[slot - 1] = sym;
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
        /* the slot of each kind: WD_CALL_ENTRY 0, _DIRECT 1, _INDIRECT 2 */
        int slot = (unsigned)kind <= WD_CALL_INDIRECT ? (int)kind : 1;
        const wd_profhook_sym *e = f->idx < h->cache_count
                                       ? &h->cache[(size_t)slot * h->cache_count + f->idx]
                                       : NULL;
        sym = WD_LIKELY(e != NULL && e->gen == h->gen) ? e->sym : wasm_symbol(h, f, slot);
        if (slot != 0 && h->hooks.records != NULL && sym != UINT32_MAX)
            tag(h, f, slot, sym);
    }
    wd_prof_feed_call(&h->feed, ticks, wd_profhook_now(h), sym);
}

static void on_ret(void *ud, uint64_t ticks, const struct wd_func *f)
{
    wd_profhook *h = ud;
    (void)f;
    wd_prof_feed_ret(&h->feed, ticks, wd_profhook_now(h));
}

static void on_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    wd_profhook *h = ud;
    if (begin && strcmp(name, "decode") == 0) {
        /* A new run: its module and host functions are new objects (perhaps at the
         * addresses of the last run's). */
        h->module = NULL;
        for (uint32_t i = 0; i < h->host_count; i++)
            h->hosts[i].func = NULL;
    }
    wd_prof_feed_phase(&h->feed, ticks, wd_profhook_now(h), name, begin);
}

static void on_big_step(void *ud, uint64_t ticks, uint64_t cost, const char *what,
                        uint64_t operand)
{
    wd_profhook *h = ud;
    if (cost >= h->step_floor)
        wd_prof_feed_step(&h->feed, ticks, cost, what, operand);
}

void wd_profhook_init(wd_profhook *h, wd_ctx *ctx, wd_prof *prof, wd_profhook_clock clock,
                      uint64_t step_floor, bool threaded)
{
    memset(h, 0, sizeof *h);
    h->parent = h->ctx = ctx;
    if (threaded && wd_ctx_forkable(ctx)) {
        wd_ctx_fork(ctx, &h->own);
        h->ctx = &h->own;
    }
    wd_prof_feed_init(&h->feed, h->ctx, prof, threaded);
    h->prof = prof;
    h->clock = clock == WD_PROFHOOK_FAST && !wd_clock_fast_ok() ? WD_PROFHOOK_NS : clock;
    h->t0 = wd_clock_ns();
    h->c0 = wd_clock_fast();
    h->step_floor = step_floor;
    h->kernel_run = -1;
    h->hooks = (wd_hooks){.ud = h, .call = on_call, .ret = on_ret, .phase = on_phase,
                          .big_step = on_big_step};
    if (h->clock != WD_PROFHOOK_NS) { /* the interpreter reads the fast clock, or none */
        /* Each hook tags functions with a generation of its own (profiles are made one at a
         * time, by the thread that runs the kernel). */
        static uint32_t generation;
        if (++generation == 0)
            generation = 1;
        h->hooks.records = &h->feed.out;
        h->hooks.records_gen = generation;
        h->hooks.records_timed = h->clock == WD_PROFHOOK_FAST;
        h->hooks.records_c0 = h->c0;
    }
}

void wd_profhook_fini(wd_profhook *h)
{
    forget(h);
    wd_prof_feed_fini(&h->feed);
    if (h->ctx == &h->own)
        wd_ctx_join(h->parent, &h->own);
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

/* DWARF addresses in wasm count from the code section's contents (its function count
 * first). The module keeps where each body starts (after its size): the contents start
 * that size's and the count's LEB128 bytes earlier (as producers write them: minimal). */
static void load_lines(wd_srcloc *s, const wd_module *m)
{
    wd_srcloc_fini(s);
    s->module = m;
    const wd_custom *line = wd_module_custom(m, ".debug_line");
    uint32_t first = m->import_func_count;
    if (line == NULL || first >= m->func_count)
        return;
    const wd_funcdef *fd = &m->funcs[first];
    uint64_t back = leb_size(fd->body_size) + leb_size(m->func_count - first);
    if (fd->body_offset < back)
        return;
    s->code_start = fd->body_offset - back;
    const wd_custom *ls = wd_module_custom(m, ".debug_line_str");
    const wd_custom *str = wd_module_custom(m, ".debug_str");
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

bool wd_cli_prof_dir(const char *option, const char *asked, char **made, const char **dir)
{
    *made = NULL;
    if (asked != NULL) {
        *dir = asked;
        return wd_cli_pvm_out_dir(option, asked);
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

/* ---- the summary's text, without printf ------------------------------------------------- */

/* The summary is made in a buffer (profiler/wbuf.h, as the profile's files are) with the
 * helpers below: a printf call cost about 1,300 instructions, a dozen times what these
 * take (counter's summary: 37 calls, 52 K of the profile's 640 K instructions). */

/* s left-aligned in `width` (printf's %-*s). */
static void tx_left(wbuf *t, const char *s, int width)
{
    size_t n = strlen(s);
    wb_bytes(t, s, n);
    for (int i = (int)n; i < width; i++)
        wb_bytes(t, " ", 1);
}

/* Writes v right-aligned in `width` (at most 24) at o; returns the end. */
static char *put_u64(char *o, uint64_t v, int width)
{
    char t[24]; /* 20 digits and wp_u64's 3 scratch bytes */
    size_t n = (size_t)(wp_u64(t, v) - t);
    for (int i = (int)n; i < width; i++)
        *o++ = ' ';
    memcpy(o, t, n);
    return o + n;
}

/* v with `dec` decimals (1 to 3) right-aligned in `width` (at most 16; 40 bytes of room),
 * as printf's %*.*f writes it: the value is rounded in double, which is exact unless its
 * scaled fraction is within a hair of one half (then, and for what is negative or large,
 * snprintf does it). */
static char *put_fixed(char *o, double v, int dec, int width)
{
    static const double scale[4] = {1, 10, 100, 1000};
    static const uint64_t pow10[4] = {1, 10, 100, 1000};
    double x = v * scale[dec], fl = floor(x), frac = x - fl;
    if (signbit(v) || !(x < 2147483648.0) || fabs(frac - 0.5) < 1e-6) {
        int k = snprintf(o, 40, "%*.*f", width, dec, v);
        return o + (k < 0 ? 0 : k < 40 ? k : 39);
    }
    uint64_t n = (uint64_t)fl + (frac > 0.5);
    char t[40];
    char *e = put_u64(t, n / pow10[dec], 0);
    *e++ = '.';
    uint64_t f = n % pow10[dec];
    for (int i = dec - 1; i >= 0; i--) {
        e[i] = (char)('0' + f % 10);
        f /= 10;
    }
    e += dec;
    for (int i = (int)(e - t); i < width; i++)
        *o++ = ' ';
    memcpy(o, t, (size_t)(e - t));
    return o + (e - t);
}

/* A time as the summary shows it: 950ns, 12.345us, 1.234ms, 2.000s (40 bytes of room). */
static char *put_ns(char *o, int64_t ns)
{
    const char *unit;
    if (ns < 0) {
        int k = snprintf(o, 40, "%lldns", (long long)ns);
        return o + (k < 0 ? 0 : k < 40 ? k : 39);
    }
    if (ns < 1000) {
        o = put_u64(o, (uint64_t)ns, 0);
        unit = "ns";
    } else if (ns < 1000000) {
        o = put_fixed(o, (double)ns / 1e3, 3, 0);
        unit = "us";
    } else if (ns < 1000000000) {
        o = put_fixed(o, (double)ns / 1e6, 3, 0);
        unit = "ms";
    } else {
        o = put_fixed(o, (double)ns / 1e9, 3, 0);
        unit = "s";
    }
    size_t n = strlen(unit);
    memcpy(o, unit, n);
    return o + n;
}

static void tx_u64(wbuf *t, uint64_t v, int width)
{
    wb_commit(t, put_u64(wb_reserve(t, 48), v, width));
}

static void tx_fixed(wbuf *t, double v, int dec, int width)
{
    wb_commit(t, put_fixed(wb_reserve(t, 48), v, dec, width));
}

static void tx_ns(wbuf *t, int64_t ns)
{
    wb_commit(t, put_ns(wb_reserve(t, 48), ns));
}

/* LABEL: TICKS ticks[ (TIME)] */
static void ticks_line(wbuf *t, const char *label, uint64_t ticks, int64_t ns, bool with_time)
{
    wb_str(t, label);
    wb_bytes(t, ": ", 2);
    tx_u64(t, ticks, 0);
    wb_bytes(t, " ticks", 6);
    if (with_time) {
        wb_bytes(t, " (", 2);
        tx_ns(t, ns);
        wb_bytes(t, ")", 1);
    }
    wb_bytes(t, "\n", 1);
}

static const char *sym_name(const wd_prof *p, uint32_t sym)
{
    wd_prof_sym_info s;
    wd_prof_symbol_get(p, sym, &s);
    return s.name;
}

static void print_stack(wbuf *t, const wd_prof *p, const uint32_t *syms, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (n > 24 && i == 16) {
            wb_str(t, "  ... ");
            tx_u64(t, n - 24, 0);
            wb_str(t, " more frames\n");
            i = n - 8;
        }
        wb_str(t, "  #");
        tx_u64(t, i, 0);
        wb_bytes(t, " ", 1);
        wb_str(t, sym_name(p, syms[i]));
        wb_bytes(t, "\n", 1);
    }
}

/* The reference's per-run block, with the outcome when it is not a plain return. */
static void print_run(wbuf *t, const wd_prof *p, uint32_t i, bool with_time)
{
    wd_prof_run r;
    wd_prof_run_get(p, i, &r);
    static const char *const labels[WD_PROF_PH_COUNT] = {
        "%interpreter(decode)", "%interpreter(link)", "%interpreter(init)", "kernel_run"};
    wb_str(t, "----------------------\nDetailed results for a `kernel_run`:\n");
    for (int k = 0; k < WD_PROF_PH_COUNT; k++)
        if (r.has_phase[k])
            ticks_line(t, labels[k], r.phase[k], r.phase_ns[k], with_time);
    wb_bytes(t, "\n", 1);
    ticks_line(t, "Full execution", r.ticks, r.ns, with_time);
    wb_str(t, "(level ");
    tx_u64(t, r.level, 0);
    wb_str(t, ", kernel run ");
    tx_u64(t, r.index, 0);
    wb_str(t, r.reboot ? ", reboot)\n" : ")\n");
    if (r.has_info && r.outcome != WD_PROF_OK) {
        wb_str(t, "kernel_run ");
        wb_str(t, wd_prof_outcome_name(r.outcome));
        wb_str(t, ": ");
        wb_str(t, r.reason);
        wb_bytes(t, "\n", 1);
    }
    if (r.stopped) {
        wb_str(t, "stopped at tick ");
        tx_u64(t, r.stop_tick, 0);
        wb_str(t, " with ");
        tx_u64(t, r.open_count, 0);
        wb_str(t, r.open_count == 1 ? " call open (closed there):\n"
                                    : " calls open (closed there):\n");
        print_stack(t, p, r.open, r.open_count);
    } else if (r.inconsistent) {
        wb_str(t, "The resulting call graph is inconsistent for this specific `kernel_run`, "
                  "please open an issue.\n");
    } else if (r.frame_count > 0) { /* the PVM's, with source lines: as `run` prints it */
        wb_str(t, "backtrace (innermost first):\n");
        for (uint32_t k = 0; k < r.frame_count; k++) {
            char text[WD_CLI_FRAME_TEXT];
            wd_cli_frame_text(&r.frames[k], text, sizeof text);
            wb_str(t, "  #");
            tx_u64(t, k, 0);
            wb_bytes(t, " ", 1);
            wb_str(t, text);
            wb_bytes(t, "\n", 1);
        }
        if (r.frames_more > 0) {
            wb_str(t, "  ... ");
            tx_u64(t, r.frames_more, 0);
            wb_str(t, " more frames\n");
        }
    } else if (r.has_info && r.outcome != WD_PROF_OK && r.unwound_count > 0) {
        /* a trace recorded without the PVM's backtrace: the calls the profiler saw end */
        wb_str(t, "backtrace (the calls that ended at the trap's tick, innermost first):\n");
        print_stack(t, p, r.unwound, r.unwound_count);
    }
}

static void print_functions(wbuf *t, wd_ctx *ctx, wd_prof *p, bool by_total, uint64_t all,
                            bool with_time)
{
    wd_prof_func *fs;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_top_functions(p, UINT32_MAX, by_total, 20, &fs, &n, &err) != WD_OK)
        return;
    wb_str(t, "\ntop ");
    tx_u64(t, n, 0);
    wb_str(t, by_total ? " functions by total ticks:\n" : " functions by self ticks:\n");
    /* "  %14s %7s %14s %7s %10s  %s" */
    wb_str(t, by_total ? "           total       %           self       %      calls  "
                       : "            self       %          total       %      calls  ");
    wb_str(t, with_time ? "function (time)\n" : "function\n");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = by_total ? fs[i].total : fs[i].self, b = by_total ? fs[i].self : fs[i].total;
        /* "  %14llu %6.2f%% %14llu %6.2f%% %10llu  NAME[ (TIME)]" */
        char *o = wb_reserve(t, 256);
        *o++ = ' ';
        *o++ = ' ';
        o = put_u64(o, a, 14);
        *o++ = ' ';
        o = put_fixed(o, all ? 100.0 * (double)a / (double)all : 0.0, 2, 6);
        *o++ = '%';
        *o++ = ' ';
        o = put_u64(o, b, 14);
        *o++ = ' ';
        o = put_fixed(o, all ? 100.0 * (double)b / (double)all : 0.0, 2, 6);
        *o++ = '%';
        *o++ = ' ';
        o = put_u64(o, fs[i].calls, 10);
        *o++ = ' ';
        *o++ = ' ';
        wb_commit(t, o);
        wb_str(t, sym_name(p, fs[i].sym));
        if (with_time) {
            wb_bytes(t, " (", 2);
            tx_ns(t, by_total ? fs[i].total_ns : fs[i].self_ns);
            wb_bytes(t, ")", 1);
        }
        wb_bytes(t, "\n", 1);
    }
    wd_free(ctx, fs);
}

static void print_hot(wbuf *t, wd_prof *p, const wd_cli_prof_opts *o)
{
    wd_prof_hot *h;
    uint32_t n;
    wd_error err;
    wd_error_clear(&err);
    if (wd_prof_hot_steps(p, 0.02, 10, &h, &n, &err) != WD_OK)
        return;
    wb_str(t, "\nhot steps (single steps costing 2% or more of their kernel run):\n");
    if (n == 0)
        wb_str(t, "  none\n");
    for (uint32_t i = 0; i < n; i++) {
        wd_prof_sym_info w;
        wd_prof_symbol_get(p, h[i].what, &w);
        /* "  %12llu ticks %5.1f%%  %s" */
        wb_bytes(t, "  ", 2);
        tx_u64(t, h[i].ticks, 12);
        wb_str(t, " ticks ");
        tx_fixed(t, 100.0 * h[i].share, 1, 5);
        wb_str(t, "%  ");
        wb_str(t, w.name);
        if (h[i].in != UINT32_MAX && w.kind != WD_PROF_INTERNAL) {
            wb_str(t, " in ");
            wb_str(t, sym_name(p, h[i].in));
        }
        if (w.kind == WD_PROF_STEP) {
            const char *unit = strstr(w.raw, "grow") ? "pages" : strncmp(w.raw, "table", 5) == 0
                                                                     ? "elements"
                                                                     : "bytes";
            wb_str(t, ": ");
            tx_u64(t, h[i].operand, 0);
            wb_bytes(t, " ", 1);
            wb_str(t, unit);
        } else if (w.kind == WD_PROF_HOST && o->host_per_byte != 0) {
            wb_str(t, ": up to ");
            tx_u64(t, h[i].ticks / o->host_per_byte, 0);
            wb_str(t, " bytes moved");
        }
        wb_str(t, " (level ");
        tx_u64(t, h[i].level, 0);
        wb_str(t, " run ");
        tx_u64(t, h[i].run, 0);
        if (h[i].count > 1) {
            wb_str(t, "; ");
            tx_u64(t, h[i].count, 0);
            wb_str(t, " such steps, ");
            tx_u64(t, h[i].total, 0);
            wb_str(t, " ticks in all");
        }
        wb_str(t, ")\n");
    }
    wd_free(o->ctx, h);
}

static void print_mode(wbuf *t, const wd_prof *p)
{
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    if (st.mode == WD_PROF_FULL) {
        wb_str(t, st.asked == WD_PROF_AUTO ? "\nmode: full call tree (auto; "
                                           : "\nmode: full call tree (");
        tx_u64(t, st.calls, 0);
        wb_str(t, " calls, ");
    } else if (!st.switched) {
        wb_str(t, "\nmode: calling-context tree (");
        tx_u64(t, st.calls, 0);
        wb_str(t, " calls merged into ");
    } else {
        wb_str(t, "\nmode: calling-context tree (");
        wb_str(t, wd_prof_mode_name(st.asked));
        wb_str(t, ": the full tree reached its node limit at call ");
        tx_u64(t, st.switched_at, 0);
        wb_str(t, "; ");
        tx_u64(t, st.calls, 0);
        wb_str(t, " calls merged into ");
    }
    tx_u64(t, st.nodes, 0);
    wb_str(t, st.mode == WD_PROF_FULL || !st.switched
                  ? " nodes)\n"
                  : " nodes; time-ordered files show each call path once, in first-call "
                    "order)\n");
}

static void print_summary(wd_prof *p, const wd_cli_prof_opts *o)
{
    static wbuf t; /* 64 KiB: off the stack */
    wb_init(&t, stdout);
    const wd_prof_out *out = &o->out;
    bool wt = out->with_time;
    wb_str(&t, "Profiling result can be found in ");
    wb_str(&t, out->dir);
    wb_bytes(&t, "/", 1);
    wb_str(&t, out->base);
    wb_str(&t, wd_prof_file_ext[WD_PROF_FILE_FOLDED]);
    wb_bytes(&t, "\n", 1);
    uint32_t nruns = wd_prof_run_count(p);
    uint64_t total = 0, full = 0, ph[WD_PROF_PH_COUNT] = {0};
    int64_t ns = 0;
    for (uint32_t i = 0; i < nruns; i++) {
        print_run(&t, p, i, wt);
        wd_prof_run r;
        wd_prof_run_get(p, i, &r);
        total += r.has_info ? r.effective : r.ticks; /* the runs' ticks, as `run` gives them */
        full += r.ticks;
        ns += r.ns;
        for (int k = 0; k < WD_PROF_PH_COUNT; k++)
            ph[k] += r.phase[k];
    }
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    wb_str(&t, "----------------------\nFull execution with padding: ");
    tx_u64(&t, st.end_ticks, 0);
    wb_str(&t, " ticks\n");

    wb_str(&t, "\n== wasmdbg: ");
    tx_u64(&t, nruns, 0);
    wb_str(&t, nruns == 1 ? " kernel run on " : " kernel runs on ");
    tx_u64(&t, st.levels, 0);
    wb_str(&t, st.levels == 1 ? " level ==\n" : " levels ==\n");
    wb_str(&t, "total: ");
    tx_u64(&t, total, 0);
    wb_str(&t, " ticks in kernel runs");
    if (wt) {
        wb_bytes(&t, " (", 2);
        tx_ns(&t, ns);
        wb_bytes(&t, ")", 1);
    }
    wb_bytes(&t, "\n", 1);
    for (int k = 0; k < WD_PROF_PH_COUNT; k++) { /* "  %-10s %16llu %7.2f%%" */
        wb_bytes(&t, "  ", 2);
        tx_left(&t, wd_prof_phase_names[k], 10);
        wb_bytes(&t, " ", 1);
        tx_u64(&t, ph[k], 16);
        wb_bytes(&t, " ", 1);
        tx_fixed(&t, total ? 100.0 * (double)ph[k] / (double)total : 0.0, 2, 7);
        wb_str(&t, "%\n");
    }
    if (total > full) { /* pvm: the ticks the reference's "Full execution" leaves out */
        wb_bytes(&t, "  ", 2);
        tx_left(&t, "outside", 10);
        wb_bytes(&t, " ", 1);
        tx_u64(&t, total - full, 16);
        wb_bytes(&t, " ", 1);
        tx_fixed(&t, 100.0 * (double)(total - full) / (double)total, 2, 7);
        wb_str(&t, "% (snapshot, kernel_run's return or trap into the PVM, SK_Result)\n");
    }
    wb_str(&t, "padding: ");
    tx_u64(&t, st.end_ticks > total ? st.end_ticks - total : 0, 0);
    wb_str(&t, " ticks (inbox collection, entering padding, the unused ticks of each "
               "period)\n");
    print_functions(&t, o->ctx, p, false, total, wt);
    print_functions(&t, o->ctx, p, true, total, wt);
    print_hot(&t, p, o);
    print_mode(&t, p);
    wb_str(&t, "files (in ");
    wb_str(&t, out->dir);
    wb_str(&t, "):\n");
    int width = (int)strlen(out->base) + (int)strlen(".speedscope.json");
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) { /* "  %-*s  %s%s" */
        wb_bytes(&t, "  ", 2);
        wb_str(&t, out->base);
        tx_left(&t, wd_prof_file_ext[k], width - (int)strlen(out->base));
        wb_bytes(&t, "  ", 2);
        wb_str(&t, wd_prof_file_what[k]);
        wb_str(&t, k != WD_PROF_FILE_FOLDED ? "\n"
                   : out->collapsed         ? ", collapsed\n"
                                            : ", time-ordered (flamechart)\n");
    }
    wb_str(&t, "tick model: ");
    wb_str(&t, out->tick_model ? out->tick_model : "?");
    wb_bytes(&t, "\n", 1);
    wb_flush(&t);
}

/* Creates the files (unless they were) and writes them; *base gets the base they got
 * (owned: BASE or BASE-N, output.h), NULL on failure. */
static wd_status write_files(wd_prof *p, const wd_cli_prof_opts *o, char **base, wd_error *err)
{
    *base = NULL;
    wd_prof_files *files = o->files != NULL ? o->files : wd_prof_files_new(&o->out);
    if (files == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    wd_status st = wd_prof_files_ready(files, err);
    char *got = st == WD_OK ? strdup(wd_prof_files_base(files)) : NULL;
    if (st == WD_OK && got == NULL)
        st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (st != WD_OK) {
        wd_prof_files_discard(files);
        return st;
    }
    st = wd_prof_write_files(p, &o->out, files, err);
    if (st == WD_OK)
        *base = got;
    else
        free(got);
    return st;
}

int wd_cli_prof_finish(wd_prof *p, const wd_cli_prof_opts *o)
{
    wd_error err;
    wd_error_clear(&err);
    char *base = NULL;
    if (wd_prof_status(p, &err) != WD_OK)
        wd_prof_files_discard(o->files);
    if (err.status != WD_OK || write_files(p, o, &base, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return WD_EXIT_USAGE;
    }
    wd_cli_prof_opts named = *o; /* the names the files got */
    named.out.base = base;
    named.files = NULL;
    int code = WD_EXIT_OK;
    if (o->json) {
        if (wd_prof_write_json(p, stdout, &named.out, &err) != WD_OK) {
            fprintf(stderr, "wasmdbg: %s\n", err.msg);
            code = WD_EXIT_USAGE;
        }
    } else {
        print_summary(p, &named);
    }
    fflush(stdout);
    free(base);
    return code;
}

uint32_t wd_cli_backtrace_frames(const wd_run_report *x, wd_srcloc *loc, const wd_module *m,
                                 wd_prof_frame *out)
{
    for (uint32_t i = 0; i < x->backtrace_count; i++) {
        const wd_run_frame *f = &x->backtrace[i];
        uint32_t col;
        out[i] = (wd_prof_frame){.function = f->name, .func_idx = f->func_idx, .offset = f->offset};
        if (m == NULL || loc == NULL ||
            !wd_srcloc_lookup(loc, m, f->offset, &out[i].file, &out[i].line, &col))
            out[i].file = NULL;
    }
    return x->backtrace_count;
}

void wd_cli_frame_text(const wd_prof_frame *f, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s at 0x%x", f->function, f->offset);
    if (f->file != NULL && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s:%u)", f->file, f->line);
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
    wd_prof_run_info info = {.level = r->level, .index = r->index, .start = start,
                             .effective = end - start, .outcome = outcome[r->outcome],
                             .reboot = r->reboot, .reason = reason != NULL ? reason : r->reason,
                             .ns = with_time ? (int64_t)(r->seconds * 1e9) : 0};
    return info;
}

uint64_t wd_profhook_timestamp(char *buf, size_t size)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char day[20] = "1970-01-01T00:00:00"; /* kept if the clock reads past the year 9999 */
    wd_utc_format(ts.tv_sec, day);
    snprintf(buf, size, "%s.%03ld-00:00", day, ts.tv_nsec / 1000000);
    return ts.tv_sec < 0 ? 0 : (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
