/* output.c: folded stacks, Chrome trace events, speedscope and the machine profile. */
#include "profiler/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/file.h"
#include "base/thread.h"
#include "profiler/prof_priv.h"
#include "profiler/wbuf.h"

/* wbuf.h's digit table: "0000" to "9999", made by the preprocessor. */
#define D1(x) x "0" x "1" x "2" x "3" x "4" x "5" x "6" x "7" x "8" x "9"
#define D2(x) D1(x "0") D1(x "1") D1(x "2") D1(x "3") D1(x "4") D1(x "5") D1(x "6") \
    D1(x "7") D1(x "8") D1(x "9")
#define D3(x) D2(x "0") D2(x "1") D2(x "2") D2(x "3") D2(x "4") D2(x "5") D2(x "6") \
    D2(x "7") D2(x "8") D2(x "9")
const char wd_prof_digits4[40000] = D3("0") D3("1") D3("2") D3("3") D3("4") D3("5") D3("6")
    D3("7") D3("8") D3("9");
#undef D1
#undef D2
#undef D3

/* Their lengths: 10 ones, 90 twos, 900 threes, 9000 fours. */
#define R10(x)   x, x, x, x, x, x, x, x, x, x,
#define R90(x)   R10(x) R10(x) R10(x) R10(x) R10(x) R10(x) R10(x) R10(x) R10(x)
#define R100(x)  R10(x) R90(x)
#define R900(x)  R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x)
#define R1000(x) R100(x) R900(x)
#define R9000(x) R1000(x) R1000(x) R1000(x) R1000(x) R1000(x) R1000(x) R1000(x) R1000(x) \
    R1000(x)
const uint8_t wd_prof_len4[10000] = {R10(1) R90(2) R900(3) R9000(4)};
#undef R10
#undef R90
#undef R100
#undef R900
#undef R1000
#undef R9000

char *wd_prof_put_u64_big(char *p, uint64_t v)
{
    uint64_t hi = v / 100000000;
    uint32_t lo = (uint32_t)(v - hi * 100000000), mid = lo / 10000;
    p = hi <= UINT32_MAX ? wp_u32(p, (uint32_t)hi) : wd_prof_put_u64_big(p, hi);
    return wp_four(wp_four(p, mid), lo - mid * 10000);
}

const char *const wd_prof_file_ext[WD_PROF_FILE_COUNT] = {".out", ".svg", ".trace.json",
                                                          ".speedscope.json", ".json"};
const char *const wd_prof_file_what[WD_PROF_FILE_COUNT] = {
    "folded stacks", "flamegraph (SVG)", "Chrome trace events (Perfetto)",
    "speedscope profile", "machine profile (JSON)"};

static wbuf *new_wbuf(wd_ctx *ctx, FILE *f)
{
    wbuf *w = wd_alloc(ctx, sizeof *w);
    if (w != NULL)
        wb_init(w, f);
    return w;
}

/* Flushes and frees w; the status of the output. */
static wd_status end_wbuf(wd_ctx *ctx, wbuf *w, bool ok, wd_error *err)
{
    wb_flush(w);
    bool failed = w->failed || ferror(w->f);
    wd_free(ctx, w);
    if (!ok)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (failed)
        return wd_fail(err, WD_ERR_IO, 0, "write error: %s", strerror(errno));
    return WD_OK;
}

/* ---- string tables ---- */

/* Text made once per symbol (or frame) and copied per node: one block, entry i at
 * text[at[i] .. at[i + 1]), entries made in order (st_end closes one). */
typedef struct strtab {
    wd_ctx *ctx;
    char *text;
    size_t len, cap;
    size_t *at;
    uint32_t count, at_cap;
    bool oom;
} strtab;

/* An empty table with room for `count` entries (more are made room for as they come). */
static void st_init(strtab *t, wd_ctx *ctx, uint32_t count)
{
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->oom = !wd_grow(ctx, (void **)&t->at, &t->at_cap, sizeof *t->at, (uint64_t)count + 1);
    if (!t->oom)
        t->at[0] = 0;
}

static void st_free(strtab *t)
{
    if (t->ctx != NULL) {
        wd_free(t->ctx, t->text);
        wd_free(t->ctx, t->at);
    }
}

/* Bytes readable from the start of any entry (zeros past the text): short entries are
 * copied with a fixed-size copy, which compilers inline (st_copy). */
#define ST_SLACK 64u

/* Room for n more bytes of the current entry and ST_SLACK after them (NULL after a
 * failure). */
static char *st_room(strtab *t, size_t n)
{
    if (t->oom)
        return NULL;
    if (n > SIZE_MAX / 8) {
        t->oom = true;
        return NULL;
    }
    if (n + ST_SLACK > t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->len < n + ST_SLACK) {
            if (cap > SIZE_MAX / 4) {
                t->oom = true;
                return NULL;
            }
            cap *= 2;
        }
        char *s = wd_realloc(t->ctx, t->text, cap);
        if (s == NULL) {
            t->oom = true;
            return NULL;
        }
        memset(s + t->cap, 0, cap - t->cap);
        t->text = s;
        t->cap = cap;
    }
    return t->text + t->len;
}

static void st_add(strtab *t, const char *s, size_t n)
{
    char *o = st_room(t, n);
    if (o != NULL) {
        memcpy(o, s, n);
        t->len += n;
    }
}

#define ST_LIT(t, lit) st_add((t), (lit), sizeof(lit) - 1)

/* s as a JSON string, quotes included. */
static void st_json(strtab *t, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s);
    char *o = n < SIZE_MAX / 8 ? st_room(t, 6 * n + 2) : NULL;
    if (o == NULL) {
        t->oom = true;
        return;
    }
    char *b = o;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (WD_LIKELY(!wb_json_special(*c))) {
            *o++ = (char)*c;
        } else if (*c < 0x20) {
            o = WP_LIT(o, "\\u00");
            *o++ = hex[*c >> 4];
            *o++ = hex[*c & 15];
        } else {
            *o++ = '\\';
            *o++ = (char)*c;
        }
    }
    *o++ = '"';
    t->len += (size_t)(o - b);
}

static void st_end(strtab *t)
{
    if (st_room(t, 0) == NULL) /* the slack of the next entry */
        return;
    if (WD_UNLIKELY(t->count + 1 >= t->at_cap) &&
        !wd_grow(t->ctx, (void **)&t->at, &t->at_cap, sizeof *t->at, (uint64_t)t->count + 2)) {
        t->oom = true;
        return;
    }
    t->at[++t->count] = t->len;
}

static inline const char *st_get(const strtab *t, uint32_t i, size_t *n)
{
    *n = t->at[i + 1] - t->at[i];
    return t->text + t->at[i];
}

/* Copies entry i to o, which has room for ST_SLACK bytes more than the entry; returns the
 * end. */
static inline char *st_copy(char *o, const strtab *t, uint32_t i)
{
    size_t n;
    const char *s = st_get(t, i, &n);
    if (WD_LIKELY(n <= ST_SLACK))
        memcpy(o, s, ST_SLACK);
    else
        memcpy(o, s, n);
    return o + n;
}

/* Every symbol's display name as a folded-stack frame: `;` separates frames there, so a
 * name's own `;` is written `:` (the only place that changes it; flamegraph.pl and inferno
 * have no escape for it). */
static void st_names_more(strtab *t, const wd_prof *p)
{
    for (uint32_t i = t->count; i < p->syms.count; i++) { /* the symbols not yet in t */
        const char *name = p->syms.data[i].name;
        size_t n = strlen(name);
        char *o = st_room(t, n);
        if (o != NULL) {
            for (size_t k = 0; k < n; k++)
                o[k] = name[k] == ';' ? ':' : name[k];
            t->len += n;
        }
        st_end(t);
    }
}

static void st_names(strtab *t, const wd_prof *p, wd_ctx *ctx)
{
    st_init(t, ctx, p->syms.count);
    st_names_more(t, p);
}

/* Copies a table entry and reserves `more` bytes after it; returns where to go on. */
static inline char *wb_entry(wbuf *w, const strtab *t, uint32_t i, size_t more)
{
    size_t n;
    const char *s = st_get(t, i, &n);
    if (WD_UNLIKELY(n > sizeof w->b / 2)) { /* a name too long for the fast path */
        wb_bytes(w, s, n);
        return wb_reserve(w, more);
    }
    return st_copy(wb_reserve(w, n + ST_SLACK + more), t, i);
}

/* ---- a stack string, frame by frame ---- */

typedef struct stackbuf {
    wd_ctx *ctx;
    char *s;
    size_t len, cap;
    size_t *at; /* at[d]: length of the string with d frames */
    uint32_t at_cap;
} stackbuf;

static bool sb_set(stackbuf *b, uint32_t depth, const char *name, size_t n)
{
    if (WD_UNLIKELY(depth >= b->at_cap) &&
        !wd_grow(b->ctx, (void **)&b->at, &b->at_cap, sizeof *b->at, (uint64_t)depth + 1))
        return false;
    b->at[0] = 0;
    size_t base = b->at[depth - 1];
    size_t need = base + n + 2 + ST_SLACK; /* room for sb_push's copies */
    if (WD_UNLIKELY(need > b->cap)) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < need)
            cap *= 2;
        char *s = wd_realloc(b->ctx, b->s, cap);
        if (s == NULL)
            return false;
        b->s = s;
        b->cap = cap;
    }
    size_t k = base;
    if (depth > 1)
        b->s[k++] = ';';
    memcpy(b->s + k, name, n);
    k += n;
    b->s[k] = '\0';
    b->len = k;
    b->at[depth] = k;
    return true;
}

/* sb_set with table entry i as the name: a short name where there is room is copied with a
 * fixed-size copy (the string is not NUL-terminated then: b->len says where it ends). */
static inline bool sb_push(stackbuf *b, uint32_t depth, const strtab *t, uint32_t i)
{
    size_t n;
    const char *name = st_get(t, i, &n);
    if (WD_UNLIKELY(depth >= b->at_cap || n > ST_SLACK ||
                    b->cap - b->at[depth - 1] < ST_SLACK + 2))
        return sb_set(b, depth, name, n);
    size_t k = b->at[depth - 1];
    b->s[k] = ';';
    k += depth > 1;
    memcpy(b->s + k, name, ST_SLACK);
    k += n;
    b->len = k;
    b->at[depth] = k;
    return true;
}

static void sb_free(stackbuf *b)
{
    wd_free(b->ctx, b->s);
    wd_free(b->ctx, b->at);
}

/* Pre-order walk of the subtree of `from` (excluded): calls visit(node, depth) and skips
 * the children of nodes for which it returns false. Inlined into each writer, so that the
 * visitor is too. */
typedef bool (*visit_fn)(void *ud, uint32_t node, uint32_t depth);

/* The walk in steps: *at and *at_depth say where it goes on (to begin: from's first child at
 * depth 1); it visits at most `budget` nodes and returns whether any are left. */
WD_INLINE bool walk_steps(const prof_tree *tr, uint32_t from, uint32_t *at, uint32_t *at_depth,
                          uint32_t budget, visit_fn visit, void *ud)
{
    const prof_node *nodes = tr->nodes;
    uint32_t x = *at, depth = *at_depth;
    for (; x != PROF_NONE && budget > 0; budget--) {
        bool down = visit(ud, x, depth);
        if (down && nodes[x].first_child != PROF_NONE) {
            x = nodes[x].first_child;
            depth++;
            continue;
        }
        while (x != from && nodes[x].next_sibling == PROF_NONE) {
            x = nodes[x].parent;
            depth--;
        }
        x = x == from ? PROF_NONE : nodes[x].next_sibling;
    }
    *at = x;
    *at_depth = depth;
    return x != PROF_NONE;
}

WD_INLINE void walk(const prof_tree *tr, uint32_t from, visit_fn visit, void *ud)
{
    uint32_t x = tr->nodes[from].first_child, depth = 1;
    (void)walk_steps(tr, from, &x, &depth, UINT32_MAX, visit, ud);
}

/* ---- runs merged into one calling-context tree (collapsed stacks, the SVG) ---- */

/* A merge of one run's subtree into `out`: the out node of each depth of the walk. */
typedef struct merger {
    const wd_prof *p;
    wd_ctx *ctx;
    const uint32_t *key; /* symbol -> merge key, or NULL: the symbol */
    prof_tree *out;
    uint32_t *map, map_cap; /* out node per depth; map[0] the node merged under */
    uint32_t limit;         /* nodes deeper fold into their ancestor at this depth */
    bool ok;
} merger;

/* Node `node` at `depth` reached: its out node made (a child of the one above, by key), or
 * the one at the limit its figures go to. False on OOM. */
static bool merge_open(merger *m, uint32_t node, uint32_t depth)
{
    if (WD_UNLIKELY(!m->ok))
        return false;
    if (WD_UNLIKELY(depth >= m->map_cap) &&
        !wd_grow(m->ctx, (void **)&m->map, &m->map_cap, sizeof *m->map, (uint64_t)depth + 1)) {
        m->ok = false;
        return false;
    }
    uint32_t n;
    if (WD_LIKELY(depth <= m->limit)) {
        const prof_node *y = &m->p->tree.nodes[node];
        n = prof_tree_child(m->out, m->map[depth - 1], m->key ? m->key[y->sym] : y->sym,
                            y->start);
        if (WD_UNLIKELY(n == PROF_NONE)) {
            m->ok = false;
            return false;
        }
    } else {
        n = m->map[m->limit];
    }
    m->map[depth] = n;
    return true;
}

/* Node `node` at `depth` is over: its calls and self ticks added to its out node. */
static inline void merge_close(merger *m, uint32_t node, uint32_t depth)
{
    const prof_node *y = &m->p->tree.nodes[node];
    prof_node *x = &m->out->nodes[m->map[depth]];
    if (WD_LIKELY(depth <= m->limit))
        x->calls += y->calls;
    x->t += y->t;
}

static bool merge_visit(void *ud, uint32_t node, uint32_t depth)
{
    merger *m = ud;
    if (!merge_open(m, node, depth))
        return false;
    merge_close(m, node, depth);
    return true;
}

/* Merges the subtree of `from` (in p's tree) under `to` in `out`. Nodes deeper than
 * max_depth (0: no limit) fold into their ancestor at max_depth. */
static bool merge_subtree(const wd_prof *p, wd_ctx *ctx, const uint32_t *key, uint32_t from,
                          prof_tree *out, uint32_t to, uint32_t max_depth)
{
    merger m = {.p = p, .ctx = ctx, .key = key, .out = out, .ok = true,
                .limit = max_depth != 0 ? max_depth : UINT32_MAX};
    if (!wd_grow(ctx, (void **)&m.map, &m.map_cap, sizeof *m.map, 64))
        return false;
    m.map[0] = to;
    walk(&p->tree, from, merge_visit, &m);
    wd_free(ctx, m.map);
    return m.ok;
}

bool prof_merge_runs(const wd_prof *p, wd_ctx *ctx, const uint32_t *key, uint32_t max_depth,
                     prof_tree *out)
{
    prof_tree_init(out, ctx);
    /* room for a share of the nodes (merged trees are smaller), grown when needed */
    uint32_t guess = p->tree.count < (1u << 16) ? p->tree.count / 2 + 16 : 1u << 15;
    uint32_t root = prof_tree_reserve(out, guess) ? prof_tree_new(out, PROF_NONE, 0, 0)
                                                  : PROF_NONE;
    if (root == PROF_NONE) {
        prof_tree_fini(out);
        return false;
    }
    for (uint32_t i = 0; i < p->runs.count; i++) {
        if (!merge_subtree(p, ctx, key, p->runs.data[i].root, out, root, max_depth)) {
            prof_tree_fini(out);
            return false;
        }
    }
    return true;
}

/* ---- a kernel run walked while it is applied ---- */

/* A pre-order walk of one run's subtree that follows the tree as the events grow it (the
 * stream's merge, below): nodes are appended in call order, so the nodes of a run already
 * there are final but for the open ones (on the profiler's stack), which may still get
 * children and whose self ticks still change. The walk visits a node when it finds it and
 * leaves it once it is closed and its subtree walked, and waits where the run may still
 * grow: after an open node's last child so far, or at an open node with none yet. */
enum { LW_VISIT, LW_KIDS, LW_SHUT, LW_LEFT, LW_OVER }; /* at: to visit, visited (children
                                                          walked or not: LW_SHUT), left; the
                                                          run walked */
enum { LW_MORE, LW_WAIT, LW_END };             /* lw_steps: budget spent, at the run's edge,
                                                  run walked */

typedef struct live_walk {
    uint32_t run, at, depth;
    uint8_t phase;
} live_walk;

/* The walk of run i from its root (visited: the root is not). */
static live_walk lw_start(const wd_prof *p, uint32_t i)
{
    return (live_walk){.run = i, .at = p->runs.data[i].root, .depth = 0, .phase = LW_KIDS};
}

/* Whether node n, at depth d of run i, is still open: its run is the one being applied and
 * it is on the stack (stack[0] the run's root). */
static inline bool lw_open(const wd_prof *p, uint32_t i, uint32_t n, uint32_t d)
{
    return p->in_run && i + 1 == p->runs.count && d < p->depth && p->stack[d].node == n;
}

/* Walks on: visit(ud, node, depth) when a node is reached (false: not its subtree, or a
 * failure the visitor keeps), leave(ud, node, depth) once it is final; at most `budget`
 * visits. */
static int lw_steps(const wd_prof *p, live_walk *w, uint32_t budget, visit_fn visit,
                    void (*leave)(void *, uint32_t, uint32_t), void *ud)
{
    const prof_node *nodes = p->tree.nodes;
    for (;;) {
        uint32_t x = w->at;
        switch (w->phase) {
        case LW_VISIT:
            if (budget == 0)
                return LW_MORE;
            budget--;
            w->phase = visit(ud, x, w->depth) ? LW_KIDS : LW_SHUT;
            continue;
        case LW_KIDS:
        case LW_SHUT:
            if (w->phase == LW_KIDS && nodes[x].first_child != PROF_NONE) {
                w->at = nodes[x].first_child;
                w->depth++;
                w->phase = LW_VISIT;
                continue;
            }
            if (lw_open(p, w->run, x, w->depth)) /* children may still come */
                return LW_WAIT;
            if (w->depth == 0) {
                w->phase = LW_OVER;
                return LW_END;
            }
            leave(ud, x, w->depth);
            w->phase = LW_LEFT;
            continue;
        case LW_OVER:
            return LW_END;
        default: /* LW_LEFT: the next sibling, or up once the parent is over */
            if (nodes[x].next_sibling != PROF_NONE) {
                w->at = nodes[x].next_sibling;
                w->phase = LW_VISIT;
                continue;
            }
            if (lw_open(p, w->run, nodes[x].parent, w->depth - 1))
                return LW_WAIT;
            w->at = nodes[x].parent;
            if (--w->depth == 0) {
                w->phase = LW_OVER;
                return LW_END;
            }
            leave(ud, w->at, w->depth);
            continue;
        }
    }
}

/* The runs merged as the SVG merges them (prof_write_svg_in), run after run while the kernel
 * runs (wd_prof_files_stream), so that the end only finishes the merge: on tx-kernel-no-verif
 * prof_merge_runs took 1.33 M of the 2.36 M instructions of the SVG, on the calling thread's
 * side of the end (wd_prof_files_write_ahead). */
typedef struct live_merge {
    wd_ctx ctx; /* the consumer's while the kernel runs, the calling thread's at the end */
    prof_tree out;
    merger m;
    uint32_t *groups; /* display groups of the symbols so far (m.key) */
    uint32_t syms;
    live_walk w;
    bool on;   /* made, and merging */
    bool over; /* failed, or given up (a calling-context tree renumbers the nodes) */
} live_merge;

static void lm_free(live_merge *lm)
{
    if (lm->on) {
        wd_free(&lm->ctx, lm->m.map);
        wd_free(&lm->ctx, lm->groups);
        prof_tree_fini(&lm->out);
        WD_ASSERT(lm->ctx.live == 0);
    }
    lm->on = false;
}

static void lm_leave(void *ud, uint32_t node, uint32_t depth)
{
    merger *m = ud;
    if (WD_LIKELY(m->ok)) /* else its visit may have failed: no out node */
        merge_close(m, node, depth);
}

static bool lm_visit(void *ud, uint32_t node, uint32_t depth)
{
    return merge_open(ud, node, depth);
}

/* Merges on, up to `budget` nodes (UINT32_MAX: all there is): true while there is more to
 * merge now. Gives up for good on a calling-context tree or a failure. */
static bool lm_slice(live_merge *lm, wd_prof *p, uint32_t max_depth, uint32_t budget)
{
    if (lm->over)
        return false;
    if (p->cct || p->status != WD_OK) {
        lm_free(lm);
        lm->over = true;
        return false;
    }
    if (!lm->on) {
        if (p->runs.count == 0)
            return false;
        wd_ctx_init(&lm->ctx);
        prof_tree_init(&lm->out, &lm->ctx);
        lm->m = (merger){.p = p, .ctx = &lm->ctx, .out = &lm->out, .limit = max_depth,
                         .ok = true};
        lm->on = true;
        if (!prof_tree_reserve(&lm->out, 1024) ||
            prof_tree_new(&lm->out, PROF_NONE, 0, 0) == PROF_NONE ||
            !wd_grow(&lm->ctx, (void **)&lm->m.map, &lm->m.map_cap, sizeof *lm->m.map, 64))
            lm->m.ok = false;
        else
            lm->m.map[0] = 0; /* the root every run merges into */
        lm->w = lw_start(p, 0);
    }
    if (lm->m.ok && p->syms.count != lm->syms) { /* a symbol's group is its first namesake */
        uint32_t *g = prof_display_groups_in(p, &lm->ctx);
        wd_free(&lm->ctx, lm->groups);
        lm->groups = g;
        lm->m.key = g;
        lm->syms = p->syms.count;
        lm->m.ok = g != NULL;
    }
    int st = LW_END;
    while (lm->m.ok) {
        st = lw_steps(p, &lm->w, budget, lm_visit, lm_leave, &lm->m);
        if (st != LW_END || lm->w.run + 1 >= p->runs.count)
            break;
        lm->w = lw_start(p, lm->w.run + 1);
    }
    if (!lm->m.ok) {
        lm_free(lm);
        lm->over = true;
        return false;
    }
    return st == LW_MORE;
}

/* The merge of every run, finished once the profile's tree is complete: NULL when there is
 * none (never made, or given up). */
static const prof_tree *lm_finish(live_merge *lm, wd_prof *p, uint32_t max_depth)
{
    if (!lm->on)
        return NULL;
    (void)lm_slice(lm, p, max_depth, UINT32_MAX);
    bool all = lm->on && lm->w.phase == LW_OVER && lm->w.run + 1 == p->runs.count;
    return all ? &lm->out : NULL;
}

/* ---- folded stacks, collapsed ---- */

/* The calling-context tree of every run merged by display name, its stacks collected,
 * sorted and merged. */
typedef struct folded {
    wd_prof *p;
    const prof_tree *tr;
    const uint64_t *tot;
    strtab names;
    uint32_t max_depth;
    stackbuf sb;
    bool oom;
    char **lines;
    uint64_t *counts;
    uint32_t count, cap, counts_cap;
} folded;

static bool collect_line(folded *x, uint64_t v)
{
    char *line = wd_strndup(x->p->ctx, x->sb.s, x->sb.len);
    if (line == NULL ||
        (x->count == x->cap && !wd_grow(x->p->ctx, (void **)&x->lines, &x->cap,
                                        sizeof *x->lines, (uint64_t)x->count + 1)) ||
        (x->count == x->counts_cap &&
         !wd_grow(x->p->ctx, (void **)&x->counts, &x->counts_cap, sizeof *x->counts,
                  (uint64_t)x->count + 1))) {
        wd_free(x->p->ctx, line);
        return false;
    }
    x->lines[x->count] = line;
    x->counts[x->count++] = v;
    return true;
}

static bool fold_visit(void *ud, uint32_t node, uint32_t depth)
{
    folded *x = ud;
    const prof_node *y = &x->tr->nodes[node];
    size_t n;
    const char *name = st_get(&x->names, y->sym, &n);
    if (x->oom || !sb_set(&x->sb, depth, name, n)) {
        x->oom = true;
        return false;
    }
    bool cut = depth >= x->max_depth;
    uint64_t v = cut ? x->tot[node] : y->t;
    if (v != 0 && !collect_line(x, v)) {
        x->oom = true;
        return false;
    }
    return !cut;
}

static int cmp_line(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

/* Sorts the collected lines (carrying their counts), merges equal stacks and writes them. */
static bool write_collected(folded *x, wbuf *w)
{
    uint32_t n = x->count;
    char **pairs = wd_alloc(x->p->ctx, ((size_t)n + 1) * sizeof *pairs);
    if (pairs == NULL)
        return false;
    /* Sort indices through the strings: keep the count next to each line in the string. */
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(x->lines[i]);
        char *s = wd_realloc(x->p->ctx, x->lines[i], len + 1 + sizeof(uint64_t));
        if (s == NULL) {
            wd_free(x->p->ctx, pairs);
            return false;
        }
        memcpy(s + len + 1, &x->counts[i], sizeof(uint64_t));
        x->lines[i] = s;
        pairs[i] = s;
    }
    qsort(pairs, n, sizeof *pairs, cmp_line);
    for (uint32_t i = 0; i < n;) {
        uint64_t sum = 0;
        uint32_t j = i;
        for (; j < n && strcmp(pairs[j], pairs[i]) == 0; j++) {
            uint64_t c;
            memcpy(&c, pairs[j] + strlen(pairs[j]) + 1, sizeof c);
            sum += c;
        }
        wb_str(w, pairs[i]);
        wb_char(w, ' ');
        wb_u64(w, sum);
        wb_char(w, '\n');
        i = j;
    }
    wd_free(x->p->ctx, pairs);
    return true;
}

static bool write_collapsed(wd_prof *p, wbuf *w, uint32_t max_depth)
{
    folded x = {.p = p, .max_depth = max_depth, .sb = {.ctx = p->ctx}};
    prof_tree merged;
    uint64_t *tot = NULL;
    int64_t *tns = NULL;
    uint32_t *groups = prof_display_groups(p);
    st_names(&x.names, p, p->ctx);
    if (groups == NULL || x.names.oom || !prof_merge_runs(p, p->ctx, groups, max_depth, &merged)) {
        wd_free(p->ctx, groups);
        st_free(&x.names);
        return false;
    }
    x.tr = &merged;
    bool ok = prof_totals(&merged, &tot, &tns);
    x.tot = tot;
    if (ok)
        walk(&merged, 0, fold_visit, &x);
    ok = ok && !x.oom && write_collected(&x, w);
    for (uint32_t i = 0; i < x.count; i++)
        wd_free(p->ctx, x.lines[i]);
    wd_free(p->ctx, x.lines);
    wd_free(p->ctx, x.counts);
    prof_tree_fini(&merged);
    wd_free(p->ctx, tot);
    wd_free(p->ctx, tns);
    wd_free(p->ctx, groups);
    st_free(&x.names);
    sb_free(&x.sb);
    return ok;
}

/* ---- time-ordered outputs ---- */

/* The time-ordered outputs are written in one walk of the tree: folded stacks (one line per
 * node, cut at max_depth), Chrome trace events and speedscope events; a NULL wbuf skips an
 * output. Each node's position on the timeline is computed once for both event files. */
typedef struct timeline {
    wd_prof *p;
    wd_ctx *ctx; /* every allocation (the writer may run on a thread of its own) */
    const prof_node *nodes;
    const uint64_t *tot;
    const int64_t *tns;
    wbuf *fw, *cw, *sw;         /* folded, Chrome, speedscope */
    uint64_t run_start;         /* the run's first tick */
    uint64_t offset;            /* where the run starts on the timeline (both event files) */
    uint64_t end;               /* where the runs written so far end */
    uint32_t runs;              /* runs written so far */
    uint32_t syms;              /* symbols the tables below cover */
    bool real;                  /* full tree: nodes where they ran */
    uint64_t *cursor;           /* synthetic layout: next free position per depth */
    uint64_t *open_end;         /* end position of the open node per depth (speedscope) */
    uint32_t *open_frame;
    uint32_t depth_cap, open_depth;
    uint32_t *groups;           /* speedscope: each symbol's display group (its first symbol) */
    uint32_t *group_frame;      /* speedscope: per symbol heading a group, its frame or NONE */
    uint32_t *frame_src;        /* speedscope: per frame, its symbol, or RUN_FRAME | run */
    uint32_t frames, frame_cap, group_cap;
    strtab names;               /* folded: display names */
    strtab cpre;                /* Chrome: per symbol, an event up to its start */
    strtab spre;                /* speedscope: per frame, an open event up to its time */
    stackbuf sb;                /* folded: the current stack */
    uint32_t max_depth;
    double unit;                /* the nodes' time unit (prof_ns): 0 once they are ns */
    uint64_t run_span;          /* the run being written: its span, its speedscope frame */
    uint32_t run_frame;
    uint32_t walk_root, walk_at, walk_depth; /* its walk: where it goes on (tl_run_walk) */
    bool walking;
    bool first;                 /* speedscope: no event yet */
    bool oom;
    bool with_time;
} timeline;

#define RUN_FRAME 0x80000000u

/* Where each run starts on the effective timeline (padding left out) and how long it is. */
static uint64_t run_span(const wd_prof *p, uint32_t i)
{
    wd_prof_run r;
    wd_prof_run_get(p, i, &r);
    const prof_run *x = &p->runs.data[i];
    uint64_t span = x->last - x->start;
    if (r.ticks > span)
        span = r.ticks;
    if (r.has_info && r.effective > span)
        span = r.effective;
    return span;
}

/* Makes room for depth + 1 in the per-depth arrays. */
static WD_NOINLINE bool grow_depth(timeline *t, uint32_t depth)
{
    uint32_t old = t->depth_cap, cap = old, cap2 = old, cap3 = old;
    if (!wd_grow(t->ctx, (void **)&t->cursor, &cap, sizeof *t->cursor, (uint64_t)depth + 2) ||
        !wd_grow(t->ctx, (void **)&t->open_end, &cap2, sizeof *t->open_end, cap) ||
        !wd_grow(t->ctx, (void **)&t->open_frame, &cap3, sizeof *t->open_frame, cap))
        return false;
    memset(t->cursor + old, 0, (size_t)(cap - old) * sizeof *t->cursor);
    t->depth_cap = cap;
    return true;
}

/* The begin position of `node` at `depth` from its run's start, for visitors called in
 * pre-order: where it ran (full tree), or after its earlier siblings (calling-context tree:
 * a node's calls laid out as one block, children first). */
static inline bool place(timeline *t, uint32_t node, uint32_t depth, uint64_t *begin)
{
    if (WD_UNLIKELY(depth + 1 >= t->depth_cap) && !grow_depth(t, depth)) {
        t->oom = true;
        return false;
    }
    if (t->real) {
        *begin = t->nodes[node].start - t->run_start;
    } else {
        *begin = t->cursor[depth - 1];
        t->cursor[depth - 1] += t->tot[node];
        t->cursor[depth] = *begin;
    }
    return true;
}

typedef struct self_sum {
    const prof_node *nodes;
    uint64_t sum;
} self_sum;

static bool add_self(void *ud, uint32_t node, uint32_t depth)
{
    self_sum *s = ud;
    (void)depth;
    s->sum += s->nodes[node].t;
    return true;
}

/* A node's total ticks: from the totals, or summed over its subtree when the timeline has
 * none (folded stacks written before the profile's figures: wd_prof_files_write_ahead). */
static uint64_t cut_total(const timeline *t, uint32_t node)
{
    if (t->tot != NULL)
        return t->tot[node];
    self_sum s = {t->nodes, t->nodes[node].t};
    walk(&t->p->tree, node, add_self, &s);
    return s.sum;
}

/* A folded line: the stack down to this node, then its self ticks (at max_depth, its total:
 * what is deeper counts for it). */
static inline void fold_line(timeline *t, uint32_t node, uint32_t depth)
{
    const prof_node *y = &t->nodes[node];
    if (WD_UNLIKELY(!sb_push(&t->sb, depth, &t->names, y->sym))) {
        t->oom = true;
        return;
    }
    uint64_t v = depth >= t->max_depth ? cut_total(t, node) : y->t;
    if (v == 0)
        return;
    wbuf *w = t->fw;
    if (WD_UNLIKELY(t->sb.len > sizeof w->b / 2)) {
        wb_bytes(w, t->sb.s, t->sb.len);
        wb_char(w, ' ');
        wb_u64(w, v);
        wb_char(w, '\n');
        return;
    }
    char *o = wb_reserve(w, t->sb.len + 28);
    memcpy(o, t->sb.s, t->sb.len);
    o += t->sb.len;
    *o++ = ' ';
    o = wp_u64(o, v);
    *o++ = '\n';
    wb_commit(w, o);
}

static inline void chrome_event(timeline *t, uint32_t node, uint64_t begin)
{
    const prof_node *y = &t->nodes[node];
    char *o = wb_entry(t->cw, &t->cpre, y->sym, 256);
    o = wp_u64(o, t->offset + begin);
    o = WP_LIT(o, ",\"dur\":");
    o = wp_u64(o, t->tot[node]);
    o = WP_LIT(o, ",\"pid\":1,\"tid\":1,\"args\":{\"self\":");
    o = wp_u64(o, y->t);
    o = WP_LIT(o, ",\"calls\":");
    o = wp_u64(o, y->calls);
    if (t->with_time) {
        o = WP_LIT(o, ",\"ns\":");
        o = wp_i64(o, t->tns[node]);
        o = WP_LIT(o, ",\"self_ns\":");
        o = wp_i64(o, prof_ns(t->unit, y->time));
    }
    o = WP_LIT(o, "}}");
    wb_commit(t->cw, o);
}

/* speedscope: an event of `frame` at `at` (the frame's prefix is an open event's; the
 * first event has no comma). */
static inline void ss_event(timeline *t, uint32_t frame, bool open, uint64_t at)
{
    size_t n, skip = t->first;
    const char *s = st_get(&t->spre, frame, &n);
    t->first = false;
    char *o = wb_reserve(t->sw, n + ST_SLACK + 28);
    memcpy(o, s + skip, ST_SLACK - 1); /* an entry is at most 48 bytes: see ss_head */
    if (!open)
        o[10 - skip] = 'C'; /* `,{"type":"O"`: the O */
    o = wp_u64(o + n - skip, at);
    *o++ = '}';
    wb_commit(t->sw, o);
}

/* speedscope: close the frames open at `depth` and below it. */
static inline void ss_close_to(timeline *t, uint32_t depth)
{
    while (t->open_depth >= depth && t->open_depth > 0) {
        uint32_t d = t->open_depth--;
        ss_event(t, t->open_frame[d], false, t->open_end[d]);
    }
}

/* speedscope: a new frame for `src` (a symbol heading its display group, or RUN_FRAME | run),
 * numbered in the order frames are first used; with its open event's prefix
 * `,{"type":"O","frame":N,"at":`. */
static WD_NOINLINE uint32_t ss_new_frame(timeline *t, uint32_t src)
{
    uint32_t f = t->frames;
    char *e = st_room(&t->spre, 48);
    if (e == NULL || (f == t->frame_cap && !wd_grow(t->ctx, (void **)&t->frame_src, &t->frame_cap,
                                                     sizeof *t->frame_src, (uint64_t)f + 1))) {
        t->oom = true;
        return 0;
    }
    char *b = e;
    e = WP_LIT(e, ",{\"type\":\"O\",\"frame\":");
    e = wp_u32(e, f);
    e = WP_LIT(e, ",\"at\":");
    t->spre.len += (size_t)(e - b);
    st_end(&t->spre);
    if (t->spre.oom) {
        t->oom = true;
        return 0;
    }
    t->frame_src[f] = src;
    if (!(src & RUN_FRAME))
        t->group_frame[src] = f;
    t->frames++;
    return f;
}

/* speedscope: the frame of symbol `sym` (its display group's). */
static inline uint32_t ss_frame(timeline *t, uint32_t sym)
{
    uint32_t g = t->groups[sym], f = t->group_frame[g];
    return WD_LIKELY(f != PROF_NONE) ? f : ss_new_frame(t, g);
}

static inline void ss_open(timeline *t, uint32_t node, uint32_t depth, uint64_t begin)
{
    begin += t->offset;
    ss_close_to(t, depth);
    uint32_t frame = ss_frame(t, t->nodes[node].sym);
    t->open_depth = depth;
    t->open_end[depth] = begin + t->tot[node];
    t->open_frame[depth] = frame;
    ss_event(t, frame, true, begin);
}

static bool tl_visit(void *ud, uint32_t node, uint32_t depth)
{
    timeline *t = ud;
    if (t->fw != NULL && depth <= t->max_depth)
        fold_line(t, node, depth);
    if (t->cw == NULL && t->sw == NULL) /* folded stacks only: no positions */
        return !t->oom && depth < t->max_depth;
    uint64_t begin;
    if (!place(t, node, depth, &begin))
        return false;
    if (t->cw != NULL)
        chrome_event(t, node, begin);
    if (t->sw != NULL)
        ss_open(t, node, depth, begin);
    return !t->oom;
}

/* Per symbol not yet in the table, a Chrome event up to its start:
 * `,\n{"name":NAME,"cat":KIND,"ph":"X","ts":`. */
static void chrome_prefixes(timeline *t)
{
    const wd_prof *p = t->p;
    for (uint32_t i = t->cpre.count; i < p->syms.count; i++) {
        const prof_sym *s = &p->syms.data[i];
        ST_LIT(&t->cpre, ",\n{\"name\":");
        st_json(&t->cpre, s->name);
        ST_LIT(&t->cpre, ",\"cat\":\"");
        const char *cat = wd_prof_kind_name((wd_prof_kind)s->kind);
        st_add(&t->cpre, cat, strlen(cat));
        ST_LIT(&t->cpre, "\",\"ph\":\"X\",\"ts\":");
        st_end(&t->cpre);
    }
}

/* The time unit: 1 tick = 1 ns. Perfetto reads `ts` and `dur` in ns when the file has
 * `"displayTimeUnit":"ns"` (exactly so) in its first chunk, else in us: hence at the head, so
 * that its SI prefixes read as tick counts (ns: ticks, us: thousands, ms: millions, s:
 * billions). In us, 50 M ticks showed as "50 s". Viewers that keep `ts` in us (the legacy
 * chrome://tracing) show 1 tick as 1 us; otherData.time_unit says which. */
static void chrome_head(wbuf *w, const wd_prof *p, const wd_prof_out *o)
{
    WB_LIT(w, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"time_unit\":\"1 ns = 1 tick\","
              "\"time_axis\":\"ticks, padding left out; ts and dur are ticks\","
              "\"tick_model\":");
    wb_json(w, o->tick_model ? o->tick_model : "");
    wb_str(w, p->cct ? ",\"mode\":\"cct\"},\n" : ",\"mode\":\"full\"},\n");
    WB_LIT(w, "\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
              "\"tid\":1,\"args\":{\"name\":");
    char title[512];
    snprintf(title, sizeof title, "wasmdbg: %s (ticks: 1 ns = 1 tick, %s)",
             o->kernel ? o->kernel : "kernel", o->tick_model ? o->tick_model : "?");
    wb_json(w, title);
    WB_LIT(w, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
              "\"args\":{\"name\":\"kernel runs\"}}");
}

/* A kernel run's name in the event files: level L run I. */
static void wb_run_name(wbuf *w, const wd_prof_run *r)
{
    WB_LIT(w, "level ");
    wb_u64(w, r->level);
    WB_LIT(w, " run ");
    wb_u64(w, r->index);
}

static void chrome_run(wbuf *w, const wd_prof_run *r, uint64_t offset, uint64_t span)
{
    WB_LIT(w, ",\n{\"name\":\"");
    wb_run_name(w, r);
    WB_LIT(w, "\",\"cat\":\"run\",\"ph\":\"X\",\"ts\":");
    wb_u64(w, offset);
    WB_LIT(w, ",\"dur\":");
    wb_u64(w, span);
    WB_LIT(w, ",\"pid\":1,\"tid\":1,\"args\":{\"ticks\":");
    wb_u64(w, r->ticks);
    WB_LIT(w, ",\"start_tick\":");
    wb_u64(w, r->start);
    WB_LIT(w, "}}");
}

/* speedscope's frames are display names (symbols of one name share one), and a frame per
 * kernel run (`level L run I`), numbered as first used. Its head, and the head of the one
 * profile, all runs on one timeline; the frames and the timeline's end follow the events
 * (tl_end), so that runs can be written as they end (wd_prof_files_stream). */
static void ss_head(timeline *t, const wd_prof_out *o)
{
    wbuf *w = t->sw;
    WB_LIT(w, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
              "\"exporter\":\"wasmdbg\",\"name\":");
    char title[512];
    snprintf(title, sizeof title, "%s (ticks, %s)", o->kernel ? o->kernel : "kernel",
             o->tick_model ? o->tick_model : "?");
    wb_json(w, title);
    WB_LIT(w, ",\n\"profiles\":[\n{\"type\":\"evented\",\"name\":\"" WD_PROF_ALL_RUNS
              "\",\"unit\":\"none\",\"startValue\":0,\"events\":[");
    t->first = true;
}

static void ss_tail(timeline *t)
{
    wd_prof *p = t->p;
    wbuf *w = t->sw;
    WB_LIT(w, "],\"endValue\":");
    wb_u64(w, t->end);
    WB_LIT(w, "}\n],\n\"shared\":{\"frames\":[");
    for (uint32_t i = 0; i < t->frames; i++) {
        uint32_t src = t->frame_src[i];
        if (i)
            wb_char(w, ',');
        WB_LIT(w, "\n{\"name\":");
        if (src & RUN_FRAME) {
            wd_prof_run r;
            wd_prof_run_get(p, src & ~RUN_FRAME, &r);
            wb_char(w, '"');
            wb_run_name(w, &r);
            wb_char(w, '"');
        } else {
            wb_json(w, p->syms.data[src].name);
        }
        wb_char(w, '}');
    }
    WB_LIT(w, "]}}\n");
}

/* The tables of the symbols made since the last call: display names (folded), event
 * prefixes (Chrome), display groups (speedscope). False on OOM. */
static bool tl_syms(timeline *t)
{
    wd_prof *p = t->p;
    uint32_t n = p->syms.count;
    if (n == t->syms)
        return !t->oom;
    if (t->fw != NULL)
        st_names_more(&t->names, p);
    if (t->cw != NULL)
        chrome_prefixes(t);
    if (t->sw != NULL) { /* a group is headed by its first symbol: new ones join or head one */
        uint32_t *groups = prof_display_groups_in(p, t->ctx), old = t->group_cap;
        if (groups == NULL || !wd_grow(t->ctx, (void **)&t->group_frame, &t->group_cap,
                                       sizeof *t->group_frame, (uint64_t)n + 1)) {
            wd_free(t->ctx, groups);
            t->oom = true;
            return false;
        }
        for (uint32_t i = old; i < t->group_cap; i++)
            t->group_frame[i] = PROF_NONE;
        wd_free(t->ctx, t->groups);
        t->groups = groups;
    }
    t->syms = n;
    t->oom = t->oom || t->names.oom || t->cpre.oom;
    return !t->oom;
}

/* A timeline writing to the outputs whose wbuf is given, with their heads. */
static void tl_init(timeline *t, wd_prof *p, wd_ctx *ctx, const wd_prof_out *o, wbuf *fw,
                    wbuf *cw, wbuf *sw, uint32_t max_depth)
{
    *t = (timeline){.p = p, .ctx = ctx, .fw = fw, .cw = cw, .sw = sw, .real = !p->cct,
                    .with_time = o != NULL && o->with_time, .max_depth = max_depth,
                    .sb = {.ctx = ctx}};
    st_init(&t->names, ctx, fw != NULL ? p->syms.count : 0);
    st_init(&t->cpre, ctx, cw != NULL ? p->syms.count : 0);
    st_init(&t->spre, ctx, 64);
    t->oom = t->names.oom || t->cpre.oom || t->spre.oom;
    if (cw != NULL)
        chrome_head(cw, p, o);
    if (sw != NULL)
        ss_head(t, o);
}

/* Begins run i, the next one: the run's head in the Chrome trace, its frame opened in
 * speedscope; tl_run_walk writes its nodes and closes it. They read the symbols' tables
 * (tl_syms) and the totals of the run's nodes, t->tot and t->tns, over t->nodes. */
static void tl_run_begin(timeline *t, uint32_t i)
{
    wd_prof *p = t->p;
    uint64_t span = 0, offset = t->end; /* folded stacks alone read no run figures */
    t->run_frame = 0;
    if (t->cw != NULL || t->sw != NULL) {
        span = run_span(p, i);
        if (t->cw != NULL) {
            wd_prof_run r;
            wd_prof_run_get(p, i, &r);
            chrome_run(t->cw, &r, offset, span);
        }
        if (t->sw != NULL) {
            t->run_frame = ss_new_frame(t, RUN_FRAME | i);
            ss_event(t, t->run_frame, true, offset);
        }
    }
    t->run_start = p->runs.data[i].start;
    t->offset = offset;
    t->run_span = span;
    t->open_depth = 0;
    if (t->cursor != NULL)
        t->cursor[0] = 0;
    t->walk_root = p->runs.data[i].root;
    t->walk_at = p->tree.nodes[t->walk_root].first_child;
    t->walk_depth = 1;
    t->walking = true;
}

/* Visits up to `budget` more nodes of the run begun (walk_steps); at its end closes the run.
 * False once the run is written. */
static bool tl_run_walk(timeline *t, uint32_t budget)
{
    if (walk_steps(&t->p->tree, t->walk_root, &t->walk_at, &t->walk_depth, budget, tl_visit, t) &&
        !t->oom)
        return true;
    if (t->sw != NULL) {
        ss_close_to(t, 1);
        ss_event(t, t->run_frame, false, t->offset + t->run_span);
    }
    t->end = t->offset + t->run_span;
    t->runs++;
    t->walking = false;
    return false;
}

/* Writes run i, the next one, whole. */
static void tl_run(timeline *t, uint32_t i)
{
    tl_run_begin(t, i);
    while (tl_run_walk(t, UINT32_MAX))
        ;
}

/* The tails: after the last run. */
static void tl_end(timeline *t)
{
    if (t->cw != NULL)
        WB_LIT(t->cw, "\n]}\n");
    if (t->sw != NULL)
        ss_tail(t);
}

static void tl_free(timeline *t)
{
    wd_free(t->ctx, t->cursor);
    wd_free(t->ctx, t->open_end);
    wd_free(t->ctx, t->open_frame);
    wd_free(t->ctx, t->groups);
    wd_free(t->ctx, t->group_frame);
    wd_free(t->ctx, t->frame_src);
    st_free(&t->names);
    st_free(&t->cpre);
    st_free(&t->spre);
    sb_free(&t->sb);
}

/* Writes the time-ordered outputs whose wbuf is given: folded stacks (fw), Chrome trace
 * events (cw), speedscope (sw). Allocates from ctx only; reads p, which must be over
 * (p->fin) when this runs beside other writers, or for folded stacks alone (`early`) have
 * its tree complete (wd_prof_end_tree): then no totals are read but those summed here. False
 * on OOM. */
static bool tl_write(wd_prof *p, wd_ctx *ctx, const wd_prof_out *o, wbuf *fw, wbuf *cw,
                     wbuf *sw, uint32_t max_depth, bool early)
{
    timeline t;
    WD_ASSERT(!early || (cw == NULL && sw == NULL));
    tl_init(&t, p, ctx, o, fw, cw, sw, max_depth);
    t.nodes = p->tree.nodes;
    bool ok = (early || prof_tree_totals(p, &t.tot, &t.tns)) && tl_syms(&t);
    for (uint32_t i = 0; ok && i < p->runs.count; i++) {
        tl_run(&t, i);
        ok = !t.oom;
    }
    if (ok)
        tl_end(&t);
    tl_free(&t);
    return ok;
}

/* One of the files a walk of the timeline writes (TL_FOLDED, TL_CHROME, TL_SPEEDSCOPE),
 * or the collapsed folded stacks, to f. */
enum { TL_FOLDED, TL_CHROME, TL_SPEEDSCOPE, TL_COLLAPSED };

static wd_status write_one(wd_prof *p, FILE *f, const wd_prof_out *o, int which,
                           uint32_t max_depth, wd_error *err)
{
    wbuf *w = new_wbuf(p->ctx, f);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    bool ok = which == TL_COLLAPSED
                  ? write_collapsed(p, w, max_depth)
                  : tl_write(p, p->ctx, o, which == TL_FOLDED ? w : NULL,
                             which == TL_CHROME ? w : NULL, which == TL_SPEEDSCOPE ? w : NULL,
                             max_depth, false);
    return end_wbuf(p->ctx, w, ok, err);
}

wd_status wd_prof_write_folded(wd_prof *p, FILE *f, bool collapsed, uint32_t max_depth,
                               wd_error *err)
{
    return write_one(p, f, NULL, collapsed ? TL_COLLAPSED : TL_FOLDED,
                     prof_depth(max_depth), err);
}

wd_status wd_prof_write_chrome(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    return write_one(p, f, o, TL_CHROME, 0, err);
}

wd_status wd_prof_write_speedscope(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    return write_one(p, f, o, TL_SPEEDSCOPE, 0, err);
}

/* ---- the machine profile ---- */

/* A small JSON emitter: containers are laid out one member per line (indented by two), or
 * on one line when opened `flat`. */
typedef struct jw {
    wbuf *w;
    int depth;
    int flat_from; /* depth from which containers are on one line (INT_MAX: none) */
    bool first[64];
    const strtab *heads; /* function_heads */
} jw;

static void jw_indent(jw *j)
{
    wb_char(j->w, '\n');
    for (int i = 0; i < j->depth; i++)
        wb_bytes(j->w, "  ", 2);
}

static void jw_sep(jw *j)
{
    if (j->depth == 0)
        return;
    bool first = j->first[j->depth];
    j->first[j->depth] = false;
    if (j->depth >= j->flat_from) {
        if (!first)
            wb_bytes(j->w, ", ", 2);
        return;
    }
    if (!first)
        wb_char(j->w, ',');
    jw_indent(j);
}

/* Keys are this file's literals: plain ASCII, nothing to escape. */
static void jw_key(jw *j, const char *k)
{
    jw_sep(j);
    size_t n = strlen(k);
    if (WD_UNLIKELY(n > 64)) {
        wb_json(j->w, k);
        WB_LIT(j->w, ": ");
        return;
    }
    char *o = wb_reserve(j->w, n + 4);
    *o++ = '"';
    memcpy(o, k, n);
    o += n;
    o = WP_LIT(o, "\": ");
    wb_commit(j->w, o);
}

static void jw_open(jw *j, char c, bool flat)
{
    wb_char(j->w, c);
    if (j->depth < 62)
        j->depth++;
    j->first[j->depth] = true;
    if (flat && j->flat_from > j->depth)
        j->flat_from = j->depth;
}

static void jw_close(jw *j, char c)
{
    bool empty = j->first[j->depth], flat = j->depth >= j->flat_from;
    if (j->flat_from == j->depth)
        j->flat_from = 1 << 30;
    j->depth--;
    if (!empty && !flat)
        jw_indent(j);
    wb_char(j->w, c);
}

/* Values: inside an array they need their separator; after a key they do not. */
static void jw_val(jw *j, bool after_key)
{
    if (!after_key)
        jw_sep(j);
}

static void jk_str(jw *j, const char *k, const char *v)
{
    jw_key(j, k);
    wb_json(j->w, v);
}

static void jk_u64(jw *j, const char *k, uint64_t v)
{
    jw_key(j, k);
    wb_u64(j->w, v);
}

static void jk_i64(jw *j, const char *k, int64_t v)
{
    jw_key(j, k);
    wb_i64(j->w, v);
}

static void jk_bool(jw *j, const char *k, bool v)
{
    jw_key(j, k);
    wb_str(j->w, v ? "true" : "false");
}

static void jk_open(jw *j, const char *k, char c, bool flat)
{
    jw_key(j, k);
    jw_open(j, c, flat);
}

static void phases_json(jw *j, const char *key, const uint64_t *ph, const int64_t *ns,
                        const bool *has)
{
    jk_open(j, key, '{', true);
    for (int k = 0; k < WD_PROF_PH_COUNT; k++) {
        if (has != NULL && !has[k])
            continue;
        if (ns != NULL)
            jk_i64(j, wd_prof_phase_names[k], ns[k]);
        else
            jk_u64(j, wd_prof_phase_names[k], ph[k]);
    }
    jw_close(j, '}');
}

/* Per symbol, the start of its function entry: name, raw name when it is shown otherwise,
 * kind, index (made once: functions appear in every run's list). */
static void function_heads(strtab *t, const wd_prof *p)
{
    st_init(t, p->ctx, p->syms.count);
    for (uint32_t i = 0; i < p->syms.count; i++) {
        const prof_sym *s = &p->syms.data[i];
        ST_LIT(t, "\"name\": ");
        st_json(t, s->name);
        if (strcmp(s->raw, s->name) != 0) {
            ST_LIT(t, ", \"raw\": ");
            st_json(t, s->raw);
        }
        ST_LIT(t, ", \"kind\": \"");
        const char *kind = wd_prof_kind_name((wd_prof_kind)s->kind);
        st_add(t, kind, strlen(kind));
        ST_LIT(t, "\"");
        char *o = st_room(t, 32);
        if (o != NULL && s->kind != WD_PROF_INTERNAL && s->kind != WD_PROF_SECTION) {
            char *b = o;
            o = WP_LIT(o, ", \"index\": ");
            o = wp_u32(o, s->idx);
            t->len += (size_t)(o - b);
        }
        st_end(t);
    }
}

/* A function's figures inside its (flat) object, as jk_ calls would write them: name, raw
 * name when it is shown otherwise, kind, index (its head), ticks, calls, times. */
static void function_json(wbuf *w, const strtab *heads, const wd_prof_func *f, bool with_time)
{
    char *o = wb_entry(w, heads, f->sym, 200);
    o = WP_LIT(o, ", \"self\": ");
    o = wp_u64(o, f->self);
    o = WP_LIT(o, ", \"total\": ");
    o = wp_u64(o, f->total);
    o = WP_LIT(o, ", \"calls\": ");
    o = wp_u64(o, f->calls);
    if (with_time) {
        o = WP_LIT(o, ", \"self_ns\": ");
        o = wp_i64(o, f->self_ns);
        o = WP_LIT(o, ", \"total_ns\": ");
        o = wp_i64(o, f->total_ns);
    }
    wb_commit(w, o);
}

/* Per run, the functions with the most total ticks (all of them over all runs). */
#define RUN_FUNCTIONS 50u

static bool functions_json(jw *j, wd_prof *p, uint32_t run, bool with_time)
{
    wd_prof_func *fs;
    uint32_t n;
    wd_error e;
    wd_error_clear(&e);
    if (wd_prof_functions(p, run, true, &fs, &n, &e) != WD_OK)
        return false;
    uint32_t shown = run != UINT32_MAX && n > RUN_FUNCTIONS ? RUN_FUNCTIONS : n;
    if (shown < n)
        jk_u64(j, "functions_not_shown", n - shown);
    jk_open(j, "functions", '[', false);
    /* Each entry as jw_val, jw_open (flat), its members and jw_close write it: a line of
     * its own (after a comma but the first), indented by the array's depth. */
    char indent[2 * 64 + 2] = ",\n";
    int d = j->depth < 62 ? j->depth : 62;
    memset(indent + 2, ' ', (size_t)(2 * d));
    for (uint32_t i = 0; i < shown; i++) {
        wb_bytes(j->w, indent + (i == 0), (size_t)(2 * d + 2 - (i == 0)));
        wb_char(j->w, '{');
        function_json(j->w, j->heads, &fs[i], with_time);
        wb_char(j->w, '}');
    }
    if (shown > 0)
        j->first[j->depth] = false;
    jw_close(j, ']');
    wd_free(p->ctx, fs);
    return true;
}

static bool run_json(jw *j, wd_prof *p, uint32_t i, const wd_prof_out *o)
{
    wd_prof_run r;
    wd_prof_run_get(p, i, &r);
    jw_val(j, false);
    jw_open(j, '{', false);
    jk_u64(j, "index", r.index);
    jk_u64(j, "start", r.start);
    /* ticks: the run's effective ticks, as everywhere (docs/ticks.md); full_execution: the
     * reference profiler's sum of the phases, what the call tree holds */
    jk_u64(j, "ticks", r.has_info ? r.effective : r.ticks);
    jk_u64(j, "full_execution", r.ticks);
    phases_json(j, "phases", r.phase, NULL, r.has_phase);
    jk_u64(j, "calls", r.calls);
    if (o->with_time) {
        phases_json(j, "phases_ns", NULL, r.phase_ns, r.has_phase);
        jk_i64(j, "ns", r.ns);
        if (r.has_info) /* the PVM's own measure of the run, by the monotonic clock */
            jk_i64(j, "wall_ns", r.wall_ns);
    }
    if (r.has_info) {
        jk_str(j, "outcome", wd_prof_outcome_name(r.outcome));
        jk_bool(j, "reboot", r.reboot);
        if (r.reason[0] != '\0')
            jk_str(j, "reason", r.reason);
        if (r.frame_count > 0) { /* as `run --json`'s: {function, func_idx, offset[, file, line]} */
            jk_open(j, "backtrace", '[', false);
            for (uint32_t k = 0; k < r.frame_count; k++) {
                const wd_prof_frame *f = &r.frames[k];
                jw_val(j, false);
                jw_open(j, '{', true);
                jk_str(j, "function", f->function);
                jk_u64(j, "func_idx", f->func_idx);
                jk_u64(j, "offset", f->offset);
                if (f->file != NULL) {
                    jk_str(j, "file", f->file);
                    jk_u64(j, "line", f->line);
                }
                jw_close(j, '}');
            }
            jw_close(j, ']');
            if (r.frames_more > 0)
                jk_u64(j, "backtrace_more", r.frames_more);
        }
    }
    if (r.stopped)
        jk_u64(j, "stopped_at", r.stop_tick);
    jk_bool(j, "consistent", !r.inconsistent);
    bool ok = functions_json(j, p, i, o->with_time);
    jw_close(j, '}');
    return ok;
}

typedef struct sums {
    uint64_t ticks, eff, phases[WD_PROF_PH_COUNT];
} sums;

static void sum_runs(wd_prof *p, sums *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < p->runs.count; i++) {
        wd_prof_run r;
        wd_prof_run_get(p, i, &r);
        t->ticks += r.ticks;
        t->eff += r.has_info ? r.effective : r.ticks;
        for (int k = 0; k < WD_PROF_PH_COUNT; k++)
            t->phases[k] += r.phase[k];
    }
}

static bool levels_json(jw *j, wd_prof *p, const wd_prof_out *o)
{
    bool ok = true;
    jk_open(j, "levels", '[', false);
    for (uint32_t i = 0; i < p->runs.count;) {
        uint32_t level = p->runs.data[i].level, end = i;
        uint64_t lticks = 0, lfull = 0, lph[WD_PROF_PH_COUNT] = {0};
        for (; end < p->runs.count && p->runs.data[end].level == level; end++) {
            wd_prof_run r;
            wd_prof_run_get(p, end, &r);
            lticks += r.has_info ? r.effective : r.ticks;
            lfull += r.ticks;
            for (int k = 0; k < WD_PROF_PH_COUNT; k++)
                lph[k] += r.phase[k];
        }
        jw_val(j, false);
        jw_open(j, '{', false);
        jk_u64(j, "level", level);
        jk_u64(j, "ticks", lticks);
        jk_u64(j, "full_execution", lfull);
        phases_json(j, "phases", lph, NULL, NULL);
        jk_open(j, "runs", '[', false);
        for (; i < end; i++)
            ok = run_json(j, p, i, o) && ok;
        jw_close(j, ']');
        jw_close(j, '}');
    }
    jw_close(j, ']');
    return ok;
}

static bool hot_json(jw *j, wd_prof *p)
{
    wd_prof_hot *h;
    uint32_t n;
    wd_error e;
    wd_error_clear(&e);
    if (wd_prof_hot_steps(p, 0.02, 20, &h, &n, &e) != WD_OK)
        return false;
    jk_open(j, "hot_steps", '[', false);
    for (uint32_t i = 0; i < n; i++) {
        const prof_sym *w = &p->syms.data[h[i].what];
        jw_val(j, false);
        jw_open(j, '{', true);
        jk_str(j, "what", w->name);
        jk_str(j, "kind", wd_prof_kind_name((wd_prof_kind)w->kind));
        if (h[i].in != PROF_NONE)
            jk_str(j, "in", p->syms.data[h[i].in].name);
        jk_u64(j, "ticks", h[i].ticks);
        jk_u64(j, "operand", h[i].operand);
        jk_u64(j, "level", h[i].level);
        jk_u64(j, "run", h[i].run);
        jk_u64(j, "count", h[i].count);
        jk_u64(j, "total", h[i].total);
        char share[32];
        snprintf(share, sizeof share, "%.6f", h[i].share);
        jw_key(j, "share");
        wb_str(j->w, share);
        jw_close(j, '}');
    }
    jw_close(j, ']');
    wd_free(p->ctx, h);
    return true;
}

static bool write_json(wd_prof *p, const wd_prof_out *o, wbuf *w)
{
    wd_prof_stats st;
    wd_prof_get_stats(p, &st);
    strtab heads;
    function_heads(&heads, p);
    if (heads.oom) {
        st_free(&heads);
        return false;
    }
    jw jj = {.w = w, .flat_from = 1 << 30, .heads = &heads}, *j = &jj;
    jw_open(j, '{', false);
    jk_str(j, "format", "wasmdbg-profile");
    jk_u64(j, "version", 1);
    jk_str(j, "kernel", o->kernel ? o->kernel : "");
    jk_str(j, "tick_model", o->tick_model ? o->tick_model : "");
    if (o->pvm_version)
        jk_str(j, "pvm_version", o->pvm_version);
    if (o->timestamp)
        jk_str(j, "timestamp", o->timestamp);
    if (o->timestamp_ns != 0)
        jk_u64(j, "timestamp_ns", o->timestamp_ns);
    jk_str(j, "mode", wd_prof_mode_name(st.mode));
    jk_str(j, "mode_asked", wd_prof_mode_name(st.asked));
    if (st.switched)
        jk_u64(j, "switched_at_call", st.switched_at);
    jk_bool(j, "with_time", o->with_time);
    sums t;
    sum_runs(p, &t);
    jk_u64(j, "ticks", t.eff);
    jk_u64(j, "full_execution", t.ticks);
    jk_u64(j, "ticks_with_padding", st.end_ticks);
    jk_u64(j, "padding", st.end_ticks > t.eff ? st.end_ticks - t.eff : 0);
    phases_json(j, "phases", t.phases, NULL, NULL);
    jk_u64(j, "calls", st.calls);
    jk_u64(j, "nodes", st.nodes);
    jk_u64(j, "kernel_runs", p->runs.count);
    bool ok = levels_json(j, p, o);
    ok = functions_json(j, p, UINT32_MAX, o->with_time) && ok;
    ok = hot_json(j, p) && ok;
    if (o->base != NULL) {
        static const char *const keys[WD_PROF_FILE_COUNT] = {"folded", "svg", "trace",
                                                             "speedscope", "json"};
        jk_open(j, "files", '{', false);
        for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
            char name[1024];
            wd_concat(name, sizeof name,
                      (const char *const[]){o->base, wd_prof_file_ext[k], NULL});
            jk_str(j, keys[k], name);
        }
        jk_str(j, "folded_order", o->collapsed ? "collapsed" : "time");
        jw_close(j, '}');
    }
    jw_close(j, '}');
    wb_char(w, '\n');
    st_free(&heads);
    return ok;
}

wd_status wd_prof_write_json(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    wbuf *w = wd_alloc(p->ctx, sizeof *w);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    wb_init(w, f);
    bool ok = write_json(p, o, w);
    wb_flush(w);
    bool failed = w->failed;
    wd_free(p->ctx, w);
    if (!ok)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (failed || ferror(f))
        return wd_fail(err, WD_ERR_IO, 0, "write error: %s", strerror(errno));
    return WD_OK;
}

/* ---- all files ---- */

typedef struct out_file {
    FILE *f;
    const char *path;
    wd_status st;
    wd_error err;
    bool done; /* written and closed already (wd_prof_files_write_ahead, _events) */
} out_file;

/* Cuts the file of stream f where it was last written to: the zeros written ahead of its
 * writers (fill_ahead) end there. False on failure, errno set. */
static bool cut_here(FILE *f)
{
    int fd = fileno(f);
    off_t at = lseek(fd, 0, SEEK_CUR);
    return at >= 0 && ftruncate(fd, at) == 0;
}

/* Closes a stream of file `path`, cut where it was written to; a failure of either becomes
 * *st unless it had one. */
static void close_cut(FILE *f, const char *path, wd_status *st, wd_error *err)
{
    bool cut = cut_here(f);
    if ((fclose(f) != 0 || !cut) && *st == WD_OK)
        *st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", path, strerror(errno));
}

/* Closes x's stream; a failure to is its status unless it had one. */
static void close_stream(out_file *x)
{
    close_cut(x->f, x->path, &x->st, &x->err);
    x->f = NULL;
}

/* A stream on descriptor fd (unbuffered: the writers buffer, each full buffer is one write),
 * or NULL with x's status set. */
static FILE *open_stream(out_file *x, int fd)
{
    x->f = fdopen(fd, "w");
    if (x->f == NULL)
        x->st = wd_fail(&x->err, WD_ERR_IO, 0, "%s: cannot write: %s", x->path, strerror(errno));
    else
        setvbuf(x->f, NULL, _IONBF, 0);
    return x->f;
}

/* The event files (Chrome trace and speedscope) from one walk of the tree: what the writer
 * thread does while the calling thread writes the others (about as much work, measured on
 * tx-kernel-no-verif). It allocates from its own context (a wd_ctx is not thread-safe) and
 * only reads the profile, which nothing changes once it is over (p->fin). */
typedef struct tl_job {
    wd_prof *p;
    const wd_prof_out *o;
    out_file *files;
    wd_ctx *ctx; /* &own on the thread, p->ctx inline */
    wd_ctx own;
} tl_job;

static void *tl_job_run(void *arg)
{
    tl_job *j = arg;
    out_file *co = &j->files[WD_PROF_FILE_TRACE], *so = &j->files[WD_PROF_FILE_SPEEDSCOPE];
    wbuf *cw = new_wbuf(j->ctx, co->f), *sw = new_wbuf(j->ctx, so->f);
    bool ok = cw != NULL && sw != NULL && tl_write(j->p, j->ctx, j->o, NULL, cw, sw, 0, false);
    out_file *outs[2] = {co, so};
    wbuf *ws[2] = {cw, sw};
    for (int k = 0; k < 2; k++) {
        if (ws[k] != NULL)
            outs[k]->st = end_wbuf(j->ctx, ws[k], ok, &outs[k]->err);
        else
            outs[k]->st = wd_fail(&outs[k]->err, WD_ERR_NOMEM, 0, "out of memory");
    }
    return NULL;
}

/* Runs the job on a thread of its own; false when there is none (the job was not run). */
static bool tl_job_start(tl_job *j, wd_thread *th)
{
    wd_ctx_init(&j->own);
    j->ctx = &j->own;
    if (wd_thread_start(th, tl_job_run, j))
        return true;
    j->ctx = j->p->ctx;
    return false;
}

static void tl_job_join(tl_job *j, wd_thread *th)
{
    wd_thread_join(th);
    WD_ASSERT(j->own.live == 0); /* the job frees what it allocates */
    (void)j;
}

/* Names tried for a profile's files: BASE, then BASE-2 up to BASE-MAX_SUFFIX. */
#define MAX_SUFFIX 9999u
/* Room for "-N" (any uint32_t N) and its NUL at the end of a base name. */
#define SUFFIX_ROOM 12u

/* The time-ordered files (folded stacks, Chrome trace, speedscope: stream_files) written run
 * by run on the feed's consumer thread as the kernel runs (wd_prof_files_stream), on dup()s
 * of their descriptors, by two timelines kept at one run: the folded stacks' (tl[0]), which
 * the calling thread finishes at the end, and the event files' (tl[1]), which the consumer
 * finishes. Each timeline has a context of its own: the two threads use them in turn. `on`
 * and `off` change only before the profile ends. */
typedef struct tl_stream {
    wd_ctx ctx[2];
    timeline tl[2];
    bool made[2]; /* tl[k] is (its files not closed yet) */
    wbuf *w[3];
    FILE *f[3];
    bool on;  /* the files hold the runs the timelines wrote */
    bool off; /* not (any more): written at the end, as without a stream */
} tl_stream;

static const int stream_files[3] = {WD_PROF_FILE_FOLDED, WD_PROF_FILE_TRACE,
                                    WD_PROF_FILE_SPEEDSCOPE};
/* Timeline k writes stream_files[i] for k <= i < stream_files_end[k]: the folded stacks (0),
 * the Chrome trace and speedscope (1). */
static const int stream_files_end[2] = {1, 3};

/* Files named ahead, maybe created ahead and partly written ahead (output.h). The paths,
 * DIR/BASE.EXT, are packed after the struct: five of 4 KiB each took a page fault apiece
 * (counter). Each has room for a suffix, and so has the base. */
struct wd_prof_files {
    bool created;
    bool fixed;   /* o->fixed_base: no suffix */
    wd_status st; /* of the creation */
    wd_error err;
    int fds[WD_PROF_FILE_COUNT];
    out_file early[WD_PROF_FILE_COUNT]; /* the files written ahead (done), their outcome */
    /* the event files' job (wd_prof_files_events_setup), and how to wait for it when another
     * thread took it (wd_prof_files_events_taken) */
    wd_prof *p;
    wd_prof_out o;
    void (*join)(void *);
    void *join_arg;
    tl_stream s;
    live_merge lm; /* the SVG's merge of the runs, by the consumer while the kernel runs */
    uint64_t filled[3]; /* stream_files[i]: zeros written up to there (fill_ahead) */
    uint64_t fill_cap;  /* no zeros past it (set when the stream starts) */
    const char *dir, *asked; /* copies of o->dir and o->base */
    char *base;              /* asked, or asked-N once created */
    char *paths[WD_PROF_FILE_COUNT];
    char names[];
};

/* Names the files after base `asked` with suffix n (none when n is 1). */
static void name_files(wd_prof_files *x, uint32_t n)
{
    size_t b = strlen(x->asked);
    memcpy(x->base, x->asked, b + 1);
    if (n > 1)
        snprintf(x->base + b, SUFFIX_ROOM, "-%u", n);
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++)
        wd_concat(x->paths[k], strlen(x->dir) + strlen(x->base) + strlen(wd_prof_file_ext[k]) + 2,
                  (const char *const[]){x->dir, "/", x->base, wd_prof_file_ext[k], NULL});
}

/* Creates the files exclusively (O_EXCL: never one of another profile, which a run started
 * in the same millisecond names alike), each as a descriptor in x->fds[k]. The first file
 * reserves the name: a run that finds it taken tries the next, so that a profile's files
 * share their base. Returns 0, or the errno of the file that could not be made, and then
 * removes the others made (only those: their names were free). System calls only. */
static int create_set(wd_prof_files *x, int *failed)
{
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        x->fds[k] = open(x->paths[k], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (x->fds[k] < 0) {
            int e = errno;
            *failed = k;
            while (k-- > 0) {
                close(x->fds[k]);
                remove(x->paths[k]);
            }
            return e;
        }
    }
    return 0;
}

/* Creates the files under the first free base: BASE, else BASE-2, BASE-3, ... (only BASE
 * when fixed). No allocation: any thread may do it (wd_prof_files_create). */
static wd_status create_files(wd_prof_files *x, wd_error *err)
{
    for (uint32_t n = 1;; n++) {
        name_files(x, n);
        int k = 0, e = create_set(x, &k);
        if (e == 0)
            return WD_OK;
        if (e == EEXIST && x->fixed)
            return wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s (not overwritten)",
                           x->paths[k], strerror(e));
        if (e == EEXIST && n == MAX_SUFFIX)
            return wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s (and so do -2 to -%u)",
                           x->paths[k], strerror(e), MAX_SUFFIX);
        if (e != EEXIST) {
            name_files(x, 1); /* the error names the file asked for */
            return wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", x->paths[k], strerror(e));
        }
    }
}

wd_prof_files *wd_prof_files_new(const wd_prof_out *o)
{
    size_t dn = strlen(o->dir) + 1, bn = strlen(o->base) + 1;
    size_t room = dn + 2 * bn + SUFFIX_ROOM, len[WD_PROF_FILE_COUNT];
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        len[k] = dn + bn + SUFFIX_ROOM + strlen(wd_prof_file_ext[k]);
        room += len[k];
    }
    wd_prof_files *x = malloc(sizeof *x + room);
    if (x == NULL)
        return NULL;
    x->created = false;
    x->fixed = o->fixed_base;
    wd_error_clear(&x->err);
    x->p = NULL;
    x->join = NULL;
    memset(&x->s, 0, sizeof x->s);
    memset(&x->lm, 0, sizeof x->lm);
    char *at = x->names;
    x->dir = memcpy(at, o->dir, dn);
    at += dn;
    x->asked = memcpy(at, o->base, bn);
    at += bn;
    x->base = at;
    at += bn + SUFFIX_ROOM;
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        x->paths[k] = at;
        at += len[k];
        x->early[k] = (out_file){NULL, x->paths[k], WD_OK, {0}, false};
        wd_error_clear(&x->early[k].err);
    }
    name_files(x, 1);
    return x;
}

void wd_prof_files_create(void *files)
{
    wd_prof_files *x = files;
    x->st = create_files(x, &x->err);
    x->created = true;
}

wd_status wd_prof_files_ready(wd_prof_files *x, wd_error *err)
{
    if (!x->created)
        wd_prof_files_create(x);
    if (x->st != WD_OK)
        return wd_fail(err, x->st, 0, "%s", x->err.msg);
    return WD_OK;
}

const char *wd_prof_files_base(const wd_prof_files *x)
{
    return x->base;
}

/* Waits for the event files' job when another thread took it (and runs no more of it). */
static void join_events(wd_prof_files *x)
{
    if (x->join != NULL)
        x->join(x->join_arg);
    x->join = NULL;
}

/* ---- the time-ordered files, run by run ---- */

/* Closes the files of timeline k of the stream (their dups) and frees it, nothing flushed
 * (tl[0]: the folded stacks; tl[1]: the Chrome trace and speedscope). */
static void stream_close(wd_prof_files *x, int k)
{
    tl_stream *s = &x->s;
    for (int i = k; i < stream_files_end[k]; i++) {
        if (s->f[i] != NULL)
            fclose(s->f[i]);
        s->f[i] = NULL;
        wd_free(&s->ctx[k], s->w[i]);
        s->w[i] = NULL;
    }
    if (s->made[k])
        tl_free(&s->tl[k]);
    s->made[k] = false;
    WD_ASSERT(s->ctx[k].live == 0);
}

/* Empties the files of timeline k, to be written whole (one that cannot be emptied is
 * reported so, not written). */
static void stream_empty(wd_prof_files *x, int k)
{
    stream_close(x, k);
    for (int i = k; i < stream_files_end[k]; i++) {
        int fd = x->fds[stream_files[i]];
        out_file *e = &x->early[stream_files[i]];
        if (e->done)
            continue;
        if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
            e->st = wd_fail(&e->err, WD_ERR_IO, 0, "%s: cannot write: %s", e->path,
                            strerror(errno));
            close(fd);
            e->done = true;
        }
    }
}

/* Drops the stream before the profile's end: its files are written at the end. */
static void stream_drop(wd_prof_files *x)
{
    stream_empty(x, 0);
    stream_empty(x, 1);
    x->s.on = false;
    x->s.off = true;
}

/* Opens the stream (the files' heads in its buffers); false when it cannot be. */
static bool stream_start(wd_prof_files *x)
{
    tl_stream *s = &x->s;
    bool ok = true;
    wd_ctx_init(&s->ctx[0]);
    wd_ctx_init(&s->ctx[1]);
    for (int i = 0; ok && i < 3; i++) {
        int k = i >= stream_files_end[0];
        int fd = dup(x->fds[stream_files[i]]);
        s->f[i] = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (s->f[i] == NULL && fd >= 0)
            close(fd);
        ok = s->f[i] != NULL && (s->w[i] = new_wbuf(&s->ctx[k], s->f[i])) != NULL;
        if (ok)
            setvbuf(s->f[i], NULL, _IONBF, 0);
    }
    struct rlimit r;
    x->fill_cap = getrlimit(RLIMIT_FSIZE, &r) == 0 && r.rlim_cur != RLIM_INFINITY
                      ? (uint64_t)r.rlim_cur
                      : UINT64_MAX;
    if (ok) {
        uint32_t depth = prof_depth(x->o.max_depth);
        tl_init(&s->tl[0], x->p, &s->ctx[0], &x->o, s->w[0], NULL, NULL, depth);
        tl_init(&s->tl[1], x->p, &s->ctx[1], &x->o, NULL, s->w[1], s->w[2], 0);
        s->made[0] = s->made[1] = s->on = true;
        ok = !s->tl[0].oom && !s->tl[1].oom;
    }
    if (!ok)
        stream_drop(x);
    return ok;
}

/* Nodes written in a slice of the stream while the kernel runs: about 70 us on tx-kernel-no-verif
 * (the end, when it comes, waits for the slice). */
#define STREAM_SLICE 256u

/* A slice of the stream before the profile ends: nodes of the run being written, or of the
 * next one over. Their totals are summed when the run begins and their times converted on
 * output (the profile converts them all at its end). True while there is more to write. */
static bool stream_slice(wd_prof_files *x)
{
    wd_prof *p = x->p;
    timeline *tl = x->s.tl;
    if (!tl[0].walking && !tl[1].walking) { /* both at the run's end: the next one */
        uint32_t i = tl[1].runs;
        if (i >= p->info_next)
            return false;
        uint32_t from = p->runs.data[i].root;
        uint32_t to = i + 1 < p->runs.count ? p->runs.data[i + 1].root : p->tree.count;
        if (!prof_range_totals(p, from, to) || !tl_syms(&tl[0]) || !tl_syms(&tl[1])) {
            tl[0].oom = true;
            return false;
        }
        for (int k = 0; k < 2; k++)
            tl_run_begin(&tl[k], i);
    }
    for (int k = 0; k < 2; k++) {
        if (!tl[k].walking)
            continue;
        tl[k].nodes = p->tree.nodes; /* the arrays move as the tree grows */
        tl[k].tot = p->tot;
        tl[k].tns = p->tns;
        tl[k].unit = p->ns_per_unit;
        tl_run_walk(&tl[k], STREAM_SLICE);
    }
    return !tl[0].oom && !tl[1].oom &&
           (tl[0].walking || tl[1].walking || tl[1].runs < p->info_next);
}

/* Nodes merged in a slice of the SVG's merge (about 130 instructions a node). */
#define MERGE_SLICE 1024u

/* Zeros written ahead of the stream's files while the consumer is idle, so that the end,
 * which writes most of them, writes over pages in the page cache: new ones cost the kernel
 * several times more (profiler/README, "the time-ordered files' pages"). A piece of zeros
 * ahead of one of them, up to 3/2 of its size foretold from the nodes so far (the bytes a
 * node takes in each, about: 132, 138 and 77 on tx-kernel-no-verif), after what its writer
 * has written and may hold (a wbuf: the file is written in order); each is cut where it was
 * written to when closed (close_cut). Never past the file size limit (fill_cap: a write that
 * starts past it is a signal, SIGXFSZ, that would end a profile whose files fit); after a
 * failure (a disk full) no more: the writers, which come after, report theirs. False when
 * every file is far enough. */
#define FILL_PIECE (128u * 1024u)
static const char fill_zeros[FILL_PIECE];

static bool fill_ahead(wd_prof_files *x)
{
    static const uint64_t per_node[3] = {140, 150, 80}; /* stream_files' order */
    for (int i = 0; i < 3; i++) {
        int fd = x->fds[stream_files[i]];
        uint64_t want = (uint64_t)x->p->tree.count * per_node[i] * 3 / 2 + FILL_PIECE;
        if (x->filled[i] >= want)
            continue;
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at < 0)
            return false;
        uint64_t from = (uint64_t)at + sizeof x->s.w[0]->b; /* after a full buffer */
        if (x->filled[i] < from)
            x->filled[i] = from;
        if (x->filled[i] >= want || x->filled[i] + FILL_PIECE > x->fill_cap)
            continue;
        if (pwrite(fd, fill_zeros, FILL_PIECE, (off_t)x->filled[i]) != (ssize_t)FILL_PIECE) {
            x->fill_cap = 0;
            return false;
        }
        x->filled[i] += FILL_PIECE;
        return true;
    }
    return false;
}

bool wd_prof_files_stream(void *files)
{
    wd_prof_files *x = files;
    tl_stream *s = &x->s;
    wd_prof *p = x->p;
    if (p == NULL || !x->created || x->st != WD_OK)
        return false;
    if (lm_slice(&x->lm, p, prof_depth(x->o.max_depth), MERGE_SLICE))
        return true;
    if (s->off)
        return false;
    if (x->o.collapsed || p->cct || p->status != WD_OK) { /* not time-ordered, or no more */
        if (s->on)
            stream_drop(x);
        s->off = true;
        return false;
    }
    /* a run is over once its report came (it closed the run: wd_prof_run_info_add); its
     * times convert once the clock's unit is known */
    if (p->ns_per_unit == 0 || (!s->on && (p->info_next == 0 || !stream_start(x))))
        return false;
    bool more = stream_slice(x);
    if (s->tl[0].oom || s->tl[1].oom)
        stream_drop(x);
    return s->on && (more || fill_ahead(x));
}

/* The end of timeline k of the stream: the runs left and the tails, its files closed (their
 * outcome in x->early). tl[0], the folded stacks, on the calling thread once the tree is
 * complete (no totals but those it sums: the figures are being computed); tl[1] on the
 * consumer after the figures. False when the stream must be dropped: the tree turned into a
 * calling-context tree after the last slice. */
static bool stream_finish(wd_prof_files *x, int k)
{
    tl_stream *s = &x->s;
    wd_prof *p = x->p;
    timeline *t = &s->tl[k];
    if (p->cct)
        return false;
    t->unit = 0; /* the events' times are converted by now */
    t->nodes = p->tree.nodes;
    t->tot = NULL;
    t->tns = NULL;
    if (k == 1)
        t->oom = t->oom || !prof_tree_totals(p, &t->tot, &t->tns);
    while (t->walking && !t->oom)
        tl_run_walk(t, UINT32_MAX);
    for (uint32_t i = t->runs; i < p->runs.count && !t->oom && tl_syms(t); i++)
        tl_run(t, i);
    bool ok = !t->oom;
    if (ok)
        tl_end(t);
    for (int i = k; i < stream_files_end[k]; i++) {
        out_file *e = &x->early[stream_files[i]];
        e->st = end_wbuf(&s->ctx[k], s->w[i], ok, &e->err);
        s->w[i] = NULL;
        close_cut(s->f[i], e->path, &e->st, &e->err);
        s->f[i] = NULL;
        close(x->fds[stream_files[i]]);
        e->done = true;
    }
    stream_close(x, k);
    return true;
}

void wd_prof_files_discard(wd_prof_files *x)
{
    if (x == NULL)
        return;
    join_events(x);
    stream_close(x, 0);
    stream_close(x, 1);
    for (int k = 0; k < WD_PROF_FILE_COUNT && x->created && x->st == WD_OK; k++) {
        if (!x->early[k].done)
            close(x->fds[k]);
        remove(x->paths[k]);
    }
    lm_free(&x->lm);
    free(x);
}

/* Writes file k of x, written ahead, on a stream of its own with `write` (allocating from a
 * context of its own), and closes it. */
static void write_ahead(wd_prof_files *x, int k,
                        wd_status (*write)(wd_prof_files *, wd_ctx *, FILE *, wd_error *))
{
    out_file *e = &x->early[k];
    if (open_stream(e, x->fds[k]) != NULL) {
        wd_ctx own;
        wd_ctx_init(&own);
        e->st = write(x, &own, e->f, &e->err);
        WD_ASSERT(own.live == 0);
        close_stream(e);
    } else {
        close(x->fds[k]);
    }
    e->done = true;
}

static wd_status folded_early(wd_prof_files *x, wd_ctx *ctx, FILE *f, wd_error *err)
{
    uint32_t depth = prof_depth(x->o.max_depth);
    wbuf *w = new_wbuf(ctx, f);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    bool ok = tl_write(x->p, ctx, NULL, w, NULL, NULL, depth, true);
    return end_wbuf(ctx, w, ok, err);
}

/* The SVG from the runs merged as the kernel ran (the merge finished here: the consumer
 * touches it no more once the tree is complete), else merged now; the live merge freed. */
static wd_status svg_from_runs(live_merge *lm, wd_prof *p, wd_ctx *ctx, FILE *f,
                               const wd_prof_out *o, wd_error *err)
{
    const prof_tree *merged = lm_finish(lm, p, prof_depth(o->max_depth));
    wd_status st = merged != NULL ? prof_write_svg_merged(p, ctx, f, o, merged, err)
                                  : prof_write_svg_in(p, ctx, f, o, err);
    lm_free(lm);
    return st;
}

static wd_status svg_early(wd_prof_files *x, wd_ctx *ctx, FILE *f, wd_error *err)
{
    return svg_from_runs(&x->lm, x->p, ctx, f, &x->o, err);
}

void wd_prof_files_events_setup(wd_prof_files *x, wd_prof *p, const wd_prof_out *o)
{
    x->p = p;
    x->o = *o;
}

void wd_prof_files_write_ahead(wd_prof_files *x)
{
    if (x == NULL || x->p == NULL || !x->created || x->st != WD_OK)
        return;
    if (x->s.on) { /* the stream's folded stacks finished (or written whole), the SVG */
        if (!x->early[WD_PROF_FILE_FOLDED].done && !stream_finish(x, 0)) {
            stream_empty(x, 0);
            if (!x->early[WD_PROF_FILE_FOLDED].done)
                write_ahead(x, WD_PROF_FILE_FOLDED, folded_early);
        }
        if (!x->early[WD_PROF_FILE_SVG].done)
            write_ahead(x, WD_PROF_FILE_SVG, svg_early);
    } else if (!x->o.collapsed && !x->early[WD_PROF_FILE_FOLDED].done) {
        write_ahead(x, WD_PROF_FILE_FOLDED, folded_early);
    }
}

void wd_prof_files_write_events(void *files)
{
    wd_prof_files *x = files;
    if (x->p == NULL || !x->created || x->st != WD_OK)
        return;
    /* a stream's event files are finished here, or (dropped at the last moment) written
     * whole; its folded stacks are the calling thread's (wd_prof_files_write_ahead) */
    bool streamed = x->s.on;
    if (streamed && stream_finish(x, 1))
        return;
    if (streamed)
        stream_empty(x, 1);
    tl_job job = {.p = x->p, .o = &x->o, .files = x->early};
    wd_ctx_init(&job.own);
    job.ctx = &job.own;
    bool opened = true;
    for (int k = 1; k < 3; k++) {
        out_file *e = &x->early[stream_files[k]];
        opened = opened && !e->done && open_stream(e, x->fds[stream_files[k]]) != NULL;
    }
    if (opened)
        tl_job_run(&job);
    WD_ASSERT(job.own.live == 0);
    for (int k = 1; k < 3; k++) {
        out_file *e = &x->early[stream_files[k]];
        if (e->done) /* not emptied: reported already */
            continue;
        if (e->f != NULL)
            close_stream(e);
        else
            close(x->fds[stream_files[k]]);
        if (!opened && e->st == WD_OK) /* another one could not be opened */
            e->st = wd_fail(&e->err, WD_ERR_IO, 0, "%s: not written", e->path);
        e->done = true;
    }
}

void wd_prof_files_events_taken(wd_prof_files *x, void (*join)(void *), void *arg)
{
    x->join = join;
    x->join_arg = arg;
}

/* Streams on the created files not written ahead nor taken by another thread (`taken`: the
 * event files, whose outcome is read once that thread is joined); on failure closes and
 * removes every file. */
static wd_status open_files(out_file *outs, wd_prof_files *x, bool taken, wd_error *err)
{
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        bool events = k == WD_PROF_FILE_TRACE || k == WD_PROF_FILE_SPEEDSCOPE;
        outs[k] = taken && events ? (out_file){.path = x->paths[k], .done = true} : x->early[k];
    }
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        if (outs[k].done || open_stream(&outs[k], x->fds[k]) != NULL)
            continue;
        wd_status st = wd_fail(err, outs[k].st, 0, "%s", outs[k].err.msg);
        for (int i = 0; i < WD_PROF_FILE_COUNT; i++) {
            if (outs[i].f != NULL)
                fclose(outs[i].f);
            else if (!outs[i].done)
                close(x->fds[i]);
            remove(x->paths[i]);
        }
        return st;
    }
    return WD_OK;
}

/* Closes the files; the first failure in file order is the result. */
static wd_status close_files(out_file *outs, wd_error *err)
{
    wd_status st = WD_OK;
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        out_file *x = &outs[k];
        if (!x->done)
            close_stream(x);
        if (x->st == WD_OK || st != WD_OK)
            continue;
        st = x->st;
        if (x->err.status == WD_ERR_IO && strstr(x->err.msg, x->path) == NULL)
            wd_fail(err, WD_ERR_IO, 0, "%s: %s", x->path, x->err.msg);
        else
            wd_fail(err, st, x->err.offset, "%s", x->err.msg);
    }
    return st;
}

/* Below this many nodes, a thread costs more than it saves (making it, its memory). */
#define THREAD_NODES 2048u

/* The event files are written on a thread of their own while this one writes the folded
 * stacks, the flamegraph and the JSON profile (when the profile is over: p->fin; when it is
 * big enough; and when a thread can be made: else one after the other), unless another
 * thread took them (wd_prof_files_events_taken): then this one waits for it at the end. */
wd_status wd_prof_write_files(wd_prof *p, const wd_prof_out *o, wd_prof_files *pre,
                              wd_error *err)
{
    out_file outs[WD_PROF_FILE_COUNT];
    wd_prof_files *files = pre != NULL ? pre : wd_prof_files_new(o);
    if (files == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    bool taken = files->join != NULL;
    if (files->s.on && !taken) /* the consumer did not finish its stream: written here */
        stream_drop(files);
    else if (files->s.on && !files->early[WD_PROF_FILE_FOLDED].done)
        stream_empty(files, 0); /* its folded stacks were not finished: written here */
    wd_status st = wd_prof_files_ready(files, err);
    if (st == WD_OK)
        st = open_files(outs, files, taken, err);
    if (st != WD_OK) {
        join_events(files);
        lm_free(&files->lm);
        free(files);
        return st;
    }
    wd_prof_out named = *o; /* the JSON lists the names the files got */
    named.base = files->base;
    o = &named;
    tl_job job = {.p = p, .o = o, .files = outs, .ctx = p->ctx};
    wd_thread th;
    bool threaded = !taken && p->fin && p->tree.count >= THREAD_NODES && tl_job_start(&job, &th);
    out_file *x = &outs[WD_PROF_FILE_FOLDED];
    if (!x->done)
        x->st = wd_prof_write_folded(p, x->f, o->collapsed, o->max_depth, &x->err);
    x = &outs[WD_PROF_FILE_SVG];
    if (!x->done)
        x->st = svg_from_runs(&files->lm, p, p->ctx, x->f, o, &x->err);
    x = &outs[WD_PROF_FILE_JSON];
    x->st = wd_prof_write_json(p, x->f, o, &x->err);
    if (taken) {
        join_events(files);
        outs[WD_PROF_FILE_TRACE] = files->early[WD_PROF_FILE_TRACE];
        outs[WD_PROF_FILE_SPEEDSCOPE] = files->early[WD_PROF_FILE_SPEEDSCOPE];
    } else if (threaded) {
        tl_job_join(&job, &th);
    } else {
        tl_job_run(&job);
    }
    st = close_files(outs, err);
    lm_free(&files->lm);
    free(files);
    return st;
}
