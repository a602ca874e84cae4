/* profile.c: `wasmdbg profile KERNEL --inputs FILE`: runs every inbox through the PVM like
 * `run`, with the profiler listening, then prints the reference debugger's per-run summary
 * and wasmdbg's (totals, top functions, hot steps) and writes the profile's files. */
#include "cli/cli.h"
#include "cli/numarg.h"
#include "cli/profhook.h"
#include "cli/pvmopts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "profiler/trace.h"

static const char profile_help[] =
    "usage: wasmdbg profile KERNEL [--inputs FILE] [options]\n"
    "\n"
    "Runs the kernel over every inbox as `wasmdbg run` does, profiling every kernel run: ticks\n"
    "and time per phase and per function, hot steps, and files: folded stacks, an interactive\n"
    "SVG flamegraph, Chrome trace events (Perfetto), a speedscope profile and a JSON profile.\n"
    "\n" WD_PVM_OPTIONS_HELP
    "profile options:\n"
    "  --collapsed             the .out file merges identical stacks (else time-ordered)\n"
    "  --without-time          no clock reading at calls and returns; no times in outputs\n"
    "  --no-reboot             profile a single kernel run (the first inbox's first)\n"
    "  --max-depth N           folded stacks and the SVG stop at N frames (default 100)\n"
    "  --mode full|cct|auto    full call tree, calling-context tree (merged call paths,\n"
    "                          bounded memory), or full until it gets big (default auto)\n"
    "  --full-limit N          nodes before auto mode switches to cct (default 262144)\n"
    "  -o DIR                  where the files go (same as --flamecharts-dir; created with its\n"
    "                          parents; default: a new temporary directory)\n"
    "  --name NAME             the files are DIR/NAME.out, NAME.svg, ... (default\n"
    "                          wasm-debugger-profiling-TIMESTAMP, then -2, -3, ... when taken);\n"
    "                          refused if any exists: a profile is never overwritten\n"
    "  --json                  print the JSON profile instead of the summary\n"
    "  --record FILE           also write the event stream to FILE (see `wasmdbg report`)\n"
    "  --fail-on-stuck         exit 1 when a run traps or the PVM gets stuck\n";

typedef struct popts {
    bool collapsed, with_time, no_reboot, json, fail_on_stuck;
    uint32_t max_depth, full_limit;
    wd_prof_mode mode;
    const char *out_dir, *record, *name;
} popts;

/* Takes profile's own options out of argv; the rest go to *rest. Returns -1 or an exit code. */
static int parse(popts *o, int argc, char **argv, char **rest, int *nrest)
{
    *o = (popts){.with_time = true, .max_depth = 100, .mode = WD_PROF_AUTO};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool takes = strcmp(a, "--max-depth") == 0 || strcmp(a, "--mode") == 0 ||
                     strcmp(a, "-o") == 0 || strcmp(a, "--record") == 0 ||
                     strcmp(a, "--full-limit") == 0 || strcmp(a, "--name") == 0;
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "wasmdbg: %s needs a value\n\n%s", a, profile_help);
            return WD_EXIT_USAGE;
        }
        const char *v = takes ? argv[++i] : NULL;
        if (strcmp(a, "--collapsed") == 0)
            o->collapsed = true;
        else if (strcmp(a, "--without-time") == 0)
            o->with_time = false;
        else if (strcmp(a, "--no-reboot") == 0)
            o->no_reboot = true;
        else if (strcmp(a, "--json") == 0)
            o->json = true;
        else if (strcmp(a, "--fail-on-stuck") == 0)
            o->fail_on_stuck = true;
        else if (strcmp(a, "-o") == 0)
            o->out_dir = v;
        else if (strcmp(a, "--record") == 0)
            o->record = v;
        else if (strcmp(a, "--name") == 0) {
            /* a file name stem: no directory, not hidden, not `.` or `..` */
            if (v[0] == '\0' || v[0] == '.' || strchr(v, '/') != NULL || strlen(v) > 200) {
                fprintf(stderr,
                        "wasmdbg: --name: expected a file name stem (no /, not starting with ., "
                        "at most 200 bytes), got '%s'\n\n%s",
                        v, profile_help);
                return WD_EXIT_USAGE;
            }
            o->name = v;
        } else if (strcmp(a, "--max-depth") == 0 || strcmp(a, "--full-limit") == 0) {
            wd_error err;
            wd_error_clear(&err);
            uint32_t *n = strcmp(a, "--max-depth") == 0 ? &o->max_depth : &o->full_limit;
            if (wd_numarg_u32(a, v, 1, UINT32_MAX, n, &err) != WD_OK) {
                fprintf(stderr, "wasmdbg: %s\n\n%s", err.msg, profile_help);
                return WD_EXIT_USAGE;
            }
        } else if (strcmp(a, "--mode") == 0) {
            if (strcmp(v, "full") == 0)
                o->mode = WD_PROF_FULL;
            else if (strcmp(v, "cct") == 0)
                o->mode = WD_PROF_CCT;
            else if (strcmp(v, "auto") == 0)
                o->mode = WD_PROF_AUTO;
            else {
                fprintf(stderr, "wasmdbg: --mode: expected full, cct or auto, got %s\n\n%s", v,
                        profile_help);
                return WD_EXIT_USAGE;
            }
        } else if (!takes) {
            rest[(*nrest)++] = argv[i];
        }
    }
    return -1;
}
/* The runs the PVM reported since `*seen`, to the profiler. A trap's reason names the
 * function and offset; where the kernel has DWARF line tables, the source line is added. */
static void report_runs(wd_cli_pvm *s, wd_profhook *hook, wd_srcloc *loc, uint32_t *seen,
                        bool with_time)
{
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    for (; *seen < n; (*seen)++) {
        const wd_run_report *r = &runs[*seen];
        char reason[sizeof r->reason + 300];
        snprintf(reason, sizeof reason, "%s", r->reason);
        const char *at = NULL;
        for (const char *q = strstr(r->reason, " at 0x"); q != NULL; q = strstr(q + 1, " at 0x"))
            at = q;
        const wd_module *m = wd_pvm_module(s->pvm);
        const char *file;
        uint32_t line, col;
        if (at != NULL && m != NULL &&
            wd_srcloc_lookup(loc, m, (uint32_t)strtoul(at + 6, NULL, 16), &file, &line, &col))
            snprintf(reason + strlen(reason), sizeof reason - strlen(reason), " (%s:%u)", file,
                     line);
        wd_prof_run_info info = wd_profhook_run_info(r, 0, reason, with_time);
        wd_prof_frame frames[WD_RUN_FRAMES];
        info.frames = frames;
        info.frame_count = wd_cli_backtrace_frames(r, loc, m, frames);
        info.frames_more = r->backtrace_more;
        wd_profhook_add_run(hook, &info);
    }
}

typedef struct reporter {
    wd_cli_pvm *s;
    wd_profhook *hook;
    wd_srcloc *loc;
    uint32_t *seen;
    bool with_time;
} reporter;

/* After each kernel run: its report to the profiler at once (the files are written as runs
 * end: profiler/output.h, wd_prof_files_stream). */
static void report_run(void *ud)
{
    reporter *r = ud;
    report_runs(r->s, r->hook, r->loc, r->seen, r->with_time);
}

static wd_status run_levels(wd_cli_pvm *s, wd_profhook *hook, wd_srcloc *loc, const popts *o,
                            uint32_t *seen, wd_error *err)
{
    if (o->no_reboot) {
        wd_profhook_level(hook, wd_pvm_level(s->pvm));
        wd_status st = wd_cli_pvm_run_first(s, err);
        report_runs(s, hook, loc, seen, o->with_time);
        return st;
    }
    uint32_t count = s->inputs ? s->inputs->count : 0;
    for (uint32_t i = 0; i < count && wd_pvm_get_state(s->pvm) != WD_PVM_STUCK; i++) {
        bool more;
        wd_profhook_level(hook, wd_pvm_level(s->pvm));
        wd_status st = wd_cli_pvm_step_inbox(s, &more, err);
        /* the runs over, also when it stopped (Ctrl-C, --max-ticks) inside a later one: a
         * stopped run's report must follow theirs */
        report_runs(s, hook, loc, seen, o->with_time);
        if (st != WD_OK)
            return st;
    }
    return WD_OK;
}

static wd_status run_all(wd_cli_pvm *s, wd_profhook *hook, wd_srcloc *loc, const popts *o,
                         wd_error *err)
{
    uint32_t seen = 0;
    reporter rep = {s, hook, loc, &seen, o->with_time};
    s->on_run = report_run;
    s->on_run_ud = &rep;
    wd_status st = run_levels(s, hook, loc, o, &seen, err);
    s->on_run = NULL;
    return st;
}

static wd_status start_record(wd_ctx *ctx, const popts *o, const wd_cli_pvm *s, const char *ts,
                              uint64_t ts_ns, wd_prof *prof, wd_trace_writer **w, wd_error *err)
{
    char depth[16], limit[16], hpb[16], ns[24];
    snprintf(ns, sizeof ns, "%" PRIu64, ts_ns);
    snprintf(depth, sizeof depth, "%u", o->max_depth);
    snprintf(limit, sizeof limit, "%u", o->full_limit);
    snprintf(hpb, sizeof hpb, "%u", s->costs.host_per_byte);
    const wd_trace_meta meta[] = {
        {"wasmdbg", WD_VERSION},
        {"kernel", s->kernel_path},
        {"tick_model", s->costs.name},
        {"host_per_byte", hpb},
        {"pvm_version", wd_pvm_version_name(s->cfg.version)},
        {"timestamp", ts},
        {"timestamp_ns", ns},
        {"mode", wd_prof_mode_name(o->mode)},
        {"full_limit", limit},
        {"with_time", o->with_time ? "1" : "0"},
        {"collapsed", o->collapsed ? "1" : "0"},
        {"max_depth", depth},
    };
    WD_TRY(wd_trace_writer_open(ctx, o->record, meta, WD_ARRAY_COUNT(meta), NULL, 0, w, err));
    wd_prof_record(prof, *w);
    return WD_OK;
}

/* --name NAME: none of its files may exist in DIR (given: a temporary one is new), checked
 * before anything runs; creation checks again (O_EXCL), for a profile started meanwhile. */
static bool name_free(const char *dir, const char *name)
{
    for (int k = 0; dir != NULL && k < WD_PROF_FILE_COUNT; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s", dir, name, wd_prof_file_ext[k]);
        struct stat sb;
        if (lstat(path, &sb) == 0) {
            fprintf(stderr,
                    "wasmdbg: --name %s: %s exists: a profile is not overwritten (remove its "
                    "files or choose another name)\n",
                    name, path);
            return false;
        }
    }
    return true;
}

int wd_cli_profile(int argc, char **argv)
{
    popts o;
    int nrest = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL)
        return WD_EXIT_USAGE;
    int code = parse(&o, argc, argv, rest, &nrest);
    if (code >= 0) {
        free(rest);
        return code;
    }
    wd_ctx pctx;
    wd_ctx_init(&pctx);
    wd_error err;
    wd_error_clear(&err);
    wd_prof_config cfg = {.mode = o.mode, .full_limit = o.full_limit};
    wd_prof *prof;
    if (wd_prof_new(&pctx, &cfg, &prof, &err) != WD_OK) {
        free(rest);
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        return WD_EXIT_USAGE;
    }
    wd_profhook hook;
    /* Events are stamped by the fast clock, whose unit is known at the end; a recorded trace
     * holds ns as they come. They are applied on another thread: what is allocated while the
     * kernel runs comes from hook.ctx, not from the profiler's pctx. */
    wd_profhook_init(&hook, &pctx, prof,
                     !o.with_time       ? WD_PROFHOOK_NO_TIME
                     : o.record != NULL ? WD_PROFHOOK_NS
                                        : WD_PROFHOOK_FAST,
                     1000, true);
    wd_cli_pvm s;
    code = wd_cli_pvm_start_hooks(&s, nrest, rest, profile_help, o.json, &hook.hooks);
    free(rest);
    if (code >= 0) {
        wd_profhook_fini(&hook);
        wd_prof_free(prof);
        return code;
    }
    /* -o or --flamecharts-dir: created and checked before anything runs */
    const char *asked = o.out_dir ? o.out_dir : s.flamecharts_dir;
    if (asked != NULL && !wd_cli_pvm_out_dir(o.out_dir ? "-o" : "--flamecharts-dir", asked)) {
        wd_cli_pvm_finish(&s);
        wd_profhook_fini(&hook);
        wd_prof_free(prof);
        return WD_EXIT_USAGE;
    }
    if (o.name != NULL && !name_free(asked, o.name)) {
        wd_cli_pvm_finish(&s);
        wd_profhook_fini(&hook);
        wd_prof_free(prof);
        return WD_EXIT_USAGE;
    }
    char ts[64], base[256], *made = NULL;
    uint64_t ts_ns = wd_profhook_timestamp(ts, sizeof ts);
    if (o.name != NULL)
        snprintf(base, sizeof base, "%s", o.name);
    else
        snprintf(base, sizeof base, "wasm-debugger-profiling-%s", ts);
    const char *dir = NULL;
    wd_prof_files *files = NULL;
    wd_trace_writer *w = NULL;
    wd_srcloc loc;
    wd_srcloc_init(&loc, hook.ctx);
    wd_status st = WD_OK;
    bool discard = false;
    if (!wd_cli_prof_dir(o.out_dir ? "-o" : "--flamecharts-dir", asked, &made, &dir))
        st = WD_ERR_IO;
    else /* the files are created while the kernel runs, when the feed has a thread */
        files = wd_prof_files_new(
            &(wd_prof_out){.dir = dir, .base = base, .fixed_base = o.name != NULL});
    wd_prof_out out = {.dir = dir, .base = base, .fixed_base = o.name != NULL,
                       .collapsed = o.collapsed, .with_time = o.with_time,
                       .max_depth = o.max_depth, .kernel = s.kernel_path,
                       .tick_model = s.costs.name,
                       .pvm_version = wd_pvm_version_name(s.cfg.version), .timestamp = ts,
                       .timestamp_ns = ts_ns};
    if (files != NULL) { /* the consumer creates them and writes runs into them as they end */
        wd_prof_files_events_setup(files, prof, &out);
        wd_prof_feed_on_start(&hook.feed, wd_prof_files_create, files);
        wd_prof_feed_on_idle(&hook.feed, wd_prof_files_stream, files);
    }
    if (st == WD_OK && o.record != NULL)
        st = start_record(&pctx, &o, &s, ts, ts_ns, prof, &w, &err);
    if (st == WD_OK)
        st = run_all(&s, &hook, &loc, &o, &err);
    bool interrupted = st == WD_PAUSED; /* Ctrl-C: the profile ends where the kernel was */
    if (interrupted) {
        wd_cli_pvm_print_interrupt(&s, wd_srcloc_lookup, &loc);
        const wd_run_report *cur = wd_pvm_current_run(s.pvm);
        if (cur != NULL) { /* its open calls close at the tick it was stopped at */
            wd_run_report r = *cur;
            r.effective = wd_pvm_ticks(s.pvm) - r.start;
            r.outcome = WD_RUN_STUCK;
            snprintf(r.reason, sizeof r.reason, "interrupted (Ctrl-C) at tick %" PRIu64,
                     wd_pvm_ticks(s.pvm));
            wd_prof_run_info info = wd_profhook_run_info(&r, 0, r.reason, o.with_time);
            wd_profhook_add_run(&hook, &info);
        }
        st = WD_OK;
    }
    /* --max-ticks: the profile ends at the stop, the open calls closed at its tick */
    bool stopped = st == WD_OUT_OF_TICKS;
    if (stopped) {
        wd_cli_pvm_print_stop(&s, wd_srcloc_lookup, &loc);
        if (s.stop.in_run) {
            wd_prof_run_info info = wd_profhook_run_info(&s.stop.run, 0, NULL, o.with_time);
            wd_profhook_add_run(&hook, &info);
        }
        wd_error_clear(&err);
        st = WD_OK;
    }
    if (st == WD_OK) {
        /* With a consumer thread, the SVG (or without a stream the folded stacks) is
         * written while it computes the figures, and the stream's last runs (or the event
         * files) by it after them (profiler/output.h). */
        uint64_t ticks = wd_pvm_ticks(s.pvm);
        if (files != NULL) {
            if (wd_profhook_end_tree(&hook, ticks, wd_prof_files_write_events, files))
                wd_prof_files_write_ahead(files);
        }
        if (wd_profhook_end(&hook, ticks))
            wd_prof_files_events_taken(files, wd_profhook_join, &hook);
        wd_prof_record(prof, NULL);
        st = wd_trace_writer_close(w, &err);
        w = NULL;
    }
    if (st == WD_OK) {
        if (s.debug_mid_line && !o.json)
            printf("\n");
        wd_cli_prof_opts po = {
            .ctx = &pctx,
            .out = out,
            .json = o.json,
            .host_per_byte = s.costs.host_per_byte,
            .files = files,
        };
        code = wd_cli_prof_finish(prof, &po);
        if (code == WD_EXIT_OK &&
            (stopped || (o.fail_on_stuck && wd_cli_pvm_had_failure(&s))))
            code = WD_EXIT_FAILED;
        if (code == WD_EXIT_OK && interrupted)
            code = WD_EXIT_INTERRUPTED;
    } else {
        discard = true; /* once the feed's thread, which may be creating them, is over */
        if (err.msg[0] != '\0')
            fprintf(stderr, "wasmdbg: %s\n", err.msg);
        code = WD_EXIT_USAGE;
    }
    wd_srcloc_fini(&loc);
    /* The PVM first: freeing it unwinds a run stopped by Ctrl-C, whose returns still go to
     * the hook (the feed drops events after its end). Then the feed's thread, which after an
     * error may still run, stops before the profiler is touched. */
    wd_cli_pvm_finish(&s);
    wd_profhook_fini(&hook);
    if (discard)
        wd_prof_files_discard(files);
    wd_prof_record(prof, NULL);
    wd_error ignored;
    wd_error_clear(&ignored);
    if (wd_trace_writer_close(w, &ignored) != WD_OK)
        code = WD_EXIT_USAGE; /* only after an earlier failure: already reported */
    wd_prof_free(prof);
    free(made);
    return code;
}
