/* report.c: `wasmdbg report TRACE`: rebuilds every profile output from a trace written by
 * `wasmdbg profile --record TRACE`, the same bytes as the live run (the trace carries the
 * events with their ticks and times, and the options; a different -o only moves the files). */
#include "cli/cli.h"
#include "cli/numarg.h"
#include "cli/profhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/trace.h"

static const char report_help[] =
    "usage: wasmdbg report TRACE [options]\n"
    "\n"
    "Rebuilds the summary and the files of `wasmdbg profile` from a trace it recorded\n"
    "(--record TRACE). Options default to those of the recorded run:\n"
    "  -o DIR, --flamecharts-dir DIR   where the files go (default: a new temporary directory)\n"
    "  --collapsed             the .out file merges identical stacks\n"
    "  --max-depth N           folded stacks and the SVG stop at N frames\n"
    "  --mode full|cct|auto    how the call tree is built\n"
    "  --json                  print the JSON profile instead of the summary\n";

/* A number the trace's metadata holds: false when it is not one (an old or damaged trace:
 * the caller keeps its default). */
static bool meta_u32(const char *s, uint32_t *out)
{
    wd_error ignored;
    wd_error_clear(&ignored);
    return wd_numarg_u32("trace metadata", s, 0, UINT32_MAX, out, &ignored) == WD_OK;
}

static bool parse_mode(const char *s, wd_prof_mode *m)
{
    if (s == NULL)
        return false;
    if (strcmp(s, "full") == 0)
        *m = WD_PROF_FULL;
    else if (strcmp(s, "cct") == 0)
        *m = WD_PROF_CCT;
    else if (strcmp(s, "auto") == 0)
        *m = WD_PROF_AUTO;
    else
        return false;
    return true;
}

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "wasmdbg: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", report_help);
    return WD_EXIT_USAGE;
}

typedef struct ropts {
    const char *path, *dir, *mode;
    bool json, collapsed, has_collapsed;
    uint32_t max_depth;
} ropts;

static int parse(ropts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool takes = strcmp(a, "-o") == 0 || strcmp(a, "--flamecharts-dir") == 0 ||
                     strcmp(a, "--max-depth") == 0 || strcmp(a, "--mode") == 0;
        if (takes && i + 1 >= argc)
            return usage("%s needs a value", a);
        const char *v = takes ? argv[++i] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(report_help, stdout);
            return WD_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--flamecharts-dir") == 0) {
            o->dir = v;
        } else if (strcmp(a, "--max-depth") == 0) {
            wd_error err;
            wd_error_clear(&err);
            if (wd_numarg_u32(a, v, 1, UINT32_MAX, &o->max_depth, &err) != WD_OK)
                return usage("%s", err.msg);
        } else if (strcmp(a, "--mode") == 0) {
            wd_prof_mode m;
            if (!parse_mode(v, &m))
                return usage("--mode: expected full, cct or auto, got %s", v);
            o->mode = v;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--collapsed") == 0) {
            o->collapsed = o->has_collapsed = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage("unknown option %s", a);
        } else if (o->path == NULL) {
            o->path = a;
        } else {
            return usage("unexpected argument %s", a);
        }
    }
    if (o->path == NULL)
        return usage("%s", "a trace file must be given");
    return -1;
}

static const char *meta(const wd_trace_reader *r, const char *key, const char *dflt)
{
    const char *v = wd_trace_meta_get(r, key);
    return v != NULL ? v : dflt;
}

int wd_cli_report(int argc, char **argv)
{
    ropts o;
    int code = parse(&o, argc, argv);
    if (code >= 0)
        return code;
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_trace_reader *r;
    if (wd_trace_open(&ctx, o.path, &r, &err) != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return WD_EXIT_USAGE;
    }
    const char *kernel = meta(r, "kernel", "KERNEL");
    const char *const again[] = {"wasmdbg", "profile",  kernel, "--inputs",
                                 "INPUTS",  "--record", o.path};
    if (wd_cli_refuse_retired(o.path, wd_trace_meta_get(r, "tick_model"), again,
                              WD_ARRAY_COUNT(again)) >= 0) {
        wd_trace_close(r);
        return WD_EXIT_USAGE;
    }
    wd_prof_config cfg = {.mode = WD_PROF_AUTO};
    if (!parse_mode(o.mode ? o.mode : meta(r, "mode", "auto"), &cfg.mode))
        cfg.mode = WD_PROF_AUTO;
    uint32_t limit = 0, depth = 100, hpb = 0;
    if (meta_u32(meta(r, "full_limit", "0"), &limit))
        cfg.full_limit = limit;
    if (o.max_depth == 0 && meta_u32(meta(r, "max_depth", "100"), &depth) && depth > 0)
        o.max_depth = depth;
    if (o.max_depth == 0)
        o.max_depth = 100;
    (void)meta_u32(meta(r, "host_per_byte", "0"), &hpb);
    wd_prof *prof = NULL;
    char *made = NULL;
    const char *dir = NULL;
    bool truncated = false;
    wd_status st = wd_prof_new(&ctx, &cfg, &prof, &err);
    if (st == WD_OK)
        st = wd_trace_replay(r, prof, &truncated, &err);
    if (st == WD_OK && !wd_cli_prof_dir("-o", o.dir, &made, &dir))
        st = WD_ERR_IO, err.msg[0] = '\0';
    if (st == WD_OK) {
        if (truncated)
            fprintf(stderr, "wasmdbg: %s: the trace ends early (no end event): what it holds "
                            "is shown\n", o.path);
        const char *ts = meta(r, "timestamp", "unknown");
        char base[128];
        snprintf(base, sizeof base, "wasm-debugger-profiling-%s", ts);
        wd_cli_prof_opts po = {
            .ctx = &ctx,
            .out = {.dir = dir, .base = base,
                    .collapsed = o.has_collapsed || strcmp(meta(r, "collapsed", "0"), "1") == 0,
                    .with_time = strcmp(meta(r, "with_time", "1"), "1") == 0,
                    .max_depth = o.max_depth, .kernel = meta(r, "kernel", "kernel"),
                    .tick_model = meta(r, "tick_model", "?"),
                    .pvm_version = wd_trace_meta_get(r, "pvm_version"), .timestamp = ts,
                    .timestamp_ns = strtoull(meta(r, "timestamp_ns", "0"), NULL, 10)},
            .json = o.json,
            .host_per_byte = hpb,
        };
        code = wd_cli_prof_finish(prof, &po);
    } else {
        if (err.msg[0] != '\0')
            fprintf(stderr, "wasmdbg: %s\n", err.msg);
        code = WD_EXIT_USAGE;
    }
    wd_prof_free(prof);
    wd_trace_close(r);
    free(made);
    return code;
}
