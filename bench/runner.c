/* runner.c: the timing side of `make bench`.
 *
 *   runner [--wasmdbg PATH] [--list FILE] [--reps N] [--out DIR]
 *
 * Runs every workload of the list (bench/workloads.list) on wasmdbg (`invoke FILE run
 * --tick-model pvm`; kernels: `run FILE ARGS`, and `profile FILE ARGS` when the build
 * has it) and on every peer found: wabt's wasm-interp and node on PATH, wasm3 and WAMR's
 * iwasm when the environment variables WASM3 and IWASM name them. The runtimes take turns
 * (the order rotates each repetition) so that a change in machine load hits them all
 * alike. Each run is a separate process: its wall time (fork to wait4) and its peak
 * resident memory (ru_maxrss) are recorded, and its checksum is compared with the one most
 * runtimes give; a runtime that disagrees (or changes between runs) gets WRONG, one that
 * fails (exit status, no result, timeout) FAIL. A missing peer is only a missing column.
 * Exit status 1 when one of wasmdbg's own cells is WRONG or FAIL.
 *
 * Environment: BENCH_REPS (default 11), BENCH_ONLY (comma-separated workload names),
 * BENCH_SKIP (comma-separated runtime names), WASM3, IWASM, WASM_INTERP, NODE.
 * A runtime whose first run of a workload takes longer than 1.5 s gets at most 3
 * repetitions of it (wasm-interp, mostly), so the whole suite stays within minutes.
 *
 * Prints the tables (markdown) and writes DIR/table.md and DIR/results.tsv (every run). */
#define _DEFAULT_SOURCE /* wait4 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_REPS = 64, MAX_WL = 64, MAX_ARGS = 16, SLOW_REPS = 3, TIMEOUT_S = 300, CELL = 64 };
/* Kernel rows (wasmdbg alone, tens of milliseconds a run) get at least this many runs: their
 * "profiling / metered" ratio is a difference of a few milliseconds, which the default
 * runs on a shared machine do not pin down. Once, the same tx-kernel profile's
 * paired difference to another build ranged from -9 to +5 ms over 31 rounds (a run takes
 * 21 ms): the median of 21 moved the ratio by about 0.04 from one `make bench` to the
 * next. 61 runs cost tx-kernel's row about 2.5 s more. */
enum { KERNEL_REPS = 61 };
#define SLOW_SECS 1.5

enum kind { EXEC, LOAD, KERNEL };
/* PROF: wasmdbg with the profiler on (`wasmdbg profile`: kernels only, for now) */
enum rt_id { WASMDBG, PROF, WASM3, IWASM, WASM_INTERP, NODE, RT_COUNT };

typedef struct runtime {
    const char *name;
    const char *path; /* NULL: not found (no column) */
    char version[96];
} runtime;

typedef struct sample {
    double secs;
    long rss_kb;
    bool ok;        /* exited 0 with a result */
    uint64_t value; /* the checksum (kernels: the total ticks) */
    uint64_t ticks; /* wasmdbg: the ticks it reported */
} sample;

typedef struct cell {
    sample s[MAX_REPS];
    int n;     /* runs done */
    int limit; /* runs planned */
    bool wrong, failed;
} cell;

typedef struct workload {
    char name[32];
    enum kind kind;
    bool is64;
    char file[256];
    char *args[MAX_ARGS];
    int argc;
    cell cells[RT_COUNT];
    bool have_ref;
    uint64_t ref; /* the checksum every runtime must give */
} workload;

static runtime rts[RT_COUNT] = {
    {"wasmdbg", NULL, ""}, {"wasmdbg profiling", NULL, ""}, {"wasm3", NULL, ""},
    {"iwasm", NULL, ""},   {"wasm-interp", NULL, ""},       {"node", NULL, ""},
};
static workload wls[MAX_WL];
static int wl_count;
static const char *node_script = "bench/node_run.mjs";
/* Where `wasmdbg profile` writes its files, emptied after each profiling run, outside its
 * time. Kept, a tx-kernel profile's 3.9 MB of page cache comes from memory the machine has
 * not used before; on a VM that hands free memory back to its host (free page reporting,
 * as on the machines here), each such 4 KiB page costs a fault in the host when first
 * written: after 30 to 60 profiles of tx-kernel-no-verif kept, one profile took 11-15 ms
 * instead of 7.3-8.3 (`run` 6.2 ms), a cost of the harness's 240 MB, not of profiling (a
 * page the VM has used before takes 2.5 us to touch, a new one 12 us). Deleted, the pages
 * are reused by the next run. The deletions have a cost of their own on ext4 (an inode
 * freed in the last minutes is scanned past, not reused): a `make bench` started within five
 * minutes of another one, or of deleting many files, pays a little of it on the profile
 * column. */
static char prof_dir[512];

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "runner: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether `name` is in the comma-separated list in environment variable `var`. */
static bool in_env_list(const char *var, const char *name)
{
    const char *list = getenv(var);
    size_t len = strlen(name);
    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return true;
        p = end ? end + 1 : p + n;
    }
    return false;
}

/* Runs argv with stdout and stderr into *out (NUL-terminated, owned by the caller).
 * Returns the wait status, or -1 when it could not run or timed out (then killed). */
static int run_cmd(const char *const argv[], char **out, double *secs, long *rss_kb)
{
    int fds[2];
    if (pipe(fds) != 0)
        die("pipe: %s", strerror(errno));
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    size_t size = 0, cap = 4096;
    char *buf = malloc(cap);
    if (buf == NULL)
        die("out of memory");
    bool timed_out = false;
    for (;;) {
        struct pollfd p = {fds[0], POLLIN, 0};
        double left = t0 + TIMEOUT_S - now_s();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) == 0) {
            kill(pid, SIGKILL);
            timed_out = true;
            break;
        }
        if (size + 1 >= cap)
            buf = realloc(buf, cap *= 2);
        if (buf == NULL)
            die("out of memory");
        ssize_t got = read(fds[0], buf + size, cap - size - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size += (size_t)got;
    }
    close(fds[0]);
    buf[size] = '\0';
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            die("wait4: %s", strerror(errno));
    *secs = now_s() - t0;
    *rss_kb = ru.ru_maxrss;
    *out = buf;
    return timed_out ? -1 : status;
}

/* The integer after the first occurrence of `marker` at the start of a line ("" for
 * any line start), decimal or 0x hex, signed or not. */
static bool find_value(const char *out, const char *marker, uint64_t *value)
{
    size_t len = strlen(marker);
    for (const char *line = out; line != NULL && *line != '\0';) {
        if (strncmp(line, marker, len) == 0) {
            const char *p = line + len;
            char *end;
            errno = 0;
            uint64_t v = *p == '-' ? (uint64_t)strtoll(p, &end, 0) : strtoull(p, &end, 0);
            if (end != p && errno == 0) {
                *value = v;
                return true;
            }
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return false;
}

/* The N of "total: ... N ticks (" in `wasmdbg run`'s output. */
static bool find_kernel_ticks(const char *out, uint64_t *value)
{
    const char *total = strstr(out, "\ntotal: ");
    const char *ticks = total ? strstr(total, " ticks") : NULL;
    if (ticks == NULL)
        return false;
    const char *p = ticks;
    while (p > total && p[-1] >= '0' && p[-1] <= '9')
        p--;
    if (p == ticks)
        return false;
    *value = strtoull(p, NULL, 10);
    return true;
}

/* Parses one runtime's output into s->value (and s->ticks). */
static bool parse_result(enum rt_id rt, const workload *w, const char *out, sample *s)
{
    const char *type = w->is64 ? "i64:" : "i32:";
    char marker[32];
    bool ok;
    switch (rt) {
    case PROF: /* "total: N ticks in kernel runs" */
    case WASMDBG:
        if (w->kind == KERNEL)
            return find_kernel_ticks(out, &s->value) && (s->ticks = s->value, true);
        ok = find_value(out, type, &s->value) && find_value(out, "ticks: ", &s->ticks);
        break;
    case NODE:
        ok = find_value(out, type, &s->value);
        break;
    case WASM_INTERP:
        snprintf(marker, sizeof marker, "run() => %s", type);
        ok = find_value(out, marker, &s->value);
        break;
    case WASM3:
        ok = find_value(out, "Result: ", &s->value);
        break;
    default: /* iwasm: 0x35c7e2:i32 */
        ok = find_value(out, "", &s->value) && strstr(out, w->is64 ? ":i64" : ":i32") != NULL;
        break;
    }
    if (!w->is64)
        s->value &= 0xffffffffu;
    return ok;
}

/* The command line of `rt` for `w`, into argv (NULL-terminated). */
static void build_argv(enum rt_id rt, const workload *w, const char **argv)
{
    int n = 0;
    argv[n++] = rts[rt].path;
    switch (rt) {
    case WASMDBG:
    case PROF:
        if (w->kind == KERNEL) {
            argv[n++] = rt == PROF ? "profile" : "run";
            argv[n++] = w->file;
            for (int i = 0; i < w->argc; i++)
                argv[n++] = w->args[i];
            if (rt == PROF) {
                argv[n++] = "-o";
                argv[n++] = prof_dir;
            }
        } else {
            argv[n++] = "invoke";
            argv[n++] = w->file;
            argv[n++] = "run";
            argv[n++] = "--tick-model";
            argv[n++] = "pvm";
        }
        break;
    case WASM3:
    case IWASM:
        argv[n++] = rt == WASM3 ? "--func" : "-f";
        argv[n++] = "run";
        argv[n++] = w->file;
        break;
    case WASM_INTERP:
        argv[n++] = w->file;
        argv[n++] = "--run-all-exports";
        break;
    default:
        argv[n++] = node_script;
        argv[n++] = w->file;
        break;
    }
    argv[n] = NULL;
}

/* Removes the files in `dir` (what one profiling run wrote). */
static void empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[1024];
    for (struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
}

static void run_one(enum rt_id rt, workload *w, FILE *tsv, int rep)
{
    cell *c = &w->cells[rt];
    const char *argv[MAX_ARGS + 8];
    build_argv(rt, w, argv);
    sample *s = &c->s[c->n++];
    memset(s, 0, sizeof *s);
    char *out;
    int status = run_cmd(argv, &out, &s->secs, &s->rss_kb);
    s->ok =
        status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && parse_result(rt, w, out, s);
    if (!s->ok) {
        c->failed = true;
        fprintf(stderr, "\nrunner: %s on %s failed (status %d):\n%.400s\n", w->name, rts[rt].name,
                status, out);
    }
    if (rt == PROF)
        empty_dir(prof_dir);
    if (rep == 0 && s->secs > SLOW_SECS && c->limit > SLOW_REPS)
        c->limit = SLOW_REPS;
    fprintf(tsv, "%s\t%s\t%d\t%.6f\t%ld\t%s\t%" PRIu64 "\t%" PRIu64 "\n", w->name, rts[rt].name,
            rep, s->secs, s->rss_kb, s->ok ? "ok" : "fail", s->value, s->ticks);
    free(out);
}

/* Runs every workload: repetitions outermost per workload, runtimes in rotating order. */
static void run_all(int reps, FILE *tsv)
{
    for (int i = 0; i < wl_count; i++) {
        workload *w = &wls[i];
        int n = w->kind == KERNEL && reps < KERNEL_REPS ? KERNEL_REPS : reps;
        fprintf(stderr, "runner: %s", w->name);
        for (int rt = 0; rt < RT_COUNT; rt++)
            w->cells[rt].limit = rts[rt].path == NULL ? 0
                                 : rt == WASMDBG      ? n
                                 : rt == PROF         ? (w->kind == KERNEL ? n : 0)
                                 : w->kind != KERNEL  ? n
                                                      : 0;
        for (int rep = 0; rep < n; rep++) {
            for (int k = 0; k < RT_COUNT; k++) {
                int rt = (k + rep) % RT_COUNT;
                if (w->cells[rt].n < w->cells[rt].limit)
                    run_one((enum rt_id)rt, w, tsv, w->cells[rt].n);
            }
            fprintf(stderr, ".");
        }
        fprintf(stderr, "\n");
    }
}

static char *skip_space(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Reads the next whitespace-separated field of *p (NUL-terminating it in place). */
static char *field(char **p)
{
    char *start = skip_space(*p), *end = start;
    while (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n')
        end++;
    *p = *end != '\0' ? end + 1 : end;
    *end = '\0';
    return start;
}

static void read_list(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        die("cannot read %s", path);
    static char lines[MAX_WL][1024];
    int line_no = 0;
    while (wl_count < MAX_WL && fgets(lines[wl_count], sizeof lines[0], f) != NULL) {
        line_no++;
        char *p = lines[wl_count];
        if (*skip_space(p) == '#' || *skip_space(p) == '\n' || *skip_space(p) == '\0')
            continue;
        workload *w = &wls[wl_count];
        memset(w, 0, sizeof *w); /* it may hold a line skipped before */
        snprintf(w->name, sizeof w->name, "%s", field(&p));
        const char *kind = field(&p), *type = field(&p);
        snprintf(w->file, sizeof w->file, "%s", field(&p));
        field(&p); /* SMALL: for bench-callgrind */
        w->kind = strcmp(kind, "exec") == 0 ? EXEC : strcmp(kind, "load") == 0 ? LOAD : KERNEL;
        w->is64 = strcmp(type, "i64") == 0;
        if (strcmp(kind, "kernel") != 0 && w->kind == KERNEL)
            die("%s:%d: unknown kind \"%s\"", path, line_no, kind);
        for (char *a = field(&p); *a != '\0' && w->argc < MAX_ARGS; a = field(&p))
            w->args[w->argc++] = a;
        if (getenv("BENCH_ONLY") != NULL && !in_env_list("BENCH_ONLY", w->name))
            continue;
        if (access(w->file, R_OK) != 0) {
            fprintf(stderr, "runner: %s: %s not found, skipped\n", w->name, w->file);
            continue;
        }
        wl_count++;
    }
    fclose(f);
}

/* --- runtimes ------------------------------------------------------------------------ */

/* The full path of `name` on PATH (into buf), or NULL. */
static const char *find_in_path(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ':');
        int n = end ? (int)(end - p) : (int)strlen(p);
        snprintf(buf, size, "%.*s/%s", n, p, name);
        if (access(buf, X_OK) == 0)
            return buf;
        p = end ? end + 1 : p + n;
    }
    return NULL;
}

/* The first line of `cmd --version`-style output into rt->version. */
static void get_version(runtime *rt, const char *arg, const char *prefix)
{
    const char *argv[] = {rt->path, arg, NULL};
    char *out;
    double secs;
    long rss;
    run_cmd(argv, &out, &secs, &rss);
    out[strcspn(out, "\n")] = '\0';
    snprintf(rt->version, sizeof rt->version, "%s%s", prefix, out);
    free(out);
}

/* The value of environment variable `var` copied into buf, or NULL; the variable is then
 * removed, so that the runtimes do not see it (wasm3 reads WASM3 itself). */
static const char *take_env(const char *var, char *buf, size_t size)
{
    const char *v = getenv(var);
    if (v == NULL)
        return NULL;
    snprintf(buf, size, "%s", v);
    unsetenv(var);
    return buf;
}

static void find_runtimes(void)
{
    static char paths[RT_COUNT][512];
    rts[WASM3].path = take_env("WASM3", paths[WASM3], sizeof paths[0]);
    rts[IWASM].path = take_env("IWASM", paths[IWASM], sizeof paths[0]);
    rts[WASM_INTERP].path = take_env("WASM_INTERP", paths[WASM_INTERP], sizeof paths[0]);
    if (rts[WASM_INTERP].path == NULL)
        rts[WASM_INTERP].path = find_in_path("wasm-interp", paths[WASM_INTERP], sizeof paths[0]);
    rts[NODE].path = take_env("NODE", paths[NODE], sizeof paths[0]);
    if (rts[NODE].path == NULL)
        rts[NODE].path = find_in_path("node", paths[NODE], sizeof paths[0]);
    if (access(rts[WASMDBG].path, X_OK) != 0)
        die("%s: not found (make it first)", rts[WASMDBG].path);
    for (int rt = 0; rt < RT_COUNT; rt++) {
        const char *path = rts[rt].path;
        if (path != NULL && (*path == '\0' || access(path, X_OK) != 0)) {
            fprintf(stderr, "runner: %s: %s is not executable, left out\n", rts[rt].name, path);
            rts[rt].path = NULL;
        }
        if (rts[rt].path != NULL && in_env_list("BENCH_SKIP", rts[rt].name))
            rts[rt].path = NULL;
    }
    if (rts[NODE].path != NULL && access(node_script, R_OK) != 0)
        rts[NODE].path = NULL;
    get_version(&rts[WASMDBG], "--version", "");
    rts[PROF].path = in_env_list("BENCH_SKIP", rts[PROF].name) ? NULL : rts[WASMDBG].path;
    if (rts[PROF].path != NULL) { /* a wasmdbg without `profile`: no such column */
        const char *argv[] = {rts[PROF].path, "profile", "--help", NULL};
        char *out;
        double secs;
        long rss;
        int status = run_cmd(argv, &out, &secs, &rss);
        free(out);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rts[PROF].path = NULL;
    }
    if (rts[WASM3].path)
        get_version(&rts[WASM3], "--version", "");
    if (rts[IWASM].path)
        get_version(&rts[IWASM], "--version", "");
    if (rts[WASM_INTERP].path)
        get_version(&rts[WASM_INTERP], "--version", "wabt ");
    if (rts[NODE].path)
        get_version(&rts[NODE], "--version", "node ");
}

/* --- verdicts ------------------------------------------------------------------------ */

/* The checksum most runtimes give is the reference; a runtime that gives another (or
 * changes between runs) is WRONG. With no majority (a tie), every cell is WRONG. */
static void judge(workload *w)
{
    uint64_t values[RT_COUNT];
    int votes[RT_COUNT] = {0}, distinct = 0;
    for (int rt = 0; rt < RT_COUNT; rt++) {
        cell *c = &w->cells[rt];
        const sample *first = NULL;
        if (rt == PROF) /* its own figure (profile's total), checked for determinism only */
            continue;
        for (int i = 0; i < c->n; i++) {
            if (!c->s[i].ok)
                continue;
            if (first == NULL)
                first = &c->s[i];
            else if (c->s[i].value != first->value)
                c->wrong = true; /* not deterministic */
        }
        if (first == NULL)
            continue;
        int k = 0;
        while (k < distinct && values[k] != first->value)
            k++;
        if (k == distinct)
            values[distinct++] = first->value;
        votes[k]++;
    }
    int best = -1;
    bool tie = false;
    for (int k = 0; k < distinct; k++) {
        if (best < 0 || votes[k] > votes[best]) {
            best = k;
            tie = false;
        } else if (votes[k] == votes[best]) {
            tie = true;
        }
    }
    w->have_ref = best >= 0 && !tie;
    if (w->have_ref)
        w->ref = values[best];
    for (int rt = 0; rt < RT_COUNT; rt++) {
        cell *c = &w->cells[rt];
        for (int i = 0; i < c->n; i++)
            if (rt == PROF ? c->s[i].ok && c->s[i].value != c->s[0].value
                           : c->s[i].ok && (!w->have_ref || c->s[i].value != w->ref))
                c->wrong = true;
    }
}

/* --- report -------------------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median, min and max wall time of a cell's successful runs; false when it has none. */
static bool cell_times(const cell *c, double *med, double *lo, double *hi)
{
    double v[MAX_REPS];
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (c->s[i].ok)
            v[n++] = c->s[i].secs;
    if (n == 0 || c->failed || c->wrong)
        return false;
    *med = median_of(v, n);
    *lo = v[0];
    *hi = v[n - 1];
    return true;
}

static void fmt_ms(char *out, size_t size, double secs)
{
    double ms = secs * 1e3;
    snprintf(out, size, ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : "%.2f", ms);
}

static void fmt_cell(char *out, size_t size, const cell *c)
{
    double med, lo, hi;
    if (c->limit == 0) {
        snprintf(out, size, "-");
    } else if (c->wrong) {
        snprintf(out, size, "WRONG");
    } else if (!cell_times(c, &med, &lo, &hi)) {
        snprintf(out, size, "FAIL");
    } else {
        char a[16], b[16], d[16];
        fmt_ms(a, sizeof a, med);
        fmt_ms(b, sizeof b, lo);
        fmt_ms(d, sizeof d, hi);
        snprintf(out, size, "%s (%s-%s)", a, b, d);
    }
}

/* wasmdbg's median time over rt's, or < 0 when either is missing. */
static double ratio(const workload *w, int rt)
{
    double a, b, lo, hi;
    if (!cell_times(&w->cells[WASMDBG], &a, &lo, &hi) || !cell_times(&w->cells[rt], &b, &lo, &hi))
        return -1;
    return a / b;
}

/* A markdown table: rows x cols of strings, columns padded to their widest cell. */
typedef struct table {
    int rows, cols;
    char cell[MAX_WL + 4][12][CELL];
} table;

static void print_table(FILE *f, const table *t)
{
    int width[12] = {0};
    for (int r = 0; r < t->rows; r++)
        for (int c = 0; c < t->cols; c++)
            if ((int)strlen(t->cell[r][c]) > width[c])
                width[c] = (int)strlen(t->cell[r][c]);
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->cols; c++)
            fprintf(f, c == 0 ? "| %-*s |" : " %*s |", width[c], t->cell[r][c]);
        fprintf(f, "\n");
        if (r == 0) {
            for (int c = 0; c < t->cols; c++)
                fprintf(f, c == 0 ? "| %.*s |" : " %.*s:|", width[c],
                        "------------------------------------------------------------------");
            fprintf(f, "\n");
        }
    }
    fprintf(f, "\n");
}

static void machine(char *out, size_t size)
{
    char cpu[128] = "unknown CPU", os[128] = "";
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
            snprintf(cpu, sizeof cpu, "%s", skip_space(strchr(line, ':') + 1));
            cpu[strcspn(cpu, "\n")] = '\0';
            break;
        }
    }
    if (f != NULL)
        fclose(f);
    f = fopen("/etc/os-release", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "PRETTY_NAME=", 12) == 0)
            snprintf(os, sizeof os, "%.*s", (int)strcspn(line + 13, "\"\n"), line + 13);
    if (f != NULL)
        fclose(f);
    snprintf(out, size, "%s, %ld cores, %s", cpu, sysconf(_SC_NPROCESSORS_ONLN), os);
}

static void report_header(FILE *f, int reps)
{
    char date[64], mach[320];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    machine(mach, sizeof mach);
    fprintf(f, "Measured %s on %s. Runtimes:", date, mach);
    const char *sep = " ";
    for (int rt = 0; rt < RT_COUNT; rt++) {
        if (rts[rt].path != NULL && rt != PROF) {
            fprintf(f, "%s%s (%s)", sep, rts[rt].name, rts[rt].version);
            sep = ", ";
        }
    }
    fprintf(f,
            ". Each time is the median (min-max) in ms of %d run%s (at most %d for a runtime "
            "whose first run took over %.1f s; at least %d for the kernels), one process per "
            "run, wall clock; wasmdbg meters with pvm; \"wasmdbg profiling\" is `wasmdbg "
            "profile` (kernels only, its output files included).\n\n",
            reps, reps == 1 ? "" : "s", SLOW_REPS, SLOW_SECS, KERNEL_REPS);
}

static void report_times(FILE *f)
{
    table t = {0};
    int cols = 0;
    snprintf(t.cell[0][cols++], CELL, "time, ms");
    for (int rt = 0; rt < RT_COUNT; rt++) {
        if (rts[rt].path != NULL)
            snprintf(t.cell[0][cols++], CELL, "%s", rts[rt].name);
    }
    snprintf(t.cell[0][cols++], CELL, "checksum");
    t.cols = cols;
    for (int i = 0; i < wl_count; i++) {
        workload *w = &wls[i];
        int c = 0;
        snprintf(t.cell[i + 1][c++], CELL, "%.31s", w->name);
        for (int rt = 0; rt < RT_COUNT; rt++) {
            if (rts[rt].path == NULL)
                continue;
            if (rt == PROF && w->kind != KERNEL) /* TODO(#7): once plain modules can be */
                snprintf(t.cell[i + 1][c++], CELL, "n/a");
            else
                fmt_cell(t.cell[i + 1][c++], CELL, &w->cells[rt]);
        }
        if (!w->have_ref)
            snprintf(t.cell[i + 1][c++], CELL, "WRONG");
        else if (w->kind == KERNEL)
            snprintf(t.cell[i + 1][c++], CELL, "ticks %" PRIu64, w->ref);
        else if (w->is64)
            snprintf(t.cell[i + 1][c++], CELL, "%" PRId64, (int64_t)w->ref);
        else
            snprintf(t.cell[i + 1][c++], CELL, "%" PRId32, (int32_t)(uint32_t)w->ref);
    }
    t.rows = wl_count + 1;
    print_table(f, &t);
}

static void fmt_ratio(char *out, double r)
{
    if (r < 0)
        snprintf(out, CELL, "-");
    else
        snprintf(out, CELL, "%.2f", r);
}

/* wasmdbg's time over the fastest interpreter peer's (node's JIT is a ceiling, not a
 * peer), or < 0 when there is none. */
static double ratio_fastest(const workload *w)
{
    double best = -1;
    for (int rt = WASM3; rt <= WASM_INTERP; rt++) {
        double r = rts[rt].path != NULL ? ratio(w, rt) : -1;
        if (r >= 0 && (best < 0 || r > best))
            best = r; /* the largest ratio: the fastest peer */
    }
    return best;
}

static void fmt_count(char *out, double v)
{
    snprintf(out, CELL,
             v >= 1e9   ? "%.2fG"
             : v >= 1e6 ? "%.1fM"
                        : "%.0f",
             v >= 1e9   ? v / 1e9
             : v >= 1e6 ? v / 1e6
                        : v);
}

/* The ratio columns of one workload into row[1..], wasmdbg's figures after them. */
static int ratio_row(const workload *w, char (*row)[CELL], double *ratios)
{
    int c = 1, k = 0;
    for (int rt = WASM3; rt < RT_COUNT; rt++) {
        if (rts[rt].path == NULL)
            continue;
        ratios[k] = w->kind == KERNEL ? -1 : ratio(w, rt);
        fmt_ratio(row[c++], ratios[k++]);
    }
    ratios[k] = w->kind == KERNEL ? -1 : ratio_fastest(w);
    fmt_ratio(row[c++], ratios[k++]);
    if (rts[PROF].path != NULL) { /* profiler on over off */
        ratios[k] = ratio(w, PROF) > 0 ? 1 / ratio(w, PROF) : -1;
        fmt_ratio(row[c++], ratios[k++]);
    }
    const cell *d = &w->cells[WASMDBG];
    double med, lo, hi;
    long rss = 0;
    for (int i = 0; i < d->n; i++)
        rss = d->s[i].rss_kb > rss ? d->s[i].rss_kb : rss;
    if (cell_times(d, &med, &lo, &hi)) {
        fmt_count(row[c++], (double)d->s[0].ticks);
        snprintf(row[c++], CELL, "%.0f", (double)d->s[0].ticks / med / 1e6);
        snprintf(row[c++], CELL, "%.1f", (double)rss / 1024);
    } else {
        for (int i = 0; i < 3; i++)
            snprintf(row[c++], CELL, "-");
    }
    return k;
}

static void report_ratios(FILE *f)
{
    table t = {0};
    int cols = 0;
    snprintf(t.cell[0][cols++], CELL, "wasmdbg time /");
    for (int rt = WASM3; rt < RT_COUNT; rt++)
        if (rts[rt].path != NULL)
            snprintf(t.cell[0][cols++], CELL, "%s", rts[rt].name);
    snprintf(t.cell[0][cols++], CELL, "fastest interp.");
    if (rts[PROF].path != NULL)
        snprintf(t.cell[0][cols++], CELL, "profiling / metered");
    snprintf(t.cell[0][cols++], CELL, "ticks");
    snprintf(t.cell[0][cols++], CELL, "Mticks/s");
    snprintf(t.cell[0][cols++], CELL, "peak MB");
    t.cols = cols;
    int nratio = 0, nexec = 0;
    double per[RT_COUNT + 1][MAX_WL];
    for (int i = 0; i < wl_count; i++) {
        double ratios[RT_COUNT + 1];
        snprintf(t.cell[i + 1][0], CELL, "%.31s", wls[i].name);
        nratio = ratio_row(&wls[i], t.cell[i + 1], ratios);
        if (wls[i].kind != EXEC)
            continue;
        for (int k = 0; k < nratio; k++)
            per[k][nexec] = ratios[k];
        nexec++;
    }
    t.rows = wl_count + 1;
    for (int s = 0; s < 2; s++, t.rows++) { /* median and max over the exec workloads */
        snprintf(t.cell[t.rows][0], CELL, s == 0 ? "median (exec)" : "max (exec)");
        for (int k = 0; k < nratio; k++) {
            double v[MAX_WL];
            int n = 0;
            for (int i = 0; i < nexec; i++)
                if (per[k][i] >= 0)
                    v[n++] = per[k][i];
            double med = n == 0 ? -1 : median_of(v, n); /* sorts v */
            fmt_ratio(t.cell[t.rows][k + 1], s == 0 || n == 0 ? med : v[n - 1]);
        }
        for (int c = nratio + 1; c < cols; c++)
            snprintf(t.cell[t.rows][c], CELL, " ");
    }
    print_table(f, &t);
}

static void report_memory(FILE *f)
{
    table t = {0};
    int cols = 0;
    snprintf(t.cell[0][cols++], CELL, "peak RSS, MB");
    for (int rt = 0; rt < RT_COUNT; rt++)
        if (rts[rt].path != NULL)
            snprintf(t.cell[0][cols++], CELL, "%s", rts[rt].name);
    t.cols = cols;
    for (int i = 0; i < wl_count; i++) {
        int c = 0;
        snprintf(t.cell[i + 1][c++], CELL, "%.31s", wls[i].name);
        for (int rt = 0; rt < RT_COUNT; rt++) {
            if (rts[rt].path == NULL)
                continue;
            const cell *x = &wls[i].cells[rt];
            long rss = 0;
            for (int k = 0; k < x->n; k++)
                rss = x->s[k].rss_kb > rss ? x->s[k].rss_kb : rss;
            if (x->n == 0)
                snprintf(t.cell[i + 1][c++], CELL, "-");
            else
                snprintf(t.cell[i + 1][c++], CELL, "%.1f", (double)rss / 1024);
        }
    }
    t.rows = wl_count + 1;
    print_table(f, &t);
}

static void report(FILE *f, int reps)
{
    report_header(f, reps);
    report_times(f);
    fprintf(f, "wasmdbg's time divided by each peer's (below 1: wasmdbg is faster), and "
               "wasmdbg's ticks (pvm), ticks per second and peak memory:\n\n");
    report_ratios(f);
    fprintf(f, "Peak resident memory (max over the runs):\n\n");
    report_memory(f);
}

int main(int argc, char **argv)
{
    const char *list = "bench/workloads.list", *outdir = "build/bench";
    /* 11: on a 2-CPU VM a runtime's speed drifts by a third within minutes; with medians
     * of 5 runs, three `make bench` of the same interpreter gave a largest ratio to wasm3
     * of 0.98, 1.36 and 1.60, each time on another workload */
    int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 11;
    rts[WASMDBG].path = "build/wasmdbg";
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            die("usage: runner [--wasmdbg PATH] [--list FILE] [--reps N] [--out DIR]");
        if (strcmp(argv[i], "--wasmdbg") == 0)
            rts[WASMDBG].path = argv[++i];
        else if (strcmp(argv[i], "--list") == 0)
            list = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0)
            outdir = argv[++i];
        else
            die("unknown option %s", argv[i]);
    }
    if (reps < 1 || reps > MAX_REPS)
        die("repetitions must be 1..%d", MAX_REPS);
    find_runtimes();
    read_list(list);
    char path[512];
    snprintf(path, sizeof path, "%s/results.tsv", outdir);
    mkdir(outdir, 0777);
    snprintf(prof_dir, sizeof prof_dir, "%s/profile", outdir);
    mkdir(prof_dir, 0777);
    FILE *tsv = fopen(path, "w");
    if (tsv == NULL)
        die("cannot write %s", path);
    fprintf(tsv, "workload\truntime\trep\tseconds\tmaxrss_kb\tstatus\tvalue\tticks\n");
    run_all(reps, tsv);
    fclose(tsv);
    for (int i = 0; i < wl_count; i++)
        judge(&wls[i]);
    snprintf(path, sizeof path, "%s/table.md", outdir);
    FILE *md = fopen(path, "w");
    if (md == NULL)
        die("cannot write %s", path);
    report(stdout, reps);
    report(md, reps);
    fclose(md);
    bool bad = false; /* a peer's failure or wrong result is only reported */
    for (int i = 0; i < wl_count; i++)
        for (int rt = WASMDBG; rt <= PROF; rt++)
            bad = bad || wls[i].cells[rt].wrong || wls[i].cells[rt].failed;
    return bad ? 1 : 0;
}
