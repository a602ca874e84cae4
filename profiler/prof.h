/* prof.h: the profiler's call-stack engine (DESIGN.md "Profiler: the call-stack engine").
 *
 * It is fed events: calls and returns of functions (named by symbol ids the caller interns
 * first), phases (vm/'s `decode`, `decode:<section>`, `link`, `init`, and `section:<data>`
 * annotations), dynamic-cost steps, level starts, run reports and the end. From them it
 * builds, per kernel run, a tree of nodes whose values are self ticks and self time:
 *
 *   - on a call at tick T: the new node's t = T; the current node's t = T - t; push it;
 *   - on the end of the current call at T: its t = T - t; pop P; P.t = T - P.t.
 *
 * so `t` holds a start tick while a node runs and its self ticks while it is suspended or
 * done (the same for nanoseconds). Two representations share these rules:
 *
 *   full  one node per call, children in call order (what time-ordered outputs need);
 *   cct   a calling-context tree: a call finds the existing child of the current node with
 *         the same symbol (hashed by parent and symbol), so memory follows the number of
 *         distinct call paths, not of calls. A node's `t` then accumulates self ticks over
 *         all its calls: a re-entered node starts at T - (its self so far).
 *
 * `auto` starts full and turns the tree into a calling-context tree when it outgrows a node
 * limit; totals are the same in every mode (tested).
 *
 * Kernel runs: a `decode` phase begins a run (the reference's layout: one tree per
 * kernel_run). Events outside any run open one. A run ends at the next run, a level, its
 * run report or the end; calls still open then (a run stopped at the tick limit) are closed
 * at the run's last tick (its report's stop tick when there is one).
 *
 * Events are void (they come from hooks): an allocation failure makes the profiler stop
 * listening and is reported by wd_prof_status. Only base/ is included: the profiler knows
 * symbols, not modules. */
#ifndef WD_PROFILER_PROF_H
#define WD_PROFILER_PROF_H

#include "base/alloc.h"
#include "base/error.h"

typedef enum wd_prof_kind {
    WD_PROF_ROOT,     /* a run's root (not shown) */
    WD_PROF_ENTRY,    /* `Function name`: an invocation's entry (kernel_run, a start function) */
    WD_PROF_DIRECT,   /* `CallDirect idx`: a `call` */
    WD_PROF_INDIRECT, /* `CallRef idx`: a `call_indirect`, resolved to the function called */
    WD_PROF_HOST,     /* a host function, `smart_rollup_core.<name>` */
    WD_PROF_INTERNAL, /* `Internal name`: a phase, shown as %interpreter(name) */
    WD_PROF_SECTION,  /* a write_debug section annotation, shown as its data */
    WD_PROF_STEP,     /* the name of a hot step (never a node) */
    WD_PROF_KIND_COUNT
} wd_prof_kind;

/* The kind's name in traces and JSON ("entry", "direct", ...); NULL past the end. */
const char *wd_prof_kind_name(wd_prof_kind kind);
/* WD_PROF_KIND_COUNT when unknown. */
wd_prof_kind wd_prof_kind_parse(const char *name);

typedef enum wd_prof_mode { WD_PROF_AUTO, WD_PROF_FULL, WD_PROF_CCT } wd_prof_mode;

const char *wd_prof_mode_name(wd_prof_mode mode);

typedef struct wd_prof_config {
    wd_prof_mode mode;
    uint32_t full_limit;   /* auto: nodes before switching to cct (0: 1<<20); full: a hard cap
                              (0: 1<<24) after which it switches too, saying so */
    uint64_t step_floor;   /* steps cheaper than this are not hot-step candidates (0: 1000) */
} wd_prof_config;

typedef struct wd_prof wd_prof;

WD_NODISCARD wd_status wd_prof_new(wd_ctx *ctx, const wd_prof_config *cfg, wd_prof **out,
                                   wd_error *err);
void wd_prof_free(wd_prof *p);

/* WD_OK, or the first failure (WD_ERR_NOMEM) since which events are ignored. */
wd_status wd_prof_status(const wd_prof *p, wd_error *err);

/* The id of the symbol (kind, idx, raw name), interned on first use (the name is copied;
 * bytes that are not UTF-8 are kept as \xNN escapes). Calls of the same function by
 * `call`, `call_indirect` or as an entry are distinct symbols (distinct nodes) grouped into
 * one function in statistics. Returns UINT32_MAX on allocation failure. */
uint32_t wd_prof_symbol(wd_prof *p, wd_prof_kind kind, uint32_t idx, const char *name,
                        size_t size);

/* ---- events (ticks: the thread's counter; ns: a monotonic clock, or 0 without time) ---- */

void wd_prof_call(wd_prof *p, uint64_t ticks, int64_t ns, uint32_t sym);
/* The innermost open call ends (sections it opened end with it). A return with no call open
 * in the current phase is ignored. */
void wd_prof_ret(wd_prof *p, uint64_t ticks, int64_t ns);
/* Calls and returns packed as the feed carries them (feed.h), three words each:
 * (WD_PROF_PACKED_CALL | id << 8, ticks, ns) and (WD_PROF_PACKED_RET, ticks, ns), a call's
 * symbol being map[id] (UINT32_MAX from map_count on). Applies those at w[0..n) in order,
 * exactly as wd_prof_call and wd_prof_ret would, up to the first word that starts neither;
 * returns the number of words applied. It is the cheap way to apply many: the common calls
 * and returns (a call into a tree with room, or into a calling-context tree that has the
 * path; the return of a wasm call) are handled inline without those functions' checks. */
enum { WD_PROF_PACKED_CALL = 1, WD_PROF_PACKED_RET = 2 };
size_t wd_prof_packed(wd_prof *p, const uint64_t *w, size_t n, const uint32_t *map,
                      uint32_t map_count);
/* A phase begins or ends. `section:<data>` names are annotations: a start opens a section
 * node (after the host call that reported it returns), an end closes the innermost open
 * section with the same data in the same frame, else is ignored. Another phase's end closes
 * the innermost open phase of that name (and whatever is still open above it). */
void wd_prof_phase(wd_prof *p, uint64_t ticks, int64_t ns, const char *name, bool begin);
/* A single step with a dynamic cost (`what`: memory.copy, memory.grow, ...) of `cost`
 * ticks for `operand` bytes, elements or pages: a hot-step candidate. */
void wd_prof_step(wd_prof *p, uint64_t ticks, uint64_t cost, const char *what, uint64_t operand);
/* The kernel was stopped (Ctrl-C, a tick limit, the end of a profile window) when the
 * events' clock read `ns`: calls still open when the current run ends (its run report or
 * the end) close at that clock, not at their last event's, and a run the end closes with
 * calls open counts as stopped, not inconsistent. Ignored outside a run. */
void wd_prof_stop(wd_prof *p, int64_t ns);
/* The PVM starts level `level` (its inbox): the runs that follow belong to it. */
void wd_prof_level(wd_prof *p, uint32_t level);

typedef enum wd_prof_outcome {
    WD_PROF_OK,      /* kernel_run returned */
    WD_PROF_TRAPPED, /* it trapped */
    WD_PROF_FAILED,  /* decode, link or init failed */
    WD_PROF_STUCK,   /* the PVM got stuck (tick limit, exhausted stack, ...) */
    WD_PROF_OUTCOME_COUNT
} wd_prof_outcome;

const char *wd_prof_outcome_name(wd_prof_outcome o);
wd_prof_outcome wd_prof_outcome_parse(const char *name);

/* A frame of a run's backtrace (a trap's or the tick limit's call stack), where known with
 * its source line (file NULL: none). */
typedef struct wd_prof_frame {
    const char *function;
    uint32_t func_idx, offset; /* module offset of the frame's instruction */
    const char *file;
    uint32_t line;
} wd_prof_frame;

/* What the PVM reports about a run when it is over (vm/pvm.h wd_run_report). */
typedef struct wd_prof_run_info {
    uint32_t level, index;
    uint64_t start;     /* its first tick */
    uint64_t effective; /* its ticks but padding (the stop tick is start + effective) */
    wd_prof_outcome outcome;
    bool reboot;
    const char *reason; /* trap or stuck reason (copied), or "" */
    int64_t ns;         /* its wall time */
    const wd_prof_frame *frames; /* its backtrace, innermost first (copied), or NULL */
    uint32_t frame_count, frames_more; /* frames_more: outer frames left out */
} wd_prof_run_info;

/* The report of the next run that has none yet (runs in order). A run still open is closed
 * at start + effective. */
void wd_prof_run_info_add(wd_prof *p, const wd_prof_run_info *info);
/* The next frame of the backtrace of the run last reported (copied), `more` the outer frames
 * left out after the last (wd_prof_run_info_add's frames, one by one: the feed's consumer and
 * a trace's replay give them so). */
void wd_prof_run_frame(wd_prof *p, const wd_prof_frame *f, uint32_t more);
/* The events' clock counts units of `ns_per_unit` ns (> 0; 1: ns; a cheaper clock's ratio
 * to a monotonic clock): wd_prof_end converts the times. Told before the end, it also lets the
 * time-ordered files be written as the kernel runs (profiler/output.h). */
void wd_prof_time_unit(wd_prof *p, double ns_per_unit);
/* The end: `ticks` is the final counter (padding included). Closes what is open. */
void wd_prof_end(wd_prof *p, uint64_t ticks);
/* wd_prof_end in two steps (profiler/feed.c): the tree complete (false: ended already, no
 * second step), then the times converted and the figures computed. Between them the tree's
 * shape, self ticks and symbols are final and only node times change: what
 * wd_prof_files_write_ahead reads. */
bool wd_prof_end_tree(wd_prof *p, uint64_t ticks);
void wd_prof_end_finish(wd_prof *p, uint64_t ticks);

/* ---- results (after wd_prof_end) ---- */

enum { WD_PROF_PH_DECODE, WD_PROF_PH_LINK, WD_PROF_PH_INIT, WD_PROF_PH_KERNEL_RUN,
       WD_PROF_PH_COUNT };
extern const char *const wd_prof_phase_names[WD_PROF_PH_COUNT]; /* decode, link, init, kernel_run */

typedef struct wd_prof_run {
    uint32_t level, index;
    uint64_t start;
    uint64_t ticks;                    /* the sum of its top-level nodes */
    uint64_t phase[WD_PROF_PH_COUNT];  /* inclusive ticks of each top-level phase */
    int64_t phase_ns[WD_PROF_PH_COUNT];
    bool has_phase[WD_PROF_PH_COUNT];
    int64_t ns;                        /* its nodes' time */
    uint64_t calls;
    bool has_info;                     /* the fields below come from wd_prof_run_info_add */
    uint64_t effective;
    wd_prof_outcome outcome;
    bool reboot;
    const char *reason;
    int64_t wall_ns;
    bool stopped;             /* calls were still open at its end: closed at stop_tick */
    uint64_t stop_tick;
    bool inconsistent;        /* its call stack did not close cleanly (not a tick-limit stop) */
    const uint32_t *unwound;  /* symbols of the calls that ended together at its last return
                                 tick, innermost first (a trap's backtrace) */
    uint32_t unwound_count;
    const uint32_t *open;     /* symbols open at a stop, innermost first */
    uint32_t open_count;
    const wd_prof_frame *frames; /* the PVM's backtrace with source lines (run info) */
    uint32_t frame_count, frames_more;
} wd_prof_run;

uint32_t wd_prof_run_count(const wd_prof *p);
void wd_prof_run_get(const wd_prof *p, uint32_t i, wd_prof_run *out);

typedef struct wd_prof_sym_info {
    wd_prof_kind kind;
    uint32_t idx;
    const char *raw;  /* as interned */
    const char *name; /* for display: demangled, phases as %interpreter(name) */
    uint32_t func;    /* its function group (a symbol id) */
} wd_prof_sym_info;

uint32_t wd_prof_symbol_count(const wd_prof *p);
void wd_prof_symbol_get(const wd_prof *p, uint32_t sym, wd_prof_sym_info *out);

/* Per-function figures over all runs (or one run), indexed by function group. */
typedef struct wd_prof_func {
    uint32_t sym;        /* the group's symbol */
    uint64_t self, total; /* total counts a recursive function once */
    uint64_t calls;
    int64_t self_ns, total_ns;
} wd_prof_func;

/* The functions with any ticks or calls, sorted by self (by_total: total) ticks, largest
 * first (ties by name). `run` = UINT32_MAX for all runs. *out is owned (wd_free). */
WD_NODISCARD wd_status wd_prof_functions(wd_prof *p, uint32_t run, bool by_total,
                                         wd_prof_func **out, uint32_t *count, wd_error *err);
/* The first `limit` of them in that order (0: none), chosen without sorting the rest. */
WD_NODISCARD wd_status wd_prof_top_functions(wd_prof *p, uint32_t run, bool by_total,
                                             uint32_t limit, wd_prof_func **out,
                                             uint32_t *count, wd_error *err);

typedef struct wd_prof_hot {
    uint32_t what;      /* symbol (a step name, a host function or a phase) */
    uint32_t in;        /* the function it ran in (a symbol), or UINT32_MAX */
    uint64_t ticks;     /* its most expensive occurrence */
    uint64_t operand;   /* that occurrence's bytes/elements/pages (0: none) */
    uint32_t level, run; /* where that occurrence was */
    uint64_t count;     /* occurrences at or above the floor */
    uint64_t total;     /* their ticks */
    double share;       /* ticks / the effective ticks of its run */
} wd_prof_hot;

/* Hot steps: single steps (host calls, dynamic-cost instructions, phase work) whose cost is
 * at least `min_share` of their kernel run's ticks, most expensive first, at most `max`.
 * *out owned. */
WD_NODISCARD wd_status wd_prof_hot_steps(wd_prof *p, double min_share, uint32_t max,
                                         wd_prof_hot **out, uint32_t *count, wd_error *err);

typedef struct wd_prof_stats {
    wd_prof_mode mode;      /* what the tree is now: full or cct */
    wd_prof_mode asked;
    bool switched;          /* started full, became cct */
    uint64_t switched_at;   /* calls seen when it switched */
    uint64_t calls;
    uint32_t nodes;
    uint64_t end_ticks;     /* wd_prof_end's ticks */
    uint32_t levels;        /* the levels its runs belong to */
    size_t bytes;           /* memory held by the trees */
} wd_prof_stats;

void wd_prof_get_stats(const wd_prof *p, wd_prof_stats *out);

#endif
