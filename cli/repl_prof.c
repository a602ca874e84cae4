/* repl_prof.c: profiling from the REPL. `profile [--collapsed] [--without-time]
 * [--no-reboot]` is the reference's command (pvm.md section 7): from a snapshotable state,
 * the next inbox (or one kernel_run) profiled, with the reference's per-run summary.
 * `profile start` / `profile stop` profile any window: whatever the commands in between run.
 *
 * The profiler listens through the REPL's hooks (repl.c forwards every event to the
 * profiler's adapter while a window is open). It sees ticks counted from the window's
 * start, so a window opened in the middle of a session reports its own ticks, padding
 * included, not the session's. */
#include "cli/repl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

/* The profiler's hooks behind a tick offset: the window's start is its tick 0. */
static uint64_t base_ticks;
static const wd_hooks *inner;
/* The window's start, ns since 1970 (the JSON's timestamp_ns). */
static uint64_t start_ns;

static void rel_call(void *ud, uint64_t ticks, const wd_func *callee, wd_call_kind kind)
{
    inner->call(ud, ticks - base_ticks, callee, kind);
}

static void rel_ret(void *ud, uint64_t ticks, const wd_func *callee)
{
    inner->ret(ud, ticks - base_ticks, callee);
}

static void rel_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    inner->phase(ud, ticks - base_ticks, name, begin);
}

static void rel_big_step(void *ud, uint64_t ticks, uint64_t cost, const char *what,
                         uint64_t operand)
{
    inner->big_step(ud, ticks - base_ticks, cost, what, operand);
}

static wd_hooks rel_hooks;

static bool window_start(wd_repl *r, bool with_time)
{
    wd_repl_prof *w = &r->prof;
    *w = (wd_repl_prof){.with_time = with_time};
    wd_ctx_init(&w->ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_prof_config cfg = {.mode = WD_PROF_AUTO};
    if (wd_prof_new(&w->ctx, &cfg, &w->prof, &err) != WD_OK) {
        wd_repl_error("Error: %s", err.msg);
        return false;
    }
    /* Not threaded: a window is short, and its events come one step at a time. */
    wd_profhook_init(&w->hook, &w->ctx, w->prof,
                     with_time ? WD_PROFHOOK_FAST : WD_PROFHOOK_NO_TIME, 1000, false);
    start_ns = wd_profhook_timestamp(w->timestamp, sizeof w->timestamp);
    w->runs_seen = wd_repl_run_count(r);
    base_ticks = r->t->ticks;
    inner = &w->hook.hooks;
    rel_hooks = (wd_hooks){.ud = w->hook.hooks.ud,
                           .call = inner->call ? rel_call : NULL,
                           .ret = inner->ret ? rel_ret : NULL,
                           .phase = inner->phase ? rel_phase : NULL,
                           .big_step = inner->big_step ? rel_big_step : NULL};
    r->fwd = &rel_hooks;
    w->on = true;
    if (wd_pvm_get_state(r->s.pvm) != WD_PVM_COLLECT)
        wd_profhook_level(&w->hook, wd_pvm_level(r->s.pvm) ? wd_pvm_level(r->s.pvm) - 1 : 0);
    /* Opened inside kernel_run: the calls in progress are open in the profile from its
     * first tick (as direct calls: how each was made is not recorded in a frame). */
    const wd_thread *t = r->t;
    if (t->state == WD_THREAD_PAUSED && rel_hooks.call != NULL)
        for (uint32_t k = 0; k < t->frame_count; k++)
            rel_hooks.call(rel_hooks.ud, t->ticks, t->frames[k].func,
                           k == 0 ? WD_CALL_ENTRY : WD_CALL_DIRECT);
    return true;
}

void wd_repl_prof_runs(wd_repl *r)
{
    wd_repl_prof *w = &r->prof;
    if (!w->on)
        return;
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(r->s.pvm, &n);
    for (; w->runs_seen < n; w->runs_seen++) {
        const wd_run_report *x = &runs[w->runs_seen];
        /* a run that began before the window: its part inside it */
        wd_prof_run_info info = wd_profhook_run_info(x, base_ticks, NULL, w->with_time);
        wd_profhook_add_run(&w->hook, &info);
    }
}

/* Ends the window: the summary, the files. */
static void window_stop(wd_repl *r, bool collapsed)
{
    wd_repl_prof *w = &r->prof;
    wd_repl_prof_runs(r);
    /* A window may end anywhere: the calls still open close at its end, tick and clock, as
     * at a stop (not an inconsistent call graph). */
    if (wd_pvm_current_run(r->s.pvm) != NULL)
        wd_profhook_stop(&w->hook);
    wd_profhook_end(&w->hook, r->t->ticks - base_ticks);
    r->fwd = NULL;
    w->on = false;
    wd_repl_flush_debug(r);
    char *made = NULL;
    const char *dir = NULL;
    if (wd_cli_prof_dir("--flamecharts-dir", r->s.flamecharts_dir, &made, &dir)) {
        char base[128];
        snprintf(base, sizeof base, "wasm-debugger-profiling-%s", w->timestamp);
        wd_cli_prof_opts po = {
            .ctx = &w->ctx,
            .out = {.dir = dir, .base = base, .collapsed = collapsed, .with_time = w->with_time,
                    .max_depth = 100, .kernel = r->s.kernel_path, .tick_model = r->s.costs.name,
                    .pvm_version = wd_pvm_version_name(r->s.cfg.version),
                    .timestamp = w->timestamp, .timestamp_ns = start_ns},
            .host_per_byte = r->s.costs.host_per_byte,
        };
        (void)wd_cli_prof_finish(w->prof, &po);
    }
    free(made);
    wd_profhook_fini(&w->hook);
    wd_prof_free(w->prof);
    w->prof = NULL;
}

void wd_repl_prof_fini(wd_repl *r)
{
    if (!r->prof.on)
        return;
    printf("The profile window is still open: closing it.\n");
    window_stop(r, false);
}

/* The reference's `profile`: from Collect (loading the next inbox) or a snapshot. */
static void profile_inbox(wd_repl *r, bool collapsed, bool with_time, bool no_reboot)
{
    wd_pvm_state state = wd_pvm_get_state(r->s.pvm);
    if (state != WD_PVM_COLLECT && state != WD_PVM_SNAPSHOT) {
        printf("Profiling can only be done from a snapshotable state or when waiting for "
               "input. You can use `step kernel_run` to go to the next snapshotable state.\n");
        return;
    }
    if (state == WD_PVM_COLLECT)
        (void)wd_repl_load_inputs(r);
    printf("Starting the profiling until new messages are expected. Please note that it will "
           "take some time and does not reflect a real computation time.\n");
    fflush(stdout);
    if (!window_start(r, with_time))
        return;
    r->bps_off = true;
    wd_repl_stop why = wd_repl_drive(r, no_reboot ? WD_GOAL_KERNEL_RUN : WD_GOAL_INPUT, 0);
    r->bps_off = false;
    if (why == WD_REPL_INTR)
        printf("Interrupted: the profile covers what ran until then.\n");
    window_stop(r, collapsed);
}

int wd_repl_profile(wd_repl *r, int argc, char **argv)
{
    bool collapsed = false, with_time = true, no_reboot = false;
    bool start = argc >= 2 && strcmp(argv[1], "start") == 0;
    bool stop = argc >= 2 && strcmp(argv[1], "stop") == 0;
    for (int i = start || stop ? 2 : 1; i < argc; i++) {
        if (strcmp(argv[i], "--collapsed") == 0 && !start)
            collapsed = true;
        else if (strcmp(argv[i], "--without-time") == 0 && !stop)
            with_time = false;
        else if (strcmp(argv[i], "--no-reboot") == 0 && !start && !stop)
            no_reboot = true;
        else
            return 0; /* like the reference: an unknown option makes it an unknown command */
    }
    if (stop) {
        if (!r->prof.on)
            wd_repl_error("Error: no profile window is open (`profile start` opens one)");
        else
            window_stop(r, collapsed);
        return 1;
    }
    if (r->prof.on) {
        wd_repl_error("Error: a profile window is open: `profile stop` ends it first");
        return 1;
    }
    if (start) {
        if (window_start(r, with_time))
            printf("Profiling from tick %llu: what runs from now on is profiled until "
                   "`profile stop`.\n",
                   (unsigned long long)r->t->ticks);
        return 1;
    }
    profile_inbox(r, collapsed, with_time, no_reboot);
    return 1;
}
