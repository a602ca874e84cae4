/* prof.c: the call-stack engine (see prof.h): symbols, the trees, kernel runs, and the
 * event rules. Outputs are in output.c, svg.c; traces in trace.c. */
#include "profiler/prof_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/symbols.h"
#include "profiler/trace.h"

#define AUTO_LIMIT  (1u << 18)
#define FULL_CAP    (1u << 24)
#define STEP_FLOOR  1000u
#define FIRST_NODES 16384u /* reserved at once, touched as used: tx-kernel-no-verif has 10,341 */

static const char *const kind_names[WD_PROF_KIND_COUNT] = {
    "root", "entry", "direct", "indirect", "host", "internal", "section", "step",
};

static const char *const outcome_names[WD_PROF_OUTCOME_COUNT] = {"ok", "trapped", "failed",
                                                                  "stuck"};

const char *const wd_prof_phase_names[WD_PROF_PH_COUNT] = {"decode", "link", "init",
                                                           "kernel_run"};

const char *wd_prof_kind_name(wd_prof_kind kind)
{
    return (unsigned)kind < WD_PROF_KIND_COUNT ? kind_names[kind] : NULL;
}

wd_prof_kind wd_prof_kind_parse(const char *name)
{
    for (int k = 0; k < WD_PROF_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return (wd_prof_kind)k;
    return WD_PROF_KIND_COUNT;
}

const char *wd_prof_mode_name(wd_prof_mode mode)
{
    return mode == WD_PROF_FULL ? "full" : mode == WD_PROF_CCT ? "cct" : "auto";
}

const char *wd_prof_outcome_name(wd_prof_outcome o)
{
    return (unsigned)o < WD_PROF_OUTCOME_COUNT ? outcome_names[o] : "?";
}

wd_prof_outcome wd_prof_outcome_parse(const char *name)
{
    for (int k = 0; k < WD_PROF_OUTCOME_COUNT; k++)
        if (strcmp(outcome_names[k], name) == 0)
            return (wd_prof_outcome)k;
    return WD_PROF_OUTCOME_COUNT;
}

void prof_nomem(wd_prof *p)
{
    if (p->status == WD_OK)
        p->status = wd_fail(&p->err, WD_ERR_NOMEM, 0, "out of memory in the profiler");
}

/* ---- trees ------------------------------------------------------------------------------ */

void prof_tree_init(prof_tree *tr, wd_ctx *ctx)
{
    memset(tr, 0, sizeof *tr);
    tr->ctx = ctx;
}

void prof_tree_fini(prof_tree *tr)
{
    wd_free(tr->ctx, tr->nodes);
    wd_free(tr->ctx, tr->slots);
    tr->nodes = NULL;
    tr->slots = NULL;
    tr->count = tr->cap = tr->slot_cap = tr->slot_used = 0;
}

/* Appends a node in room the tree has (count < cap) as parent's last child. */
static inline uint32_t tree_append(prof_tree *tr, uint32_t parent, uint32_t sym, uint64_t start)
{
    uint32_t n = tr->count++;
    tr->nodes[n] = (prof_node){.sym = sym, .parent = parent, .first_child = PROF_NONE,
                               .next_sibling = PROF_NONE, .last_child = PROF_NONE,
                               .start = start};
    if (parent != PROF_NONE) {
        prof_node *par = &tr->nodes[parent];
        if (par->last_child == PROF_NONE)
            par->first_child = n;
        else
            tr->nodes[par->last_child].next_sibling = n;
        par->last_child = n;
    }
    return n;
}

uint32_t prof_tree_new(prof_tree *tr, uint32_t parent, uint32_t sym, uint64_t start)
{
    if (tr->count >= PROF_NONE - 1)
        return PROF_NONE;
    if (tr->count == tr->cap &&
        !wd_grow(tr->ctx, (void **)&tr->nodes, &tr->cap, sizeof *tr->nodes, (uint64_t)tr->count + 1))
        return PROF_NONE;
    return tree_append(tr, parent, sym, start);
}

bool prof_tree_reserve(prof_tree *tr, uint32_t nodes)
{
    if (nodes > tr->cap &&
        !wd_grow(tr->ctx, (void **)&tr->nodes, &tr->cap, sizeof *tr->nodes, nodes))
        return false;
    uint32_t cap = 1024;
    while (cap < 2 * (uint64_t)nodes + 2 && cap < (1u << 30))
        cap *= 2;
    if (cap <= tr->slot_cap || tr->slot_used != 0)
        return true;
    uint32_t *s = wd_calloc(tr->ctx, cap, sizeof *s);
    if (s == NULL)
        return false;
    wd_free(tr->ctx, tr->slots);
    tr->slots = s;
    tr->slot_cap = cap;
    return true;
}

static bool rehash(prof_tree *tr)
{
    uint32_t cap = tr->slot_cap ? tr->slot_cap * 2 : 1024;
    if (cap == 0 || cap > (1u << 31))
        return false;
    uint32_t *s = wd_calloc(tr->ctx, cap, sizeof *s);
    if (s == NULL)
        return false;
    for (uint32_t i = 0; i < tr->slot_cap; i++) {
        uint32_t n = tr->slots[i];
        if (n == 0)
            continue;
        const prof_node *x = &tr->nodes[n - 1];
        prof_slot_put(s, cap, prof_slot_hash(x->parent, x->sym), n);
    }
    wd_free(tr->ctx, tr->slots);
    tr->slots = s;
    tr->slot_cap = cap;
    return true;
}

uint32_t prof_tree_child_slow(prof_tree *tr, uint32_t parent, uint32_t sym, uint64_t start,
                              uint32_t h)
{
    if (h == PROF_NONE) { /* the hash is half full: rehashed, then probed again */
        if (!rehash(tr))
            return PROF_NONE;
        uint32_t found = prof_tree_probe(tr, parent, sym, &h);
        if (found != PROF_NONE)
            return found;
    }
    uint32_t n = prof_tree_new(tr, parent, sym, start);
    if (n != PROF_NONE) {
        tr->slots[h] = n + 1;
        tr->slot_used++;
    }
    return n;
}

/* Each node's ticks, ns (its time converted by `unit`: prof_ns) and (with `calls`) calls
 * summed over its subtree, for nodes [from, to) (nothing added to a parent before `from`),
 * into arrays indexed by node: one pass up the nodes, as children come after their parents. */
static void subtree_sums(const prof_tree *tr, uint32_t from, uint32_t to, double unit,
                         uint64_t *ticks, int64_t *ns, uint64_t *calls)
{
    for (uint32_t i = from; i < to; i++) {
        ticks[i] = tr->nodes[i].t;
        ns[i] = prof_ns(unit, tr->nodes[i].time);
        if (calls != NULL)
            calls[i] = tr->nodes[i].calls;
    }
    for (uint32_t i = to; i-- > from;) {
        uint32_t par = tr->nodes[i].parent;
        if (par != PROF_NONE && par >= from) {
            ticks[par] += ticks[i];
            ns[par] += ns[i];
            if (calls != NULL)
                calls[par] += calls[i];
        }
    }
}

bool prof_totals(const prof_tree *tr, uint64_t **ticks, int64_t **ns)
{
    *ticks = wd_alloc(tr->ctx, ((size_t)tr->count + 1) * sizeof **ticks);
    *ns = wd_alloc(tr->ctx, ((size_t)tr->count + 1) * sizeof **ns);
    if (*ticks == NULL || *ns == NULL) {
        wd_free(tr->ctx, *ticks);
        wd_free(tr->ctx, *ns);
        *ticks = NULL;
        *ns = NULL;
        return false;
    }
    subtree_sums(tr, 0, tr->count, 0, *ticks, *ns, NULL);
    return true;
}

/* Room for n nodes' totals, written ahead up to n + TOT_AHEAD (a page fault costs about
 * 2 us on this machine: better taken while the kernel runs, on the thread that applies the
 * events, a few pages at a time as the tree grows, than all in prof_finish at the end).
 * A small tree is written ahead by its own size, at least TOT_AHEAD_MIN: counter's 200
 * nodes took 12 page faults for 1024 ahead (24 KiB in three arrays). Nothing is written ahead
 * at the end (`ahead` false): asking for n + TOT_AHEAD there grew the arrays once more,
 * copied and took new pages (tx-kernel-no-verif: 227 K instructions in prof_finish). */
enum { TOT_AHEAD = 1024, TOT_AHEAD_MIN = 64 };

static WD_NOINLINE bool totals_room(wd_prof *p, uint32_t n, bool ahead)
{
    uint64_t want = (uint64_t)n + (ahead ? WD_MIN(TOT_AHEAD, WD_MAX(TOT_AHEAD_MIN, n)) : 0);
    if (want > p->tot_cap) {
        /* as much room as the tree has: grown when it grows (it doubles from FIRST_NODES),
         * not by doubling from 64 (9 copies of the three arrays on tx-kernel-no-verif) */
        uint64_t room = WD_MAX(want, (uint64_t)p->tree.cap);
        uint32_t cap = p->tot_cap;
        uint32_t cap2 = cap, cap3 = cap;
        if (!wd_grow(p->ctx, (void **)&p->tot, &cap, sizeof *p->tot, room) ||
            !wd_grow(p->ctx, (void **)&p->tns, &cap2, sizeof *p->tns, cap) ||
            !wd_grow(p->ctx, (void **)&p->tcalls, &cap3, sizeof *p->tcalls, cap))
            return n <= p->tot_cap && n <= p->tot_ready; /* enough for now, not ahead */
        p->tot_cap = cap;
    }
    uint32_t ready = (uint32_t)WD_MIN(want, p->tot_cap);
    if (ready > p->tot_ready) {
        size_t from = p->tot_ready, more = ready - from;
        memset(p->tot + from, 0, more * sizeof *p->tot);
        memset(p->tns + from, 0, more * sizeof *p->tns);
        memset(p->tcalls + from, 0, more * sizeof *p->tcalls);
        p->tot_ready = ready;
    }
    return true;
}

/* Node totals and calls of p->tree into p->tot, p->tns, p->tcalls (prof_totals' sums). */
static bool tree_totals_in(wd_prof *p)
{
    if (!totals_room(p, p->tree.count, false))
        return false;
    subtree_sums(&p->tree, 0, p->tree.count, 0, p->tot, p->tns, p->tcalls);
    p->tot_count = p->tree.count;
    return true;
}

bool prof_range_totals(wd_prof *p, uint32_t from, uint32_t to)
{
    if (!totals_room(p, to, false))
        return false;
    subtree_sums(&p->tree, from, to, p->ns_per_unit, p->tot, p->tns, NULL);
    return true;
}

bool prof_tree_totals(wd_prof *p, const uint64_t **ticks, const int64_t **ns)
{
    if ((!p->fin || p->tot_count != p->tree.count) && !tree_totals_in(p)) {
        *ticks = NULL;
        *ns = NULL;
        return false;
    }
    *ticks = p->tot;
    *ns = p->tns;
    return true;
}

/* ---- symbols ---------------------------------------------------------------------------- */

static uint32_t str_hash(wd_prof_kind kind, uint32_t idx, const char *s, size_t n)
{
    uint32_t h = 2166136261u ^ (uint32_t)kind * 16777619u;
    h = (h ^ idx) * 16777619u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static bool sym_rehash(wd_prof *p)
{
    uint32_t cap = p->sym_slot_cap ? p->sym_slot_cap * 2 : 256;
    uint32_t *s = wd_calloc(p->ctx, cap, sizeof *s);
    if (s == NULL)
        return false;
    for (uint32_t i = 0; i < p->syms.count; i++) {
        prof_sym *y = &p->syms.data[i];
        uint32_t h = y->hash & (cap - 1);
        y->hash_next = s[h];
        s[h] = i + 1;
    }
    wd_free(p->ctx, p->sym_slots);
    p->sym_slots = s;
    p->sym_slot_cap = cap;
    return true;
}

static uint32_t sym_find(const wd_prof *p, wd_prof_kind kind, uint32_t idx, const char *raw,
                         uint32_t h)
{
    if (p->sym_slot_cap == 0)
        return PROF_NONE;
    for (uint32_t n = p->sym_slots[h & (p->sym_slot_cap - 1)]; n != 0;) {
        const prof_sym *y = &p->syms.data[n - 1];
        if (y->hash == h && y->kind == kind && y->idx == idx && strcmp(y->raw, raw) == 0)
            return n - 1;
        n = y->hash_next;
    }
    return PROF_NONE;
}

static inline bool is_call_kind(wd_prof_kind k)
{
    return (unsigned)k - WD_PROF_ENTRY <= WD_PROF_INDIRECT - WD_PROF_ENTRY;
}

/* Whether wd_sym_display would change s. */
static bool display_safe(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            return false;
    return true;
}

/* The display name of a symbol: `raw` itself when it shows as it is (the caller frees it
 * once), else a new string. */
static char *display_name(wd_ctx *ctx, wd_prof_kind kind, char *raw)
{
    if (kind == WD_PROF_INTERNAL) {
        size_t n = strlen(raw) + 16;
        char *b = wd_alloc(ctx, n);
        if (b == NULL)
            return NULL;
        wd_concat(b, n, (const char *const[]){"%interpreter(", raw, ")", NULL});
        if (display_safe(b))
            return b;
        char *r = wd_sym_display(ctx, b);
        wd_free(ctx, b);
        return r;
    }
    char *d = wd_sym_demangle(ctx, raw);
    if (d != NULL)
        return d;
    return display_safe(raw) ? raw : wd_sym_display(ctx, raw);
}

static void free_sym(wd_ctx *ctx, prof_sym *y)
{
    if (y->name != y->raw)
        wd_free(ctx, y->name);
    wd_free(ctx, y->raw);
}

uint32_t wd_prof_symbol(wd_prof *p, wd_prof_kind kind, uint32_t idx, const char *name,
                        size_t size)
{
    if (p->status != WD_OK || (unsigned)kind >= WD_PROF_KIND_COUNT)
        return PROF_NONE;
    /* Known symbols with plain names are found without a copy (every kernel run asks again
     * for the symbols of its new function objects). */
    bool plain = true;
    for (size_t i = 0; i < size && plain; i++)
        plain = (unsigned char)name[i] >= 0x20 && (unsigned char)name[i] < 0x7F;
    if (plain && p->sym_slot_cap != 0) {
        uint32_t h = str_hash(kind, idx, name, size);
        for (uint32_t n = p->sym_slots[h & (p->sym_slot_cap - 1)]; n != 0;) {
            const prof_sym *y = &p->syms.data[n - 1];
            if (y->hash == h && y->kind == kind && y->idx == idx &&
                strncmp(y->raw, name, size) == 0 && y->raw[size] == '\0')
                return n - 1;
            n = y->hash_next;
        }
    }
    char *raw = wd_sym_clean(p->ctx, name, size);
    if (raw == NULL) {
        prof_nomem(p);
        return PROF_NONE;
    }
    uint32_t h = str_hash(kind, idx, raw, strlen(raw));
    uint32_t found = sym_find(p, kind, idx, raw, h);
    if (found != PROF_NONE) {
        wd_free(p->ctx, raw);
        return found;
    }
    if ((p->syms.count + 1) * 2 > p->sym_slot_cap && !sym_rehash(p)) {
        wd_free(p->ctx, raw);
        prof_nomem(p);
        return PROF_NONE;
    }
    char *disp = display_name(p->ctx, kind, raw);
    prof_sym y = {.kind = (uint8_t)kind, .idx = idx, .hash = h, .raw = raw, .name = disp};
    if (disp == NULL || !WD_VEC_PUSH(p->ctx, &p->syms, y)) {
        if (disp != raw)
            wd_free(p->ctx, disp);
        wd_free(p->ctx, raw);
        prof_nomem(p);
        return PROF_NONE;
    }
    uint32_t id = p->syms.count - 1;
    p->fin = false; /* per-function figures have an entry per symbol */
    /* A function called in several ways is one function in statistics. */
    p->syms.data[id].func = id;
    if (is_call_kind(kind)) {
        for (int k = WD_PROF_ENTRY; k <= WD_PROF_INDIRECT; k++) {
            if (k == (int)kind)
                continue;
            uint32_t other = sym_find(p, (wd_prof_kind)k, idx, raw,
                                      str_hash((wd_prof_kind)k, idx, raw, strlen(raw)));
            if (other != PROF_NONE) {
                p->syms.data[id].func = p->syms.data[other].func;
                break;
            }
        }
    }
    uint32_t slot = h & (p->sym_slot_cap - 1);
    p->syms.data[id].hash_next = p->sym_slots[slot];
    p->sym_slots[slot] = id + 1;
    if (p->rec != NULL)
        wd_trace_put_symbol(p->rec, id, kind, idx, raw);
    return id;
}

uint32_t wd_prof_symbol_count(const wd_prof *p)
{
    return p->syms.count;
}

void wd_prof_symbol_get(const wd_prof *p, uint32_t sym, wd_prof_sym_info *out)
{
    const prof_sym *y = &p->syms.data[sym];
    *out = (wd_prof_sym_info){(wd_prof_kind)y->kind, y->idx, y->raw, y->name, y->func};
}

/* ---- life ------------------------------------------------------------------------------- */

wd_status wd_prof_new(wd_ctx *ctx, const wd_prof_config *cfg, wd_prof **out, wd_error *err)
{
    *out = NULL;
    wd_prof *p = wd_calloc(ctx, 1, sizeof *p);
    if (p == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    p->ctx = ctx;
    p->cfg = *cfg;
    if (p->cfg.full_limit == 0)
        p->cfg.full_limit = p->cfg.mode == WD_PROF_FULL ? FULL_CAP : AUTO_LIMIT;
    if (p->cfg.step_floor == 0)
        p->cfg.step_floor = STEP_FLOOR;
    wd_error_clear(&p->err);
    prof_tree_init(&p->tree, ctx);
    p->cct = p->cfg.mode == WD_PROF_CCT;
    /* Symbol 0 is the roots'. */
    if (wd_prof_symbol(p, WD_PROF_ROOT, 0, "<root>", 6) != 0) {
        wd_prof_free(p);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    *out = p;
    return WD_OK;
}

static void free_run(wd_ctx *ctx, prof_run *r)
{
    wd_free(ctx, r->funcs);
    wd_free(ctx, r->reason);
    wd_free(ctx, r->unwound);
    wd_free(ctx, r->open);
    for (uint32_t i = 0; i < r->frame_count; i++) {
        wd_free(ctx, (char *)r->frames[i].function);
        wd_free(ctx, (char *)r->frames[i].file);
    }
    wd_free(ctx, r->frames);
}

void wd_prof_free(wd_prof *p)
{
    if (p == NULL)
        return;
    for (uint32_t i = 0; i < p->syms.count; i++)
        free_sym(p->ctx, &p->syms.data[i]);
    WD_VEC_FREE(p->ctx, &p->syms);
    wd_free(p->ctx, p->sym_slots);
    prof_tree_fini(&p->tree);
    wd_free(p->ctx, p->stack);
    for (uint32_t i = 0; i < p->runs.count; i++)
        free_run(p->ctx, &p->runs.data[i]);
    WD_VEC_FREE(p->ctx, &p->runs);
    for (uint32_t i = 0; i < p->deferred.count; i++)
        wd_free(p->ctx, p->deferred.data[i].data);
    WD_VEC_FREE(p->ctx, &p->deferred);
    wd_free(p->ctx, p->trail);
    WD_VEC_FREE(p->ctx, &p->hot);
    wd_free(p->ctx, p->hot_slots);
    wd_free(p->ctx, p->tot);
    wd_free(p->ctx, p->tns);
    wd_free(p->ctx, p->tcalls);
    wd_free(p->ctx, p->funcs_all);
    wd_free(p->ctx, p);
}

wd_status wd_prof_status(const wd_prof *p, wd_error *err)
{
    if (p->status != WD_OK && err != NULL)
        *err = p->err;
    return p->status;
}

/* ---- the engine ------------------------------------------------------------------------- */

/* Full tree to calling-context tree: every node is merged into the node of its call path
 * (parents first: children always come after their parents). Done nodes add their self
 * ticks, and so do the suspended nodes of the stack; the running one's t is a (virtual)
 * start V: merged with done nodes holding A, the path's node gets V - A, so that T - (V - A)
 * is A plus what the running call has had. */
static bool to_cct(wd_prof *p)
{
    prof_tree old = p->tree, nt;
    prof_tree_init(&nt, p->ctx);
    uint32_t *map = wd_alloc(p->ctx, ((size_t)old.count + 1) * sizeof *map);
    bool *open = wd_calloc(p->ctx, (size_t)old.count + 1, sizeof *open);
    bool ok = map != NULL && open != NULL;
    for (uint32_t i = 0; ok && i < p->depth; i++)
        open[p->stack[i].node] = true;
    for (uint32_t i = 0; ok && i < old.count; i++) {
        const prof_node *x = &old.nodes[i];
        uint32_t n = x->parent == PROF_NONE ? prof_tree_new(&nt, PROF_NONE, x->sym, x->start)
                                            : prof_tree_child(&nt, map[x->parent], x->sym,
                                                              x->start);
        if (n == PROF_NONE) {
            ok = false;
            break;
        }
        map[i] = n;
        nt.nodes[n].calls += x->calls;
        if (!open[i]) {
            nt.nodes[n].t += x->t;
            nt.nodes[n].time += x->time;
        }
    }
    for (uint32_t i = 0; ok && i < p->depth; i++) {
        uint32_t o = p->stack[i].node, n = map[o];
        uint64_t merged = nt.nodes[n].t;
        if (i + 1 == p->depth) { /* running: t is a (virtual) start */
            nt.nodes[n].t = old.nodes[o].t - merged;
            nt.nodes[n].time = old.nodes[o].time - nt.nodes[n].time;
        } else { /* suspended: t is its self ticks so far */
            nt.nodes[n].t = old.nodes[o].t + merged;
            nt.nodes[n].time = old.nodes[o].time + nt.nodes[n].time;
        }
        /* a frame's base (self before the call) grows by what merged into its node */
        p->stack[i].base += merged;
        p->stack[i].node = n;
    }
    for (uint32_t i = 0; ok && i < p->runs.count; i++)
        p->runs.data[i].root = map[p->runs.data[i].root];
    wd_free(p->ctx, map);
    wd_free(p->ctx, open);
    if (!ok) {
        prof_tree_fini(&nt);
        return false;
    }
    prof_tree_fini(&p->tree);
    p->tree = nt;
    p->cct = true;
    p->switched = true;
    p->switched_at = p->calls;
    return true;
}

/* The node of a call of `sym` under `parent`: a new one (full tree) or the path's (calling-
 * context tree, or a full tree grown past its limit). PROF_NONE on OOM. */
static WD_NOINLINE uint32_t node_for_call(wd_prof *p, uint32_t sym, uint64_t T)
{
    if (!p->cct && p->tree.count >= p->cfg.full_limit && !to_cct(p))
        return PROF_NONE;
    uint32_t parent = p->stack[p->depth - 1].node;
    uint32_t n = p->cct ? prof_tree_child(&p->tree, parent, sym, T)
                        : prof_tree_new(&p->tree, parent, sym, T);
    if (p->tree.count >= p->tot_ready)
        (void)totals_room(p, p->tree.count, true); /* ahead of prof_finish, which retries on OOM */
    return n;
}

/* Opens node n (sym's, a child of parent, the current node) at T: the parent's self time
 * pauses, n's runs. The stack has room. */
WD_INLINE void push_node(wd_prof *p, uint32_t parent, uint32_t n, uint32_t sym, uint64_t T,
                         int64_t ns)
{
    prof_node *nodes = p->tree.nodes;
    prof_node *par = &nodes[parent];
    par->t = T - par->t;
    par->time = ns - par->time;
    prof_node *x = &nodes[n];
    p->stack[p->depth++] = (prof_frame){n, sym, p->syms.data[sym].kind, x->t};
    x->t = T - x->t;
    x->time = ns - x->time;
    x->calls++;
}

/* Enters `sym` under the current node at T; false on OOM. A full tree with room appends
 * the node here (the common case: one per call). */
WD_INLINE bool enter(wd_prof *p, uint64_t T, int64_t ns, uint32_t sym)
{
    prof_tree *tr = &p->tree;
    uint32_t parent = p->stack[p->depth - 1].node, n;
    if (WD_LIKELY(!p->cct && tr->count < p->cfg.full_limit && tr->count < tr->cap &&
                  tr->count < p->tot_ready)) {
        n = tree_append(tr, parent, sym, T);
    } else {
        n = node_for_call(p, sym, T);
        if (WD_UNLIKELY(n == PROF_NONE))
            return false;
        parent = p->stack[p->depth - 1].node; /* a switch to cct renumbers */
    }
    if (WD_UNLIKELY(p->depth == p->stack_cap) &&
        !wd_grow(p->ctx, (void **)&p->stack, &p->stack_cap, sizeof *p->stack,
                 (uint64_t)p->depth + 1))
        return false;
    push_node(p, parent, n, sym, T, ns);
    return true;
}

/* Ends the current node at T; returns the self ticks this call added. */
static inline uint64_t leave(wd_prof *p, uint64_t T, int64_t ns)
{
    prof_frame f = p->stack[--p->depth];
    prof_node *nodes = p->tree.nodes;
    prof_node *x = &nodes[f.node];
    x->t = T - x->t;
    x->time = ns - x->time;
    prof_node *par = &nodes[p->stack[p->depth - 1].node];
    par->t = T - par->t;
    par->time = ns - par->time;
    return x->t - f.base;
}

static inline wd_prof_kind top_kind(const wd_prof *p)
{
    return (wd_prof_kind)p->stack[p->depth - 1].kind;
}

static inline uint32_t top_sym(const wd_prof *p)
{
    return p->stack[p->depth - 1].sym;
}

/* ---- hot steps -------------------------------------------------------------------------- */

static void hot_add(wd_prof *p, uint32_t what, uint32_t in, uint64_t cost, uint64_t operand)
{
    if (cost < p->cfg.step_floor || p->runs.count == 0)
        return;
    if ((p->hot.count + 1) * 2 > p->hot_slot_cap) {
        uint32_t cap = p->hot_slot_cap ? p->hot_slot_cap * 2 : 64;
        uint32_t *s = wd_calloc(p->ctx, cap, sizeof *s);
        if (s == NULL) {
            prof_nomem(p);
            return;
        }
        for (uint32_t i = 0; i < p->hot.count; i++)
            prof_slot_put(s, cap, prof_slot_hash(p->hot.data[i].what, p->hot.data[i].in), i + 1);
        wd_free(p->ctx, p->hot_slots);
        p->hot_slots = s;
        p->hot_slot_cap = cap;
    }
    uint32_t mask = p->hot_slot_cap - 1, h = prof_slot_hash(what, in) & mask;
    uint32_t run = p->runs.count - 1;
    for (;; h = (h + 1) & mask) {
        uint32_t n = p->hot_slots[h];
        if (n == 0)
            break;
        prof_hot *x = &p->hot.data[n - 1];
        if (x->what == what && x->in == in) {
            x->count++;
            x->total += cost;
            if (cost > x->ticks)
                x->ticks = cost, x->operand = operand, x->run = run;
            return;
        }
    }
    prof_hot x = {what, in, cost, operand, run, 1, cost};
    if (!WD_VEC_PUSH(p->ctx, &p->hot, x)) {
        prof_nomem(p);
        return;
    }
    p->hot_slots[h] = p->hot.count;
}

/* The function the current node belongs to (the nearest call below sections and phases). */
static uint32_t current_function(const wd_prof *p)
{
    for (uint32_t i = p->depth; i-- > 1;) {
        wd_prof_kind k = (wd_prof_kind)p->stack[i].kind;
        if (is_call_kind(k) || k == WD_PROF_HOST)
            return p->stack[i].sym;
    }
    return PROF_NONE;
}

/* ---- runs ------------------------------------------------------------------------------- */

static bool copy_syms(wd_prof *p, uint32_t **out, uint32_t *count, const uint32_t *src,
                      uint32_t n)
{
    *out = NULL;
    *count = 0;
    if (n == 0)
        return true;
    *out = wd_alloc(p->ctx, (size_t)n * sizeof **out);
    if (*out == NULL)
        return false;
    memcpy(*out, src, (size_t)n * sizeof **out);
    *count = n;
    return true;
}

/* Closes the current run at tick T: what is still open ends there. */
static void run_end(wd_prof *p, uint64_t T, bool stop)
{
    prof_run *r = &p->runs.data[p->runs.count - 1];
    if (p->depth > 1) {
        uint32_t n = p->depth - 1;
        uint32_t *open = wd_alloc(p->ctx, (size_t)n * sizeof *open);
        if (open == NULL) {
            prof_nomem(p);
        } else {
            for (uint32_t i = 0; i < n; i++)
                open[i] = p->stack[p->depth - 1 - i].sym;
            r->open = open;
            r->open_count = n;
        }
        stop = stop || p->has_stop;
        r->stopped = stop;
        r->inconsistent = !stop;
        r->stop_tick = T;
        /* At the stop's clock when it was told (wd_prof_stop), else at the last event's. */
        if (p->has_stop && p->stop_ns > p->last_ns)
            p->last_ns = p->stop_ns;
        while (p->depth > 1)
            (void)leave(p, T, p->last_ns);
    }
    p->has_stop = false;
    prof_node *root = &p->tree.nodes[r->root];
    root->t = T - root->t;
    root->time = p->last_ns - root->time;
    p->depth = 0;
    p->in_run = false;
    if (!copy_syms(p, &r->unwound, &r->unwound_count, p->trail, p->trail_count))
        prof_nomem(p);
    p->trail_count = 0;
    p->last_was_ret = false;
    for (uint32_t i = 0; i < p->deferred.count; i++)
        wd_free(p->ctx, p->deferred.data[i].data);
    p->deferred.count = 0;
}

static bool run_begin(wd_prof *p, uint64_t T, int64_t ns)
{
    if (p->in_run)
        run_end(p, p->runs.data[p->runs.count - 1].last, false);
    prof_run r = {.level = p->level, .index = p->run_in_level++, .start = T, .last = T};
    /* Room for the nodes of a typical profile at once: growing by doubling from 8 copies
     * them a dozen times (pages not used are not touched). */
    if (p->tree.cap == 0 && !wd_grow(p->ctx, (void **)&p->tree.nodes, &p->tree.cap,
                                     sizeof *p->tree.nodes, FIRST_NODES))
        return false;
    r.root = prof_tree_new(&p->tree, PROF_NONE, 0, T);
    if (r.root == PROF_NONE || !WD_VEC_PUSH(p->ctx, &p->runs, r))
        return false;
    if (p->stack_cap == 0 &&
        !wd_grow(p->ctx, (void **)&p->stack, &p->stack_cap, sizeof *p->stack, 64))
        return false;
    p->tree.nodes[r.root].t = T;
    p->tree.nodes[r.root].time = ns;
    p->stack[0] = (prof_frame){r.root, 0, WD_PROF_ROOT, 0};
    p->depth = 1;
    p->in_run = true;
    return true;
}

static inline bool ensure_run(wd_prof *p, uint64_t T, int64_t ns)
{
    p->last_ns = ns;
    if (WD_LIKELY(p->in_run)) {
        p->runs.data[p->runs.count - 1].last = T;
        return true;
    }
    if (!run_begin(p, T, ns)) {
        prof_nomem(p);
        return false;
    }
    return true;
}

/* ---- events ----------------------------------------------------------------------------- */

static void prof_finish(wd_prof *p);

void wd_prof_call(wd_prof *p, uint64_t ticks, int64_t ns, uint32_t sym)
{
    if (WD_UNLIKELY(p->rec != NULL))
        wd_trace_put_call(p->rec, ticks, ns, sym);
    p->fin = false;
    if (WD_UNLIKELY(p->status != WD_OK || sym >= p->syms.count) || !ensure_run(p, ticks, ns))
        return;
    p->calls++;
    p->last_was_ret = false;
    if (WD_UNLIKELY(!enter(p, ticks, ns, sym)))
        prof_nomem(p);
}

static void apply_section(wd_prof *p, uint64_t T, int64_t ns, const char *data, bool begin);

static WD_NOINLINE bool grow_trail(wd_prof *p)
{
    if (wd_grow(p->ctx, (void **)&p->trail, &p->trail_cap, sizeof *p->trail,
                (uint64_t)p->trail_count + 1))
        return true;
    prof_nomem(p);
    return false;
}

static inline void trail_add(wd_prof *p, uint64_t T, uint32_t sym)
{
    if (!p->last_was_ret || T != p->trail_tick)
        p->trail_count = 0;
    p->trail_tick = T;
    p->last_was_ret = true;
    if (WD_UNLIKELY(p->trail_count == p->trail_cap) && !grow_trail(p))
        return;
    p->trail[p->trail_count++] = sym;
}

void wd_prof_ret(wd_prof *p, uint64_t ticks, int64_t ns)
{
    if (WD_UNLIKELY(p->rec != NULL))
        wd_trace_put_ret(p->rec, ticks, ns);
    p->fin = false;
    if (WD_UNLIKELY(p->status != WD_OK) || !p->in_run)
        return;
    p->runs.data[p->runs.count - 1].last = ticks;
    p->last_ns = ns;
    /* The innermost call: sections above it end with it; a phase in between means the
     * return belongs to no open call. */
    uint32_t i = p->depth - 1;
    while (i > 0 && p->stack[i].kind == WD_PROF_SECTION)
        i--;
    if (i == 0)
        return;
    wd_prof_kind k = (wd_prof_kind)p->stack[i].kind;
    if (k != WD_PROF_HOST && !is_call_kind(k))
        return;
    while (p->depth - 1 > i)
        (void)leave(p, ticks, ns);
    uint32_t sym = top_sym(p);
    uint64_t self = leave(p, ticks, ns);
    trail_add(p, ticks, sym);
    if (k == WD_PROF_HOST) {
        hot_add(p, sym, current_function(p), self, 0);
        /* Sections reported by the host call (write_debug) take effect now it is over. */
        for (uint32_t d = 0; d < p->deferred.count && p->status == WD_OK; d++)
            apply_section(p, ticks, ns, p->deferred.data[d].data, p->deferred.data[d].begin);
        for (uint32_t d = 0; d < p->deferred.count; d++)
            wd_free(p->ctx, p->deferred.data[d].data);
        p->deferred.count = 0;
    }
}

/* The call of `sym` at T as wd_prof_call makes it, when it needs nothing but the tree and
 * the stack as they are: a node appended to a full tree with room (totals room included),
 * or a calling-context tree's existing node. False, and nothing done, otherwise. */
WD_INLINE bool packed_call(wd_prof *p, uint64_t T, int64_t ns, uint32_t sym)
{
    prof_tree *tr = &p->tree;
    uint32_t depth = p->depth;
    if (WD_UNLIKELY(p->status != WD_OK || !p->in_run || sym >= p->syms.count ||
                    depth == p->stack_cap))
        return false;
    uint32_t parent = p->stack[depth - 1].node, n, slot;
    if (!p->cct) {
        if (WD_UNLIKELY(tr->count >= p->cfg.full_limit || tr->count >= tr->cap ||
                        tr->count >= p->tot_ready))
            return false;
        n = tree_append(tr, parent, sym, T);
    } else {
        /* the child made last first (a loop calling one function finds it there) */
        n = tr->nodes[parent].last_child;
        if (n == PROF_NONE || tr->nodes[n].sym != sym) {
            if (WD_UNLIKELY(tr->slot_used * 2 >= tr->slot_cap))
                return false;
            if ((n = prof_tree_probe(tr, parent, sym, &slot)) == PROF_NONE)
                return false;
        }
    }
    p->calls++;
    p->last_was_ret = false;
    push_node(p, parent, n, sym, T, ns);
    return true;
}

/* The return at T as wd_prof_ret makes it, when the innermost frame is a wasm call (no
 * section above it, not a host call): false, and nothing done, otherwise. */
WD_INLINE bool packed_ret(wd_prof *p, uint64_t T, int64_t ns)
{
    if (WD_UNLIKELY(p->status != WD_OK || !p->in_run || p->depth < 2 ||
                    !is_call_kind((wd_prof_kind)top_kind(p))))
        return false;
    uint32_t sym = top_sym(p);
    (void)leave(p, T, ns);
    trail_add(p, T, sym);
    return true;
}

/* After calls and returns made by packed_call and packed_ret, up to the last at T, ns: what
 * each would have noted (the clock, the run's last tick, a changed tree). */
static void packed_note(wd_prof *p, uint64_t T, int64_t ns)
{
    p->fin = false;
    p->last_ns = ns;
    p->runs.data[p->runs.count - 1].last = T;
}

size_t wd_prof_packed(wd_prof *p, const uint64_t *w, size_t n, const uint32_t *map,
                      uint32_t map_count)
{
    const uint64_t *at = w, *end = w + n;
    bool plain = p->rec == NULL; /* recording: every event through the functions */
    bool noted = true;           /* packed_note owed for the last event when false */
    uint64_t T = 0;
    int64_t ns = 0;
    while (end - at >= 3) {
        uint64_t h = at[0];
        unsigned code = h & 0xff;
        if (code != WD_PROF_PACKED_CALL && code != WD_PROF_PACKED_RET)
            break;
        T = at[1];
        ns = (int64_t)at[2];
        at += 3;
        bool call = code == WD_PROF_PACKED_CALL;
        uint32_t sym = call && h >> 8 < map_count ? map[h >> 8] : UINT32_MAX;
        if (plain && (call ? packed_call(p, T, ns, sym) : packed_ret(p, T, ns))) {
            noted = false;
            continue;
        }
        if (!noted)
            packed_note(p, at[-6], (int64_t)at[-4]); /* the event before: one was */
        noted = true;
        if (call)
            wd_prof_call(p, T, ns, sym);
        else
            wd_prof_ret(p, T, ns);
    }
    if (!noted)
        packed_note(p, T, ns);
    return (size_t)(at - w);
}

/* Enters the node of a phase or section named `name` (kind WD_PROF_INTERNAL or _SECTION). */
static void enter_named(wd_prof *p, uint64_t T, int64_t ns, wd_prof_kind kind, const char *name)
{
    uint32_t sym = wd_prof_symbol(p, kind, 0, name, strlen(name));
    if (sym == PROF_NONE || !enter(p, T, ns, sym))
        prof_nomem(p);
}

static void apply_section(wd_prof *p, uint64_t T, int64_t ns, const char *data, bool begin)
{
    if (begin) {
        enter_named(p, T, ns, WD_PROF_SECTION, data);
        return;
    }
    /* The innermost open section with this data among the sections on top of the stack. */
    uint32_t sym = wd_prof_symbol(p, WD_PROF_SECTION, 0, data, strlen(data));
    for (uint32_t i = p->depth - 1; i > 0 && sym != PROF_NONE; i--) {
        if (p->stack[i].kind != WD_PROF_SECTION)
            return; /* not in this frame: a stray end */
        if (p->stack[i].sym == sym) {
            while (p->depth > i)
                (void)leave(p, T, ns);
            return;
        }
    }
}

static void section_event(wd_prof *p, uint64_t T, int64_t ns, const char *data, bool begin)
{
    if (top_kind(p) == WD_PROF_HOST) {
        prof_deferred d = {begin, wd_strndup(p->ctx, data, strlen(data))};
        if (d.data == NULL || !WD_VEC_PUSH(p->ctx, &p->deferred, d)) {
            wd_free(p->ctx, d.data);
            prof_nomem(p);
        }
        return;
    }
    apply_section(p, T, ns, data, begin);
}

void wd_prof_phase(wd_prof *p, uint64_t ticks, int64_t ns, const char *name, bool begin)
{
    if (p->rec != NULL)
        wd_trace_put_phase(p->rec, ticks, ns, name, begin);
    p->fin = false;
    if (WD_UNLIKELY(p->status != WD_OK))
        return;
    if (begin && strcmp(name, "decode") == 0 && !run_begin(p, ticks, ns)) {
        prof_nomem(p);
        return;
    }
    if (!ensure_run(p, ticks, ns))
        return;
    if (strncmp(name, "section:", 8) == 0) {
        section_event(p, ticks, ns, name + 8, begin);
        return;
    }
    if (begin) {
        enter_named(p, ticks, ns, WD_PROF_INTERNAL, name);
        return;
    }
    uint32_t want = wd_prof_symbol(p, WD_PROF_INTERNAL, 0, name, strlen(name));
    for (uint32_t i = p->depth - 1; i > 0 && want != PROF_NONE; i--) {
        if (p->stack[i].sym == want) {
            while (p->depth - 1 > i)
                (void)leave(p, ticks, ns);
            uint32_t sym = top_sym(p);
            uint64_t self = leave(p, ticks, ns);
            hot_add(p, sym, current_function(p), self, 0);
            return;
        }
    }
}

void wd_prof_step(wd_prof *p, uint64_t ticks, uint64_t cost, const char *what, uint64_t operand)
{
    if (p->rec != NULL)
        wd_trace_put_step(p->rec, ticks, cost, what, operand);
    if (WD_UNLIKELY(p->status != WD_OK) || !p->in_run || cost < p->cfg.step_floor)
        return;
    uint32_t sym = wd_prof_symbol(p, WD_PROF_STEP, 0, what, strlen(what));
    if (sym != PROF_NONE)
        hot_add(p, sym, current_function(p), cost, operand);
}

void wd_prof_stop(wd_prof *p, int64_t ns)
{
    if (p->rec != NULL)
        wd_trace_put_stop(p->rec, ns);
    if (p->status != WD_OK || !p->in_run)
        return;
    p->has_stop = true;
    p->stop_ns = ns;
}

void wd_prof_level(wd_prof *p, uint32_t level)
{
    if (p->rec != NULL)
        wd_trace_put_level(p->rec, level);
    p->fin = false;
    if (p->status != WD_OK)
        return;
    if (p->in_run)
        run_end(p, p->runs.data[p->runs.count - 1].last, false);
    p->level = level;
    p->run_in_level = 0;
}

void wd_prof_run_info_add(wd_prof *p, const wd_prof_run_info *info)
{
    if (p->rec != NULL)
        wd_trace_put_run_info(p->rec, info);
    p->fin = false;
    if (p->status != WD_OK || p->info_next >= p->runs.count)
        return;
    uint32_t i = p->info_next++;
    prof_run *r = &p->runs.data[i];
    if (p->in_run && i == p->runs.count - 1) {
        uint64_t stop = info->start + info->effective;
        run_end(p, stop >= r->last ? stop : r->last, info->outcome == WD_PROF_STUCK);
        r = &p->runs.data[i];
    }
    r->has_info = true;
    r->level = info->level;
    r->index = info->index;
    r->effective = info->effective;
    r->outcome = info->outcome;
    r->reboot = info->reboot;
    r->wall_ns = info->ns;
    r->reason = wd_strndup(p->ctx, info->reason ? info->reason : "",
                           info->reason ? strlen(info->reason) : 0);
    if (r->reason == NULL)
        prof_nomem(p);
    for (uint32_t k = 0; k < info->frame_count; k++)
        wd_prof_run_frame(p, &info->frames[k], info->frames_more);
}

void wd_prof_run_frame(wd_prof *p, const wd_prof_frame *f, uint32_t more)
{
    if (p->rec != NULL)
        wd_trace_put_frame(p->rec, f, more);
    if (p->status != WD_OK || p->info_next == 0)
        return;
    prof_run *r = &p->runs.data[p->info_next - 1];
    uint32_t cap = r->frame_count; /* grown by one: backtraces are short (WD_RUN_FRAMES) */
    if (!wd_grow(p->ctx, (void **)&r->frames, &cap, sizeof *r->frames, (uint64_t)cap + 1)) {
        prof_nomem(p);
        return;
    }
    wd_prof_frame *x = &r->frames[r->frame_count];
    *x = *f;
    x->function = wd_strndup(p->ctx, f->function ? f->function : "",
                             f->function ? strlen(f->function) : 0);
    x->file = f->file != NULL ? wd_strndup(p->ctx, f->file, strlen(f->file)) : NULL;
    if (x->function == NULL || (f->file != NULL && x->file == NULL)) {
        wd_free(p->ctx, (char *)x->function);
        prof_nomem(p);
        return;
    }
    r->frame_count++;
    r->frames_more = more;
}

void wd_prof_time_unit(wd_prof *p, double ns_per_unit)
{
    p->ns_per_unit = ns_per_unit;
}

void wd_prof_end(wd_prof *p, uint64_t ticks)
{
    if (wd_prof_end_tree(p, ticks))
        wd_prof_end_finish(p, ticks);
}

bool wd_prof_end_tree(wd_prof *p, uint64_t ticks)
{
    if (p->rec != NULL)
        wd_trace_put_end(p->rec, ticks);
    if (p->ended)
        return false;
    if (p->status == WD_OK && p->in_run)
        run_end(p, p->runs.data[p->runs.count - 1].last, false);
    return true;
}

void wd_prof_end_finish(wd_prof *p, uint64_t ticks)
{
    /* Every time is a sum of differences of the clock: each converts alone (prof_ns). */
    if (p->ns_per_unit != 0 && p->ns_per_unit != 1)
        for (uint32_t i = 0; i < p->tree.count; i++)
            p->tree.nodes[i].time = prof_ns(p->ns_per_unit, p->tree.nodes[i].time);
    p->end_ticks = ticks;
    p->ended = true;
    if (p->status == WD_OK)
        prof_finish(p);
}

/* ---- results ---------------------------------------------------------------------------- */

uint32_t wd_prof_run_count(const wd_prof *p)
{
    return p->runs.count;
}

static int phase_of(const wd_prof *p, uint32_t sym)
{
    const prof_sym *y = &p->syms.data[sym];
    if (y->kind == WD_PROF_ENTRY)
        return strcmp(y->raw, "kernel_run") == 0 ? WD_PROF_PH_KERNEL_RUN : -1;
    if (y->kind != WD_PROF_INTERNAL)
        return -1;
    for (int k = 0; k < WD_PROF_PH_KERNEL_RUN; k++)
        if (strcmp(y->raw, wd_prof_phase_names[k]) == 0)
            return k;
    return -1;
}

/* Inclusive ticks and ns of `n`'s subtree (iterative: trees can be 60,000 deep). */
static void subtree(const prof_tree *tr, uint32_t n, uint64_t *ticks, int64_t *ns, uint64_t *calls)
{
    *ticks = 0;
    *ns = 0;
    *calls = 0;
    uint32_t x = n;
    for (;;) {
        const prof_node *y = &tr->nodes[x];
        *ticks += y->t;
        *ns += y->time;
        *calls += y->calls;
        if (y->first_child != PROF_NONE) {
            x = y->first_child;
            continue;
        }
        while (x != n && tr->nodes[x].next_sibling == PROF_NONE)
            x = tr->nodes[x].parent;
        if (x == n)
            return;
        x = tr->nodes[x].next_sibling;
    }
}

/* The run's figures from its top-level nodes (subtree walks, or the node totals). */
static void run_figures(const wd_prof *p, const prof_run *r, const uint64_t *tot,
                        const int64_t *tns, const uint64_t *tcalls, wd_prof_run *out)
{
    for (uint32_t c = p->tree.nodes[r->root].first_child; c != PROF_NONE;
         c = p->tree.nodes[c].next_sibling) {
        uint64_t t, calls;
        int64_t ns;
        if (tot != NULL) {
            t = tot[c];
            ns = tns[c];
            calls = tcalls[c];
        } else {
            subtree(&p->tree, c, &t, &ns, &calls);
        }
        out->ticks += t;
        out->ns += ns;
        out->calls += calls;
        int ph = phase_of(p, p->tree.nodes[c].sym);
        if (ph >= 0) {
            out->phase[ph] += t;
            out->phase_ns[ph] += ns;
            out->has_phase[ph] = true;
        }
    }
}

void wd_prof_run_get(const wd_prof *p, uint32_t i, wd_prof_run *out)
{
    const prof_run *r = &p->runs.data[i];
    memset(out, 0, sizeof *out);
    out->level = r->level;
    out->index = r->index;
    out->start = r->start;
    if (p->fin) {
        out->ticks = r->sum_ticks;
        out->ns = r->sum_ns;
        out->calls = r->sum_calls;
        memcpy(out->phase, r->phase, sizeof out->phase);
        memcpy(out->phase_ns, r->phase_ns, sizeof out->phase_ns);
        memcpy(out->has_phase, r->has_phase, sizeof out->has_phase);
    } else {
        run_figures(p, r, NULL, NULL, NULL, out);
    }
    out->has_info = r->has_info;
    out->effective = r->effective;
    out->outcome = r->outcome;
    out->reboot = r->reboot;
    out->reason = r->reason ? r->reason : "";
    out->wall_ns = r->wall_ns;
    out->stopped = r->stopped;
    out->stop_tick = r->stop_tick;
    out->inconsistent = r->inconsistent;
    out->unwound = r->unwound;
    out->unwound_count = r->unwound_count;
    out->open = r->open;
    out->open_count = r->open_count;
    out->frames = r->frames;
    out->frame_count = r->frame_count;
    out->frames_more = r->frames_more;
}

void wd_prof_get_stats(const wd_prof *p, wd_prof_stats *out)
{
    /* The levels the runs belong to (runs come in level order): a profile that starts at
     * level 5 counts one level, not six. */
    uint32_t levels = 0;
    for (uint32_t i = 0; i < p->runs.count; i++)
        if (i == 0 || p->runs.data[i].level != p->runs.data[i - 1].level)
            levels++;
    *out = (wd_prof_stats){
        .mode = p->cct ? WD_PROF_CCT : WD_PROF_FULL,
        .asked = p->cfg.mode,
        .switched = p->switched,
        .switched_at = p->switched_at,
        .calls = p->calls,
        .nodes = p->tree.count,
        .end_ticks = p->end_ticks,
        .levels = levels,
        .bytes = (size_t)p->tree.cap * sizeof(prof_node) + (size_t)p->tree.slot_cap * 4 +
                 (size_t)p->stack_cap * sizeof(prof_frame),
    };
}

/* The functions met in a walk (each once): list[0..count), mark[fn] == stamp once met. */
typedef struct met {
    uint32_t *list, count;
    uint32_t *mark, stamp;
} met;

/* Per-function figures of the subtrees of `roots` in `tr`: self, calls and, counting a
 * function once per stack (recursion), total; the functions met go to m (when not NULL). */
static bool function_figures(wd_prof *p, const uint32_t *roots, uint32_t nroots,
                             const uint64_t *tot, const int64_t *tns, wd_prof_func *f, met *m)
{
    const prof_tree *tr = &p->tree;
    uint32_t *active = wd_calloc(p->ctx, (size_t)p->syms.count + 1, sizeof *active);
    if (active == NULL)
        return false;
    for (uint32_t r = 0; r < nroots; r++) {
        uint32_t from = roots[r], x = tr->nodes[from].first_child;
        while (x != PROF_NONE) {
            const prof_node *y = &tr->nodes[x];
            uint32_t fn = p->syms.data[y->sym].func;
            if (m != NULL && m->mark[fn] != m->stamp) {
                m->mark[fn] = m->stamp;
                m->list[m->count++] = fn;
            }
            f[fn].self += y->t;
            f[fn].self_ns += y->time;
            f[fn].calls += y->calls;
            if (active[fn]++ == 0) {
                f[fn].total += tot[x];
                f[fn].total_ns += tns[x];
            }
            if (y->first_child != PROF_NONE) {
                x = y->first_child;
                continue;
            }
            for (;;) {
                active[p->syms.data[tr->nodes[x].sym].func]--;
                if (tr->nodes[x].next_sibling != PROF_NONE) {
                    x = tr->nodes[x].next_sibling;
                    break;
                }
                x = tr->nodes[x].parent;
                if (x == from) {
                    x = PROF_NONE;
                    break;
                }
            }
        }
    }
    wd_free(p->ctx, active);
    return true;
}

/* Functions in order: ticks (self or total), largest first, then name, then symbol (ties
 * of ticks are few: names are compared only for them). */
typedef struct func_key {
    uint64_t ticks;
    const char *name;
    uint32_t sym;
    uint32_t at; /* its entry */
} func_key;

static inline bool func_before(const func_key *x, const func_key *y)
{
    if (x->ticks != y->ticks)
        return x->ticks > y->ticks;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c < 0 : x->sym < y->sym;
}

/* A stable merge sort of a[0..n) (tmp: n more), the order given by BEFORE: insertion sort
 * of short runs, then merges from one array into the other; returns the one that holds the
 * result (a or tmp). Keys are distinct, so any sort gives the same order. */
#define DEFINE_SORT(NAME, T, BEFORE)                                                               \
    static T *NAME(T *a, T *tmp, size_t n)                                                         \
    {                                                                                              \
        enum { RUN = 8 };                                                                          \
        for (size_t lo = 0; lo < n; lo += RUN) {                                                   \
            size_t hi = n - lo < RUN ? n : lo + RUN;                                               \
            for (size_t i = lo + 1; i < hi; i++) {                                                 \
                T x = a[i];                                                                        \
                size_t k = i;                                                                      \
                for (; k > lo && BEFORE(&x, &a[k - 1]); k--)                                       \
                    a[k] = a[k - 1];                                                               \
                a[k] = x;                                                                          \
            }                                                                                      \
        }                                                                                          \
        T *src = a, *dst = tmp;                                                                    \
        for (size_t width = RUN; width < n; width *= 2) {                                          \
            for (size_t lo = 0; lo < n; lo += 2 * width) {                                         \
                size_t mid = n - lo < width ? n : lo + width;                                      \
                size_t hi = n - mid < width ? n : mid + width, i = lo, j = mid, o = lo;            \
                while (i < mid && j < hi)                                                          \
                    dst[o++] = BEFORE(&src[j], &src[i]) ? src[j++] : src[i++];                     \
                while (i < mid)                                                                    \
                    dst[o++] = src[i++];                                                           \
                while (j < hi)                                                                     \
                    dst[o++] = src[j++];                                                           \
            }                                                                                      \
            T *t = src;                                                                            \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        return src;                                                                                \
    }

DEFINE_SORT(sort_keys, func_key, func_before)

/* The first `limit` keys of a[0..n) in func_before order, into a[0..limit) (0 < limit < n;
 * a[n..n + limit) is scratch): each key goes into a sorted window of the best so far when it
 * beats the window's last. A summary's top 20 of a kernel's ~900 functions is then a pass,
 * not a sort. */
static void select_keys(func_key *a, size_t n, size_t limit)
{
    const func_key *w = sort_keys(a, a + n, limit); /* the window (a + n: scratch) */
    if (w != a)
        memcpy(a, w, limit * sizeof *a);
    for (size_t i = limit; i < n; i++) {
        if (!func_before(&a[i], &a[limit - 1]))
            continue;
        func_key x = a[i];
        size_t j = limit - 1;
        for (; j > 0 && func_before(&x, &a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Sorts f[0..k) (or, below k, only its first `limit` places: the rest is dropped); the new
 * count in *k. */
static bool sort_functions(wd_prof *p, wd_prof_func *f, uint32_t *k, bool by_total,
                           uint32_t limit)
{
    uint32_t n = *k, keep = WD_MIN(n, limit);
    func_key *keys = wd_alloc(p->ctx, (2 * (size_t)n + 1) * sizeof *keys);
    wd_prof_func *sorted = wd_alloc(p->ctx, ((size_t)keep + 1) * sizeof *sorted);
    bool ok = keys != NULL && sorted != NULL;
    if (ok) {
        for (uint32_t i = 0; i < n; i++)
            keys[i] = (func_key){by_total ? f[i].total : f[i].self, prof_name(p, f[i].sym),
                                 f[i].sym, i};
        const func_key *order = keys;
        if (keep == n)
            order = sort_keys(keys, keys + n, n);
        else if (keep != 0) /* none kept: nothing to order */
            select_keys(keys, n, keep);
        for (uint32_t i = 0; i < keep; i++)
            sorted[i] = f[order[i].at];
        memcpy(f, sorted, (size_t)keep * sizeof *f);
        *k = keep;
    }
    wd_free(p->ctx, keys);
    wd_free(p->ctx, sorted);
    return ok;
}

/* Per-function figures of every run into f (syms.count + 1 entries, zeroed). */
static bool all_function_figures(wd_prof *p, const uint64_t *tot, const int64_t *tns,
                                 wd_prof_func *f)
{
    uint32_t *roots = wd_alloc(p->ctx, ((size_t)p->runs.count + 1) * sizeof *roots);
    if (roots == NULL)
        return false;
    for (uint32_t i = 0; i < p->runs.count; i++)
        roots[i] = p->runs.data[i].root;
    bool ok = function_figures(p, roots, p->runs.count, tot, tns, f, NULL);
    wd_free(p->ctx, roots);
    return ok;
}

/* Each run's per-function figures (its functions only, owned by the run) and their sums
 * over all runs into all (syms.count entries, zeroed): one walk of the tree. */
static bool run_function_lists(wd_prof *p, wd_prof_func *all)
{
    uint32_t n = p->syms.count;
    wd_prof_func *f = wd_calloc(p->ctx, (size_t)n + 1, sizeof *f);
    uint32_t *list = wd_alloc(p->ctx, ((size_t)n + 1) * sizeof *list);
    uint32_t *mark = wd_calloc(p->ctx, (size_t)n + 1, sizeof *mark);
    bool ok = f != NULL && list != NULL && mark != NULL;
    for (uint32_t i = 0; ok && i < p->runs.count; i++) {
        prof_run *r = &p->runs.data[i];
        met m = {list, 0, mark, i + 1};
        ok = function_figures(p, &r->root, 1, p->tot, p->tns, f, &m);
        r->funcs = ok ? wd_alloc(p->ctx, ((size_t)m.count + 1) * sizeof *r->funcs) : NULL;
        ok = r->funcs != NULL;
        r->func_count = ok ? m.count : 0;
        for (uint32_t k = 0; ok && k < m.count; k++) {
            uint32_t fn = list[k];
            wd_prof_func *x = &f[fn], *a = &all[fn];
            r->funcs[k] = *x;
            r->funcs[k].sym = fn;
            a->self += x->self;
            a->total += x->total;
            a->calls += x->calls;
            a->self_ns += x->self_ns;
            a->total_ns += x->total_ns;
            *x = (wd_prof_func){0};
        }
    }
    wd_free(p->ctx, f);
    wd_free(p->ctx, list);
    wd_free(p->ctx, mark);
    return ok;
}

/* The figures every output reads, computed once when the profile ends: node totals, each
 * run's figures and the per-function figures over all runs. On OOM nothing is kept: they
 * are then computed on demand, as during the run. */
static void prof_finish(wd_prof *p)
{
    wd_free(p->ctx, p->funcs_all);
    p->funcs_all = NULL;
    for (uint32_t i = 0; i < p->runs.count; i++) {
        wd_free(p->ctx, p->runs.data[i].funcs);
        p->runs.data[i].funcs = NULL;
        p->runs.data[i].func_count = 0;
    }
    p->funcs_all = wd_calloc(p->ctx, (size_t)p->syms.count + 1, sizeof *p->funcs_all);
    if (p->funcs_all == NULL || !tree_totals_in(p) || !run_function_lists(p, p->funcs_all)) {
        wd_free(p->ctx, p->funcs_all);
        p->funcs_all = NULL;
        return;
    }
    for (uint32_t i = 0; i < p->runs.count; i++) {
        prof_run *r = &p->runs.data[i];
        wd_prof_run x = {0};
        run_figures(p, r, p->tot, p->tns, p->tcalls, &x);
        r->sum_ticks = x.ticks;
        r->sum_ns = x.ns;
        r->sum_calls = x.calls;
        memcpy(r->phase, x.phase, sizeof r->phase);
        memcpy(r->phase_ns, x.phase_ns, sizeof r->phase_ns);
        memcpy(r->has_phase, x.has_phase, sizeof r->has_phase);
    }
    p->fin = true;
}

wd_status wd_prof_functions(wd_prof *p, uint32_t run, bool by_total, wd_prof_func **out,
                            uint32_t *count, wd_error *err)
{
    return wd_prof_top_functions(p, run, by_total, UINT32_MAX, out, count, err);
}

wd_status wd_prof_top_functions(wd_prof *p, uint32_t run, bool by_total, uint32_t limit,
                                wd_prof_func **out, uint32_t *count, wd_error *err)
{
    *out = NULL;
    *count = 0;
    uint32_t n = p->syms.count;
    bool ok = true, dense = true; /* f[i] is symbol i's (else f[i].sym says) */
    wd_prof_func *f;
    const uint64_t *tot;
    const int64_t *tns;
    if (run == UINT32_MAX && p->fin) {
        f = wd_alloc(p->ctx, ((size_t)n + 1) * sizeof *f);
        if (f != NULL)
            memcpy(f, p->funcs_all, (size_t)n * sizeof *f);
    } else if (p->fin) { /* the run's functions, already in entry form */
        const prof_run *r = &p->runs.data[run];
        f = wd_alloc(p->ctx, ((size_t)r->func_count + 1) * sizeof *f);
        if (f != NULL)
            memcpy(f, r->funcs, (size_t)r->func_count * sizeof *f);
        n = r->func_count;
        dense = false;
    } else {
        f = wd_calloc(p->ctx, (size_t)n + 1, sizeof *f);
        ok = f != NULL && prof_tree_totals(p, &tot, &tns) &&
             (run == UINT32_MAX ? all_function_figures(p, tot, tns, f)
                                : function_figures(p, &p->runs.data[run].root, 1, tot, tns, f,
                                                   NULL));
    }
    if (f == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (!ok) {
        wd_free(p->ctx, f);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].self == 0 && f[i].total == 0 && f[i].calls == 0)
            continue;
        f[k] = f[i];
        if (dense)
            f[k].sym = i;
        k++;
    }
    if (!sort_functions(p, f, &k, by_total, limit)) {
        wd_free(p->ctx, f);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    *out = f;
    *count = k;
    return WD_OK;
}

static int cmp_hot(const void *a, const void *b)
{
    const wd_prof_hot *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks > y->ticks ? -1 : 1;
    if (x->what != y->what)
        return x->what < y->what ? -1 : 1;
    return (x->in > y->in) - (x->in < y->in);
}

wd_status wd_prof_hot_steps(wd_prof *p, double min_share, uint32_t max, wd_prof_hot **out,
                            uint32_t *count, wd_error *err)
{
    *out = NULL;
    *count = 0;
    wd_prof_hot *h = wd_calloc(p->ctx, (size_t)p->hot.count + 1, sizeof *h);
    if (h == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->hot.count; i++) {
        const prof_hot *x = &p->hot.data[i];
        wd_prof_run r;
        wd_prof_run_get(p, x->run, &r);
        uint64_t base = r.ticks != 0 ? r.ticks : 1;
        double share = (double)x->ticks / (double)base;
        if (share < min_share)
            continue;
        h[k++] = (wd_prof_hot){x->what, x->in, x->ticks, x->operand, r.level, r.index,
                               x->count, x->total, share};
    }
    qsort(h, k, sizeof *h, cmp_hot);
    *out = h;
    *count = k < max ? k : max;
    return WD_OK;
}

uint32_t *prof_display_groups(const wd_prof *p)
{
    return prof_display_groups_in(p, p->ctx);
}

uint32_t *prof_display_groups_in(const wd_prof *p, wd_ctx *ctx)
{
    uint32_t n = p->syms.count, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *g = wd_alloc(ctx, ((size_t)n + 1) * sizeof *g);
    uint32_t *slots = wd_calloc(ctx, cap, sizeof *slots);
    if (g == NULL || slots == NULL) {
        wd_free(ctx, g);
        wd_free(ctx, slots);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name = p->syms.data[i].name;
        uint32_t h = str_hash(WD_PROF_ROOT, 0, name, strlen(name)) & (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            uint32_t s = slots[h];
            if (s == 0) {
                slots[h] = i + 1;
                g[i] = i;
                break;
            }
            if (strcmp(p->syms.data[s - 1].name, name) == 0) {
                g[i] = s - 1;
                break;
            }
        }
    }
    wd_free(ctx, slots);
    return g;
}
