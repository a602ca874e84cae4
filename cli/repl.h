/* repl.h: what the files of `wasmdbg debug` (the REPL) share. repl.c reads and dispatches
 * commands and drives the PVM (stepping, breakpoints); repl_show.c prints the PVM's state
 * (status, inbox, outbox, durable storage, memory, symbols) and the paused thread's (bt,
 * locals, stack, globals); repl_prof.c profiles; repl_edit.c is the line editor (libedit:
 * history, completion). Private to cli/. */
#ifndef WD_CLI_REPL_H
#define WD_CLI_REPL_H

#include "cli/profhook.h"
#include "cli/pvmopts.h"

enum { WD_BP_FUNC, WD_BP_TICK, WD_BP_TRAP };

typedef struct wd_repl_bp {
    uint32_t id;
    int kind;          /* WD_BP_* */
    bool host;         /* FUNC: an imported (host) function, matched by its import name */
    uint32_t func_idx; /* FUNC: index in the kernel's function space */
    char name[160];    /* FUNC: for messages; host: "module.name" */
    uint64_t tick;     /* TICK */
    uint64_t hits;
} wd_repl_bp;

/* Why the last run command stopped. */
typedef enum wd_repl_stop {
    WD_REPL_GOAL,   /* the command's goal */
    WD_REPL_BREAK,  /* a breakpoint (r->hit) */
    WD_REPL_STEP,   /* step call / step out reached its point */
    WD_REPL_INTR,   /* interrupted (Ctrl-C) */
    WD_REPL_INPUT,  /* the PVM waits for input */
    WD_REPL_STUCK,  /* the PVM is stuck */
    WD_REPL_ERROR,  /* an internal error (printed) */
} wd_repl_stop;

/* A profile in progress (`profile start`, or the reference's `profile`). */
typedef struct wd_repl_prof {
    bool on;
    wd_ctx ctx;
    wd_prof *prof;
    wd_profhook hook;
    bool with_time;
    uint32_t runs_seen; /* PVM run reports handed to the profiler so far */
    char timestamp[64];
} wd_repl_prof;

typedef struct wd_repl {
    wd_cli_pvm s;     /* options, kernel, inputs, the PVM */
    wd_thread *t;     /* the PVM's thread */
    wd_hooks hooks;   /* ours, installed on the PVM for the whole session */
    const wd_hooks *fwd; /* the profiler's, forwarded to while a profile runs */
    bool echo;        /* print each command before running it (transcripts) */
    bool interactive; /* reading from a terminal */
    bool quit;

    /* breakpoints */
    WD_VEC(wd_repl_bp) bps;
    uint32_t next_bp;
    uint32_t hit;      /* the breakpoint that stopped the last run (0: none) */
    bool bps_off;      /* the reference's `profile` runs through them */

    /* hook state */
    bool in_init;      /* the init phase (a start function): never pause there */
    bool catch_call;   /* step call: pause at the next wasm function's entry */
    uint32_t out_depth; /* step out: pause when the frame at this depth returns (0: off) */
    bool step_hit;     /* catch_call / out_depth paused the thread */
    bool stepping;     /* step instr: the hooks pause nothing */

    /* The frames unwound together at one tick, innermost first: after a trap, where it
     * happened (the thread has no frames left by then). */
    WD_VEC(wd_snap_frame) unwound;
    uint64_t unwound_ticks;
    /* `step tick` inside a step wasmdbg takes whole (an instruction; a kernel run's
     * decode, link and init): the PVM's tick is the thread's minus `lag`, inside the step
     * that began at lag_start, described by lag_what */
    uint64_t lag, lag_start;
    bool lag_prepare; /* that step is decode, link and init */
    char lag_what[512];
    uint32_t unwound_depth; /* the frame count at the last return recorded */
    uint32_t run_seq;       /* run reports when the current run began (decode) */

    /* The instance of the kernel run in progress, seen at its entry (start function or
     * kernel_run); valid while the PVM's run count is inst_runs. */
    wd_instance *inst;
    uint32_t inst_runs;

    uint32_t frame;   /* the selected frame (0: innermost) */
    wd_srcloc loc;    /* DWARF source lines */
    wd_repl_prof prof;
} wd_repl;

/* repl.c */
/* The number of run reports so far. */
uint32_t wd_repl_run_count(const wd_repl *r);
/* Runs toward `goal` (n ticks or instructions), stopping at breakpoints. */
wd_repl_stop wd_repl_drive(wd_repl *r, wd_pvm_goal goal, uint64_t n);
/* The kernel_run in progress has ended (its instance still there). */
bool wd_repl_finished(const wd_repl *r);
/* Prints `fmt` as an error line on stderr. */
void wd_repl_error(const char *fmt, ...) WD_PRINTF(1, 2);
/* Ends a line of kernel debug output left open. */
void wd_repl_flush_debug(wd_repl *r);
/* `load inputs`: feeds the next inbox when the PVM waits for one (else says why not). */
bool wd_repl_load_inputs(wd_repl *r);
/* Parses an unsigned integer: decimal, 0x hex, 0o octal, 0b binary (as OCaml's literals). */
bool wd_repl_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* repl_show.c */
void wd_repl_show_status(wd_repl *r);
void wd_repl_show_inbox(wd_repl *r);
void wd_repl_show_outbox(wd_repl *r, int argc, char **argv);
void wd_repl_show_durable(wd_repl *r, int argc, char **argv);
void wd_repl_show_subkeys(wd_repl *r, const char *path);
void wd_repl_show_key(wd_repl *r, int argc, char **argv);
void wd_repl_show_memory(wd_repl *r, int argc, char **argv);
void wd_repl_dump_symbols(wd_repl *r);
void wd_repl_bt(wd_repl *r, int argc, char **argv);
void wd_repl_frame(wd_repl *r, int argc, char **argv);
void wd_repl_locals(wd_repl *r);
void wd_repl_stack(wd_repl *r);
void wd_repl_globals(wd_repl *r);
/* `func (func[i]) at 0xOFF (file:line)` of the innermost frame of a paused thread into buf;
 * false when it is not paused in wasm code. */
bool wd_repl_where(wd_repl *r, char *buf, size_t size);
/* When the instruction a paused thread runs next is a load fused with the store of its
 * value (decode/ops.def, COPY8...): where its store is (as wd_repl_where) into buf, and the
 * ticks of its load, after which the store's are; else UINT64_MAX. */
uint64_t wd_repl_copy_split(wd_repl *r, char *buf, size_t size);
/* A function's name: its name-section entry, else the name it is exported under, else
 * func[idx] (written to buf). */
const char *wd_repl_func_name(const wd_module *m, uint32_t idx, char *buf, size_t size);
/* The instance of the run in progress, or NULL. */
wd_instance *wd_repl_instance(wd_repl *r);

/* repl_prof.c */
/* `profile ...`: 0 when the words are not a profile command. */
int wd_repl_profile(wd_repl *r, int argc, char **argv);
/* Closes a profile window left open at the end of the session. */
void wd_repl_prof_fini(wd_repl *r);
/* Hands the PVM's new run reports to the profiler of an open window. */
void wd_repl_prof_runs(wd_repl *r);

/* repl_edit.c */
/* Starts the line editor (history from ~/.wasmdbg_history, completion). */
void wd_repl_edit_init(wd_repl *r);
/* Reads a line with the prompt; NULL at the end. The result is owned (free()). */
char *wd_repl_edit_read(wd_repl *r);
void wd_repl_edit_fini(wd_repl *r);

#endif
