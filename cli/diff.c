/* diff.c: `wasmdbg diff OLD.json NEW.json`: two JSON profiles (`wasmdbg profile --json`)
 * compared: the ticks in all, per phase and per function (total ticks), before, after,
 * delta and percent, biggest changes first. */
#include "cli/cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char diff_help[] =
    "usage: wasmdbg diff OLD.json NEW.json [--json] [--all]\n"
    "\n"
    "Compares two JSON profiles (`wasmdbg profile --json`): ticks in all, per phase and per\n"
    "function (total ticks), before, after, delta and percent, biggest changes first.\n"
    "  --json   print the comparison as JSON\n"
    "  --all    also list what did not change\n";

typedef struct drow {
    char name[256];
    bool has_old, has_new;
    uint64_t before, after;
} drow;

typedef struct dprof {
    json_t *doc;
    const char *path;
} dprof;

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
    return true;
}

static uint64_t ticks_of(json_t *v)
{
    json_int_t i = json_integer_value(v);
    return i > 0 ? (uint64_t)i : 0;
}

static drow *find_or_add(drow *rows, uint32_t *n, uint32_t cap, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    if (*n == cap)
        return NULL;
    drow *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

static void put(drow *r, bool is_new, uint64_t v)
{
    if (r == NULL)
        return;
    if (is_new) {
        r->has_new = true;
        r->after += v;
    } else {
        r->has_old = true;
        r->before += v;
    }
}

static void collect(const dprof *p, bool is_new, drow *rows, uint32_t *n, uint32_t cap)
{
    put(find_or_add(rows, n, cap, "ticks"), is_new,
        ticks_of(json_object_get(p->doc, "effective")));
    static const char *const phases[] = {"decode", "link", "init", "kernel_run"};
    json_t *ph = json_object_get(p->doc, "phases");
    for (size_t i = 0; i < WD_ARRAY_COUNT(phases); i++) {
        char name[64];
        snprintf(name, sizeof name, "phase %s", phases[i]);
        put(find_or_add(rows, n, cap, name), is_new, ticks_of(json_object_get(ph, phases[i])));
    }
    json_t *fs = json_object_get(p->doc, "functions");
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        const char *fname = json_string_value(json_object_get(f, "name"));
        if (fname == NULL)
            continue;
        char name[256];
        snprintf(name, sizeof name, "function %s", fname);
        put(find_or_add(rows, n, cap, name), is_new, ticks_of(json_object_get(f, "total")));
    }
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

static void print_text(const dprof *o, const dprof *nw, const drow *rows, uint32_t n, bool all)
{
    printf("diff %s -> %s\n", o->path, nw->path);
    int w = 5;
    for (uint32_t i = 0; i < n; i++)
        w = (int)strlen(rows[i].name) > w ? (int)strlen(rows[i].name) : w;
    printf("%-*s %14s %14s %14s %9s\n", w, "what", "before", "after", "delta", "percent");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n; i++) {
        const drow *r = &rows[i];
        if (!all && change(r) == 0 && r->has_old == r->has_new)
            continue;
        char d[32], p[32], b[32], a[32];
        fmt_delta(r, d, sizeof d, p, sizeof p);
        snprintf(b, sizeof b, "%llu", (unsigned long long)r->before);
        snprintf(a, sizeof a, "%llu", (unsigned long long)r->after);
        printf("%-*s %14s %14s %14s %9s\n", w, r->name, r->has_old ? b : "-",
               r->has_new ? a : "-", d, p);
        shown++;
    }
    printf("%u changed of %u\n", shown, n);
}

static int print_json(const dprof *o, const dprof *nw, const drow *rows, uint32_t n, bool all)
{
    json_t *doc = json_pack("{ssss}", "old", o->path, "new", nw->path), *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
        const drow *r = &rows[i];
        if (!all && change(r) == 0 && r->has_old == r->has_new)
            continue;
        char d[32], p[32];
        fmt_delta(r, d, sizeof d, p, sizeof p);
        json_t *j = json_pack("{ss}", "what", r->name);
        json_object_set_new(j, "before", r->has_old ? json_integer((json_int_t)r->before)
                                                    : json_null());
        json_object_set_new(j, "after", r->has_new ? json_integer((json_int_t)r->after)
                                                   : json_null());
        json_int_t dv = r->after >= r->before ? (json_int_t)(r->after - r->before)
                                              : -(json_int_t)(r->before - r->after);
        json_object_set_new(j, "delta", json_integer(dv));
        json_object_set_new(j, "percent", json_string(p));
        json_array_append_new(a, j);
    }
    json_object_set_new(doc, "changes", a);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (text == NULL)
        return WD_EXIT_USAGE;
    puts(text);
    free(text);
    return WD_EXIT_OK;
}

static int compare(const dprof *o, const dprof *nw, bool json, bool all)
{
    const char *mo = json_string_value(json_object_get(o->doc, "tick_model"));
    const char *mn = json_string_value(json_object_get(nw->doc, "tick_model"));
    if (mo == NULL || mn == NULL || strcmp(mo, mn) != 0) {
        fprintf(stderr, "wasmdbg: %s and %s were measured under different tick models (%s, %s)\n",
                o->path, nw->path, mo ? mo : "?", mn ? mn : "?");
        return WD_EXIT_USAGE;
    }
    size_t cap = 10 + json_array_size(json_object_get(o->doc, "functions")) +
                 json_array_size(json_object_get(nw->doc, "functions"));
    drow *rows = calloc(cap, sizeof *rows);
    if (rows == NULL)
        return WD_EXIT_USAGE;
    uint32_t n = 0;
    collect(o, false, rows, &n, (uint32_t)cap);
    collect(nw, true, rows, &n, (uint32_t)cap);
    /* The summary rows first (ticks, then the phases), then the functions by the size of
     * the change. */
    qsort(rows + 5, n - 5, sizeof *rows, cmp_drows);
    int code = WD_EXIT_OK;
    if (json)
        code = print_json(o, nw, rows, n, all);
    else
        print_text(o, nw, rows, n, all);
    free(rows);
    return code;
}

int wd_cli_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    bool json = false, all = false;
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(diff_help, stdout);
            return WD_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--all") == 0) {
            all = true;
        } else if (argv[i][0] != '-' && np < 2) {
            paths[np++] = argv[i];
        } else {
            fprintf(stderr, "wasmdbg: unexpected argument %s\n\n%s", argv[i], diff_help);
            return WD_EXIT_USAGE;
        }
    }
    if (np != 2) {
        fprintf(stderr, "wasmdbg: diff needs two profiles\n\n%s", diff_help);
        return WD_EXIT_USAGE;
    }
    dprof o = {0}, nw = {0};
    int code = load(paths[0], &o) && load(paths[1], &nw) ? compare(&o, &nw, json, all)
                                                        : WD_EXIT_USAGE;
    json_decref(o.doc);
    json_decref(nw.doc);
    return code;
}
