/* run.c: `wasmdbg run KERNEL --inputs FILE`: runs every inbox through the PVM and prints the
 * kernel's debug output, each level's kernel runs with their ticks per phase, the outbox,
 * and trap or stuck reasons. The options keep the reference debugger's names. A run that
 * --max-ticks stopped is reported with its ticks so far, as stopped at its tick (exit 1). */
#include "cli/cli.h"
#include "cli/profhook.h"
#include "cli/pvmopts.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char run_help[] =
    "usage: wasmdbg run KERNEL --inputs FILE [options]\n"
    "\n"
    "Runs the kernel over every inbox of the inputs file, as the PVM would, and prints its\n"
    "debug output, each level's kernel runs (ticks per phase), its outbox and any trap or\n"
    "stuck state.\n"
    "\n" WD_PVM_OPTIONS_HELP
    "  --json                  print one JSON document instead of text\n"
    "  --without-time          leave wall-clock times out (for reproducible output)\n"
    "  --fail-on-stuck         exit 1 when a run traps or the PVM gets stuck\n";

static void print_hex(FILE *f, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", b[i]);
}

static char *hex_string(const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    if (s == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = digits[b[i] >> 4];
        s[2 * i + 1] = digits[b[i] & 15];
    }
    s[2 * n] = '\0';
    return s;
}

static const char *outcome_name(wd_run_outcome o)
{
    switch (o) {
    case WD_RUN_OK: return "ok";
    case WD_RUN_TRAPPED: return "trapped";
    case WD_RUN_FAILED: return "failed";
    case WD_RUN_STUCK: return "stuck";
    }
    return "?";
}

/* The run --max-ticks stopped (its report so far, no wall time yet). */
static bool is_stopped(const wd_cli_pvm *s, const wd_run_report *x)
{
    return x == &s->stop.run;
}

static const char *status_text(const wd_cli_pvm *s)
{
    const char *stuck = wd_pvm_stuck_reason(s->pvm);
    if (stuck != NULL)
        return stuck;
    if (s->stop.on)
        return s->stop.run.reason;
    return wd_pvm_get_state(s->pvm) == WD_PVM_COLLECT ? "waiting for input" : "evaluating";
}

void wd_cli_print_backtrace(const wd_run_report *x, wd_srcloc *loc, const wd_module *m,
                            const char *indent)
{
    wd_prof_frame fr[WD_RUN_FRAMES];
    uint32_t n = wd_cli_backtrace_frames(x, loc, m, fr);
    for (uint32_t i = 0; i < n; i++) {
        char text[WD_CLI_FRAME_TEXT];
        wd_cli_frame_text(&fr[i], text, sizeof text);
        printf("%s#%u %s\n", indent, i, text);
    }
    if (x->backtrace_more > 0)
        printf("%s... %u more frames\n", indent, x->backtrace_more);
}

void wd_cli_backtrace_json(json_t *jr, const wd_run_report *x, wd_srcloc *loc,
                           const wd_module *m)
{
    wd_prof_frame fr[WD_RUN_FRAMES];
    uint32_t n = wd_cli_backtrace_frames(x, loc, m, fr);
    json_t *frames = json_array();
    for (uint32_t i = 0; i < n; i++) {
        json_t *jf = json_pack("{sssIsI}", "function", fr[i].function, "func_idx",
                               (json_int_t)fr[i].func_idx, "offset", (json_int_t)fr[i].offset);
        if (jf != NULL && fr[i].file != NULL) {
            json_object_set_new(jf, "file", json_string(fr[i].file));
            json_object_set_new(jf, "line", json_integer(fr[i].line));
        }
        json_array_append_new(frames, jf);
    }
    json_object_set_new(jr, "backtrace", frames);
    if (x->backtrace_more > 0)
        json_object_set_new(jr, "backtrace_more", json_integer(x->backtrace_more));
}

static void print_text(const wd_cli_pvm *s, wd_srcloc *loc, bool with_time)
{
    if (s->debug_mid_line)
        printf("\n"); /* the kernel's debug output did not end its line */
    uint32_t nruns = wd_cli_pvm_run_count(s);
    uint64_t effective = 0;
    uint32_t r = 0;
    for (uint32_t level = 0; level < wd_pvm_level(s->pvm); level++) {
        uint32_t first = r;
        while (r < nruns && wd_cli_pvm_run_get(s, r)->level == level)
            r++;
        printf("level %u: %u kernel run%s\n", level, r - first, r - first == 1 ? "" : "s");
        for (uint32_t i = first; i < r; i++) {
            const wd_run_report *x = wd_cli_pvm_run_get(s, i);
            effective += x->effective;
            printf("  run %u: %llu ticks (decode %llu, link %llu, init %llu, kernel_run %llu)",
                   x->index, (unsigned long long)x->effective,
                   (unsigned long long)x->phase[WD_PHASE_DECODE],
                   (unsigned long long)x->phase[WD_PHASE_LINK],
                   (unsigned long long)x->phase[WD_PHASE_INIT],
                   (unsigned long long)x->phase[WD_PHASE_EVAL]);
            if (with_time && !is_stopped(s, x))
                printf(", %.3f ms", x->seconds * 1e3);
            printf("%s\n", x->reboot           ? ", reboot"
                           : x->reboot_refused ? ", reboot refused: the level had its 1000 reboots "
                                                 "(/readonly/kernel/env/too_many_reboot)"
                                               : "");
            if (is_stopped(s, x))
                printf("    %s\n", x->reason);
            else if (x->outcome != WD_RUN_OK)
                printf("    %s: %s\n", outcome_name(x->outcome), x->reason);
            wd_cli_print_backtrace(x, loc, wd_pvm_module(s->pvm), "      ");
        }
        uint32_t nout;
        const wd_msg *out = wd_pvm_outbox(s->pvm, level, &nout);
        printf("  outbox: %u message%s\n", nout, nout == 1 ? "" : "s");
        for (uint32_t i = 0; i < nout; i++) {
            printf("    ");
            print_hex(stdout, out[i].bytes, out[i].size);
            printf("\n");
        }
    }
    printf("total: %u level%s, %u kernel run%s, %llu ticks (%llu with padding)\n",
           wd_pvm_level(s->pvm), wd_pvm_level(s->pvm) == 1 ? "" : "s", nruns,
           nruns == 1 ? "" : "s", (unsigned long long)effective,
           (unsigned long long)wd_pvm_ticks(s->pvm));
    printf("status: %s\n", status_text(s));
}

static int print_json(const wd_cli_pvm *s, wd_srcloc *loc, bool with_time)
{
    json_t *doc = json_object(), *levels = json_array();
    uint32_t nruns = wd_cli_pvm_run_count(s);
    uint64_t effective = 0;
    uint32_t r = 0;
    for (uint32_t level = 0; level < wd_pvm_level(s->pvm); level++) {
        json_t *jl = json_object(), *jruns = json_array(), *jout = json_array();
        for (; r < nruns && wd_cli_pvm_run_get(s, r)->level == level; r++) {
            const wd_run_report *x = wd_cli_pvm_run_get(s, r);
            bool stopped = is_stopped(s, x);
            effective += x->effective;
            json_t *phases = json_pack("{sIsIsIsI}", "decode", (json_int_t)x->phase[0], "link",
                                       (json_int_t)x->phase[1], "init", (json_int_t)x->phase[2],
                                       "kernel_run", (json_int_t)x->phase[3]);
            json_t *jr = json_pack("{sIsIsosssb}", "index", (json_int_t)x->index, "ticks",
                                   (json_int_t)x->effective, "phases", phases, "outcome",
                                   stopped ? "stopped" : outcome_name(x->outcome), "reboot",
                                   x->reboot);
            if (with_time && !stopped)
                json_object_set_new(jr, "seconds", json_real(x->seconds));
            if (x->reboot_refused)
                json_object_set_new(jr, "reboot_refused", json_true());
            if (x->outcome != WD_RUN_OK)
                json_object_set_new(jr, "reason", json_string(x->reason));
            if (stopped)
                json_object_set_new(jr, "stopped_at", json_integer((json_int_t)s->stop.tick));
            if (x->backtrace_count > 0)
                wd_cli_backtrace_json(jr, x, loc, wd_pvm_module(s->pvm));
            json_array_append_new(jruns, jr);
        }
        uint32_t nout;
        const wd_msg *out = wd_pvm_outbox(s->pvm, level, &nout);
        for (uint32_t i = 0; i < nout; i++) {
            char *h = hex_string(out[i].bytes, out[i].size);
            json_array_append_new(jout, json_string(h ? h : ""));
            free(h);
        }
        json_object_set_new(jl, "level", json_integer(level));
        json_object_set_new(jl, "runs", jruns);
        json_object_set_new(jl, "outbox", jout);
        json_array_append_new(levels, jl);
    }
    const char *stuck = wd_pvm_stuck_reason(s->pvm);
    json_object_set_new(doc, "kernel", json_string(s->kernel_path));
    json_object_set_new(doc, "tick_model", json_string(s->costs.name));
    json_object_set_new(doc, "pvm_version", json_string(wd_pvm_version_name(s->cfg.version)));
    json_object_set_new(doc, "levels", levels);
    json_object_set_new(doc, "ticks", json_integer((json_int_t)effective));
    json_object_set_new(doc, "ticks_with_padding", json_integer((json_int_t)wd_pvm_ticks(s->pvm)));
    json_object_set_new(doc, "stuck", stuck ? json_string(stuck) : json_null());
    json_object_set_new(doc, "stopped", wd_cli_pvm_stop_json(s));
    return wd_cli_print_json(doc) ? WD_EXIT_OK : WD_EXIT_USAGE;
}
int wd_cli_run(int argc, char **argv)
{
    wd_cli_pvm s;
    bool json = false, fail_on_stuck = false, with_time = true;
    int rest = 0;
    char **extra = calloc((size_t)argc + 1, sizeof *extra);
    if (extra == NULL)
        return WD_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--fail-on-stuck") == 0)
            fail_on_stuck = true;
        else if (strcmp(argv[i], "--without-time") == 0)
            with_time = false;
        else
            extra[rest++] = argv[i];
    }
    int code = wd_cli_pvm_start(&s, rest, extra, run_help, json);
    free(extra);
    if (code >= 0)
        return code;
    wd_srcloc loc;
    wd_srcloc_init(&loc, &s.ctx);
    if (s.inputs_path == NULL) { /* no inbox: the kernel would never run */
        fputs("wasmdbg: run: no inputs given: without an inbox the kernel never runs (the "
              "reference debugger waits at Collect for one). Pass the inboxes with --inputs "
              "FILE (a JSON array of inboxes; [[]] is one empty inbox)\n",
              stderr);
        wd_srcloc_fini(&loc);
        wd_cli_pvm_finish(&s);
        return WD_EXIT_USAGE;
    }
    wd_error err;
    wd_error_clear(&err);
    wd_status st = wd_cli_pvm_run_all(&s, &err);
    bool stopped = st == WD_OUT_OF_TICKS; /* --max-ticks: where, then the runs, exit 1 */
    if (stopped) {
        wd_cli_pvm_print_stop(&s, NULL, NULL);
        st = WD_OK;
    }
    if (st == WD_PAUSED) { /* Ctrl-C: where the kernel was, then the runs that ended */
        wd_cli_pvm_print_interrupt(&s, NULL, NULL);
        if (json)
            print_json(&s, &loc, with_time);
        else
            print_text(&s, &loc, with_time);
        wd_srcloc_fini(&loc);
        wd_cli_pvm_finish(&s);
        return WD_EXIT_INTERRUPTED;
    }
    if (st != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        wd_srcloc_fini(&loc);
        wd_cli_pvm_finish(&s);
        return WD_EXIT_USAGE;
    }
    code = json ? print_json(&s, &loc, with_time) : (print_text(&s, &loc, with_time), WD_EXIT_OK);
    if (code == WD_EXIT_OK && (stopped || (fail_on_stuck && wd_cli_pvm_had_failure(&s))))
        code = WD_EXIT_FAILED;
    wd_srcloc_fini(&loc);
    wd_cli_pvm_finish(&s);
    return code;
}
