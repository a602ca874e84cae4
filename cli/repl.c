/* repl.c: `wasmdbg debug KERNEL [--inputs FILE]`, the interactive debugger. It speaks the
 * reference debugger's commands (reference/pvm.md section 2) with the same syntax and output,
 * and adds what a gdb user reaches for: stepping by ticks, instructions, calls and returns,
 * breakpoints on functions, ticks and traps, backtraces, frames, locals, the operand stack,
 * globals, hexdumps and profile windows.
 *
 * Running. Every command that runs the PVM goes through wd_repl_drive, which splits the
 * command's goal into wd_pvm_advance calls so that breakpoints stop it: a function
 * breakpoint sets the thread's `pending` flag from the `call` hook (the thread then pauses
 * at the callee's first block, before its entry is charged), a tick breakpoint bounds the
 * advance by ticks, a trap breakpoint runs kernel_run by kernel_run and looks at how each
 * ended. Hooks never pause the thread during init (a start function cannot be suspended:
 * the PVM would treat the pause as a failure), and `pending` is cleared before every
 * advance, so a request left over can never stop a later one. */
#include "cli/repl.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cli.h"

static const char debug_help[] =
    "usage: wasmdbg debug KERNEL [--inputs FILE] [options]\n"
    "       wasmdbg KERNEL [--inputs FILE] [options]   (also: wasmdbg --kernel KERNEL ...)\n"
    "\n"
    "The interactive debugger: the reference debugger's REPL commands (`help` lists them),\n"
    "plus breakpoints, stepping by ticks, instructions, calls and returns, backtraces,\n"
    "locals, the operand stack, globals and profile windows. Commands are read from the\n"
    "terminal with line editing, history (~/.wasmdbg_history) and completion, or, when\n"
    "stdin is not a terminal, from stdin with no prompt.\n"
    "\n" WD_PVM_OPTIONS_HELP
    "debug options:\n"
    "  -x FILE                 run the commands in FILE first (lines starting with # are\n"
    "                          comments)\n"
    "  -o DIR                  where `profile` writes its files (same as --flamecharts-dir;\n"
    "                          created with its parents; default: a new temporary directory)\n"
    "  --echo                  print each command (after `> `) before running it\n";

/* ---- small helpers ------------------------------------------------------------------------ */

void wd_repl_error(const char *fmt, ...)
{
    fflush(stdout);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void wd_repl_flush_debug(wd_repl *r)
{
    if (r->s.debug_mid_line) {
        putchar('\n');
        r->s.debug_mid_line = false;
    }
}

bool wd_repl_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2;
    else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
        base = 8, s += 2;
    else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, s += 2;
    if (*s == '\0')
        return false;
    uint64_t v = 0;
    for (; *s != '\0'; s++) {
        int digit = wd_hex_digit(*s);
        unsigned d = digit < 0 ? base : (unsigned)digit;
        if (d >= base || v > (max - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

uint32_t wd_repl_run_count(const wd_repl *r)
{
    uint32_t n;
    (void)wd_pvm_runs(r->s.pvm, &n);
    return n;
}

bool wd_repl_finished(const wd_repl *r)
{
    return wd_pvm_get_state(r->s.pvm) == WD_PVM_EVAL && !wd_pvm_running(r->s.pvm);
}

static wd_repl_bp *find_bp(wd_repl *r, uint32_t id)
{
    for (uint32_t i = 0; i < r->bps.count; i++)
        if (r->bps.data[i].id == id)
            return &r->bps.data[i];
    return NULL;
}

/* ---- hooks -------------------------------------------------------------------------------- */

static volatile sig_atomic_t interrupted;
static wd_repl *signal_repl;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
    if (signal_repl != NULL && !signal_repl->in_init)
        signal_repl->t->pending = 1;
}

static bool func_bp_matches(const wd_repl_bp *bp, const wd_func *callee)
{
    if (bp->kind != WD_BP_FUNC)
        return false;
    if (callee->code == NULL) {
        size_t k = callee->host_module ? strlen(callee->host_module) : 0;
        return bp->host && callee->host_name != NULL && strncmp(bp->name, callee->host_module, k) == 0 &&
               bp->name[k] == '.' && strcmp(bp->name + k + 1, callee->host_name) == 0;
    }
    return !bp->host && callee->code->func_idx == bp->func_idx;
}

static void on_call(void *ud, uint64_t ticks, const wd_func *callee, wd_call_kind kind)
{
    wd_repl *r = ud;
    if (r->fwd != NULL && r->fwd->call != NULL)
        r->fwd->call(r->fwd->ud, ticks, callee, kind);
    r->unwound.count = 0;
    if (kind == WD_CALL_ENTRY && callee->inst != NULL) {
        r->inst = callee->inst;
        r->inst_runs = r->run_seq;
    }
    if (r->in_init || r->stepping)
        return;
    if (r->catch_call && callee->code != NULL) {
        r->t->pending = 1;
        r->step_hit = true;
        r->catch_call = false;
        return;
    }
    if (r->bps_off || r->hit != 0)
        return;
    for (uint32_t i = 0; i < r->bps.count; i++) {
        wd_repl_bp *bp = &r->bps.data[i];
        if (func_bp_matches(bp, callee)) {
            r->t->pending = 1;
            r->hit = bp->id;
            bp->hits++;
            return;
        }
    }
}

static uint32_t offset_at(const wd_code *code, const wd_insn *ip)
{
    uintptr_t lo = (uintptr_t)code->insns, p = (uintptr_t)ip;
    if (code->insn_count == 0)
        return 0;
    size_t i = p >= lo && p < lo + code->insn_count * sizeof *ip ? (p - lo) / sizeof *ip : 0;
    return code->offsets[i];
}

/* Records the frames that end together at one tick (a trap unwinding the stack). */
static void record_unwound(wd_repl *r, uint64_t ticks, const wd_func *callee)
{
    wd_thread *t = r->t;
    uint32_t depth = t->frame_count;
    if (ticks != r->unwound_ticks || depth > r->unwound_depth)
        r->unwound.count = 0;
    r->unwound_ticks = ticks;
    r->unwound_depth = depth;
    wd_snap_frame f = {callee, UINT32_MAX, 0, WD_FRAME_HOST};
    if (callee->code != NULL) {
        if (depth == 0)
            return;
        const wd_frame *fr = &t->frames[depth - 1];
        /* A frame something ended above waits on its call, just before its return address;
         * the first one stopped where it was. */
        const wd_insn *at = r->unwound.count > 0 ? fr->ip - 1 : fr->ip;
        f = (wd_snap_frame){callee, callee->code->func_idx, offset_at(callee->code, at),
                            depth == 1 ? WD_FRAME_ENTRY : WD_FRAME_WASM};
    }
    if (!WD_VEC_PUSH(&r->s.ctx, &r->unwound, f))
        r->unwound.count = 0; /* out of memory: no backtrace, nothing worse */
}

static void on_ret(void *ud, uint64_t ticks, const wd_func *callee)
{
    wd_repl *r = ud;
    if (r->fwd != NULL && r->fwd->ret != NULL)
        r->fwd->ret(r->fwd->ud, ticks, callee);
    if (r->out_depth != 0 && callee->code != NULL && r->t->frame_count == r->out_depth &&
        !r->in_init && !r->stepping) {
        r->t->pending = 1;
        r->step_hit = true;
        r->out_depth = 0;
    }
    record_unwound(r, ticks, callee);
}

static void on_phase(void *ud, uint64_t ticks, const char *name, bool begin)
{
    wd_repl *r = ud;
    if (r->fwd != NULL && r->fwd->phase != NULL)
        r->fwd->phase(r->fwd->ud, ticks, name, begin);
    if (strcmp(name, "init") == 0) {
        r->in_init = begin;
        /* an interrupt that came before init waits for its end (a start function cannot be
         * suspended) */
        if (begin)
            r->t->pending = 0;
        else if (interrupted)
            r->t->pending = 1;
    } else if (begin && strcmp(name, "decode") == 0) {
        r->run_seq = wd_repl_run_count(r);
        r->unwound.count = 0;
        r->inst = NULL;
    }
}

static void on_big_step(void *ud, uint64_t ticks, uint64_t cost, const char *what,
                        uint64_t operand)
{
    wd_repl *r = ud;
    if (r->fwd != NULL && r->fwd->big_step != NULL)
        r->fwd->big_step(r->fwd->ud, ticks, cost, what, operand);
}

/* ---- running ------------------------------------------------------------------------------ */

/* The first tick breakpoint after `now`, or 0. */
static uint64_t next_tick_bp(const wd_repl *r, uint64_t now)
{
    uint64_t best = 0;
    if (r->bps_off)
        return 0;
    for (uint32_t i = 0; i < r->bps.count; i++) {
        const wd_repl_bp *bp = &r->bps.data[i];
        if (bp->kind == WD_BP_TICK && bp->tick > now && (best == 0 || bp->tick < best))
            best = bp->tick;
    }
    return best;
}

static wd_repl_bp *trap_bp(wd_repl *r)
{
    if (r->bps_off)
        return NULL;
    for (uint32_t i = 0; i < r->bps.count; i++)
        if (r->bps.data[i].kind == WD_BP_TRAP)
            return &r->bps.data[i];
    return NULL;
}

/* The tick breakpoint passed going from `before` to `now`, if any. */
static wd_repl_bp *crossed_tick_bp(wd_repl *r, uint64_t before, uint64_t now)
{
    wd_repl_bp *best = NULL;
    if (r->bps_off)
        return NULL;
    for (uint32_t i = 0; i < r->bps.count; i++) {
        wd_repl_bp *bp = &r->bps.data[i];
        if (bp->kind == WD_BP_TICK && bp->tick > before && bp->tick <= now &&
            (best == NULL || bp->tick < best->tick))
            best = bp;
    }
    return best;
}

/* The PVM goal of one advance toward `goal`; *n its count. */
static wd_pvm_goal sub_goal(wd_repl *r, wd_pvm_goal goal, uint64_t target, uint64_t now,
                            uint64_t *n)
{
    uint64_t bp = next_tick_bp(r, now);
    *n = 0;
    if (goal == WD_GOAL_INSTRS)
        return goal;
    if (goal == WD_GOAL_TICKS) {
        uint64_t end = bp != 0 && bp < target ? bp : target;
        *n = end - now;
        return goal;
    }
    if (goal == WD_GOAL_KERNEL_RUN && wd_repl_finished(r))
        return goal; /* padding and the reboot or yield decision: no code runs */
    if (bp != 0) {
        *n = bp - now;
        return WD_GOAL_TICKS;
    }
    if ((goal == WD_GOAL_KERNEL_RUN || goal == WD_GOAL_INPUT) && trap_bp(r) != NULL)
        return WD_GOAL_RESULT;
    return goal;
}

/* After an advance that ended a kernel_run: a trap breakpoint. */
static bool trap_hit(wd_repl *r)
{
    wd_repl_bp *bp = trap_bp(r);
    const wd_run_report *cur = wd_pvm_current_run(r->s.pvm);
    if (bp == NULL || cur == NULL || !wd_repl_finished(r) || cur->outcome != WD_RUN_TRAPPED)
        return false;
    bp->hits++;
    r->hit = bp->id;
    return true;
}

/* One wd_pvm_advance; false (reported) on an internal error. */
static bool advance(wd_repl *r, wd_pvm_goal goal, uint64_t n, wd_pvm_stop *stop)
{
    wd_error err;
    wd_error_clear(&err);
    r->t->pending = interrupted && !r->in_init;
    if (wd_pvm_advance(r->s.pvm, goal, n, stop, &err) != WD_OK) {
        wd_repl_error("Error: %s", err.msg);
        return false;
    }
    wd_repl_prof_runs(r);
    return true;
}

/* --max-ticks (pvmopts.h): the kernel runs stop once they have taken that many ticks in all.
 * Bounds the advance about to start (*sub, *k): a kernel_run over only ends its run (the next
 * one's code may not fit), otherwise the advance runs at most to the tick where the limit is
 * reached (*capped: the limit, not the command, ends it). False when the limit is reached
 * already: nothing runs (r->s.stop says where it stopped). `step instr` runs its instruction
 * whole. */
static bool limit_advance(wd_repl *r, bool fin, wd_pvm_goal *sub, uint64_t *k, bool *capped)
{
    wd_cli_pvm *s = &r->s;
    *capped = false;
    if (s->max_ticks == UINT64_MAX)
        return true;
    if (s->stop.on)
        return false;
    if (fin) {
        *sub = WD_GOAL_KERNEL_RUN;
        *k = 0;
        return true;
    }
    uint64_t used = wd_cli_pvm_used(s), now = r->t->ticks;
    if (used >= s->max_ticks) {
        wd_cli_pvm_mark_stop(s, NULL);
        return false;
    }
    uint64_t room = s->max_ticks - used;
    if (*sub == WD_GOAL_INSTRS || room > UINT64_MAX - now || (*sub == WD_GOAL_TICKS && *k <= room))
        return true;
    *sub = WD_GOAL_TICKS;
    *k = room;
    *capped = true;
    return true;
}

/* One step of wd_repl_drive: true when the drive stops there (*why says why). */
static bool drive_once(wd_repl *r, wd_pvm_goal goal, uint64_t n, uint64_t target,
                       wd_repl_stop *why)
{
    wd_pvm *p = r->s.pvm;
    wd_thread *t = r->t;
    wd_pvm_state state = wd_pvm_get_state(p);
    bool fin = wd_repl_finished(r);
    wd_pvm_stop stop;
    *why = WD_REPL_GOAL;
    if (state == WD_PVM_COLLECT) {
        *why = WD_REPL_INPUT;
        return true;
    }
    if (state == WD_PVM_STUCK) {
        /* the run that got it stuck ends (padding to its period's end), as any other run
         * ends when a command goes past its result */
        if (wd_repl_run_count(r) == r->run_seq && goal != WD_GOAL_RESULT &&
            !advance(r, WD_GOAL_KERNEL_RUN, 0, &stop))
            *why = WD_REPL_ERROR;
        else
            *why = WD_REPL_STUCK;
        return true;
    }
    if (goal == WD_GOAL_TICKS && t->ticks >= target)
        return true;
    uint64_t k, before = t->ticks;
    wd_pvm_goal sub = sub_goal(r, goal, target, t->ticks, &k);
    if (sub == WD_GOAL_INSTRS)
        k = n;
    bool capped;
    if (!limit_advance(r, fin, &sub, &k, &capped))
        return true;
    if (!advance(r, sub, k, &stop)) {
        *why = WD_REPL_ERROR;
        return true;
    }
    wd_repl_bp *tick_bp = crossed_tick_bp(r, before, t->ticks);
    /* A pause nobody asked for is the PVM running a single instruction when the next one
     * costs more than the ticks left (it reports that as a pause): a goal stop. */
    if (stop == WD_STOP_PAUSED && (r->hit != 0 || r->step_hit || interrupted)) {
        *why = r->hit != 0 ? WD_REPL_BREAK : r->step_hit ? WD_REPL_STEP : WD_REPL_INTR;
        return true;
    }
    r->hit = 0;
    if (tick_bp != NULL) {
        tick_bp->hits++;
        r->hit = tick_bp->id;
        *why = WD_REPL_BREAK;
        return true;
    }
    bool fin_now = wd_repl_finished(r);
    if (capped && stop == WD_STOP_GOAL && wd_pvm_get_state(p) == WD_PVM_EVAL && !fin_now) {
        wd_cli_pvm_mark_stop(&r->s, NULL); /* at the limit, or the last instruction within */
        return true;
    }
    bool moved = t->ticks != before || wd_pvm_get_state(p) != state || fin_now != fin;
    if (moved && fin_now && trap_hit(r)) {
        *why = WD_REPL_BREAK;
        return true;
    }
    if (goal == WD_GOAL_INSTRS || !moved || interrupted)
        return true;
    /* step <n> ticks: a kernel_run ended, or the last instruction boundary within the ticks
     * asked for (a tick breakpoint below that bound is crossed by looping) */
    if (goal == WD_GOAL_TICKS)
        return fin_now || (sub == WD_GOAL_TICKS && before + k == target);
    if (goal == WD_GOAL_RESULT)
        return fin_now;
    return goal == WD_GOAL_KERNEL_RUN && sub == WD_GOAL_KERNEL_RUN;
}

wd_repl_stop wd_repl_drive(wd_repl *r, wd_pvm_goal goal, uint64_t n)
{
    r->lag = 0; /* the rest of a step `step tick` stopped inside goes first */
    wd_thread *t = r->t;
    uint64_t target = goal == WD_GOAL_TICKS ? t->ticks + WD_MIN(n, UINT64_MAX - t->ticks) : 0;
    r->hit = 0;
    r->step_hit = false;
    r->stepping = goal == WD_GOAL_INSTRS;
    r->frame = 0;
    interrupted = 0;
    signal_repl = r;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    wd_repl_stop why;
    while (!drive_once(r, goal, n, target, &why))
        continue;
    sigaction(SIGINT, &old, NULL);
    signal_repl = NULL;
    t->pending = 0;
    r->stepping = false;
    r->catch_call = false;
    r->out_depth = 0;
    if (why == WD_REPL_INPUT && goal != WD_GOAL_INPUT)
        why = WD_REPL_GOAL;
    if (interrupted && why == WD_REPL_GOAL)
        why = WD_REPL_INTR;
    interrupted = 0;
    return why;
}

/* What the PVM does at tick `at` of the kernel run whose decode, link and init began at
 * its Snapshot tick s (wasm_vm.ml; the phases as vm/pvmticks.c counts them). */
static void describe_prepare(const wd_run_report *run, uint64_t s, uint64_t at, char *buf,
                             size_t size)
{
    uint64_t j = at - s, d = run->phase[WD_PHASE_DECODE], l = run->phase[WD_PHASE_LINK],
             n = run->phase[WD_PHASE_INIT];
    if (j <= 1)
        snprintf(buf, size, "the Snapshot -> Decode step");
    else if (j <= 1 + d)
        snprintf(buf, size, "decode (its step %llu of %llu)", (unsigned long long)(j - 1),
                 (unsigned long long)d);
    else if (j <= 1 + d + l)
        snprintf(buf, size, "link (its step %llu of %llu)", (unsigned long long)(j - 1 - d),
                 (unsigned long long)l);
    else if (j <= 1 + d + l + n)
        snprintf(buf, size, "init (its step %llu of %llu)",
                 (unsigned long long)(j - 1 - d - l), (unsigned long long)n);
    else
        snprintf(buf, size, "the Init -> Eval step");
}

/* The PVM's tick as the REPL shows it (`step tick` may stop inside a step). */
static uint64_t shown_tick(const wd_repl *r)
{
    return r->t->ticks - r->lag;
}

/* Prints why a run command stopped, then the reference's `Evaluation took` and status. */
static void report(wd_repl *r, wd_repl_stop why, uint64_t took, bool ours)
{
    wd_repl_flush_debug(r);
    char where[512];
    bool in_code = wd_repl_where(r, where, sizeof where);
    unsigned long long now = (unsigned long long)shown_tick(r);
    wd_repl_bp *bp = why == WD_REPL_BREAK ? find_bp(r, r->hit) : NULL;
    if (bp != NULL && bp->kind == WD_BP_FUNC && in_code && bp->host) {
        printf("Breakpoint %u, %s returned to %s (tick %llu)\n", bp->id, bp->name, where, now);
    } else if (bp != NULL && bp->kind == WD_BP_FUNC && in_code) {
        printf("Breakpoint %u, %s (tick %llu)\n", bp->id, where, now);
    } else if (bp != NULL && bp->kind == WD_BP_TICK) {
        printf("Breakpoint %u, tick %llu reached", bp->id, (unsigned long long)bp->tick);
        if (in_code)
            printf(": %s (tick %llu)\n", where, now);
        else
            printf(" (now at tick %llu)\n", now);
    } else if (bp != NULL && bp->kind == WD_BP_TRAP) {
        const wd_run_report *cur = wd_pvm_current_run(r->s.pvm);
        printf("Breakpoint %u, kernel_run trapped: %s (tick %llu)\n", bp->id,
               cur != NULL ? cur->reason : "?", now);
    } else if (why == WD_REPL_INTR) {
        printf("Interrupted%s%s (tick %llu)\n", in_code ? " in " : "", in_code ? where : "",
               now);
    } else if ((ours || why == WD_REPL_STEP || r->lag > 0) && in_code) {
        printf("Stopped in %s (tick %llu)\n", where, now);
    }
    if (r->lag > 0 && r->lag_prepare) { /* decode, link and init, run whole */
        const wd_run_report *run = wd_pvm_current_run(r->s.pvm);
        char what[96];
        describe_prepare(run, r->lag_start, shown_tick(r), what, sizeof what);
        printf("Inside %s: tick %llu of the %llu of decode, link and init (wasmdbg has run "
               "them)\n",
               what, (unsigned long long)(shown_tick(r) - r->lag_start),
               (unsigned long long)(r->t->ticks - r->lag_start));
    } else if (r->lag > 0) { /* an instruction, run whole */
        printf("Inside %s: its tick %llu of %llu (wasmdbg has run it)\n", r->lag_what,
               (unsigned long long)(shown_tick(r) - r->lag_start),
               (unsigned long long)(r->t->ticks - r->lag_start));
    }
    if (r->s.stop.on) /* its reason, "stopped at tick ...", capitalized */
        printf("S%s\n", r->s.stop.run.reason + 1);
    printf("Evaluation took %llu ticks so far\n", (unsigned long long)took);
    wd_repl_show_status(r);
}

/* Runs a step command and reports it. The ticks of a step `step tick` stopped inside are
 * the command's first. */
static void run_step(wd_repl *r, wd_pvm_goal goal, uint64_t n, bool ours)
{
    uint64_t before = shown_tick(r);
    r->lag = 0;
    wd_repl_stop why = wd_repl_drive(r, goal, n);
    if (why == WD_REPL_ERROR)
        return;
    report(r, why, r->t->ticks - before, ours);
}

/* step tick, step N ticks: exactly N of the PVM's ticks. wasmdbg runs an instruction, and a
 * kernel run's decode, link and init, whole: when the ticks asked for end inside such a
 * step, it has run and the REPL shows the PVM's tick inside it (r->lag); the next ticks
 * asked for are that step's rest first. */
static void run_ticks(wd_repl *r, uint64_t n)
{
    uint64_t before = shown_tick(r);
    if (r->lag > 0) {
        uint64_t k = WD_MIN(n, r->lag);
        r->lag -= k;
        n -= k;
        if (n == 0) {
            report(r, WD_REPL_GOAL, k, true);
            return;
        }
    }
    /* each drive stops at the last instruction boundary within the ticks; the next runs
     * the instruction that does not fit whole (wd_pvm_advance) */
    uint64_t target = r->t->ticks + n;
    wd_repl_stop why = WD_REPL_GOAL;
    char where[480], store[480];
    bool in_code = false;
    uint64_t load = UINT64_MAX;
    while (r->t->ticks < target && !wd_repl_finished(r)) {
        uint64_t at = r->t->ticks;
        in_code = wd_repl_where(r, where, sizeof where);
        load = wd_repl_copy_split(r, store, sizeof store);
        why = wd_repl_drive(r, WD_GOAL_TICKS, target - at);
        if (why != WD_REPL_GOAL || r->t->ticks == at)
            break;
    }
    if (why == WD_REPL_ERROR)
        return;
    if (why == WD_REPL_GOAL && r->t->ticks > target) {
        r->lag = r->t->ticks - target;
        r->lag_start = wd_pvm_step_start(r->s.pvm);
        const wd_run_report *run = wd_pvm_current_run(r->s.pvm);
        r->lag_prepare = run != NULL && r->lag_start == run->start;
        if (in_code && load != UINT64_MAX && target - r->lag_start > load) {
            /* past a fused load, in the store of its value: name the store */
            r->lag_start += load;
            memcpy(where, store, sizeof where);
        }
        /* not paused in code: kernel_run was still to start */
        snprintf(r->lag_what, sizeof r->lag_what, "%s%s",
                 in_code ? "the instruction at " : "kernel_run's invoke", in_code ? where : "");
    }
    report(r, why, shown_tick(r) - before, true);
}

/* ---- commands ----------------------------------------------------------------------------- */

typedef struct doc {
    const char *syntax, *text;
} doc;

static const doc docs[] = {
    {"time <command>", "runs <command>, then prints how long it took (wall clock)."},
    {"show inbox", "prints the messages of the current input buffer not read yet, decoded."},
    {"show outbox at level <level>", "prints the outbox of <level>, decoded."},
    {"show status", "prints the PVM's status and internal status."},
    {"show ticks", "prints the tick counter (every tick since the start, padding included)."},
    {"show durable storage [<prefix>] [--full]",
     "prints every path of the durable storage (under <prefix>: that path and its "
     "descendants) with its value in hex (the values, not the reference's internal chunk "
     "encoding of them), a value over 64 bytes cut to its first 64 and its size "
     "(`... (<n> bytes)`) unless --full."},
    {"show subkeys [<path>] | ls [<path>]", "prints the children of <path> (default /)."},
    {"show key <key> [as <kind>]",
     "prints the value at <key> as hex (default), string, or a little-endian integer: "
     "u16/uint16, i32/int32, i64/int64 (signed), u128/uint128, u256/uint256."},
    {"dump function symbols", "prints the kernel's function names (from its name section)."},
    {"step tick | result | kernel_run | inbox",
     "runs one of the PVM's ticks (inside an instruction, or decode, link and init, which "
     "wasmdbg runs whole: it says which of the step's ticks; padding is one step), to the "
     "end of kernel_run (memory kept), to the end of the period (padding included), or until "
     "the PVM needs input (loading the next inbox first when it waits for one)."},
    {"step <n> ticks", "runs <n> of the PVM's ticks (as step tick, where they end)."},
    {"step instr [<n>]",
     "runs <n> instructions of kernel_run (default 1) as wasmdbg translated them: an "
     "instruction folded into the next one (local.get into i32.add, ...) is not a step."},
    {"step call", "runs to the entry of the next wasm function called."},
    {"step out", "runs until the selected frame returns."},
    {"load inputs",
     "when the PVM waits for input, feeds it the next inbox of the inputs file."},
    {"reveal preimage [<hex>] | reveal metadata",
     "the reference's manual reveals. wasmdbg answers reveal requests itself (preimages from "
     "--preimage-dir, metadata from --rollup); a preimage or DAL page it cannot find is asked "
     "for at once, in hex on the next line (three attempts), as the reference does."},
    {"profile [--collapsed] [--without-time] [--no-reboot]",
     "from a state waiting for input (loading the next inbox) or at a snapshot: profiles until "
     "the PVM needs input again (--no-reboot: one kernel_run) and writes folded stacks to "
     "--flamecharts-dir."},
    {"profile start [--without-time] | profile stop [--collapsed]",
     "profiles any window of execution: the commands run in between are profiled; stop "
     "prints the summary and writes the profile's files."},
    {"break <function> | break tick [+]<n> | break trap",
     "stops when a function (name, func[i] or index; a host function stops when it returns) "
     "is called, when the tick counter reaches <n> (+<n>: from now), or when a kernel_run "
     "traps."},
    {"info breakpoints", "lists the breakpoints."},
    {"delete [<n>...]", "deletes breakpoints (all without a number)."},
    {"continue", "runs until a breakpoint or until the PVM needs input."},
    {"bt [<n>|all]", "prints the call stack, innermost first (after a trap: where it was)."},
    {"frame <n>", "selects frame <n> for locals, stack and step out."},
    {"locals", "prints the parameters and locals of the selected frame."},
    {"stack",
     "prints the selected frame's operand slots (the slots above its locals; the live "
     "height is not tracked, so the top ones may hold stale values)."},
    {"globals", "prints the kernel instance's globals."},
    {"show memory at <addr> for <n> bytes [as string|hexdump] | show memory at <addr> as "
     "<kind> | x <addr> [<n>]",
     "prints linear memory (while a kernel_run runs or has just ended): hex, raw string, "
     "an integer <kind> as in show key, or a hexdump with ASCII (x: 64 bytes by default)."},
    {"stop | quit | exit", "ends the session."},
    {"help [<word>] | man", "prints this help (the commands starting with <word>)."},
};

static void cmd_help(int argc, char **argv)
{
    char prefix[256] = "";
    for (int a = 1; a < argc; a++) /* `help show key`: the commands starting so */
        snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "%s%s",
                 a > 1 ? " " : "", argv[a]);
    bool any = false;
    for (size_t i = 0; i < WD_ARRAY_COUNT(docs); i++) {
        if (strncmp(docs[i].syntax, prefix, strlen(prefix)) != 0)
            continue;
        printf("  %s: %s\n", docs[i].syntax, docs[i].text);
        any = true;
    }
    if (!any)
        wd_repl_error("Error: no command starts with `%.80s` (`help` lists them all)", prefix);
}

bool wd_repl_load_inputs(wd_repl *r)
{
    wd_pvm *p = r->s.pvm;
    const char *stuck = wd_pvm_stuck_reason(p);
    if (stuck != NULL) {
        printf("The PVM is stuck (%s): it takes no more inputs.\n", stuck);
        return false;
    }
    if (wd_pvm_get_state(p) != WD_PVM_COLLECT) {
        printf("The PVM is not expecting inputs yet. You can `step inbox` to evaluate the "
               "current inbox.\n");
        return false;
    }
    if (r->s.inputs == NULL || r->s.next_inbox >= r->s.inputs->count) {
        printf("No more inputs at level %u\n", wd_pvm_level(p));
        return false;
    }
    if (r->prof.on)
        wd_profhook_level(&r->prof.hook, wd_pvm_level(p));
    wd_error err;
    wd_error_clear(&err);
    if (wd_pvm_load_inbox(p, &r->s.inputs->inboxes[r->s.next_inbox], &err) != WD_OK) {
        wd_repl_error("Error: %s", err.msg);
        return false;
    }
    r->s.next_inbox++;
    return true;
}

static bool waits_for_input(wd_repl *r)
{
    if (wd_pvm_get_state(r->s.pvm) != WD_PVM_COLLECT)
        return false;
    wd_repl_error("Error: the PVM waits for input: use `load inputs` or `step inbox`.");
    return true;
}

static int cmd_step(wd_repl *r, int argc, char **argv)
{
    uint64_t n = 1;
    if (argc == 2 && strcmp(argv[1], "tick") == 0) {
        if (wd_pvm_get_state(r->s.pvm) == WD_PVM_COLLECT) {
            wd_repl_error("Error: the PVM waits for input: `step tick` would make the "
                          "reference PVM stuck for good here; use `load inputs` or "
                          "`step inbox`.");
            return 1;
        }
        if (wd_repl_finished(r))
            run_step(r, WD_GOAL_KERNEL_RUN, 1, false);
        else
            run_ticks(r, 1);
    } else if (argc == 2 && strcmp(argv[1], "result") == 0) {
        run_step(r, WD_GOAL_RESULT, 0, false);
    } else if (argc == 2 && strcmp(argv[1], "kernel_run") == 0) {
        run_step(r, WD_GOAL_KERNEL_RUN, 0, false);
    } else if (argc == 2 && strcmp(argv[1], "inbox") == 0) {
        if (wd_pvm_get_state(r->s.pvm) == WD_PVM_COLLECT && !wd_repl_load_inputs(r)) {
            report(r, WD_REPL_GOAL, 0, false);
            return 1;
        }
        run_step(r, WD_GOAL_INPUT, 0, false);
    } else if (argc == 3 && (strcmp(argv[2], "ticks") == 0 || strcmp(argv[2], "tick") == 0)) {
        if (!wd_repl_parse_u64(argv[1], UINT64_MAX, &n) || n == 0) {
            wd_repl_error("Error: expected a positive number of ticks, got `%.80s`", argv[1]);
            return 1;
        }
        if (waits_for_input(r))
            return 1;
        if (wd_repl_finished(r))
            run_step(r, WD_GOAL_KERNEL_RUN, n, true);
        else
            run_ticks(r, n);
    } else if ((argc == 2 || argc == 3) && strcmp(argv[1], "instr") == 0) {
        if (argc == 3 && (!wd_repl_parse_u64(argv[2], UINT64_MAX, &n) || n == 0)) {
            wd_repl_error("Error: expected a positive number of instructions, got `%.80s`",
                          argv[2]);
            return 1;
        }
        if (waits_for_input(r))
            return 1;
        run_step(r, WD_GOAL_INSTRS, n, true);
    } else if (argc == 2 && strcmp(argv[1], "call") == 0) {
        if (waits_for_input(r))
            return 1;
        r->catch_call = true;
        run_step(r, WD_GOAL_RESULT, 0, true);
    } else if (argc == 2 && strcmp(argv[1], "out") == 0) {
        if (r->t->state != WD_THREAD_PAUSED || r->t->frame_count == 0) {
            wd_repl_error("Error: no frame to step out of: kernel_run is not paused in the "
                          "middle of its code.");
            return 1;
        }
        uint32_t sel = r->frame < r->t->frame_count ? r->frame : 0;
        r->out_depth = r->t->frame_count - sel;
        run_step(r, WD_GOAL_RESULT, 0, true);
    } else {
        return 0;
    }
    return 1;
}

/* Resolves `name` to a breakpoint on a function of the kernel. */
static bool resolve_func(wd_repl *r, const char *name, wd_repl_bp *bp)
{
    const wd_module *m = wd_pvm_module(r->s.pvm);
    if (m == NULL)
        return false;
    uint64_t idx = UINT64_MAX;
    if (name[0] == '$' && name[1] != '\0')
        name++; /* as the text format writes it */
    size_t n = strlen(name);
    if (n > 6 && strncmp(name, "func[", 5) == 0 && name[n - 1] == ']') {
        char num[32];
        snprintf(num, sizeof num, "%.*s", (int)(n - 6), name + 5);
        if (!wd_repl_parse_u64(num, UINT32_MAX, &idx))
            idx = UINT64_MAX;
    } else if (!wd_repl_parse_u64(name, UINT32_MAX, &idx)) {
        idx = UINT64_MAX;
    }
    for (uint32_t i = 0; idx == UINT64_MAX && i < m->func_count; i++)
        if (m->names.funcs != NULL && m->names.funcs[i] != NULL &&
            strcmp(m->names.funcs[i], name) == 0)
            idx = i;
    for (uint32_t i = 0; idx == UINT64_MAX && i < m->export_count; i++)
        if (m->exports[i].kind == WD_EXTERN_FUNC && strcmp(m->exports[i].name, name) == 0)
            idx = m->exports[i].idx;
    for (uint32_t i = 0, f = 0; idx == UINT64_MAX && i < m->import_count; i++) {
        const wd_import *imp = &m->imports[i];
        if (imp->kind != WD_EXTERN_FUNC)
            continue;
        char full[300];
        snprintf(full, sizeof full, "%s.%s", imp->module, imp->name);
        if (strcmp(imp->name, name) == 0 || strcmp(full, name) == 0)
            idx = f;
        f++;
    }
    if (idx == UINT64_MAX || idx >= m->func_count)
        return false;
    bp->func_idx = (uint32_t)idx;
    bp->host = idx < m->import_func_count;
    if (bp->host) {
        for (uint32_t i = 0, f = 0; i < m->import_count; i++) {
            if (m->imports[i].kind != WD_EXTERN_FUNC)
                continue;
            if (f++ == idx)
                snprintf(bp->name, sizeof bp->name, "%s.%s", m->imports[i].module,
                         m->imports[i].name);
        }
    } else {
        char buf[48];
        const char *fn = wd_repl_func_name(m, (uint32_t)idx, buf, sizeof buf);
        if (fn == buf)
            snprintf(bp->name, sizeof bp->name, "%s", fn);
        else
            snprintf(bp->name, sizeof bp->name, "%.120s (func[%u])", fn, (unsigned)idx);
    }
    return true;
}

static int cmd_break(wd_repl *r, int argc, char **argv)
{
    if (argc < 2) {
        wd_repl_error("Error: break what? `break <function>`, `break tick <n>` or "
                      "`break trap`");
        return 1;
    }
    wd_repl_bp bp = {.id = r->next_bp};
    if (argc == 2 && strcmp(argv[1], "trap") == 0) {
        bp.kind = WD_BP_TRAP;
        printf("Breakpoint %u: when a kernel_run traps\n", bp.id);
    } else if (argc == 3 && strcmp(argv[1], "tick") == 0) {
        uint64_t n, now = shown_tick(r);
        bool rel = argv[2][0] == '+';
        if (!wd_repl_parse_u64(argv[2] + rel, UINT64_MAX, &n) || (rel && n > UINT64_MAX - now)) {
            wd_repl_error("Error: expected a tick count (or +<n> from now), got `%.80s`", argv[2]);
            return 1;
        }
        bp.tick = rel ? now + n : n;
        if (bp.tick <= now) {
            wd_repl_error("Error: tick %llu is already past (now at tick %llu)",
                          (unsigned long long)bp.tick, (unsigned long long)now);
            return 1;
        }
        bp.kind = WD_BP_TICK;
        printf("Breakpoint %u at tick %llu\n", bp.id, (unsigned long long)bp.tick);
    } else if (argc == 2) {
        bp.kind = WD_BP_FUNC;
        if (!resolve_func(r, argv[1], &bp)) {
            wd_repl_error("Error: no function `%.80s` in the kernel (see `dump function symbols`)",
                          argv[1]);
            return 1;
        }
        printf("Breakpoint %u at %s%s\n", bp.id, bp.name,
               bp.host ? " (a host function: stops when it returns)" : "");
    } else {
        return 0;
    }
    if (!WD_VEC_PUSH(&r->s.ctx, &r->bps, bp)) {
        wd_repl_error("Error: out of memory");
        return 1;
    }
    r->next_bp++;
    return 1;
}

static void cmd_info_breakpoints(wd_repl *r)
{
    if (r->bps.count == 0) {
        printf("No breakpoints.\n");
        return;
    }
    printf("Num  What\n");
    for (uint32_t i = 0; i < r->bps.count; i++) {
        const wd_repl_bp *bp = &r->bps.data[i];
        char what[200];
        if (bp->kind == WD_BP_FUNC)
            snprintf(what, sizeof what, "function %s", bp->name);
        else if (bp->kind == WD_BP_TICK)
            snprintf(what, sizeof what, "tick %llu", (unsigned long long)bp->tick);
        else
            snprintf(what, sizeof what, "trap in kernel_run");
        printf("%-4u %s", bp->id, what);
        if (bp->hits != 0)
            printf(", hit %llu time%s", (unsigned long long)bp->hits, bp->hits == 1 ? "" : "s");
        printf("\n");
    }
}

static void cmd_delete(wd_repl *r, int argc, char **argv)
{
    if (argc == 1) {
        r->bps.count = 0;
        printf("Deleted all breakpoints.\n");
        return;
    }
    for (int a = 1; a < argc; a++) {
        uint64_t id;
        wd_repl_bp *bp = wd_repl_parse_u64(argv[a], UINT32_MAX, &id) ? find_bp(r, (uint32_t)id)
                                                                    : NULL;
        if (bp == NULL) {
            wd_repl_error("Error: no breakpoint number %.80s", argv[a]);
            continue;
        }
        size_t i = (size_t)(bp - r->bps.data);
        memmove(bp, bp + 1, (r->bps.count - i - 1) * sizeof *bp);
        r->bps.count--;
        printf("Deleted breakpoint %u\n", (unsigned)id);
    }
}

static void cmd_continue(wd_repl *r)
{
    if (wd_pvm_get_state(r->s.pvm) == WD_PVM_COLLECT) {
        wd_repl_error("Error: the PVM waits for input: `load inputs` (or `step inbox`) first.");
        return;
    }
    run_step(r, WD_GOAL_INPUT, 0, true);
}

static void cmd_reveal(wd_repl *r, bool metadata)
{
    (void)r;
    if (metadata)
        printf("Error: Not in a reveal step (wasmdbg answers reveal_metadata itself, with the "
               "--rollup address)\n");
    else
        printf("Error: not a reveal step (wasmdbg answers reveal_preimage itself, from "
               "--preimage-dir)\n");
}

static int execute(wd_repl *r, char *line);

/* Ptime-like durations: 12ns, 3.4us, 56.7ms, 1.234s, 2min3.4s. */
static void print_took(double s)
{
    if (s < 1e-6)
        printf("took %.0fns\n", s * 1e9);
    else if (s < 1e-3)
        printf("took %.3gus\n", s * 1e6);
    else if (s < 1)
        printf("took %.3gms\n", s * 1e3);
    else if (s < 60)
        printf("took %.4gs\n", s);
    else
        printf("took %.0fmin%.3gs\n", (double)(long long)(s / 60), s - 60 * (double)(long long)(s / 60));
}

static int cmd_show(wd_repl *r, int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (argc == 2 && strcmp(w, "status") == 0)
        wd_repl_show_status(r);
    else if (argc == 2 && strcmp(w, "ticks") == 0)
        printf("Ticks: %llu (level %u)\n", (unsigned long long)shown_tick(r),
               wd_pvm_level(r->s.pvm) ? wd_pvm_level(r->s.pvm) - 1 : 0);
    else if (argc == 2 && strcmp(w, "inbox") == 0)
        wd_repl_show_inbox(r);
    else if (argc == 5 && strcmp(w, "outbox") == 0 && strcmp(argv[2], "at") == 0 &&
             strcmp(argv[3], "level") == 0)
        wd_repl_show_outbox(r, argc, argv);
    else if (argc >= 3 && strcmp(w, "durable") == 0 && strcmp(argv[2], "storage") == 0)
        wd_repl_show_durable(r, argc, argv);
    else if ((argc == 2 || argc == 3) && strcmp(w, "subkeys") == 0)
        wd_repl_show_subkeys(r, argc == 3 ? argv[2] : "/");
    else if ((argc == 3 || (argc == 5 && strcmp(argv[3], "as") == 0)) && strcmp(w, "key") == 0)
        wd_repl_show_key(r, argc, argv);
    else if (argc >= 2 && strcmp(w, "memory") == 0)
        wd_repl_show_memory(r, argc, argv);
    else
        return 0;
    return 1;
}

static int execute_words(wd_repl *r, int argc, char **argv)
{
    const char *c = argv[0];
    if (strcmp(c, "help") == 0 || (strcmp(c, "man") == 0 && argc == 1))
        cmd_help(argc, argv);
    else if ((strcmp(c, "stop") == 0 || strcmp(c, "quit") == 0 || strcmp(c, "exit") == 0) &&
             argc == 1)
        r->quit = true;
    else if (strcmp(c, "show") == 0)
        return cmd_show(r, argc, argv);
    else if (strcmp(c, "ls") == 0 && argc <= 2)
        wd_repl_show_subkeys(r, argc == 2 ? argv[1] : "/");
    else if (strcmp(c, "x") == 0 && (argc == 2 || argc == 3))
        wd_repl_show_memory(r, argc, argv);
    else if (strcmp(c, "dump") == 0 && argc == 3 && strcmp(argv[1], "function") == 0 &&
             strcmp(argv[2], "symbols") == 0)
        wd_repl_dump_symbols(r);
    else if (strcmp(c, "step") == 0)
        return cmd_step(r, argc, argv);
    else if (strcmp(c, "load") == 0 && argc == 2 && strcmp(argv[1], "inputs") == 0)
        (void)wd_repl_load_inputs(r);
    else if (strcmp(c, "reveal") == 0 && argc <= 3 && argc >= 2 &&
             strcmp(argv[1], "preimage") == 0)
        cmd_reveal(r, false);
    else if (strcmp(c, "reveal") == 0 && argc == 2 && strcmp(argv[1], "metadata") == 0)
        cmd_reveal(r, true);
    else if (strcmp(c, "profile") == 0)
        return wd_repl_profile(r, argc, argv);
    else if (strcmp(c, "break") == 0 || strcmp(c, "b") == 0)
        return cmd_break(r, argc, argv);
    else if (strcmp(c, "info") == 0 && argc == 2 &&
             (strcmp(argv[1], "breakpoints") == 0 || strcmp(argv[1], "break") == 0 ||
              strcmp(argv[1], "b") == 0))
        cmd_info_breakpoints(r);
    else if (strcmp(c, "delete") == 0 || strcmp(c, "d") == 0)
        cmd_delete(r, argc, argv);
    else if ((strcmp(c, "continue") == 0 || strcmp(c, "c") == 0) && argc == 1)
        cmd_continue(r);
    else if ((strcmp(c, "bt") == 0 || strcmp(c, "backtrace") == 0 || strcmp(c, "where") == 0) &&
             argc <= 2)
        wd_repl_bt(r, argc, argv);
    else if ((strcmp(c, "frame") == 0 || strcmp(c, "f") == 0) && argc <= 2)
        wd_repl_frame(r, argc, argv);
    else if (strcmp(c, "locals") == 0 && argc == 1)
        wd_repl_locals(r);
    else if (strcmp(c, "stack") == 0 && argc == 1)
        wd_repl_stack(r);
    else if (strcmp(c, "globals") == 0 && argc == 1)
        wd_repl_globals(r);
    else if (strcmp(c, "time") == 0 && argc > 1) {
        double t0 = wd_clock_seconds();
        if (!execute_words(r, argc - 1, argv + 1))
            return 0;
        wd_repl_flush_debug(r);
        print_took(wd_clock_seconds() - t0);
    } else
        return 0;
    return 1;
}

#define MAX_WORDS 64

/* Runs one command line (modified in place). 0 when it is not a command. */
static int execute(wd_repl *r, char *line)
{
    char *argv[MAX_WORDS];
    int argc = 0;
    for (char *p = line; *p != '\0';) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (*p == '\0')
            break;
        if (argc == MAX_WORDS)
            return 0;
        argv[argc++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
    }
    if (argc == 0)
        return 1;
    return execute_words(r, argc, argv);
}

/* One line as read: comments and blank lines are skipped, unknown commands reported. */
static void run_line(wd_repl *r, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    const char *p = line + strspn(line, " \t");
    if (*p == '#' || (size_t)(p - line) >= n)
        return;
    if (r->echo)
        printf("> %.*s\n", (int)n, line);
    char *copy = malloc(n + 1);
    if (copy == NULL) {
        wd_repl_error("Error: out of memory");
        return;
    }
    memcpy(copy, line, n);
    copy[n] = '\0';
    if (!execute(r, copy)) {
        fflush(stdout);
        fprintf(stderr, "Unknown command `%.*s`\n", (int)n, line);
        fflush(stderr);
    }
    free(copy);
    fflush(stdout);
}

/* Lines from a stream (a pipe or a -x file), at most 1 MiB each. */
static void run_stream(wd_repl *r, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (!r->quit && (n = getline(&line, &cap, f)) >= 0) {
        if (n > (1 << 20)) {
            wd_repl_error("Error: line too long (%zd bytes)", n);
            continue;
        }
        run_line(r, line);
    }
    free(line);
}

/* ---- the session ------------------------------------------------------------------------------ */

static int start(wd_repl *r, int argc, char **argv, const char **script)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL)
        return WD_EXIT_USAGE;
    int nrest = 0;
    const char *out_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--echo") == 0) {
            r->echo = true;
        } else if (strcmp(argv[i], "-x") == 0 || strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) {
                free(rest);
                fprintf(stderr, "wasmdbg: %s needs a value\n\n%s", argv[i], debug_help);
                return WD_EXIT_USAGE;
            }
            if (argv[i++][1] == 'x')
                *script = argv[i];
            else
                out_dir = argv[i];
        } else {
            rest[nrest++] = argv[i];
        }
    }
    r->hooks = (wd_hooks){.ud = r, .call = on_call, .ret = on_ret, .phase = on_phase,
                          .big_step = on_big_step};
    int code = wd_cli_pvm_start_hooks(&r->s, nrest, rest, debug_help, false, &r->hooks);
    free(rest);
    if (code < 0 && out_dir != NULL)
        r->s.flamecharts_dir = out_dir; /* -o wins, as in `profile` */
    /* where `profile` will write: created and checked before anything runs */
    if (code < 0 && r->s.flamecharts_dir != NULL &&
        !wd_cli_pvm_out_dir(out_dir != NULL ? "-o" : "--flamecharts-dir", r->s.flamecharts_dir)) {
        wd_cli_pvm_finish(&r->s);
        code = WD_EXIT_USAGE;
    }
    return code;
}

/* The reference debugger's manual reveal: when a preimage (or DAL page) is not in its
 * directory, ask for its bytes in hex on standard input, three attempts. */
static wd_status ask_reveal(void *ud, const char *what, const char *key, const char *dir,
                            uint8_t *buf, size_t max, size_t *size, wd_error *err)
{
    wd_repl *r = ud;
    printf("%s %s not found in %s, or there was a reading error. Please provide it manually.\n",
           what, key, dir);
    for (int attempt = 0; attempt < 3; attempt++) {
        if (r->interactive) {
            printf("> ");
        }
        fflush(stdout);
        char *line = NULL;
        size_t cap = 0;
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) {
            free(line);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        bool ok = n % 2 == 0;
        size_t k = 0;
        for (ssize_t i = 0; ok && i < n; i += 2) {
            int hi = wd_hex_digit(line[i]), lo = wd_hex_digit(line[i + 1]);
            ok = hi >= 0 && lo >= 0;
            if (ok && k < max)
                buf[k] = (uint8_t)(hi << 4 | lo);
            k++;
        }
        free(line);
        if (ok) {
            *size = k;
            return WD_OK;
        }
        printf("Error: the data is not a valid hexadecimal value.\n");
    }
    printf("Too many tries, aborting.\n");
    return wd_fail(err, WD_TRAP, 0, "%s %s was not provided", what, key);
}

int wd_cli_debug(int argc, char **argv)
{
    wd_repl *r = calloc(1, sizeof *r);
    if (r == NULL)
        return WD_EXIT_USAGE;
    const char *script = NULL;
    int code = start(r, argc, argv, &script);
    if (code >= 0) {
        free(r);
        return code;
    }
    r->t = wd_pvm_thread(r->s.pvm);
    wd_pvm_set_reveal_prompt(r->s.pvm, ask_reveal, r);
    r->next_bp = 1;
    wd_srcloc_init(&r->loc, &r->s.ctx);
    code = WD_EXIT_OK;
    if (script != NULL) {
        FILE *f = fopen(script, "r");
        if (f == NULL) {
            fprintf(stderr, "wasmdbg: %s: cannot read: %s\n", script, strerror(errno));
            code = WD_EXIT_USAGE;
            r->quit = true;
        } else {
            run_stream(r, f);
            fclose(f);
        }
    }
    r->interactive = isatty(STDIN_FILENO);
    if (!r->quit && r->interactive) {
        wd_repl_edit_init(r);
        char *line;
        while (!r->quit && (line = wd_repl_edit_read(r)) != NULL) {
            run_line(r, line);
            free(line);
        }
        wd_repl_edit_fini(r);
    } else if (!r->quit) {
        run_stream(r, stdin);
    }
    wd_repl_flush_debug(r);
    wd_repl_prof_fini(r);
    wd_srcloc_fini(&r->loc);
    wd_pvm_set_hooks(r->s.pvm, NULL); /* freeing a paused run unwinds it: nobody listens */
    WD_VEC_FREE(&r->s.ctx, &r->bps);
    WD_VEC_FREE(&r->s.ctx, &r->unwound);
    wd_cli_pvm_finish(&r->s);
    free(r);
    fflush(stdout);
    return code;
}
