/* pvmopts.h: what `run`, `profile`, `debug` and `budget` share: the reference debugger's
 * options, loading the kernel and inputs, building the PVM and feeding it inboxes. */
#ifndef WD_CLI_PVMOPTS_H
#define WD_CLI_PVMOPTS_H

#include <stdio.h>

#include "eval/snapshot.h"
#include "vm/inputs.h"
#include "vm/pvm.h"

#define WD_PVM_OPTIONS_HELP                                                                        \
    "options (as the reference debugger's):\n"                                                     \
    "  --kernel FILE           the kernel (.wasm, .wat/.wast via wat2wasm, .hex); or positional\n" \
    "  --inputs FILE           the inboxes (JSON: an array of inboxes of messages)\n"              \
    "  --rollup ADDR           the rollup address (sr1...; default 20 zero bytes)\n"              \
    "  --preimage-dir DIR      where reveal_preimage finds preimages (default preimage)\n"        \
    "  --dal-pages-dir DIR     where DAL pages are found (default dal_pages)\n"                   \
    "  -p, --pvm-version V     2.0.0 .. 2.0.0-r6 (default 2.0.0-r6)\n"                           \
    "  --no-kernel-debug       do not print the kernel's write_debug output\n"                    \
    "  --timings-file FILE     write debug output as JSON lines with timestamps to FILE\n"        \
    "  --installer-config F    apply an SDK installer config (.yaml or .json, `set` only)\n"      \
    "  --flamecharts-dir DIR   where profile files go (created with its parents)\n"              \
    "  --tick-model NAME|FILE  pvm (default), flat-1, or a model file\n"                     \
    "  --ticks-per-snapshot N  the PVM's period, in ticks (default: the version's, 5e13)\n"     \
    "  --max-ticks N           stop once the kernel runs have taken N ticks in all (padding\n"   \
    "                          excluded): the run is reported as stopped at that tick\n"         \
    "  --no-fuse               no fused instructions: `step instr` steps each WebAssembly\n"      \
    "                          instruction (same ticks, slower)\n"

/* How a run of the PVM was stopped before it needed input: by --max-ticks, or by the
 * command's watch (budget check: a bound certainly exceeded). */
typedef struct wd_cli_pvm_stop {
    bool on;
    bool in_run;       /* inside a kernel run; else before the run `run` names (due, not begun) */
    wd_run_report run; /* level and index; inside a run, its report so far: effective is its
                          ticks so far, outcome WD_RUN_STUCK (the profiler closes its open
                          calls at the stop), reason as below */
    uint64_t tick;     /* the PVM's tick at the stop */
    uint64_t total;    /* the kernel runs' ticks in all then (wd_cli_pvm_used) */
    char cause[160];   /* "--max-ticks 5000 reached", "total exceeded its limit (5000)" */
    /* run.reason: "stopped at tick T: CAUSE", with ", before kernel run K of level L" after
     * the cause when no run was in progress */
} wd_cli_pvm_stop;

typedef struct wd_cli_pvm wd_cli_pvm;

/* A watch on the kernel runs, asked between steps: returns true when they must stop there
 * (with the cause written to `cause`), else sets *room to the ticks the run in progress may
 * take before it is asked again (at least 1; UINT64_MAX: no bound). The PVM then runs at
 * least to that tick, so a measure that grows with every tick and exceeds its limit by one
 * after `room` ticks is certainly exceeded when it is asked next. */
typedef bool (*wd_cli_pvm_watch)(void *ud, const wd_cli_pvm *s, uint64_t *room, char *cause,
                                 size_t size);

struct wd_cli_pvm {
    wd_ctx ctx;
    const char *kernel_path, *inputs_path, *installer_path, *timings_path;
    const char *flamecharts_dir, *model_name;
    bool kernel_debug;
    bool debug_to_stderr; /* stdout carries a document (--json) */
    bool debug_mid_line;  /* the kernel's debug output so far (on stdout, or on stderr with
                             debug_to_stderr) does not end with a newline */
    wd_costs costs;
    wd_pvm_config cfg;
    wd_pvm *pvm;
    wd_inputs *inputs;
    uint8_t *kernel;
    size_t kernel_size;
    FILE *timings;
    double t0;
    char line[4096]; /* the timings file's partial line */
    size_t line_size;
    double line_start;
    uint32_t next_inbox;
    uint64_t max_ticks;     /* --max-ticks N; UINT64_MAX: none */
    wd_cli_pvm_watch watch; /* set by the command after wd_cli_pvm_start, or NULL */
    void *watch_ud;
    wd_cli_pvm_stop stop;   /* set when --max-ticks or the watch stopped the kernel runs */
    /* Called after each kernel run (and its padding) when neither --max-ticks nor a watch
     * bounds them, so that the command can report the run at once (profile: its files are
     * written run by run); NULL: the runs go on to the next input in one step. */
    void (*on_run)(void *ud);
    void *on_run_ud;
};

/* Parses the options in argv[0..argc) (no subcommand name) and builds the PVM. Returns -1
 * when all went well, else the exit code to return (after printing help or the error). */
int wd_cli_pvm_start(wd_cli_pvm *s, int argc, char **argv, const char *help,
                     bool debug_to_stderr);
/* The same with hooks (the profiler's listener). */
int wd_cli_pvm_start_hooks(wd_cli_pvm *s, int argc, char **argv, const char *help,
                           bool debug_to_stderr, const wd_hooks *hooks);

/* Feeds the next inbox (an empty one when the inputs are exhausted: false in *more) and runs
 * until input is needed again. */
WD_NODISCARD wd_status wd_cli_pvm_step_inbox(wd_cli_pvm *s, bool *more, wd_error *err);
/* Feeds the first inbox (or an empty one) and runs a single kernel run (profile --no-reboot). */
WD_NODISCARD wd_status wd_cli_pvm_run_first(wd_cli_pvm *s, wd_error *err);
/* Every inbox of the inputs file, stopping early when the PVM is stuck. */
WD_NODISCARD wd_status wd_cli_pvm_run_all(wd_cli_pvm *s, wd_error *err);
/* All three return WD_PAUSED when Ctrl-C stopped the kernel run (run_first: only under
 * --max-ticks or a watch), suspended where it was: the
 * command then prints where (wd_cli_pvm_print_interrupt: tick, level, run, call stack with
 * module offsets, and source lines when `loc` finds them) and what it has, and exits
 * WD_EXIT_INTERRUPTED. They return WD_OUT_OF_TICKS when --max-ticks or the watch stopped the
 * kernel runs (s->stop says where and why; a run in progress stays suspended there): with
 * --max-ticks N at the last instruction boundary where they have taken at most N ticks (a
 * kernel run's decode, link and init, which the PVM runs as one step, may end past it), with
 * the watch where it says so. The command prints the stop (wd_cli_pvm_print_stop), reports
 * the run as stopped and exits 1. */
#define WD_EXIT_INTERRUPTED 130
void wd_cli_pvm_print_interrupt(wd_cli_pvm *s, wd_srcloc_fn loc, void *loc_ud);
/* Prints the stop on stderr as an interrupt is printed: the tick, the run, the cause, the
 * call stack. */
void wd_cli_pvm_print_stop(wd_cli_pvm *s, wd_srcloc_fn loc, void *loc_ud);
/* The ticks the kernel runs have taken so far: the effective ticks of the runs over, and the
 * ticks so far of the one in progress (from its Snapshot tick). */
uint64_t wd_cli_pvm_used(const wd_cli_pvm *s);
/* Stops the kernel runs where they are (s->stop), for `cause` (NULL: --max-ticks reached). */
void wd_cli_pvm_mark_stop(wd_cli_pvm *s, const char *cause);
/* The runs to report: the PVM's (wd_pvm_runs), then the run a stop cut short, if any. */
uint32_t wd_cli_pvm_run_count(const wd_cli_pvm *s);
const wd_run_report *wd_cli_pvm_run_get(const wd_cli_pvm *s, uint32_t i);
/* The stop as JSON (the `stopped` of `run --json` and `budget check --json`): null, or
 * {"reason", "tick", "level", "kernel_run", "in_run"}; a new reference (a json_t). */
struct json_t *wd_cli_pvm_stop_json(const wd_cli_pvm *s);

/* Prepares DIR, the value of `option` (-o, --flamecharts-dir), for a profile's files before
 * anything runs: creates it and its parents when missing, and checks that it is a directory
 * wasmdbg may write to. On failure prints `wasmdbg: OPTION DIR: ...: <the system's reason>`
 * and returns false (a usage error: exit 2). */
bool wd_cli_pvm_out_dir(const char *option, const char *dir);

void wd_cli_pvm_finish(wd_cli_pvm *s);
/* Whether a kernel run trapped or got stuck, or the PVM is stuck (--fail-on-stuck). */
bool wd_cli_pvm_had_failure(const wd_cli_pvm *s);

#endif
