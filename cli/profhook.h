/* profhook.h: the adapter from the engine's hooks (eval/hooks.h: calls, returns, phases,
 * dynamic-cost steps) to the profiler (profiler/prof.h), which knows symbols but not modules;
 * source lines for trap reports and snapshots; and what `profile` and `report` share: the
 * summary and the files. */
#ifndef WD_CLI_PROFHOOK_H
#define WD_CLI_PROFHOOK_H

#include "eval/snapshot.h"
#include "profiler/dwarf.h"
#include "profiler/feed.h"
#include "profiler/output.h"
#include "profiler/prof.h"
#include "vm/pvm.h"

typedef struct wd_profhook_host {
    const wd_func *func; /* NULL once its run is over (a later function may reuse the address) */
    uint32_t idx;
    uint32_t sym;
} wd_profhook_host;

/* A symbol by function index, checked for the module of generation `gen` (how: its name's
 * source, see profhook.c). */
typedef struct wd_profhook_sym {
    uint32_t sym;
    uint32_t gen;
    uint8_t how;
} wd_profhook_sym;

/* How events are timed: not at all, by the monotonic clock (exact ns in a --record trace),
 * or by the fast clock (base/clock.h: the TSC where it is invariant, else the monotonic
 * one), whose unit wd_profhook_end tells the profiler. */
typedef enum wd_profhook_clock {
    WD_PROFHOOK_NO_TIME,
    WD_PROFHOOK_NS,
    WD_PROFHOOK_FAST,
} wd_profhook_clock;

typedef struct wd_profhook {
    wd_ctx *ctx;      /* the adapter's own (a fork of the context given, when threaded) */
    wd_ctx *parent, own;
    wd_prof *prof;
    wd_prof_feed feed; /* the events go through it (profiler/feed.h) */
    wd_hooks hooks;   /* hand these to the PVM (ud is this adapter) */
    wd_profhook_clock clock;
    int64_t t0;       /* the monotonic clock at init, ns */
    uint64_t c0;      /* the fast clock at init */
    bool unit_sent;   /* the fast clock's unit, before the end */
    uint64_t step_floor;
    /* Symbols by function index (entry, direct, indirect calls), kept from one module to
     * the next (every kernel run decodes the kernel again, usually unchanged): an entry is
     * checked against the names of the module of generation `gen` on first use. */
    const wd_module *module;
    uint32_t gen;
    wd_profhook_sym *cache;
    uint32_t cache_count;
    int64_t kernel_run; /* index of the kernel_run export's function, or -1 */
    wd_profhook_host hosts[32];
    uint32_t host_count;
} wd_profhook;

/* `prof` is borrowed. Dynamic-cost steps below `step_floor` ticks are not reported.
 * `threaded`: the profiler's events are applied on another thread (profiler/feed.h) while
 * the kernel runs; the profiler and its context must then be left alone until
 * wd_profhook_end, and the caller's other allocations made from h->ctx (a fork of `ctx`),
 * not from the profiler's. */
void wd_profhook_init(wd_profhook *h, wd_ctx *ctx, wd_prof *prof, wd_profhook_clock clock,
                      uint64_t step_floor, bool threaded);
void wd_profhook_fini(wd_profhook *h);
/* The clock the adapter stamps events with (since init: ns, or the fast clock's units; 0
 * without time). */
int64_t wd_profhook_now(const wd_profhook *h);
/* wd_prof_end, after telling the profiler the unit of the events' clock; the profiler is
 * the caller's again when it returns. After wd_profhook_end_tree: true when the consumer
 * thread took its job and runs it (wd_profhook_join waits for it). */
bool wd_profhook_end(wd_profhook *h, uint64_t ticks);
/* wd_prof_feed_end_tree (the same unit first): true when the tree is complete and may be
 * read (only its shape, self ticks and symbols) until wd_profhook_end, which must follow. */
bool wd_profhook_end_tree(wd_profhook *h, uint64_t ticks, void (*after)(void *), void *arg);
/* wd_prof_feed_join of the adapter `h` (a wd_profhook *). */
void wd_profhook_join(void *h);
/* wd_prof_level and wd_prof_run_info_add, in order with the events; a stuck run's report
 * is preceded by wd_profhook_stop (its open calls close at the clock then). */
void wd_profhook_level(wd_profhook *h, uint32_t level);
void wd_profhook_add_run(wd_profhook *h, const wd_prof_run_info *info);
/* wd_prof_stop at the clock now: the kernel was stopped (Ctrl-C, the end of a window). */
void wd_profhook_stop(wd_profhook *h);

/* Source lines from a module's DWARF .debug_line (custom sections), parsed on first use. */
typedef struct wd_srcloc {
    wd_ctx *ctx;
    const wd_module *module;
    wd_dwarf_lines *lines; /* NULL: none (or not parseable) */
    uint64_t code_start;   /* module offset of the code section's contents */
} wd_srcloc;

/* The frames of x's backtrace into out (room for WD_RUN_FRAMES), with source lines where
 * m has them (file NULL where not; strings borrowed from x and loc); returns their count. */
uint32_t wd_cli_backtrace_frames(const wd_run_report *x, wd_srcloc *loc, const wd_module *m,
                                 wd_prof_frame *out);
/* A frame as backtraces show it: "NAME at 0xOFFSET" and " (FILE:LINE)" where known (cut to
 * `size`; WD_CLI_FRAME_TEXT holds any). */
enum { WD_CLI_FRAME_TEXT = 4096 };
void wd_cli_frame_text(const wd_prof_frame *f, char *buf, size_t size);

/* The profiler's record of the PVM's run report `r`: ticks counted from `base` (a run that
 * began before it counts from it), `reason` its text (NULL: the report's), wall time kept
 * when with_time. */
wd_prof_run_info wd_profhook_run_info(const wd_run_report *r, uint64_t base, const char *reason,
                                      bool with_time);

void wd_srcloc_init(wd_srcloc *s, wd_ctx *ctx);
void wd_srcloc_fini(wd_srcloc *s);
/* A wd_srcloc_fn (eval/snapshot.h); ud is a wd_srcloc. */
bool wd_srcloc_lookup(void *ud, const wd_module *m, uint32_t offset, const char **file,
                      uint32_t *line, uint32_t *column);

/* What `profile` and `report` print and write. */
typedef struct wd_cli_prof_opts {
    wd_ctx *ctx;           /* the profiler's */
    wd_prof_out out;       /* dir, base, collapsed, with_time, max_depth, names */
    bool json;             /* the machine profile on stdout instead of the summary */
    uint32_t host_per_byte; /* to estimate the bytes of host calls in hot steps */
    wd_prof_files *files;   /* named ahead (wd_prof_files_new) or NULL; consumed */
} wd_cli_prof_opts;

/* Writes the files and prints the summary (or the JSON), which names the files as they got
 * named (BASE-N when BASE's were taken: profiler/output.h). Returns an exit code. */
int wd_cli_prof_finish(wd_prof *p, const wd_cli_prof_opts *o);

/* Prepares o->out.dir: `asked`, given by `option`, created with its parents and checked
 * writable (wd_cli_pvm_out_dir); with NULL a temporary directory (*made owned, free with
 * free()). Prints the error and returns false on failure. */
bool wd_cli_prof_dir(const char *option, const char *asked, char **made, const char **dir);

/* The current UTC time as the reference names its profile files:
 * "2023-09-26T09:10:09.860-00:00"; returns the same instant in ns since 1970 (0 before). */
uint64_t wd_profhook_timestamp(char *buf, size_t size);

#endif
