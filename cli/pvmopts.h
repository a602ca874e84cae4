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
    "  --flamecharts-dir DIR   where profile files go\n"                                          \
    "  --tick-model NAME|FILE  pvm (default), flat-1, or a model file\n"                     \
    "  --ticks-per-snapshot N  the PVM's period, in ticks (default: the version's, 5e13)\n"     \
    "  --no-fuse               no fused instructions: `step instr` steps each WebAssembly\n"      \
    "                          instruction (same ticks, slower)\n"

typedef struct wd_cli_pvm {
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
} wd_cli_pvm;

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
/* Every inbox of the inputs file, stopping early when the PVM is stuck. */
WD_NODISCARD wd_status wd_cli_pvm_run_all(wd_cli_pvm *s, wd_error *err);
/* Both return WD_PAUSED when Ctrl-C stopped the kernel run (suspended where it was): the
 * command then prints where (wd_cli_pvm_print_interrupt: tick, level, run, call stack with
 * module offsets, and source lines when `loc` finds them) and what it has, and exits
 * WD_EXIT_INTERRUPTED. */
#define WD_EXIT_INTERRUPTED 130
void wd_cli_pvm_print_interrupt(wd_cli_pvm *s, wd_srcloc_fn loc, void *loc_ud);
void wd_cli_pvm_finish(wd_cli_pvm *s);
/* Whether a kernel run trapped or got stuck, or the PVM is stuck (--fail-on-stuck). */
bool wd_cli_pvm_had_failure(const wd_cli_pvm *s);

#endif
