/* diff.c: `wasmdbg diff OLD NEW`: two profiles of `wasmdbg profile` compared: the ticks in
 * all, per phase and per function (total ticks), before, after, delta and percent, biggest
 * changes first; with --svg, also a differential flamegraph (profiler/svg.h). OLD and NEW
 * are JSON profiles (`--json`) or the directories (`-o DIR`) the profiles were written to.
 *
 * Where the flamegraph's stacks come from: the JSON profile has per-function figures but
 * no call tree, so the flamegraph reads the folded stacks written with it (BASE.out): the
 * file the JSON's "files"."folded" names, looked up beside the JSON file (a profile's
 * files share their directory), or the file given by --folded-old / --folded-new. A
 * profile that carries its stacks itself ("stacks": an array of folded lines) needs
 * neither. */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "profiler/svg.h"

static const char diff_help[] =
    "usage: wasmdbg diff OLD NEW [--json] [--all] [--svg FILE]\n"
    "                    [--folded-old FILE] [--folded-new FILE]\n"
    "\n"
    "Compares two profiles: ticks in all, per phase and per function (total ticks), before,\n"
    "after, delta and percent, biggest changes first. OLD and NEW are JSON profiles\n"
    "(`wasmdbg profile --json`) or the directories `wasmdbg profile -o DIR` wrote.\n"
    "  --json              print the comparison as JSON\n"
    "  --all               also list what did not change\n"
    "  --svg FILE          also write a differential flamegraph to FILE: the new profile's\n"
    "                      frames, red where their self ticks grew, blue where they shrank\n"
    "                      (deeper: larger change), grey unchanged, orange new call paths\n"
    "  --folded-old FILE   the profiles' folded stacks for --svg (default: the .out file\n"
    "  --folded-new FILE   each JSON profile names, in the JSON file's directory)\n";

/* Folded stacks files up to this size are read (a full-mode profile has a line per call). */
#define FOLDED_MAX ((size_t)1 << 31)

typedef struct drow {
    const char *kind; /* "", "phase " or "function " */
    const char *name; /* borrowed from a profile */
    bool has_old, has_new;
    uint64_t before, after;
} drow;

typedef struct dprof {
    json_t *doc;
    const char *path;
} dprof;

typedef struct dopts {
    bool json, all;
    const char *svg, *folded[2]; /* folded[WD_SVG_OLD], folded[WD_SVG_NEW] */
} dopts;

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

/* "YYYY-MM-DDTHH:MM:SS.mmm-00:00" (the "timestamp" of profiles without "timestamp_ns") in ns
 * since 1970; 0 when it is not one. */
static uint64_t parse_timestamp(const char *s)
{
    unsigned y, mo, d, h, mi, sec, ms;
    char tail[8];
    if (s == NULL ||
        sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2u.%3u%7s", &y, &mo, &d, &h, &mi, &sec, &ms, tail) != 8 ||
        strcmp(tail, "-00:00") != 0 || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31)
        return 0;
    /* days since 1970 by the civil calendar (Howard Hinnant's days_from_civil) */
    unsigned yy = mo <= 2 ? y - 1 : y, era = yy / 400, yoe = yy - era * 400;
    unsigned doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    uint64_t days = (uint64_t)era * 146097 + doe - 719468;
    uint64_t secs = ((days * 24 + h) * 60 + mi) * 60 + sec;
    return secs * 1000000000u + (uint64_t)ms * 1000000u;
}

/* When the profile at `path` was made, in ns since 1970: its "timestamp_ns", else its
 * "timestamp"; 0 when it has neither. False when it is not a JSON profile. */
static bool profile_time(const char *path, uint64_t *ns)
{
    *ns = 0;
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    bool ok = fmt != NULL && strcmp(fmt, "wasmdbg-profile") == 0;
    json_t *t = json_object_get(doc, "timestamp_ns");
    if (ok && json_is_integer(t) && json_integer_value(t) > 0)
        *ns = (uint64_t)json_integer_value(t);
    else if (ok)
        *ns = parse_timestamp(json_string_value(json_object_get(doc, "timestamp")));
    json_decref(doc);
    return ok;
}

static char *join_path(wd_ctx *ctx, const char *dir, const char *name)
{
    size_t dn = strlen(dir), bn = strlen(name);
    bool slash = dn > 0 && dir[dn - 1] == '/';
    char *path = wd_alloc(ctx, dn + bn + 2);
    if (path != NULL) {
        memcpy(path, dir, dn);
        if (!slash)
            path[dn++] = '/';
        memcpy(path + dn, name, bn + 1);
    }
    return path;
}

/* The profile a directory holds (a `wasmdbg profile -o DIR`): its BASE.json, the newest by
 * the time recorded in it when there are several (names do not order them: --name, or
 * BASE-2 for profiles started in the same millisecond), the last by name among equal
 * times. Files that are not JSON profiles are passed over. Returns the path (owned), NULL
 * when reported. */
static char *profile_in(wd_ctx *ctx, const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp == NULL) {
        fprintf(stderr, "wasmdbg: %s: cannot open: %s\n", dir, strerror(errno));
        return NULL;
    }
    char *best = NULL;
    uint64_t best_ns = 0;
    uint32_t count = 0;
    bool oom = false;
    for (struct dirent *e; !oom && (e = readdir(dp)) != NULL;) {
        const char *n = e->d_name;
        if (!ends_with(n, ".json") || ends_with(n, ".trace.json") ||
            ends_with(n, ".speedscope.json"))
            continue;
        char *path = join_path(ctx, dir, n);
        uint64_t ns;
        oom = path == NULL;
        if (oom || !profile_time(path, &ns)) {
            wd_free(ctx, path);
            continue;
        }
        count++;
        if (best != NULL && (ns < best_ns || (ns == best_ns && strcmp(path, best) <= 0))) {
            wd_free(ctx, path);
            continue;
        }
        wd_free(ctx, best);
        best = path;
        best_ns = ns;
    }
    closedir(dp);
    if (oom) {
        fprintf(stderr, "wasmdbg: out of memory\n");
        wd_free(ctx, best);
        return NULL;
    }
    if (best == NULL) {
        fprintf(stderr,
                "wasmdbg: %s: no JSON profile in it (`wasmdbg profile -o %s` writes one)\n",
                dir, dir);
        return NULL;
    }
    if (count > 1)
        fprintf(stderr, "wasmdbg: %s holds %u profiles: comparing the newest, %s\n", dir, count,
                best + strlen(dir) + (dir[0] != '\0' && dir[strlen(dir) - 1] != '/'));
    return best;
}

static bool load(const char *path, dprof *p)
{
    json_error_t je;
    p->path = path;
    p->doc = json_load_file(path, 0, &je);
    if (p->doc == NULL) {
        if (je.line < 1)
            fprintf(stderr, "wasmdbg: %s: %s\n", path, je.text);
        else
            fprintf(stderr, "wasmdbg: %s:%d:%d: %s\n", path, je.line, je.column, je.text);
        return false;
    }
    const char *fmt = json_string_value(json_object_get(p->doc, "format"));
    if (fmt == NULL || strcmp(fmt, "wasmdbg-profile") != 0 ||
        !json_is_object(json_object_get(p->doc, "phases")) ||
        !json_is_array(json_object_get(p->doc, "functions"))) {
        fprintf(stderr, "wasmdbg: %s: not a profile of `wasmdbg profile --json`\n", path);
        return false;
    }
    const char *kernel = json_string_value(json_object_get(p->doc, "kernel"));
    const char *const again[] = {"wasmdbg",  "profile", kernel != NULL ? kernel : "KERNEL",
                                 "--inputs", "INPUTS",  "--json"};
    const char *model = json_string_value(json_object_get(p->doc, "tick_model"));
    return wd_cli_refuse_retired(path, model, again, WD_ARRAY_COUNT(again)) < 0;
}

static uint64_t ticks_of(json_t *v)
{
    json_int_t i = json_integer_value(v);
    return i > 0 ? (uint64_t)i : 0;
}

/* ---- the table ---- */

static const char *const phases[] = {"decode", "link", "init", "kernel_run"};
#define SUMMARY_ROWS (1 + WD_ARRAY_COUNT(phases))

typedef struct fentry {
    const char *name;
    uint64_t ticks;
    bool is_new;
} fentry;

static int cmp_fentries(const void *a, const void *b)
{
    const fentry *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static void put(drow *r, bool is_new, uint64_t v)
{
    if (is_new) {
        r->has_new = true;
        r->after += v;
    } else {
        r->has_old = true;
        r->before += v;
    }
}

static void summary_rows(const dprof *p, bool is_new, drow *rows)
{
    put(&rows[0], is_new, ticks_of(json_object_get(p->doc, "ticks")));
    json_t *ph = json_object_get(p->doc, "phases");
    for (size_t i = 0; i < WD_ARRAY_COUNT(phases); i++)
        put(&rows[1 + i], is_new, ticks_of(json_object_get(ph, phases[i])));
}

static size_t function_entries(const dprof *p, bool is_new, fentry *out)
{
    json_t *fs = json_object_get(p->doc, "functions");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        const char *name = json_string_value(json_object_get(f, "name"));
        if (name != NULL)
            out[n++] = (fentry){name, ticks_of(json_object_get(f, "total")), is_new};
    }
    return n;
}

/* The rows: ticks, the phases, then a row per function name of either profile (a name
 * twice in one profile adds up). Functions are matched by sorting both lists together
 * and merging runs of equal names: n log n, not a search per function. NULL on OOM. */
static drow *make_rows(wd_ctx *ctx, const dprof *o, const dprof *nw, uint32_t *count)
{
    size_t nf = json_array_size(json_object_get(o->doc, "functions")) +
                json_array_size(json_object_get(nw->doc, "functions"));
    fentry *fe = wd_alloc(ctx, (nf + 1) * sizeof *fe);
    drow *rows = wd_calloc(ctx, SUMMARY_ROWS + nf, sizeof *rows);
    if (fe == NULL || rows == NULL || nf > UINT32_MAX - SUMMARY_ROWS) {
        wd_free(ctx, fe);
        wd_free(ctx, rows);
        return NULL;
    }
    rows[0] = (drow){.kind = "", .name = "ticks"};
    for (size_t i = 0; i < WD_ARRAY_COUNT(phases); i++)
        rows[1 + i] = (drow){.kind = "phase ", .name = phases[i]};
    summary_rows(o, false, rows);
    summary_rows(nw, true, rows);
    size_t m = function_entries(o, false, fe);
    m += function_entries(nw, true, fe + m);
    qsort(fe, m, sizeof *fe, cmp_fentries);
    uint32_t n = SUMMARY_ROWS;
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || strcmp(fe[i].name, fe[i - 1].name) != 0)
            rows[n++] = (drow){.kind = "function ", .name = fe[i].name};
        put(&rows[n - 1], fe[i].is_new, fe[i].ticks);
    }
    wd_free(ctx, fe);
    *count = n;
    return rows;
}

static uint64_t change(const drow *r)
{
    return r->after >= r->before ? r->after - r->before : r->before - r->after;
}

static int cmp_drows(const void *a, const void *b)
{
    const drow *x = a, *y = b;
    uint64_t cx = change(x), cy = change(y);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void fmt_delta(const drow *r, char *d, size_t dn, char *p, size_t pn)
{
    uint64_t c = change(r);
    char sign = r->after >= r->before ? '+' : '-';
    snprintf(d, dn, "%c%llu", sign, (unsigned long long)c);
    if (!r->has_old)
        snprintf(p, pn, "new");
    else if (!r->has_new)
        snprintf(p, pn, "gone");
    else if (r->before == 0)
        snprintf(p, pn, "%s", c ? "+inf%" : "+0.00%");
    else {
        uint64_t h = c <= UINT64_MAX / 10000 ? c * 10000 / r->before
                                             : (uint64_t)((double)c / (double)r->before * 1e4);
        snprintf(p, pn, "%c%llu.%02llu%%", h ? sign : '+', (unsigned long long)(h / 100),
                 (unsigned long long)(h % 100));
    }
}

static bool shown(const drow *r, bool all)
{
    return all || change(r) != 0 || r->has_old != r->has_new;
}

static void print_text(const dprof *o, const dprof *nw, const drow *rows, uint32_t n,
                       const dopts *op)
{
    printf("diff %s -> %s\n", o->path, nw->path);
    size_t w = 5;
    for (uint32_t i = 0; i < n; i++)
        w = WD_MAX(w, strlen(rows[i].kind) + strlen(rows[i].name));
    printf("%-*s %14s %14s %14s %9s\n", (int)w, "what", "before", "after", "delta", "percent");
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const drow *r = &rows[i];
        if (!shown(r, op->all))
            continue;
        char d[32], p[32], b[32], a[32];
        fmt_delta(r, d, sizeof d, p, sizeof p);
        snprintf(b, sizeof b, "%llu", (unsigned long long)r->before);
        snprintf(a, sizeof a, "%llu", (unsigned long long)r->after);
        printf("%s%s%*s %14s %14s %14s %9s\n", r->kind, r->name,
               (int)(w - strlen(r->kind) - strlen(r->name)), "", r->has_old ? b : "-",
               r->has_new ? a : "-", d, p);
        count++;
    }
    printf("%u changed of %u\n", count, n);
    if (op->svg != NULL)
        printf("differential flamegraph: %s\n", op->svg);
}

static int print_json(const dprof *o, const dprof *nw, const drow *rows, uint32_t n,
                      const dopts *op)
{
    json_t *doc = json_pack("{ssss}", "old", o->path, "new", nw->path), *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
        const drow *r = &rows[i];
        if (!shown(r, op->all))
            continue;
        char d[32], p[32];
        fmt_delta(r, d, sizeof d, p, sizeof p);
        json_t *j = json_object();
        json_object_set_new(j, "what", json_sprintf("%s%s", r->kind, r->name));
        json_object_set_new(j, "before",
                            r->has_old ? json_integer((json_int_t)r->before) : json_null());
        json_object_set_new(j, "after",
                            r->has_new ? json_integer((json_int_t)r->after) : json_null());
        json_int_t dv = r->after >= r->before ? (json_int_t)(r->after - r->before)
                                              : -(json_int_t)(r->before - r->after);
        json_object_set_new(j, "delta", json_integer(dv));
        json_object_set_new(j, "percent", json_string(p));
        json_array_append_new(a, j);
    }
    json_object_set_new(doc, "changes", a);
    if (op->svg != NULL)
        json_object_set_new(doc, "svg", json_string(op->svg));
    return wd_cli_print_json(doc) ? WD_EXIT_OK : WD_EXIT_USAGE;
}

/* ---- the differential flamegraph ---- */

static const char *const side_opt[2] = {"--folded-old", "--folded-new"};

/* The profile's own "stacks", as lines: returns true with *text NULL when it has none. */
static bool embedded_stacks(wd_ctx *ctx, const dprof *p, char **text, size_t *size)
{
    *text = NULL;
    *size = 0;
    json_t *st = json_object_get(p->doc, "stacks");
    if (st == NULL)
        return true;
    size_t n = 0;
    for (size_t i = 0; json_is_array(st) && i < json_array_size(st); i++)
        n += json_string_length(json_array_get(st, i)) + 1;
    char *t = wd_alloc(ctx, n + 1);
    if (t == NULL) {
        fprintf(stderr, "wasmdbg: out of memory\n");
        return false;
    }
    for (size_t i = 0; json_is_array(st) && i < json_array_size(st); i++) {
        json_t *s = json_array_get(st, i);
        if (!json_is_string(s) || memchr(json_string_value(s), '\n', json_string_length(s))) {
            fprintf(stderr, "wasmdbg: %s: stacks[%zu]: expected a folded stack line\n", p->path, i);
            wd_free(ctx, t);
            return false;
        }
        memcpy(t + *size, json_string_value(s), json_string_length(s));
        *size += json_string_length(s);
        t[(*size)++] = '\n';
    }
    if (!json_is_array(st)) {
        fprintf(stderr, "wasmdbg: %s: stacks: expected an array of folded stack lines\n", p->path);
        wd_free(ctx, t);
        return false;
    }
    *text = t;
    return true;
}

/* The folded stacks file the profile names, in the JSON file's directory; NULL (reported)
 * when it names none or it is not there. Owned by the caller (wd_free). */
static char *stacks_path(wd_ctx *ctx, const dprof *p, wd_svg_side side)
{
    const char *name =
        json_string_value(json_object_get(json_object_get(p->doc, "files"), "folded"));
    if (name == NULL || name[0] == '\0') {
        fprintf(stderr,
                "wasmdbg: %s names no folded stacks file: give the one `wasmdbg profile` "
                "wrote with it (BASE.out) with %s FILE\n",
                p->path, side_opt[side]);
        return NULL;
    }
    const char *slash = strrchr(p->path, '/');
    size_t dir = name[0] == '/' || slash == NULL ? 0 : (size_t)(slash - p->path) + 1;
    char *path = wd_alloc(ctx, dir + strlen(name) + 1);
    if (path == NULL) {
        fprintf(stderr, "wasmdbg: out of memory\n");
        return NULL;
    }
    memcpy(path, p->path, dir);
    strcpy(path + dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr,
                "wasmdbg: %s: its folded stacks %s are not beside it: give them with %s FILE "
                "(the BASE.out `wasmdbg profile` wrote into its -o directory)\n",
                p->path, name, side_opt[side]);
        wd_free(ctx, path);
        return NULL;
    }
    fclose(f);
    return path;
}

/* Reads a folded stacks file; NULL when reported. */
static char *read_stacks(wd_ctx *ctx, const char *path, size_t *size)
{
    uint8_t *text;
    wd_error err;
    wd_error_clear(&err);
    if (wd_read_file(ctx, path, NULL, FOLDED_MAX, &text, size, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return NULL;
    }
    return (char *)text;
}

/* Adds one profile's stacks to d: the file given, else the profile's own, else the file it
 * names. False when reported. */
static bool add_stacks(wd_ctx *ctx, wd_svg_diff *d, wd_svg_side side, const dprof *p,
                       const char *given)
{
    char *text = NULL, *path = NULL;
    size_t size = 0;
    const char *from = given, *part = ""; /* messages name "FROM[PART]" */
    if (given != NULL) {
        text = read_stacks(ctx, given, &size);
    } else if (!embedded_stacks(ctx, p, &text, &size)) {
        return false;
    } else if (text != NULL) {
        from = p->path;
        part = ": stacks";
    } else if ((path = stacks_path(ctx, p, side)) != NULL) {
        from = path;
        text = read_stacks(ctx, path, &size);
    }
    wd_error err;
    wd_error_clear(&err);
    bool ok = text != NULL;
    if (ok && wd_svg_diff_add(d, side, text, size, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s%s: %s\n", from, part, err.msg);
        ok = false;
    }
    uint64_t want = ticks_of(json_object_get(p->doc, "full_execution")); /* the tree's */
    if (ok && wd_svg_diff_ticks(d, side) != want)
        fprintf(stderr,
                "wasmdbg: warning: %s%s: the stacks add up to %llu ticks, %s has %llu: not "
                "the same profile?\n",
                from, part, (unsigned long long)wd_svg_diff_ticks(d, side), p->path,
                (unsigned long long)want);
    wd_free(ctx, text);
    wd_free(ctx, path);
    return ok;
}

static int write_svg(wd_ctx *ctx, const dprof *o, const dprof *nw, const dopts *op)
{
    wd_svg_diff *d;
    wd_error err;
    wd_error_clear(&err);
    if (wd_svg_diff_new(ctx, &d, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return WD_EXIT_USAGE;
    }
    /* NEW first: the graph keeps its frames' order. */
    if (!add_stacks(ctx, d, WD_SVG_NEW, nw, op->folded[WD_SVG_NEW]) ||
        !add_stacks(ctx, d, WD_SVG_OLD, o, op->folded[WD_SVG_OLD])) {
        wd_svg_diff_free(d);
        return WD_EXIT_USAGE;
    }
    wd_svg_diff_opts so = {.old_name = o->path,
                           .new_name = nw->path,
                           .tick_model = json_string_value(json_object_get(nw->doc, "tick_model"))};
    bool ok = false;
    FILE *f = fopen(op->svg, "w");
    if (f == NULL) {
        fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", op->svg, strerror(errno));
    } else if (wd_svg_diff_write(d, f, &so, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s: %s\n", op->svg, err.msg);
        fclose(f);
    } else if (fclose(f) != 0) {
        fprintf(stderr, "wasmdbg: %s: cannot write: %s\n", op->svg, strerror(errno));
    } else {
        ok = true;
    }
    wd_svg_diff_free(d);
    return ok ? WD_EXIT_OK : WD_EXIT_USAGE;
}

static int compare(wd_ctx *ctx, const dprof *o, const dprof *nw, const dopts *op)
{
    const char *mo = json_string_value(json_object_get(o->doc, "tick_model"));
    const char *mn = json_string_value(json_object_get(nw->doc, "tick_model"));
    if (mo == NULL || mn == NULL || strcmp(mo, mn) != 0) {
        fprintf(stderr, "wasmdbg: %s and %s were measured under different tick models (%s, %s)\n",
                o->path, nw->path, mo ? mo : "?", mn ? mn : "?");
        return WD_EXIT_USAGE;
    }
    uint32_t n;
    drow *rows = make_rows(ctx, o, nw, &n);
    if (rows == NULL) {
        fprintf(stderr, "wasmdbg: out of memory\n");
        return WD_EXIT_USAGE;
    }
    /* The summary rows first (ticks, then the phases), then the functions by the size of
     * the change. */
    qsort(rows + SUMMARY_ROWS, n - SUMMARY_ROWS, sizeof *rows, cmp_drows);
    int code = op->svg != NULL ? write_svg(ctx, o, nw, op) : WD_EXIT_OK;
    if (code == WD_EXIT_OK && op->json)
        code = print_json(o, nw, rows, n, op);
    else if (code == WD_EXIT_OK)
        print_text(o, nw, rows, n, op);
    wd_free(ctx, rows);
    return code;
}

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "wasmdbg: %s%s\n\n%s", what, arg, diff_help);
    return WD_EXIT_USAGE;
}

int wd_cli_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    dopts op = {0};
    int np = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **value = strcmp(a, "--svg") == 0          ? &op.svg
                             : strcmp(a, "--folded-old") == 0 ? &op.folded[WD_SVG_OLD]
                             : strcmp(a, "--folded-new") == 0 ? &op.folded[WD_SVG_NEW]
                                                              : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(diff_help, stdout);
            return WD_EXIT_OK;
        } else if (strcmp(a, "--json") == 0) {
            op.json = true;
        } else if (strcmp(a, "--all") == 0) {
            op.all = true;
        } else if (value != NULL) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage(a, " needs a file name");
            *value = argv[++i];
        } else if (a[0] != '-' && np < 2) {
            paths[np++] = a;
        } else {
            return usage("unexpected argument ", a);
        }
    }
    if (np != 2)
        return usage("diff needs two profiles", "");
    if (op.svg == NULL && (op.folded[0] != NULL || op.folded[1] != NULL))
        return usage(op.folded[0] ? side_opt[0] : side_opt[1], " needs --svg FILE");
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    char *found[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        struct stat sb;
        if (stat(paths[k], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            found[k] = profile_in(&ctx, paths[k]);
            if (found[k] == NULL) {
                wd_free(&ctx, found[0]);
                return WD_EXIT_USAGE;
            }
            paths[k] = found[k];
        }
    }
    dprof o = {0}, nw = {0};
    int code =
        load(paths[0], &o) && load(paths[1], &nw) ? compare(&ctx, &o, &nw, &op) : WD_EXIT_USAGE;
    json_decref(o.doc);
    json_decref(nw.doc);
    wd_free(&ctx, found[0]);
    wd_free(&ctx, found[1]);
    return code;
}
