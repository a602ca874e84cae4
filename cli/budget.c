/* budget.c: `wasmdbg budget check|update KERNEL --inputs FILE --budget FILE`: tick budgets for
 * CI. `check` runs the kernel over the inputs (the PVM's run reports give the total, phase
 * and level figures; the profiler gives each function's total ticks), compares them with the
 * budget file's bounds and prints a table sorted by the worst overrun; `update` writes the
 * measured figures as the budget, keeping an existing file's tolerances and tracked functions.
 * Ticks are deterministic and no wall time is printed: the same check gives the same bytes. */
#include "cli/cli.h"
#include "cli/numarg.h"
#include "cli/profhook.h"
#include "cli/pvmopts.h"
#include "profiler/budget.h"
#include "vm/tickmodel.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char budget_help[] =
    "usage: wasmdbg budget check KERNEL --inputs FILE --budget FILE [options]\n"
    "       wasmdbg budget update KERNEL --inputs FILE --budget FILE [options]\n"
    "\n"
    "check: runs the kernel over every inbox and compares its ticks (total, per phase, per\n"
    "level, per function) with the budget file's bounds; prints a table sorted by the worst\n"
    "overrun. Exit 0 when every bound holds, 1 when one is exceeded or a run traps or gets\n"
    "stuck, 2 on usage or input errors (unknown fields, another tick model or a retired one,\n"
    "a function the kernel no longer has).\n"
    "update: writes the measured figures as the budget, keeping an existing file's tolerances\n"
    "and tracked functions; it also renews a budget recorded under a retired tick model.\n"
    "\n" WD_PVM_OPTIONS_HELP
    "budget options:\n"
    "  --budget FILE           the budget file (JSON; see README.md, Budgets)\n"
    "  --json                  check: print the result as JSON\n"
    "  --github                check: add GitHub Actions annotations (::error ...)\n"
    "  --junit FILE            check: also write JUnit XML (a test case per bound)\n"
    "  --tolerance T           update: the tolerance of new bounds (ticks or N%; default 0)\n"
    "  --functions N           update, new file: track the N functions with the most total\n"
    "                          ticks (default 10)\n"
    "The kernel's debug output goes to stderr.\n";

/* ---- the budget file (profiler/budget.h) -------------------------------------------------- */

typedef wd_budget_tol tol;
typedef wd_budget_bound bound;
typedef wd_budget_level lbound;
typedef wd_budget budget;

static int bad(const char *path, const char *what, const char *where)
{
    fprintf(stderr, "wasmdbg: %s: %s%s%s\n", path, what, where[0] ? ": " : "", where);
    return WD_EXIT_USAGE;
}

/* Reads the budget file. Returns -1, or an exit code after printing the error. */
static int budget_load(wd_ctx *ctx, const char *path, budget *b)
{
    wd_error err;
    wd_error_clear(&err);
    wd_status st = wd_budget_load(ctx, path, b, &err);
    if (st == WD_OK)
        return -1;
    /* a syntax error's message starts with its line and column: PATH:LINE:COL: ... */
    fprintf(stderr, "wasmdbg: %s:%s%s\n", path, st == WD_ERR_MALFORMED ? "" : " ", err.msg);
    return WD_EXIT_USAGE;
}

/* ---- the measured figures ---------------------------------------------------------------- */

typedef struct measured {
    uint64_t total, phase[WD_PROF_PH_COUNT];
    uint32_t nlevels;          /* levels reached */
    uint64_t *level_ticks, *level_runs;
    wd_prof_func *funcs;       /* by total ticks, largest first */
    uint32_t nfuncs;
    bool failed;               /* a run trapped or failed, or the PVM is stuck */
    bool stopped;              /* the kernel runs were stopped (a bound certainly exceeded,
                                  --max-ticks): the figures are those at the stop */
    uint32_t final_levels;     /* the levels below it are over: their figures are final */
} measured;

static void report_runs(wd_cli_pvm *s, wd_profhook *hook, uint32_t *seen)
{
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    for (; *seen < n; (*seen)++) {
        const wd_run_report *r = &runs[*seen];
        wd_prof_run_info info = wd_profhook_run_info(r, 0, NULL, false);
        wd_profhook_add_run(hook, &info);
    }
}

static wd_status run_all(wd_cli_pvm *s, wd_profhook *hook, wd_error *err)
{
    uint32_t seen = 0, count = s->inputs ? s->inputs->count : 0;
    wd_status st = WD_OK;
    for (uint32_t i = 0;
         st == WD_OK && i < count && wd_pvm_get_state(s->pvm) != WD_PVM_STUCK; i++) {
        bool more;
        wd_profhook_level(hook, wd_pvm_level(s->pvm));
        st = wd_cli_pvm_step_inbox(s, &more, err);
        report_runs(s, hook, &seen);
    }
    if (st == WD_OUT_OF_TICKS) { /* stopped: the functions' figures are those at the stop */
        if (s->stop.in_run) {
            wd_prof_run_info info = wd_profhook_run_info(&s->stop.run, 0, NULL, false);
            wd_profhook_add_run(hook, &info);
        }
        wd_error_clear(err);
        st = WD_OK;
    }
    WD_TRY(st);
    wd_profhook_end(hook, wd_pvm_ticks(s->pvm));
    return wd_prof_status(hook->prof, err);
}

static wd_status measure(wd_cli_pvm *s, wd_prof *prof, measured *m, wd_error *err)
{
    memset(m, 0, sizeof *m);
    uint32_t n = wd_cli_pvm_run_count(s);
    m->nlevels = wd_pvm_level(s->pvm);
    m->stopped = s->stop.on;
    m->final_levels = m->stopped ? s->stop.run.level : m->nlevels;
    m->level_ticks = wd_calloc(&s->ctx, (size_t)m->nlevels + 1, sizeof *m->level_ticks);
    m->level_runs = wd_calloc(&s->ctx, (size_t)m->nlevels + 1, sizeof *m->level_runs);
    if (m->level_ticks == NULL || m->level_runs == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const wd_run_report *r = wd_cli_pvm_run_get(s, i); /* a stopped run: so far */
        m->total += r->effective;
        for (int ph = 0; ph < WD_PROF_PH_COUNT; ph++)
            m->phase[ph] += r->phase[ph];
        if (r->level < m->nlevels) {
            m->level_ticks[r->level] += r->effective;
            m->level_runs[r->level]++;
        }
        m->failed |= r->outcome != WD_RUN_OK && r != &s->stop.run;
    }
    m->failed |= wd_pvm_stuck_reason(s->pvm) != NULL;
    return wd_prof_functions(prof, UINT32_MAX, true, &m->funcs, &m->nfuncs, err);
}

static void measured_free(wd_ctx *ctx, wd_ctx *pctx, measured *m)
{
    wd_free(ctx, m->level_ticks);
    wd_free(ctx, m->level_runs);
    wd_free(pctx, m->funcs);
}

/* The function's total ticks: from the profile, else 0 when the module still has a function
 * of that name (not called by these inputs). False when the kernel has no such function. */
static bool function_ticks(wd_prof *prof, const measured *m, const wd_module *mod,
                           const char *name, uint64_t *ticks)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        wd_prof_sym_info si;
        wd_prof_symbol_get(prof, m->funcs[i].sym, &si);
        if (strcmp(si.name, name) == 0 || strcmp(si.raw, name) == 0) {
            *ticks = m->funcs[i].total;
            return true;
        }
    }
    *ticks = 0;
    for (uint32_t i = 0; mod != NULL && i < mod->func_count; i++) {
        char buf[48];
        if (strcmp(wd_module_func_name(mod, i, buf, sizeof buf), name) == 0)
            return true;
    }
    return false;
}

/* ---- comparing ----------------------------------------------------------------------------- */

typedef struct row {
    char name[200];
    bool reached;     /* measured (a level the run did not reach is not) */
    uint64_t measured, max, limit;
    char tol[32];
    bool ok;
    bool checked;     /* known: false when the kernel runs were stopped before its measure
                         was final and it had not exceeded its limit yet */
    uint32_t seq;     /* its place in the budget file's order: ties keep it */
} row;

/* `final`: the measure can no longer grow (else, after a stop, a measure within its limit
 * is not checked; one over it is exceeded for good). */
static void add_row(row *rows, uint32_t *n, const char *name, const bound *b, bool reached,
                    uint64_t value, bool final)
{
    if (!b->present)
        return;
    row *r = &rows[*n];
    r->seq = (*n)++;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->reached = reached;
    r->measured = value;
    r->max = b->max;
    r->limit = wd_budget_limit(b);
    snprintf(r->tol, sizeof r->tol, "%s", b->t.kind ? b->t.text : "0");
    r->checked = final || (reached && value > r->limit);
    r->ok = r->checked && reached && value <= r->limit;
}

/* The bounds that grow as the kernel runs, against their limits (budget check's watch on the
 * PVM, pvmopts.h). The total, the phases and each level's ticks and kernel runs only grow:
 * one over its limit is certainly exceeded, and the check stops there. The room is what
 * the measures that grow with every tick of kernel_run (the total, its level's ticks, the
 * kernel_run phase) have left until they are over. */
static bool watch_one(const bound *b, const char *name, uint64_t measure, bool grows,
                      uint64_t *room, char *cause, size_t size)
{
    if (!b->present)
        return false;
    uint64_t limit = wd_budget_limit(b);
    if (measure > limit) {
        snprintf(cause, size, "%s exceeded its limit (%llu)", name, (unsigned long long)limit);
        return true;
    }
    if (grows && limit - measure < *room - 1)
        *room = limit - measure + 1;
    return false;
}

static bool watch_bounds(void *ud, const wd_cli_pvm *s, uint64_t *room, char *cause,
                         size_t size)
{
    const budget *b = ud;
    uint32_t n, level = wd_pvm_level(s->pvm) > 0 ? wd_pvm_level(s->pvm) - 1 : 0;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    const wd_run_report *cur = wd_pvm_current_run(s->pvm);
    uint64_t now = cur != NULL ? wd_pvm_ticks(s->pvm) - cur->start : 0; /* its ticks so far */
    uint64_t total = now, phase[WD_PROF_PH_COUNT] = {0};
    for (uint32_t i = 0; i <= n; i++) {
        const wd_run_report *r = i < n ? &runs[i] : cur;
        for (int ph = 0; r != NULL && ph < WD_PROF_PH_COUNT; ph++)
            phase[ph] += r->phase[ph];
        total += i < n ? r->effective : 0;
    }
    *room = UINT64_MAX;
    if (watch_one(&b->total, "total", total, true, room, cause, size))
        return true;
    for (int ph = 0; ph < WD_PROF_PH_COUNT; ph++) {
        char name[64];
        snprintf(name, sizeof name, "phase %s", wd_prof_phase_names[ph]);
        if (watch_one(&b->phase[ph], name, phase[ph], ph == WD_PROF_PH_KERNEL_RUN, room, cause,
                      size))
            return true;
    }
    for (uint32_t k = 0; k < b->nlevels; k++) {
        const lbound *l = &b->levels[k];
        uint64_t ticks = cur != NULL && cur->level == l->level ? now : 0;
        uint64_t count = cur != NULL && cur->level == l->level;
        for (uint32_t i = 0; i < n; i++)
            if (runs[i].level == l->level)
                ticks += runs[i].effective, count++;
        char name[64];
        snprintf(name, sizeof name, "level %u ticks", l->level);
        if (watch_one(&l->ticks, name, ticks, l->level == level, room, cause, size))
            return true;
        snprintf(name, sizeof name, "level %u kernel_runs", l->level);
        if (watch_one(&l->runs, name, count, false, room, cause, size))
            return true;
    }
    return false;
}

/* The overrun as a share of the limit: the sort key (largest first). */
static double overrun(const row *r)
{
    if (!r->checked)
        return -1e300;
    if (!r->reached)
        return 1e300;
    double lim = r->limit ? (double)r->limit : 1.0;
    return ((double)r->measured - (double)r->limit) / lim;
}

static int cmp_rows(const void *a, const void *b)
{
    const row *x = a, *y = b;
    double ox = overrun(x), oy = overrun(y);
    if (ox != oy)
        return ox > oy ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "+1.23%" (delta over max, rounded toward zero), "+inf%" for a zero max. */
static void percent(const row *r, char *buf, size_t size)
{
    uint64_t d = r->measured >= r->max ? r->measured - r->max : r->max - r->measured;
    char sign = r->measured >= r->max ? '+' : '-';
    if (r->max == 0) {
        snprintf(buf, size, "%s", d ? "+inf%" : "+0.00%");
        return;
    }
    uint64_t hundredths = d <= UINT64_MAX / 10000 ? d * 10000 / r->max
                                                  : (uint64_t)((double)d / (double)r->max * 1e4);
    if (hundredths == 0)
        sign = '+';
    snprintf(buf, size, "%c%llu.%02llu%%", sign, (unsigned long long)(hundredths / 100),
             (unsigned long long)(hundredths % 100));
}

static void delta(const row *r, char *buf, size_t size)
{
    if (r->measured >= r->max)
        snprintf(buf, size, "+%llu", (unsigned long long)(r->measured - r->max));
    else
        snprintf(buf, size, "-%llu", (unsigned long long)(r->max - r->measured));
}

static const char *verdict(const row *r)
{
    return !r->checked ? "not checked" : !r->reached ? "not reached" : r->ok ? "ok" : "EXCEEDED";
}

/* Every bound of the budget against the measures. Returns -1 or an exit code (a function the
 * kernel does not have, a level not reached while the PVM is fine). */
static int compare(const budget *b, const measured *m, wd_prof *prof, const wd_module *mod,
                   const char *path, row *rows, uint32_t *n)
{
    *n = 0;
    bool final = !m->stopped;
    add_row(rows, n, "total", &b->total, true, m->total, final);
    for (int ph = 0; ph < WD_PROF_PH_COUNT; ph++) {
        char name[64];
        snprintf(name, sizeof name, "phase %s", wd_prof_phase_names[ph]);
        add_row(rows, n, name, &b->phase[ph], true, m->phase[ph], final);
    }
    for (uint32_t i = 0; i < b->nlevels; i++) {
        const lbound *l = &b->levels[i];
        bool reached = l->level < m->nlevels, over = final || l->level < m->final_levels;
        if (!reached && !m->failed && !m->stopped) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "level %u is in the budget but the inputs reach %u level%s", l->level,
                     m->nlevels, m->nlevels == 1 ? "" : "s");
            return bad(path, msg, "");
        }
        char name[64];
        snprintf(name, sizeof name, "level %u ticks", l->level);
        add_row(rows, n, name, &l->ticks, reached, reached ? m->level_ticks[l->level] : 0, over);
        snprintf(name, sizeof name, "level %u kernel_runs", l->level);
        add_row(rows, n, name, &l->runs, reached, reached ? m->level_runs[l->level] : 0, over);
    }
    for (uint32_t i = 0; i < b->nfuncs; i++) {
        uint64_t ticks;
        if (!function_ticks(prof, m, mod, b->funcs[i].name, &ticks)) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "function \"%s\" is in the budget but not in the kernel (renamed or "
                     "removed? run `wasmdbg budget update` or edit the file)",
                     b->funcs[i].name);
            return bad(path, msg, "");
        }
        char name[200];
        snprintf(name, sizeof name, "function %s", b->funcs[i].name);
        add_row(rows, n, name, &b->funcs[i].b, true, ticks, final);
    }
    qsort(rows, *n, sizeof *rows, cmp_rows);
    return -1;
}

/* ---- output -------------------------------------------------------------------------------- */

typedef struct copts {
    const char *budget_path, *junit;
    bool json, github;
    tol new_tol;
    uint32_t top;
} copts;

/* The runs that trapped, failed or got stuck; the PVM's stuck state when no run says it. */
static uint32_t print_failures(const wd_cli_pvm *s)
{
    uint32_t n, failed = 0;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    for (uint32_t i = 0; i < n; i++)
        if (runs[i].outcome != WD_RUN_OK) {
            printf("FAILED: level %u run %u %s: %s\n", runs[i].level, runs[i].index,
                   runs[i].outcome == WD_RUN_TRAPPED ? "trapped" :
                   runs[i].outcome == WD_RUN_FAILED ? "failed" : "stuck", runs[i].reason);
            failed++;
        }
    const char *stuck = wd_pvm_stuck_reason(s->pvm);
    if (stuck != NULL && failed == 0) {
        printf("FAILED: the PVM is stuck: %s\n", stuck);
        failed++;
    }
    if (s->stop.on && s->stop.in_run)
        printf("STOPPED: level %u run %u %s\n", s->stop.run.level, s->stop.run.index,
               s->stop.run.reason);
    else if (s->stop.on)
        printf("STOPPED: the kernel runs %s\n", s->stop.run.reason);
    return failed;
}


static void print_text(const wd_cli_pvm *s, const copts *o, const row *rows, uint32_t n,
                       uint32_t exceeded)
{
    printf("budget %s: %s under %s\n", o->budget_path, s->kernel_path, s->costs.name);
    int w = 5;
    for (uint32_t i = 0; i < n; i++)
        w = (int)strlen(rows[i].name) > w ? (int)strlen(rows[i].name) : w;
    printf("%-*s %14s %14s %10s %14s %12s %9s  %s\n", w, "bound", "measured", "max", "tolerance",
           "limit", "delta", "percent", "verdict");
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        char d[32], p[32];
        delta(r, d, sizeof d);
        percent(r, p, sizeof p);
        if (!r->reached || !r->checked)
            printf("%-*s %14s %14llu %10s %14llu %12s %9s  %s\n", w, r->name, "-",
                   (unsigned long long)r->max, r->tol, (unsigned long long)r->limit, "-", "-",
                   verdict(r));
        else
            printf("%-*s %14llu %14llu %10s %14llu %12s %9s  %s\n", w, r->name,
                   (unsigned long long)r->measured, (unsigned long long)r->max, r->tol,
                   (unsigned long long)r->limit, d, p, verdict(r));
    }
    uint32_t failed = print_failures(s), missed = 0, unchecked = 0;
    for (uint32_t i = 0; i < n; i++) {
        missed += rows[i].checked && !rows[i].reached;
        unchecked += !rows[i].checked;
    }
    printf("%u bound%s: %u ok, %u exceeded", n, n == 1 ? "" : "s", n - exceeded - unchecked,
           exceeded - missed);
    if (missed != 0)
        printf(", %u not reached", missed);
    if (unchecked != 0)
        printf(", %u not checked", unchecked);
    if (failed != 0)
        printf("; the kernel trapped or got stuck (never within budget)");
    if (s->stop.on)
        printf("; stopped at tick %llu", (unsigned long long)s->stop.tick);
    printf(": %s\n", exceeded == 0 && failed == 0 && !s->stop.on ? "pass" : "FAIL");
}

static json_t *run_failures_json(const wd_cli_pvm *s)
{
    json_t *a = json_array();
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    for (uint32_t i = 0; i < n; i++)
        if (runs[i].outcome != WD_RUN_OK)
            json_array_append_new(a, json_pack("{sIsIssss}", "level", (json_int_t)runs[i].level,
                                               "run", (json_int_t)runs[i].index, "outcome",
                                               runs[i].outcome == WD_RUN_TRAPPED ? "trapped"
                                               : runs[i].outcome == WD_RUN_FAILED ? "failed"
                                                                                 : "stuck",
                                               "reason", runs[i].reason));
    return a;
}

static int print_json(const wd_cli_pvm *s, const copts *o, const row *rows, uint32_t n,
                      bool pass)
{
    json_t *doc = json_object(), *bounds = json_array();
    json_object_set_new(doc, "kernel", json_string(s->kernel_path));
    json_object_set_new(doc, "budget", json_string(o->budget_path));
    json_object_set_new(doc, "tick_model", json_string(s->costs.name));
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        char d[32], p[32];
        delta(r, d, sizeof d);
        percent(r, p, sizeof p);
        json_t *j = json_pack("{sssIsssI}", "bound", r->name, "max", (json_int_t)r->max,
                              "tolerance", r->tol, "limit", (json_int_t)r->limit);
        bool known = r->reached && r->checked;
        json_object_set_new(j, "measured", known ? json_integer((json_int_t)r->measured)
                                                 : json_null());
        json_int_t dv = r->measured >= r->max ? (json_int_t)(r->measured - r->max)
                                              : -(json_int_t)(r->max - r->measured);
        json_object_set_new(j, "delta", known ? json_integer(dv) : json_null());
        json_object_set_new(j, "percent", known ? json_string(p) : json_null());
        json_object_set_new(j, "verdict", json_string(!r->checked   ? "not checked"
                                                      : !r->reached ? "not reached"
                                                      : r->ok       ? "ok"
                                                                    : "exceeded"));
        json_array_append_new(bounds, j);
    }
    json_object_set_new(doc, "bounds", bounds);
    json_object_set_new(doc, "run_failures", run_failures_json(s));
    const char *stuck = wd_pvm_stuck_reason(s->pvm);
    json_object_set_new(doc, "stuck", stuck ? json_string(stuck) : json_null());
    json_object_set_new(doc, "stopped", wd_cli_pvm_stop_json(s));
    json_object_set_new(doc, "pass", json_boolean(pass));
    return wd_cli_print_json(doc) ? -1 : WD_EXIT_USAGE;
}

/* GitHub's workflow commands: data escapes %, CR, LF; properties also : and ,. */
static void gh_escape(const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%')
            fputs("%25", stdout);
        else if (*s == '\r')
            fputs("%0D", stdout);
        else if (*s == '\n')
            fputs("%0A", stdout);
        else if (property && *s == ':')
            fputs("%3A", stdout);
        else if (property && *s == ',')
            fputs("%2C", stdout);
        else
            putchar(*s);
    }
}

static void gh_line(const char *kind, const char *file, const char *title, const char *msg)
{
    printf("::%s file=", kind);
    gh_escape(file, true);
    fputs(",title=", stdout);
    gh_escape(title, true);
    fputs("::", stdout);
    gh_escape(msg, false);
    putchar('\n');
}

static void print_github(const wd_cli_pvm *s, const copts *o, const row *rows, uint32_t n)
{
    char title[300], msg[600];
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (r->ok || !r->checked)
            continue;
        char d[32], p[32];
        delta(r, d, sizeof d);
        percent(r, p, sizeof p);
        snprintf(title, sizeof title, "tick budget exceeded: %s", r->name);
        if (r->reached)
            snprintf(msg, sizeof msg, "%s: measured %llu, limit %llu (max %llu, tolerance %s): "
                     "%s (%s) over the max",
                     r->name, (unsigned long long)r->measured, (unsigned long long)r->limit,
                     (unsigned long long)r->max, r->tol, d, p);
        else
            snprintf(msg, sizeof msg, "%s: not reached (the kernel got stuck before)", r->name);
        gh_line("error", o->budget_path, title, msg);
    }
    uint32_t nr;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &nr);
    for (uint32_t i = 0; i < nr; i++)
        if (runs[i].outcome != WD_RUN_OK) {
            snprintf(title, sizeof title, "kernel run failed: level %u run %u", runs[i].level,
                     runs[i].index);
            snprintf(msg, sizeof msg, "%s", runs[i].reason);
            gh_line("error", s->kernel_path, title, msg);
        }
    if (nr == 0 || runs[nr - 1].outcome == WD_RUN_OK) {
        const char *stuck = wd_pvm_stuck_reason(s->pvm);
        if (stuck != NULL)
            gh_line("error", s->kernel_path, "kernel stuck", stuck);
    }
    if (s->stop.on) {
        snprintf(title, sizeof title, "kernel runs stopped: level %u run %u",
                 s->stop.run.level, s->stop.run.index);
        gh_line("error", s->kernel_path, title, s->stop.run.reason);
    }
}

static void xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t')
                fprintf(f, "&#%d;", *s == '\n' ? 10 : 32);
            else
                fputc(*s, f);
        }
    }
}

static int write_junit(const wd_cli_pvm *s, const copts *o, const row *rows, uint32_t n,
                       uint32_t exceeded)
{
    FILE *f = fopen(o->junit, "w");
    if (f == NULL) {
        fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", o->junit, strerror(errno));
        return WD_EXIT_USAGE;
    }
    uint32_t nr, failed_runs = 0, unchecked = 0;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &nr);
    for (uint32_t i = 0; i < nr; i++)
        failed_runs += runs[i].outcome != WD_RUN_OK;
    for (uint32_t i = 0; i < n; i++)
        unchecked += !rows[i].checked;
    const char *stuck = wd_pvm_stuck_reason(s->pvm);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", f);
    fputs("  <testsuite name=\"tick budget ", f);
    xml_escape(f, o->budget_path);
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\"", n + 1,
            exceeded + (failed_runs || stuck || s->stop.on ? 1u : 0u));
    if (unchecked != 0)
        fprintf(f, " skipped=\"%u\"", unchecked);
    fputs(">\n", f);
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        fputs("    <testcase classname=\"budget\" name=\"", f);
        xml_escape(f, r->name);
        if (r->ok) {
            fputs("\"/>\n", f);
            continue;
        }
        if (!r->checked) {
            fputs("\">\n      <skipped message=\"not checked: the kernel runs were stopped "
                  "before its measure was final\"/>\n    </testcase>\n",
                  f);
            continue;
        }
        char d[32], p[32];
        delta(r, d, sizeof d);
        percent(r, p, sizeof p);
        fputs("\">\n      <failure message=\"", f);
        if (r->reached)
            fprintf(f, "measured %llu, limit %llu (max %llu, tolerance ", (unsigned long long)r->measured,
                    (unsigned long long)r->limit, (unsigned long long)r->max);
        else
            fputs("not reached (", f);
        xml_escape(f, r->reached ? r->tol : "the kernel got stuck before");
        fprintf(f, ")%s%s%s%s\"/>\n    </testcase>\n", r->reached ? ": " : "",
                r->reached ? d : "", r->reached ? " " : "", r->reached ? p : "");
    }
    fputs("    <testcase classname=\"budget\" name=\"kernel runs\"", f);
    if (failed_runs == 0 && stuck == NULL && !s->stop.on) {
        fputs("/>\n", f);
    } else {
        fputs(">\n      <failure message=\"", f);
        uint32_t k = 0;
        for (uint32_t i = 0; i < nr; i++)
            if (runs[i].outcome != WD_RUN_OK) {
                fprintf(f, "%slevel %u run %u: ", k++ ? "; " : "", runs[i].level, runs[i].index);
                xml_escape(f, runs[i].reason);
            }
        if (failed_runs == 0 && stuck != NULL) {
            xml_escape(f, stuck);
            k++;
        }
        if (s->stop.on) {
            fprintf(f, "%slevel %u run %u: ", k ? "; " : "", s->stop.run.level,
                    s->stop.run.index);
            xml_escape(f, s->stop.run.reason);
        }
        fputs("\"/>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    if (fclose(f) == 0)
        return -1;
    fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", o->junit, strerror(errno));
    return WD_EXIT_USAGE;
}

/* ---- update ------------------------------------------------------------------------------- */

static void json_key(FILE *f, const char *s)
{
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "\"?\"", f);
    free(t);
    json_decref(j);
}

static void write_bound(FILE *f, uint64_t max, const tol *t)
{
    fprintf(f, "{\"max\": %llu", (unsigned long long)max);
    if (t->kind == 1)
        fprintf(f, ", \"tolerance\": %llu", (unsigned long long)t->ticks);
    else if (t->kind == 2)
        fprintf(f, ", \"tolerance\": \"%s\"", t->text);
    fputs("}", f);
}

static const tol *level_tol(const budget *old, uint32_t level, bool runs, const tol *dflt)
{
    for (uint32_t i = 0; i < old->nlevels; i++)
        if (old->levels[i].level == level)
            return runs ? &old->levels[i].runs.t : &old->levels[i].ticks.t;
    return dflt;
}

/* Which functions a new budget tracks: the kernel's own functions (not phases, sections or
 * host functions) with the most total ticks. */
static bool trackable(wd_prof *prof, const wd_prof_func *fn)
{
    wd_prof_sym_info si;
    wd_prof_symbol_get(prof, fn->sym, &si);
    return si.kind == WD_PROF_ENTRY || si.kind == WD_PROF_DIRECT || si.kind == WD_PROF_INDIRECT;
}

static int write_budget(const wd_cli_pvm *s, const copts *o, const budget *old, bool had_old,
                        const measured *m, wd_prof *prof, const wd_module *mod)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", o->budget_path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", o->budget_path, strerror(errno));
        return WD_EXIT_USAGE;
    }
    const char *desc = had_old ? json_string_value(json_object_get(old->doc, "description")) : NULL;
    if (desc != NULL) {
        fputs("{\n  \"description\": ", f);
        json_key(f, desc);
        fputs(",\n  \"tick_model\": ", f);
    } else {
        fputs("{\n  \"tick_model\": ", f);
    }
    json_key(f, s->costs.name);
    fputs(",\n  \"total\": ", f);
    write_bound(f, m->total, had_old && old->total.present ? &old->total.t : &o->new_tol);
    fputs(",\n  \"phases\": {", f);
    for (int ph = 0; ph < WD_PROF_PH_COUNT; ph++) {
        fprintf(f, "%s\n    \"%s\": ", ph ? "," : "", wd_prof_phase_names[ph]);
        write_bound(f, m->phase[ph], had_old && old->phase[ph].present ? &old->phase[ph].t
                                                                        : &o->new_tol);
    }
    fputs("\n  },\n  \"levels\": [", f);
    for (uint32_t l = 0; l < m->nlevels; l++) {
        fprintf(f, "%s\n    {\"level\": %u, \"ticks\": ", l ? "," : "", l);
        write_bound(f, m->level_ticks[l], level_tol(old, l, false, &o->new_tol));
        fputs(", \"kernel_runs\": ", f);
        write_bound(f, m->level_runs[l], level_tol(old, l, true, &o->new_tol));
        fputs("}", f);
    }
    fputs("\n  ],\n  \"functions\": {", f);
    uint32_t written = 0;
    if (had_old) {
        for (uint32_t i = 0; i < old->nfuncs; i++) {
            uint64_t ticks;
            if (!function_ticks(prof, m, mod, old->funcs[i].name, &ticks)) {
                fprintf(stderr, "wasmdbg: %s: function \"%s\" is no longer in the kernel: "
                        "dropped\n", o->budget_path, old->funcs[i].name);
                continue;
            }
            fputs(written++ ? ",\n    " : "\n    ", f);
            json_key(f, old->funcs[i].name);
            fputs(": ", f);
            write_bound(f, ticks, &old->funcs[i].b.t);
        }
    } else {
        for (uint32_t i = 0; i < m->nfuncs && written < o->top; i++) {
            if (!trackable(prof, &m->funcs[i]))
                continue;
            wd_prof_sym_info si;
            wd_prof_symbol_get(prof, m->funcs[i].sym, &si);
            fputs(written++ ? ",\n    " : "\n    ", f);
            json_key(f, si.name);
            fputs(": ", f);
            write_bound(f, m->funcs[i].total, &o->new_tol);
        }
    }
    fputs(written ? "\n  }\n}\n" : "}\n}\n", f);
    if (fclose(f) != 0 || rename(tmp, o->budget_path) != 0) {
        fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", o->budget_path, strerror(errno));
        remove(tmp);
        return WD_EXIT_USAGE;
    }
    printf("budget %s: written (%s under %s: %llu ticks, %u level%s, %u function%s)\n",
           o->budget_path, s->kernel_path, s->costs.name, (unsigned long long)m->total,
           m->nlevels, m->nlevels == 1 ? "" : "s", written, written == 1 ? "" : "s");
    return WD_EXIT_OK;
}

/* ---- the command -------------------------------------------------------------------------- */

static int usage(const char *fmt, const char *arg)
{
    fputs("wasmdbg: ", stderr);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", budget_help);
    return WD_EXIT_USAGE;
}

/* --tolerance T: ticks (a whole number, as the file's integer tolerances) or a percentage
 * ("2%", "0.5%"). A bare fraction such as 2.5 is neither: it is refused, with the spelling
 * of the percentage, rather than cut to 2 ticks. Returns -1 or the exit code. */
static int parse_tol_option(const char *v, tol *t)
{
    char msg[300], percent[40];
    *t = (tol){0};
    if (strchr(v, '%') != NULL) {
        if (wd_budget_tol_parse(v, t))
            return -1;
        snprintf(msg, sizeof msg, "--tolerance: expected a percentage with at most 3 decimals "
                 "like 2%% or 0.5%%, got %.60s", v);
        return usage("%s", msg);
    }
    wd_error err;
    wd_error_clear(&err);
    uint64_t ticks;
    if (wd_numarg_u64("--tolerance", v, 0, INT64_MAX, &ticks, &err) == WD_OK) {
        t->kind = 1;
        t->ticks = ticks;
        snprintf(t->text, sizeof t->text, "%llu", (unsigned long long)ticks);
        return -1;
    }
    tol as_percent;
    if (v[0] != '\0' && strspn(v, "0123456789") == strlen(v)) /* too many ticks */
        snprintf(msg, sizeof msg, "%s", err.msg);
    else if (snprintf(percent, sizeof percent, "%s%%", v) < (int)sizeof percent &&
             wd_budget_tol_parse(percent, &as_percent))
        snprintf(msg, sizeof msg, "--tolerance: %.30s is neither ticks (a whole number) nor a "
                 "percentage: for %.30s percent of each max, write %.30s%%", v, v, v);
    else
        snprintf(msg, sizeof msg, "--tolerance: expected ticks (a whole number) or a percentage "
                 "like 2%% or 0.5%%, got %.60s", v[0] != '\0' ? v : "nothing");
    return usage("%s", msg);
}

/* Takes budget's own options out of argv[2..]; the rest go to *rest. Returns -1 or a code. */
static int parse_opts(copts *o, int argc, char **argv, char **rest, int *nrest)
{
    *o = (copts){.top = 10};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool takes = strcmp(a, "--budget") == 0 || strcmp(a, "--junit") == 0 ||
                     strcmp(a, "--tolerance") == 0 || strcmp(a, "--functions") == 0;
        if (takes && i + 1 >= argc)
            return usage("%s needs a value", a);
        const char *v = takes ? argv[++i] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(budget_help, stdout);
            return WD_EXIT_OK;
        } else if (strcmp(a, "--json") == 0)
            o->json = true;
        else if (strcmp(a, "--github") == 0)
            o->github = true;
        else if (strcmp(a, "--budget") == 0)
            o->budget_path = v;
        else if (strcmp(a, "--junit") == 0)
            o->junit = v;
        else if (strcmp(a, "--tolerance") == 0) {
            int code = parse_tol_option(v, &o->new_tol);
            if (code >= 0)
                return code;
        } else if (strcmp(a, "--functions") == 0) {
            wd_error err;
            wd_error_clear(&err);
            if (wd_numarg_u32(a, v, 0, 100000, &o->top, &err) != WD_OK)
                return usage("%s", err.msg);
        } else if (!takes)
            rest[(*nrest)++] = argv[i];
    }
    if (o->budget_path == NULL)
        return usage("%s", "--budget FILE is required");
    return -1;
}

/* `check` of a budget recorded under a retired tick model: refused before anything runs,
 * with the `update` that records it anew (this command line without check's own output
 * options, nor a retired --tick-model). Returns -1 or the exit code. */
static int refuse_retired(const budget *b, const char *path, int argc, char **argv)
{
    if (wd_tickmodel_retired(b->model) == NULL)
        return -1;
    const char **words = calloc((size_t)argc + 2, sizeof *words);
    if (words == NULL)
        return bad(path, "out of memory", "");
    size_t n = 0;
    words[n++] = "wasmdbg";
    words[n++] = "budget";
    words[n++] = "update";
    for (int i = 2; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--github") == 0)
            continue;
        bool junit = strcmp(argv[i], "--junit") == 0;
        bool retired = strcmp(argv[i], "--tick-model") == 0 && wd_tickmodel_retired(value) != NULL;
        if (value != NULL && (junit || retired)) {
            i++; /* the option's value goes with it */
            continue;
        }
        words[n++] = argv[i];
    }
    int code = wd_cli_refuse_retired(path, b->model, words, n);
    free(words);
    return code;
}

static int check(wd_cli_pvm *s, const copts *o, const budget *b, const measured *m,
                 wd_prof *prof)
{
    if (strcmp(b->model, s->costs.name) != 0) {
        fprintf(stderr,
                "wasmdbg: %s: the budget was measured under tick model \"%s\", this run uses "
                "\"%s\" (pass --tick-model %s, or accept the new model with `wasmdbg budget "
                "update`)\n",
                o->budget_path, b->model, s->costs.name, b->model);
        return WD_EXIT_USAGE;
    }
    size_t cap = 1 + WD_PROF_PH_COUNT + 2 * (size_t)b->nlevels + b->nfuncs;
    row *rows = wd_calloc(&s->ctx, cap, sizeof *rows);
    if (rows == NULL)
        return bad(o->budget_path, "out of memory", "");
    uint32_t n;
    int code = compare(b, m, prof, wd_pvm_module(s->pvm), o->budget_path, rows, &n);
    if (code < 0 && s->stop.on) /* a bound certainly exceeded, or --max-ticks: where */
        wd_cli_pvm_print_stop(s, NULL, NULL);
    uint32_t exceeded = 0;
    for (uint32_t i = 0; code < 0 && i < n; i++)
        exceeded += rows[i].checked && !rows[i].ok;
    bool pass = exceeded == 0 && !m->failed && !m->stopped;
    if (code < 0 && o->json)
        code = print_json(s, o, rows, n, pass);
    else if (code < 0)
        print_text(s, o, rows, n, exceeded);
    if (code < 0 && o->github)
        print_github(s, o, rows, n);
    if (code < 0 && o->junit != NULL)
        code = write_junit(s, o, rows, n, exceeded);
    wd_free(&s->ctx, rows);
    return code >= 0 ? code : pass ? WD_EXIT_OK : WD_EXIT_FAILED;
}

static int update(wd_cli_pvm *s, const copts *o, const budget *old, bool had_old,
                  const measured *m, wd_prof *prof)
{
    if (m->stopped)
        wd_cli_pvm_print_stop(s, NULL, NULL);
    if (m->failed || m->stopped) {
        print_failures(s);
        fprintf(stderr, "wasmdbg: %s: not written: %s\n", o->budget_path,
                m->failed ? "a kernel that traps or gets stuck has no budget"
                          : "the kernel runs were stopped before their end (--max-ticks)");
        return WD_EXIT_FAILED;
    }
    int code = write_budget(s, o, old, had_old, m, prof, wd_pvm_module(s->pvm));
    if (code == WD_EXIT_OK && had_old && wd_tickmodel_retired(old->model) != NULL)
        printf("budget %s: replaced figures recorded under the retired tick model %s (tolerances "
               "and tracked functions kept)\n",
               o->budget_path, old->model);
    return code;
}

static int measure_and_go(wd_cli_pvm *s, const copts *o, bool is_check, budget *b,
                          bool had_old, wd_profhook *hook, wd_ctx *pctx)
{
    wd_prof *prof = hook->prof;
    wd_error err;
    wd_error_clear(&err);
    measured m;
    memset(&m, 0, sizeof m);
    wd_status st = run_all(s, hook, &err);
    if (st == WD_OK)
        st = measure(s, prof, &m, &err);
    int code;
    if (st == WD_PAUSED) { /* Ctrl-C: a partial measure checks nothing */
        wd_cli_pvm_print_interrupt(s, NULL, NULL);
        fprintf(stderr, "wasmdbg: the budget was neither checked nor written\n");
        code = WD_EXIT_INTERRUPTED;
    } else if (st != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        code = WD_EXIT_USAGE;
    } else {
        fflush(stderr);
        code = is_check ? check(s, o, b, &m, prof) : update(s, o, b, had_old, &m, prof);
    }
    measured_free(&s->ctx, pctx, &m);
    return code;
}

int wd_cli_budget(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(budget_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? WD_EXIT_USAGE : WD_EXIT_OK;
    }
    bool is_check = strcmp(argv[1], "check") == 0;
    if (!is_check && strcmp(argv[1], "update") != 0)
        return usage("budget: expected check or update, got %s", argv[1]);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL)
        return WD_EXIT_USAGE;
    copts o;
    int nrest = 0;
    int code = parse_opts(&o, argc, argv, rest, &nrest);
    wd_ctx pctx;
    wd_ctx_init(&pctx);
    budget b;
    memset(&b, 0, sizeof b);
    bool had_old = false;
    FILE *probe = code < 0 && !is_check ? fopen(o.budget_path, "r") : NULL;
    if (probe != NULL)
        fclose(probe);
    if (code < 0 && (is_check || probe != NULL)) {
        code = budget_load(&pctx, o.budget_path, &b);
        had_old = code < 0;
        if (code < 0 && is_check)
            code = refuse_retired(&b, o.budget_path, argc, argv);
    }
    wd_prof *prof = NULL;
    wd_error err;
    wd_error_clear(&err);
    wd_prof_config cfg = {.mode = WD_PROF_AUTO};
    if (code < 0 && wd_prof_new(&pctx, &cfg, &prof, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        code = WD_EXIT_USAGE;
    }
    if (code >= 0) {
        free(rest);
        wd_budget_free(&pctx, &b);
        return code;
    }
    wd_profhook hook;
    /* Not threaded: the budget's own allocations share the profiler's context. */
    wd_profhook_init(&hook, &pctx, prof, WD_PROFHOOK_NO_TIME, 1000, false);
    wd_cli_pvm s;
    code = wd_cli_pvm_start_hooks(&s, nrest, rest, budget_help, true, &hook.hooks);
    free(rest);
    if (code < 0 && is_check && strcmp(b.model, s.costs.name) == 0) {
        s.watch = watch_bounds; /* stop as soon as a bound is certainly exceeded */
        s.watch_ud = &b;
    }
    if (code < 0) {
        code = measure_and_go(&s, &o, is_check, &b, had_old, &hook, &pctx);
        wd_cli_pvm_finish(&s);
    }
    wd_profhook_fini(&hook);
    wd_prof_free(prof);
    wd_budget_free(&pctx, &b);
    return code;
}
