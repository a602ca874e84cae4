/* output.c: folded stacks, Chrome trace events, speedscope and the machine profile. */
#include "profiler/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/prof_priv.h"
#include "profiler/wbuf.h"

#define DEFAULT_MAX_DEPTH 100u

const char *const wd_prof_file_ext[WD_PROF_FILE_COUNT] = {".out", ".svg", ".trace.json",
                                                          ".speedscope.json", ".json"};
const char *const wd_prof_file_what[WD_PROF_FILE_COUNT] = {
    "folded stacks", "flamegraph (SVG)", "Chrome trace events (Perfetto)",
    "speedscope profile", "machine profile (JSON)"};

static wbuf *new_wbuf(wd_prof *p, FILE *f)
{
    wbuf *w = wd_alloc(p->ctx, sizeof *w);
    if (w != NULL) {
        w->f = f;
        w->n = 0;
        w->failed = false;
    }
    return w;
}

/* Flushes and frees w; the status of the output. */
static wd_status end_wbuf(wd_prof *p, wbuf *w, bool ok, wd_error *err)
{
    wb_flush(w);
    bool failed = w->failed || ferror(w->f);
    wd_free(p->ctx, w);
    if (!ok)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (failed)
        return wd_fail(err, WD_ERR_IO, 0, "write error: %s", strerror(errno));
    return WD_OK;
}

/* Every symbol's display name as a JSON string (quotes included), escaped once: the
 * time-ordered outputs repeat them per node. One block; NULL on OOM. */
typedef struct jnames {
    char *text;
    size_t *at; /* at[sym] .. at[sym + 1] */
} jnames;

static bool jnames_make(wd_prof *p, jnames *j)
{
    j->text = NULL;
    j->at = wd_alloc(p->ctx, ((size_t)p->syms.count + 1) * sizeof *j->at);
    if (j->at == NULL)
        return false;
    size_t size = 0;
    for (uint32_t i = 0; i < p->syms.count; i++)
        size += 6 * strlen(p->syms.data[i].name) + 2;
    j->text = wd_alloc(p->ctx, size + 1);
    if (j->text == NULL) {
        wd_free(p->ctx, j->at);
        return false;
    }
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (uint32_t i = 0; i < p->syms.count; i++) {
        j->at[i] = n;
        j->text[n++] = '"';
        for (const unsigned char *c = (const unsigned char *)p->syms.data[i].name; *c; c++) {
            if (*c < 0x20) {
                memcpy(j->text + n, "\\u00", 4);
                j->text[n + 4] = hex[*c >> 4];
                j->text[n + 5] = hex[*c & 15];
                n += 6;
                continue;
            }
            if (*c == '"' || *c == '\\')
                j->text[n++] = '\\';
            j->text[n++] = (char)*c;
        }
        j->text[n++] = '"';
    }
    j->at[p->syms.count] = n;
    return true;
}

static void jnames_free(wd_prof *p, jnames *j)
{
    wd_free(p->ctx, j->text);
    wd_free(p->ctx, j->at);
}

static inline void wb_jname(wbuf *w, const jnames *j, uint32_t sym)
{
    wb_bytes(w, j->text + j->at[sym], j->at[sym + 1] - j->at[sym]);
}

/* ---- a stack string, frame by frame ---- */

typedef struct stackbuf {
    wd_ctx *ctx;
    char *s;
    size_t len, cap;
    size_t *at; /* at[d]: length of the string with d frames */
    uint32_t at_cap;
} stackbuf;

static bool sb_set(stackbuf *b, uint32_t depth, const char *name)
{
    if (depth >= b->at_cap &&
        !wd_grow(b->ctx, (void **)&b->at, &b->at_cap, sizeof *b->at, (uint64_t)depth + 1))
        return false;
    b->at[0] = 0;
    size_t base = b->at[depth - 1], n = strlen(name);
    size_t need = base + n + 2;
    if (need > b->cap) {
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

static void sb_free(stackbuf *b)
{
    wd_free(b->ctx, b->s);
    wd_free(b->ctx, b->at);
}

/* Pre-order walk of the subtree of `from` (excluded): calls visit(node, depth) and skips
 * the children of nodes for which it returns false. */
typedef bool (*visit_fn)(void *ud, uint32_t node, uint32_t depth);

static void walk(const prof_tree *tr, uint32_t from, visit_fn visit, void *ud)
{
    uint32_t x = tr->nodes[from].first_child, depth = 1;
    while (x != PROF_NONE) {
        bool down = visit(ud, x, depth);
        if (down && tr->nodes[x].first_child != PROF_NONE) {
            x = tr->nodes[x].first_child;
            depth++;
            continue;
        }
        while (x != from && tr->nodes[x].next_sibling == PROF_NONE) {
            x = tr->nodes[x].parent;
            depth--;
        }
        x = x == from ? PROF_NONE : tr->nodes[x].next_sibling;
    }
}

/* ---- folded stacks ---- */

typedef struct folded {
    wd_prof *p;
    const prof_tree *tr;
    const uint64_t *tot;
    const uint32_t *names; /* display group per symbol (NULL: the symbol) */
    uint32_t max_depth;
    wbuf *w;
    stackbuf sb;
    bool oom;
    /* collapsed: collected lines */
    char **lines;
    uint64_t *counts;
    uint32_t count, cap, counts_cap;
    bool collect;
} folded;

static bool fold_visit(void *ud, uint32_t node, uint32_t depth)
{
    folded *x = ud;
    const prof_node *y = &x->tr->nodes[node];
    if (x->oom || !sb_set(&x->sb, depth, prof_name(x->p, y->sym))) {
        x->oom = true;
        return false;
    }
    bool cut = depth >= x->max_depth;
    uint64_t v = cut ? x->tot[node] : y->t;
    if (v != 0) {
        if (!x->collect) {
            wb_bytes(x->w, x->sb.s, x->sb.len);
            wb_char(x->w, ' ');
            wb_u64(x->w, v);
            wb_char(x->w, '\n');
        } else {
            char *line = wd_strndup(x->p->ctx, x->sb.s, x->sb.len);
            if (line == NULL ||
                (x->count == x->cap && !wd_grow(x->p->ctx, (void **)&x->lines, &x->cap,
                                                sizeof *x->lines, (uint64_t)x->count + 1)) ||
                (x->count == x->counts_cap &&
                 !wd_grow(x->p->ctx, (void **)&x->counts, &x->counts_cap, sizeof *x->counts,
                          (uint64_t)x->count + 1))) {
                wd_free(x->p->ctx, line);
                x->oom = true;
                return false;
            }
            x->lines[x->count] = line;
            x->counts[x->count++] = v;
        }
    }
    return !cut;
}

static int cmp_line(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

/* Sorts the collected lines (carrying their counts), merges equal stacks and writes them. */
static bool write_collected(folded *x)
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
        wb_str(x->w, pairs[i]);
        wb_char(x->w, ' ');
        wb_u64(x->w, sum);
        wb_char(x->w, '\n');
        i = j;
    }
    wd_free(x->p->ctx, pairs);
    return true;
}

wd_status wd_prof_write_folded(wd_prof *p, FILE *f, bool collapsed, uint32_t max_depth,
                               wd_error *err)
{
    if (max_depth == 0)
        max_depth = DEFAULT_MAX_DEPTH;
    wbuf *w = new_wbuf(p, f);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    folded x = {.p = p, .max_depth = max_depth, .w = w, .sb = {.ctx = p->ctx}};
    prof_tree merged;
    uint64_t *tot = NULL;
    int64_t *tns = NULL;
    uint32_t *groups = NULL;
    bool ok;
    if (collapsed) {
        groups = prof_display_groups(p);
        ok = groups != NULL && prof_merge_runs(p, groups, max_depth, &merged);
        if (!ok) {
            wd_free(p->ctx, groups);
            wd_free(p->ctx, w);
            return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        }
        x.tr = &merged;
        x.collect = true;
        ok = prof_totals(&merged, &tot, &tns);
        x.tot = tot;
        if (ok)
            walk(&merged, 0, fold_visit, &x);
        ok = ok && !x.oom && write_collected(&x);
        for (uint32_t i = 0; i < x.count; i++)
            wd_free(p->ctx, x.lines[i]);
        wd_free(p->ctx, x.lines);
        wd_free(p->ctx, x.counts);
        prof_tree_fini(&merged);
    } else {
        x.tr = &p->tree;
        const int64_t *cns;
        ok = prof_tree_totals(p, &x.tot, &cns);
        for (uint32_t i = 0; ok && i < p->runs.count && !x.oom; i++)
            walk(&p->tree, p->runs.data[i].root, fold_visit, &x);
        ok = ok && !x.oom;
    }
    wd_free(p->ctx, tot);
    wd_free(p->ctx, tns);
    wd_free(p->ctx, groups);
    sb_free(&x.sb);
    return end_wbuf(p, w, ok, err);
}

/* ---- time-ordered layouts ---- */

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

typedef struct timeline {
    wd_prof *p;
    const uint64_t *tot;
    const int64_t *tns;
    uint64_t run_start, offset; /* the run's first tick; where it starts on the timeline */
    bool real;                  /* full tree: nodes where they ran */
    uint64_t *cursor;           /* synthetic layout: next free position per depth */
    uint32_t cursor_cap;
    uint64_t *open_end;         /* end position of the open node per depth (speedscope) */
    uint32_t *open_frame;
    uint32_t open_cap, open_frame_cap, open_depth;
    const uint32_t *groups;
    jnames names;
    wbuf *w;
    bool first;
    bool oom;
    bool with_time;
} timeline;

/* The begin position of `node` at `depth`, for visitors called in pre-order. */
static bool place(timeline *t, uint32_t node, uint32_t depth, uint64_t *begin)
{
    if (depth + 1 >= t->cursor_cap) {
        uint32_t old = t->cursor_cap;
        if (!wd_grow(t->p->ctx, (void **)&t->cursor, &t->cursor_cap, sizeof *t->cursor,
                     (uint64_t)depth + 2)) {
            t->oom = true;
            return false;
        }
        memset(t->cursor + old, 0, (size_t)(t->cursor_cap - old) * sizeof *t->cursor);
    }
    if (t->real) {
        *begin = t->offset + (t->p->tree.nodes[node].start - t->run_start);
    } else {
        if (depth == 1 && t->cursor[0] < t->offset)
            t->cursor[0] = t->offset;
        *begin = t->cursor[depth - 1];
        t->cursor[depth - 1] += t->tot[node];
        t->cursor[depth] = *begin;
    }
    return true;
}

static bool chrome_visit(void *ud, uint32_t node, uint32_t depth)
{
    timeline *t = ud;
    uint64_t begin;
    if (!place(t, node, depth, &begin))
        return false;
    const prof_node *y = &t->p->tree.nodes[node];
    const prof_sym *s = &t->p->syms.data[y->sym];
    wbuf *w = t->w;
    size_t name = t->names.at[y->sym + 1] - t->names.at[y->sym];
    if (name > sizeof w->b - 400) { /* a name too long for the fast path */
        wb_str(w, ",\n{\"name\":");
        wb_jname(w, &t->names, y->sym);
        name = 0;
    }
    char *o = wb_reserve(w, name + 400);
    if (name != 0) {
        o = WP_LIT(o, ",\n{\"name\":");
        memcpy(o, t->names.text + t->names.at[y->sym], name);
        o += name;
    }
    o = WP_LIT(o, ",\"cat\":\"");
    const char *cat = wd_prof_kind_name((wd_prof_kind)s->kind);
    size_t cn = strlen(cat);
    memcpy(o, cat, cn);
    o += cn;
    o = WP_LIT(o, "\",\"ph\":\"X\",\"ts\":");
    o = wp_u64(o, begin);
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
        o = wp_i64(o, y->time);
    }
    o = WP_LIT(o, "}}");
    wb_commit(w, o);
    return true;
}

static void timeline_free(timeline *t)
{
    wd_free(t->p->ctx, t->cursor);
    wd_free(t->p->ctx, t->open_end);
    wd_free(t->p->ctx, t->open_frame);
}

wd_status wd_prof_write_chrome(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    wbuf *w = new_wbuf(p, f);
    timeline t = {.p = p, .real = !p->cct, .w = w, .with_time = o->with_time};
    if (w == NULL || !prof_tree_totals(p, &t.tot, &t.tns) || !jnames_make(p, &t.names)) {
        wd_free(p->ctx, w);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    wb_str(w, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
              "\"tid\":1,\"args\":{\"name\":");
    char title[512];
    snprintf(title, sizeof title, "wasmdbg: %s (ticks, %s)", o->kernel ? o->kernel : "kernel",
             o->tick_model ? o->tick_model : "?");
    wb_json(w, title);
    wb_str(w, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
              "\"args\":{\"name\":\"kernel runs\"}}");
    uint64_t offset = 0;
    for (uint32_t i = 0; i < p->runs.count && !t.oom; i++) {
        wd_prof_run r;
        wd_prof_run_get(p, i, &r);
        uint64_t span = run_span(p, i);
        wb_str(w, ",\n{\"name\":\"level ");
        wb_u64(w, r.level);
        wb_str(w, " run ");
        wb_u64(w, r.index);
        wb_str(w, "\",\"cat\":\"run\",\"ph\":\"X\",\"ts\":");
        wb_u64(w, offset);
        wb_str(w, ",\"dur\":");
        wb_u64(w, span);
        wb_str(w, ",\"pid\":1,\"tid\":1,\"args\":{\"ticks\":");
        wb_u64(w, r.ticks);
        wb_str(w, ",\"start_tick\":");
        wb_u64(w, r.start);
        wb_str(w, "}}");
        t.run_start = p->runs.data[i].start;
        t.offset = offset;
        walk(&p->tree, p->runs.data[i].root, chrome_visit, &t);
        offset += span;
    }
    wb_str(w, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"time_axis\":\"ticks (shown "
              "as microseconds), padding left out\",\"tick_model\":");
    wb_json(w, o->tick_model ? o->tick_model : "");
    wb_str(w, p->cct ? ",\"mode\":\"cct\"}}\n" : ",\"mode\":\"full\"}}\n");
    bool oom = t.oom;
    timeline_free(&t);
    jnames_free(p, &t.names);
    return end_wbuf(p, w, !oom, err);
}

/* speedscope: close the frames open below `depth`, then open this one. */
static void ss_close_to(timeline *t, uint32_t depth)
{
    while (t->open_depth >= depth && t->open_depth > 0) {
        uint32_t d = t->open_depth--;
        char *o = wb_reserve(t->w, 80);
        if (!t->first)
            *o++ = ',';
        o = WP_LIT(o, "{\"type\":\"C\",\"frame\":");
        o = wp_u64(o, t->open_frame[d]);
        o = WP_LIT(o, ",\"at\":");
        o = wp_u64(o, t->open_end[d]);
        *o++ = '}';
        wb_commit(t->w, o);
        t->first = false;
    }
}

static bool ss_visit(void *ud, uint32_t node, uint32_t depth)
{
    timeline *t = ud;
    uint64_t begin;
    if (!place(t, node, depth, &begin))
        return false;
    if ((depth >= t->open_cap &&
         !wd_grow(t->p->ctx, (void **)&t->open_end, &t->open_cap, sizeof *t->open_end,
                  (uint64_t)depth + 1)) ||
        (depth >= t->open_frame_cap &&
         !wd_grow(t->p->ctx, (void **)&t->open_frame, &t->open_frame_cap, sizeof *t->open_frame,
                  (uint64_t)depth + 1))) {
        t->oom = true;
        return false;
    }
    ss_close_to(t, depth);
    uint32_t frame = t->groups[t->p->tree.nodes[node].sym];
    t->open_depth = depth;
    t->open_end[depth] = begin + t->tot[node];
    t->open_frame[depth] = frame;
    char *o = wb_reserve(t->w, 80);
    if (!t->first)
        *o++ = ',';
    o = WP_LIT(o, "{\"type\":\"O\",\"frame\":");
    o = wp_u64(o, frame);
    o = WP_LIT(o, ",\"at\":");
    o = wp_u64(o, begin);
    *o++ = '}';
    wb_commit(t->w, o);
    t->first = false;
    return true;
}

wd_status wd_prof_write_speedscope(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    wbuf *w = new_wbuf(p, f);
    timeline t = {.p = p, .real = !p->cct, .w = w};
    uint32_t *groups = prof_display_groups(p);
    if (w == NULL || groups == NULL || !prof_tree_totals(p, &t.tot, &t.tns)) {
        wd_free(p->ctx, groups);
        wd_free(p->ctx, w);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    /* Frames are display names: the index of a name's group is the position of its first
     * symbol among the groups. */
    uint32_t *frame_of = wd_calloc(p->ctx, (size_t)p->syms.count + 1, sizeof *frame_of);
    uint32_t *sym_of = wd_alloc(p->ctx, ((size_t)p->syms.count + 1) * sizeof *sym_of);
    if (frame_of == NULL || sym_of == NULL) {
        wd_free(p->ctx, frame_of);
        wd_free(p->ctx, sym_of);
        wd_free(p->ctx, groups);
        wd_free(p->ctx, w);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    uint32_t frames = 0;
    for (uint32_t i = 0; i < p->syms.count; i++) {
        if (groups[i] == i) {
            frame_of[i] = frames;
            sym_of[frames++] = i;
        }
    }
    for (uint32_t i = 0; i < p->syms.count; i++)
        groups[i] = frame_of[groups[i]];
    t.groups = groups;
    wb_str(w, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
              "\"exporter\":\"wasmdbg\",\"name\":");
    char title[512];
    snprintf(title, sizeof title, "%s (ticks, %s)", o->kernel ? o->kernel : "kernel",
             o->tick_model ? o->tick_model : "?");
    wb_json(w, title);
    wb_str(w, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
    for (uint32_t i = 0; i < frames; i++) {
        wb_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        wb_json(w, p->syms.data[sym_of[i]].name);
        wb_char(w, '}');
    }
    wb_str(w, "]},\n\"profiles\":[");
    for (uint32_t i = 0; i < p->runs.count && !t.oom; i++) {
        wd_prof_run r;
        wd_prof_run_get(p, i, &r);
        uint64_t span = run_span(p, i);
        wb_str(w, i ? ",\n{\"type\":\"evented\",\"name\":\"level " : "\n{\"type\":\"evented\","
                                                                    "\"name\":\"level ");
        wb_u64(w, r.level);
        wb_str(w, " run ");
        wb_u64(w, r.index);
        wb_str(w, "\",\"unit\":\"none\",\"startValue\":0,\"endValue\":");
        wb_u64(w, span);
        wb_str(w, ",\"events\":[");
        t.run_start = p->runs.data[i].start;
        t.offset = 0;
        if (t.cursor != NULL)
            t.cursor[0] = 0;
        t.first = true;
        t.open_depth = 0;
        walk(&p->tree, p->runs.data[i].root, ss_visit, &t);
        ss_close_to(&t, 1);
        wb_str(w, "]}");
    }
    wb_str(w, "\n]}\n");
    bool oom = t.oom;
    timeline_free(&t);
    wd_free(p->ctx, frame_of);
    wd_free(p->ctx, sym_of);
    wd_free(p->ctx, groups);
    return end_wbuf(p, w, !oom, err);
}

/* ---- the machine profile ---- */

/* A small JSON emitter: containers are laid out one member per line (indented by two), or
 * on one line when opened `flat`. */
typedef struct jw {
    wbuf *w;
    int depth;
    int flat_from; /* depth from which containers are on one line (INT_MAX: none) */
    bool first[64];
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

static void jw_key(jw *j, const char *k)
{
    jw_sep(j);
    wb_json(j->w, k);
    wb_bytes(j->w, ": ", 2);
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
    for (uint32_t i = 0; i < shown; i++) {
        const prof_sym *s = &p->syms.data[fs[i].sym];
        jw_val(j, false);
        jw_open(j, '{', true);
        jk_str(j, "name", s->name);
        if (strcmp(s->raw, s->name) != 0)
            jk_str(j, "raw", s->raw); /* the name as in the module, when shown otherwise */
        jk_str(j, "kind", wd_prof_kind_name((wd_prof_kind)s->kind));
        if (s->kind != WD_PROF_INTERNAL && s->kind != WD_PROF_SECTION)
            jk_u64(j, "index", s->idx);
        jk_u64(j, "self", fs[i].self);
        jk_u64(j, "total", fs[i].total);
        jk_u64(j, "calls", fs[i].calls);
        if (with_time) {
            jk_i64(j, "self_ns", fs[i].self_ns);
            jk_i64(j, "total_ns", fs[i].total_ns);
        }
        jw_close(j, '}');
    }
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
    jk_u64(j, "ticks", r.ticks);
    if (r.has_info)
        jk_u64(j, "effective", r.effective);
    phases_json(j, "phases", r.phase, NULL, r.has_phase);
    jk_u64(j, "calls", r.calls);
    if (o->with_time) {
        phases_json(j, "phases_ns", NULL, r.phase_ns, r.has_phase);
        jk_i64(j, "ns", r.ns);
    }
    if (r.has_info) {
        jk_str(j, "outcome", wd_prof_outcome_name(r.outcome));
        jk_bool(j, "reboot", r.reboot);
        if (r.reason[0] != '\0')
            jk_str(j, "reason", r.reason);
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
        uint64_t lticks = 0, lph[WD_PROF_PH_COUNT] = {0};
        for (; end < p->runs.count && p->runs.data[end].level == level; end++) {
            wd_prof_run r;
            wd_prof_run_get(p, end, &r);
            lticks += r.ticks;
            for (int k = 0; k < WD_PROF_PH_COUNT; k++)
                lph[k] += r.phase[k];
        }
        jw_val(j, false);
        jw_open(j, '{', false);
        jk_u64(j, "level", level);
        jk_u64(j, "ticks", lticks);
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
    jw jj = {.w = w, .flat_from = 1 << 30}, *j = &jj;
    jw_open(j, '{', false);
    jk_str(j, "format", "wasmdbg-profile");
    jk_u64(j, "version", 1);
    jk_str(j, "kernel", o->kernel ? o->kernel : "");
    jk_str(j, "tick_model", o->tick_model ? o->tick_model : "");
    if (o->pvm_version)
        jk_str(j, "pvm_version", o->pvm_version);
    if (o->timestamp)
        jk_str(j, "timestamp", o->timestamp);
    jk_str(j, "mode", wd_prof_mode_name(st.mode));
    jk_str(j, "mode_asked", wd_prof_mode_name(st.asked));
    if (st.switched)
        jk_u64(j, "switched_at_call", st.switched_at);
    jk_bool(j, "with_time", o->with_time);
    sums t;
    sum_runs(p, &t);
    jk_u64(j, "ticks", t.ticks);
    jk_u64(j, "effective", t.eff);
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
            snprintf(name, sizeof name, "%s%s", o->base, wd_prof_file_ext[k]);
            jk_str(j, keys[k], name);
        }
        jk_str(j, "folded_order", o->collapsed ? "collapsed" : "time");
        jw_close(j, '}');
    }
    jw_close(j, '}');
    wb_char(w, '\n');
    return ok;
}

wd_status wd_prof_write_json(wd_prof *p, FILE *f, const wd_prof_out *o, wd_error *err)
{
    wbuf *w = wd_alloc(p->ctx, sizeof *w);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    w->f = f;
    w->n = 0;
    w->failed = false;
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

wd_status wd_prof_write_files(wd_prof *p, const wd_prof_out *o, wd_error *err)
{
    for (int k = 0; k < WD_PROF_FILE_COUNT; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s", o->dir, o->base, wd_prof_file_ext[k]);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            return wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", path, strerror(errno));
        wd_status st = WD_OK;
        switch (k) {
        case WD_PROF_FILE_FOLDED:
            st = wd_prof_write_folded(p, f, o->collapsed, o->max_depth, err);
            break;
        case WD_PROF_FILE_SVG:
            st = wd_prof_write_svg(p, f, o, err);
            break;
        case WD_PROF_FILE_TRACE:
            st = wd_prof_write_chrome(p, f, o, err);
            break;
        case WD_PROF_FILE_SPEEDSCOPE:
            st = wd_prof_write_speedscope(p, f, o, err);
            break;
        default:
            st = wd_prof_write_json(p, f, o, err);
            break;
        }
        if (fclose(f) != 0 && st == WD_OK)
            st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", path, strerror(errno));
        if (st != WD_OK) {
            if (err->status == WD_ERR_IO && strstr(err->msg, path) == NULL) {
                char msg[sizeof err->msg];
                snprintf(msg, sizeof msg, "%s", err->msg);
                wd_error_clear(err);
                wd_fail(err, WD_ERR_IO, 0, "%s: %s", path, msg);
            }
            return st;
        }
    }
    return WD_OK;
}
