/* prof_priv.h: what the profiler's files share (private to profiler/). */
#ifndef WD_PROFILER_PROF_PRIV_H
#define WD_PROFILER_PROF_PRIV_H

#include "profiler/prof.h"

#define PROF_NONE UINT32_MAX

/* A node of a tree (full or calling-context). Children are a list in first-call order. */
typedef struct prof_node {
    uint32_t sym;
    uint32_t parent;
    uint32_t first_child, next_sibling, last_child;
    uint64_t calls;
    uint64_t t;     /* running: (virtual) start tick; otherwise self ticks */
    int64_t time;   /* the same in nanoseconds */
    uint64_t start; /* tick of its first call */
} prof_node;

/* Nodes with, for calling-context trees, a hash of (parent, symbol) -> node. */
typedef struct prof_tree {
    wd_ctx *ctx;
    prof_node *nodes;
    uint32_t count, cap;
    uint32_t *slots; /* node + 1, 0 empty; slot_cap a power of 2 (0: no hash) */
    uint32_t slot_cap, slot_used;
} prof_tree;

void prof_tree_init(prof_tree *tr, wd_ctx *ctx);
void prof_tree_fini(prof_tree *tr);
/* Room for `nodes` nodes (and their hash slots, while the hash is empty); false on OOM. */
WD_NODISCARD bool prof_tree_reserve(prof_tree *tr, uint32_t nodes);
/* A new child of `parent` (PROF_NONE: a root) appended to its children; PROF_NONE on OOM. */
uint32_t prof_tree_new(prof_tree *tr, uint32_t parent, uint32_t sym, uint64_t start);
static inline uint32_t prof_slot_hash(uint32_t parent, uint32_t sym)
{
    uint64_t k = ((uint64_t)parent << 32 | sym) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
}

/* Puts v (not 0) in the first free slot from hash h on, in a table of cap (a power of two)
 * slots that has a free one: linear probing, as every hash table of the profiler does. */
static inline void prof_slot_put(uint32_t *slots, uint32_t cap, uint32_t h, uint32_t v)
{
    for (h &= cap - 1; slots[h] != 0; h = (h + 1) & (cap - 1))
        ;
    slots[h] = v;
}

/* The child of `parent` with `sym` in the hash (not full): its index, or PROF_NONE with
 * *slot the empty slot where it goes. */
static inline uint32_t prof_tree_probe(const prof_tree *tr, uint32_t parent, uint32_t sym,
                                       uint32_t *slot)
{
    uint32_t mask = tr->slot_cap - 1;
    for (uint32_t h = prof_slot_hash(parent, sym) & mask;; h = (h + 1) & mask) {
        uint32_t n = tr->slots[h];
        if (n == 0) {
            *slot = h;
            return PROF_NONE;
        }
        const prof_node *x = &tr->nodes[n - 1];
        if (x->parent == parent && x->sym == sym)
            return n - 1;
    }
}

/* prof_tree_child when the inline probe did not find the child: made, its hash slot h
 * (PROF_NONE: the hash is half full, rehashed first). */
uint32_t prof_tree_child_slow(prof_tree *tr, uint32_t parent, uint32_t sym, uint64_t start,
                              uint32_t h);

/* The child of `parent` with `sym`, created (with prof_tree_new) when missing. */
static inline uint32_t prof_tree_child(prof_tree *tr, uint32_t parent, uint32_t sym,
                                       uint64_t start)
{
    uint32_t h = PROF_NONE;
    if (WD_LIKELY(tr->slot_used * 2 < tr->slot_cap)) {
        uint32_t n = prof_tree_probe(tr, parent, sym, &h);
        if (n != PROF_NONE)
            return n;
    }
    return prof_tree_child_slow(tr, parent, sym, start, h);
}

typedef struct prof_sym {
    uint8_t kind;
    uint32_t idx;
    uint32_t func;    /* function group: the id of the first symbol of this function */
    uint32_t hash_next;
    uint32_t hash;
    char *raw;
    char *name;       /* display name (may be raw) */
} prof_sym;

typedef struct prof_run {
    uint32_t level, index;
    uint32_t root;
    uint64_t start, last; /* first and last event ticks */
    bool has_info;
    uint64_t effective;
    wd_prof_outcome outcome;
    bool reboot;
    char *reason;
    int64_t wall_ns;
    bool stopped, inconsistent;
    uint64_t stop_tick;
    uint32_t *unwound, unwound_count;
    uint32_t *open, open_count;
    wd_prof_frame *frames; /* strings owned */
    uint32_t frame_count, frames_more;
    /* Its figures once the profile is over (valid while wd_prof.fin): the sums of its
     * top-level nodes' subtrees (see wd_prof_run). */
    uint64_t sum_ticks, sum_calls;
    int64_t sum_ns;
    uint64_t phase[WD_PROF_PH_COUNT];
    int64_t phase_ns[WD_PROF_PH_COUNT];
    bool has_phase[WD_PROF_PH_COUNT];
    wd_prof_func *funcs; /* its functions' figures (sym: the function group), func_count */
    uint32_t func_count;
} prof_run;

typedef struct prof_hot {
    uint32_t what, in;
    uint64_t ticks, operand;
    uint32_t run;          /* the run of the most expensive one */
    uint64_t count, total;
} prof_hot;

typedef struct prof_frame {
    uint32_t node;
    uint32_t sym;  /* the node's symbol and its kind, at hand for returns */
    uint8_t kind;
    uint64_t base; /* the node's t (self ticks) before this call: what this call added is
                      t - base when it ends */
} prof_frame;

typedef struct prof_deferred {
    bool begin;
    char *data;
} prof_deferred;

struct wd_trace_writer;

struct wd_prof {
    wd_ctx *ctx;
    wd_prof_config cfg;
    wd_status status;
    wd_error err;

    WD_VEC(prof_sym) syms;
    uint32_t *sym_slots; /* hash heads: symbol + 1 */
    uint32_t sym_slot_cap;

    prof_tree tree;
    bool cct;
    bool switched;
    uint64_t switched_at;

    prof_frame *stack; /* stack[0] is the run's root, stack[depth - 1] the current node */
    uint32_t depth, stack_cap;

    WD_VEC(prof_run) runs;
    bool in_run;
    uint32_t level, run_in_level;
    uint32_t info_next;

    WD_VEC(prof_deferred) deferred;

    uint32_t *trail; /* symbols of the returns at trail_tick, innermost first */
    uint32_t trail_count, trail_cap;
    uint64_t trail_tick;
    bool last_was_ret;

    WD_VEC(prof_hot) hot;
    uint32_t *hot_slots;
    uint32_t hot_slot_cap;

    uint64_t calls;
    int64_t last_ns; /* the clock at the last event */
    bool has_stop;   /* wd_prof_stop in the current run: stop_ns is its clock */
    int64_t stop_ns;
    double ns_per_unit; /* the events' clock unit (wd_prof_time_unit; 0: not told, ns) */
    uint64_t end_ticks;
    bool ended;

    struct wd_trace_writer *rec;

    /* Node totals of `tree` (prof_tree_totals; tcalls: calls, for prof_finish), valid for
     * tot_count nodes, room for tot_cap, written (so their pages are in memory) up to
     * tot_ready: kept ahead of the tree as it grows while the kernel runs, so that the page
     * faults are not taken when the profile ends. */
    uint64_t *tot, *tcalls;
    int64_t *tns;
    uint32_t tot_count, tot_cap, tot_ready;

    /* Figures computed once when the profile ends (every output reads them): node totals,
     * run figures, per-function figures over all runs (syms.count entries by function
     * group). `fin` is cleared by any event that changes the tree. */
    bool fin;
    wd_prof_func *funcs_all;
};

/* The fail-once helper: records WD_ERR_NOMEM. */
void prof_nomem(wd_prof *p);

/* Node totals (self plus descendants) of the tree, ticks and ns: arrays of tree.count
 * entries (owned), NULL on OOM. Children always come after their parents. */
bool prof_totals(const prof_tree *tr, uint64_t **ticks, int64_t **ns);

/* Totals of p->tree as prof_totals gives them, owned by p: computed once when the profile
 * ends (the outputs all need them), on every call otherwise. NULL pointers on OOM. */
bool prof_tree_totals(wd_prof *p, const uint64_t **ticks, const int64_t **ns);

/* A node's time in ns from the events' clock units (wd_prof_end_finish converts every node
 * so when the profile ends): each converts alone, rounded to the nearest ns (v +- 0.5
 * truncated: llround took 28 instructions a node here, on the profile's critical path). */
static inline int64_t prof_ns(double ns_per_unit, int64_t units)
{
    if (ns_per_unit == 0 || ns_per_unit == 1)
        return units;
    double v = (double)units * ns_per_unit;
    return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

/* Totals (self plus descendants) of nodes [from, to) of p->tree into p->tot and p->tns,
 * their times converted (prof_ns) as wd_prof_end_finish would: the nodes of a kernel run
 * that is over, written before the profile ends (wd_prof_files_stream). False on OOM. */
WD_NODISCARD bool prof_range_totals(wd_prof *p, uint32_t from, uint32_t to);

/* The display name of a symbol. */
static inline const char *prof_name(const wd_prof *p, uint32_t sym)
{
    return p->syms.data[sym].name;
}

/* Builds the calling-context tree merging every run (root = node 0; runs' roots merge into
 * it), nodes keyed by key[sym] (NULL: the symbol), allocated from ctx: ticks and calls (not
 * times: it reads only the tree's shape, self ticks, calls and symbols, which stay as they are
 * while wd_prof_end_finish converts the times). Depth beyond `max_depth` (0: none) folds into
 * the ancestor at max_depth. */
WD_NODISCARD bool prof_merge_runs(const wd_prof *p, wd_ctx *ctx, const uint32_t *key,
                                  uint32_t max_depth, prof_tree *out);

/* For each symbol, the first symbol with the same display name (owned), NULL on OOM. */
uint32_t *prof_display_groups(const wd_prof *p);
/* The same, allocated from ctx. */
uint32_t *prof_display_groups_in(const wd_prof *p, wd_ctx *ctx);

#endif
