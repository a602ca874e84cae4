/* pvm.h: the PVM (reference/pvm.md section 6): levels, inbox collection, kernel runs in
 * phases (decode, link, init, eval) every one of them paid in ticks, padding to the end
 * of each period, reboots, traps versus stuck states, durable storage, the outbox.
 *
 * The tick counter is global (thread->ticks): every top-level cycle (an inbox collection,
 * or one kernel run including its decode/link/init) occupies exactly one period, the
 * unused ticks of which are padding. */
#ifndef WD_VM_PVM_H
#define WD_VM_PVM_H

#include "vm/host.h"
#include "vm/inputs.h"

typedef struct wd_pvm_config {
    int version;            /* WD_PVM_V*; default newest */
    uint8_t rollup[20];     /* the rollup address (reveal_metadata, transfer default) */
    const char *preimage_dir; /* reveal_preimage files named by the hash's hex */
    const char *dal_dir;    /* DAL pages: <published level>-<slot>-<page> */
    const wd_costs *costs;  /* the tick model */
    bool no_fuse;           /* translate one instruction per WebAssembly instruction (the
                               debugger then steps those); the same ticks */
    uint64_t period;        /* 0: the version's (50e12 from r4, 11e9 before) */
    uint32_t max_frames;    /* 0: the version's (59,999; 299 in 2.0.0: Octez counts its own) */
    const wd_hooks *hooks;  /* profiler / debugger listener, or NULL */
    void (*debug)(void *ud, const uint8_t *bytes, size_t size); /* write_debug sink */
    void *debug_ud;
} wd_pvm_config;

typedef enum wd_pvm_state {
    WD_PVM_COLLECT,  /* waiting for the next inbox */
    WD_PVM_SNAPSHOT, /* at a period boundary, a kernel run is due */
    WD_PVM_EVAL,     /* a kernel run is in progress (suspended), or its kernel_run ended and
                        its instance can still be inspected */
    WD_PVM_STUCK,    /* permanently stuck; only the tick counter advances */
} wd_pvm_state;

/* What wd_pvm_advance runs to. */
typedef enum wd_pvm_goal {
    WD_GOAL_TICKS,      /* n more ticks (stops too when a kernel_run ends) */
    WD_GOAL_INSTRS,     /* n more instructions of kernel_run, one at a time */
    WD_GOAL_RESULT,     /* the end of the current (or next) kernel_run, instance kept */
    WD_GOAL_KERNEL_RUN, /* the next period boundary (after padding) */
    WD_GOAL_INPUT,      /* until the PVM waits for input (all reboots) */
} wd_pvm_goal;

typedef enum wd_pvm_stop {
    WD_STOP_GOAL,   /* the goal was reached */
    WD_STOP_PAUSED, /* a pause was requested (thread->pending, a breakpoint): clear it to go on */
    WD_STOP_INPUT,  /* the PVM waits for input */
    WD_STOP_STUCK,  /* the PVM is stuck */
} wd_pvm_stop;

typedef enum wd_run_outcome {
    WD_RUN_OK,      /* kernel_run returned */
    WD_RUN_TRAPPED, /* trapped: the stuck flag is set and the PVM goes on */
    WD_RUN_FAILED,  /* decode/link/init failed: fallback kernel restored */
    WD_RUN_STUCK,   /* the PVM is stuck for good */
} wd_run_outcome;

enum { WD_PHASE_DECODE, WD_PHASE_LINK, WD_PHASE_INIT, WD_PHASE_EVAL, WD_PHASE_COUNT };

/* A frame of a run's backtrace: the faulting instruction (innermost) or the call a caller
 * waits on, as a byte offset in the module. */
enum { WD_RUN_FRAMES = 12 };
typedef struct wd_run_frame {
    uint32_t func_idx;
    uint32_t offset;
    char name[96]; /* the name section's, else func[idx] */
} wd_run_frame;

typedef struct wd_run_report {
    uint32_t level, index;         /* index of the run within its level */
    uint64_t start;                /* global tick at the run's first tick */
    uint64_t phase[WD_PHASE_COUNT]; /* ticks per phase; with the tick model's pvm_phases as
                                      the Octez profiler shows them (vm/pvmticks.h: the
                                      snapshot tick and eval's tail in none), else decode
                                      includes the snapshot tick */
    uint64_t effective;            /* all ticks of the run but padding */
    wd_run_outcome outcome;
    bool reboot;                   /* the run asked for (and got) a reboot */
    bool reboot_refused;           /* it asked for one past the level's 1,000: the PVM
                                      yielded and set /readonly/kernel/env/too_many_reboot */
    char reason[256];              /* trap or stuck reason, with the function and offset */
    wd_run_frame backtrace[WD_RUN_FRAMES]; /* for traps and exhaustion: the call stack,
                                      innermost first (cli/ adds source lines) */
    uint32_t backtrace_count;      /* frames in backtrace */
    uint32_t backtrace_more;       /* outer frames left out beyond WD_RUN_FRAMES */
    double seconds;                /* wall time of the run */
} wd_run_report;

typedef struct wd_pvm wd_pvm;

/* Installs `kernel` (borrowed) at /kernel/boot.wasm and builds the initial state, after
 * checking, as the reference debugger does at start-up, that it decodes, validates and
 * links against smart_rollup_core of the configured version. Errors name the offset. */
WD_NODISCARD wd_status wd_pvm_new(wd_ctx *ctx, const wd_pvm_config *cfg, const uint8_t *kernel,
                                  size_t size, wd_pvm **out, wd_error *err);
void wd_pvm_free(wd_pvm *p);

/* In COLLECT: frames and feeds one inbox (NULL: an empty one) as Start_of_level,
 * Info_per_level, the messages, End_of_level (one tick each), pads the period and moves to
 * SNAPSHOT. The messages are copied. */
WD_NODISCARD wd_status wd_pvm_load_inbox(wd_pvm *p, const wd_inbox *inbox, wd_error *err);

/* In SNAPSHOT: one whole kernel run (decode, link, init, kernel_run, padding, and the reboot
 * or yield decision). Its report is appended to the run list. */
WD_NODISCARD wd_status wd_pvm_kernel_run(wd_pvm *p, wd_error *err);

/* Kernel runs until the PVM waits for input or is stuck; with `after_run`, a kernel run (and
 * its padding) at a time, after_run(ud) after each (`profile` reports each run as it ends). A
 * pause asked for through the thread's `pending` flag (an interrupt: Ctrl-C in `wasmdbg
 * run`) returns WD_PAUSED with the kernel run suspended where it was (state EVAL); clear the
 * flag to go on. */
WD_NODISCARD wd_status wd_pvm_run_until_input(wd_pvm *p, void (*after_run)(void *), void *ud,
                                              wd_error *err);

/* Runs until `goal` (n: ticks or instructions), a pause, input needed or stuck; *stop
 * says which. Decode, link and init are one step each; eval stops exactly where asked. */
WD_NODISCARD wd_status wd_pvm_advance(wd_pvm *p, wd_pvm_goal goal, uint64_t n,
                                      wd_pvm_stop *stop, wd_error *err);

/* While a kernel_run is in progress or just ended (state EVAL): its memory, else NULL. */
wd_memory *wd_pvm_memory(wd_pvm *p);
/* The thread (frames of a suspended kernel_run, pending flag, ticks). */
wd_thread *wd_pvm_thread(wd_pvm *p);
/* Asks the user for reveal data the PVM could not find (the reference debugger's manual
 * reveals): `what` is "Preimage" or "DAL page", `key` its hash in hex or its file name,
 * `dir` where it was looked for. Writes at most `max` bytes to buf, the full size to *size;
 * a non-OK status fails the kernel run (the PVM is stuck). */
typedef wd_status (*wd_reveal_prompt)(void *ud, const char *what, const char *key,
                                      const char *dir, uint8_t *buf, size_t max, size_t *size,
                                      wd_error *err);
/* Installs (or with NULL removes) the prompt: interactive front ends only. */
void wd_pvm_set_reveal_prompt(wd_pvm *p, wd_reveal_prompt prompt, void *ud);

/* Replaces the hooks (profiler, debugger). */
void wd_pvm_set_hooks(wd_pvm *p, const wd_hooks *hooks);
/* The reference's Internal_status: Collect, Snapshot, Eval, Evaluation succeeded,
 * Evaluation failed (<reason>), Stuck (<reason>). `buf` holds it when it is built. */
const char *wd_pvm_internal_status(const wd_pvm *p, char *buf, size_t size);
/* The report so far of the kernel run in progress (state EVAL), else NULL. */
const wd_run_report *wd_pvm_current_run(const wd_pvm *p);
/* The current level's input buffer: all its messages, and how many were read. */
const wd_msg *wd_pvm_inbox(const wd_pvm *p, uint32_t *count, uint32_t *next);

wd_pvm_state wd_pvm_get_state(const wd_pvm *p);
const char *wd_pvm_stuck_reason(const wd_pvm *p);
uint64_t wd_pvm_ticks(const wd_pvm *p);
/* Whether a kernel_run is in progress: in EVAL and not over yet (it may be paused). */
bool wd_pvm_running(const wd_pvm *p);
/* The tick at which the last step wd_pvm_advance could not cut began: a kernel run's
 * Snapshot (decode, link and init are done at once), or an instruction run whole because it
 * costs more than the ticks asked for. A caller stepping by ticks tells from it where inside
 * that step the PVM's tick falls. */
uint64_t wd_pvm_step_start(const wd_pvm *p);
uint32_t wd_pvm_level(const wd_pvm *p); /* levels loaded so far */
wd_durable *wd_pvm_durable(wd_pvm *p);
const wd_pvm_config *wd_pvm_get_config(const wd_pvm *p);

/* Runs so far, in order. */
const wd_run_report *wd_pvm_runs(const wd_pvm *p, uint32_t *count);

/* The outbox of `level`, or NULL when the level was not reached. */
const wd_msg *wd_pvm_outbox(const wd_pvm *p, uint32_t level, uint32_t *count);

/* The module last decoded (for symbols), or NULL. */
const wd_module *wd_pvm_module(const wd_pvm *p);

/* The version's tick period and call depth limit. */
uint64_t wd_pvm_default_period(int version);
uint32_t wd_pvm_default_max_frames(int version);

#endif
