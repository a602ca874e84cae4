/* trace.c: writing and replaying traces (format in trace.h). */
#include "profiler/trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profiler/prof_priv.h"

#define MAGIC        "WDTRACE\n"
#define VERSION      1u
#define MAX_PAYLOAD  (1u << 20)
#define MAX_META     4096u
#define MAX_KINDS    1024u
#define MAX_STRING   (1u << 16)

enum { EV_SYMBOL, EV_CALL, EV_RET, EV_PHASE, EV_STEP, EV_LEVEL, EV_RUN, EV_END, EV_FRAME,
       EV_STOP, EV_COUNT };

static const char *const ev_names[EV_COUNT] = {"symbol", "call", "ret",   "phase", "step",
                                               "level",  "run",  "end",   "frame", "stop"};
static const char *const ev_fields[EV_COUNT] = {
    "id kind idx name",
    "ticks:z ns:z symbol",
    "ticks:z ns:z",
    "ticks:z ns:z begin name",
    "ticks:z cost operand what",
    "level",
    "level index start effective outcome reboot reason ns:z",
    "ticks:z",
    "function func_idx offset file line more",
    "ns_at:z",
};

/* ---- writing ---------------------------------------------------------------------------- */

struct wd_trace_writer {
    wd_ctx *ctx;
    FILE *f;
    char *path;
    uint32_t code[EV_COUNT];
    uint64_t last_ticks;
    int64_t last_ns;
    uint8_t buf[1 << 16];
    size_t used;
    uint8_t ev[MAX_PAYLOAD + 64]; /* the event being built */
    size_t ev_size;
    bool failed;
    int err_no;
};

static void flush(wd_trace_writer *w)
{
    if (w->used != 0 && !w->failed && fwrite(w->buf, 1, w->used, w->f) != w->used) {
        w->failed = true;
        w->err_no = errno;
    }
    w->used = 0;
}

static void put_bytes(wd_trace_writer *w, const void *b, size_t n)
{
    if (n > sizeof w->buf - w->used)
        flush(w);
    if (n > sizeof w->buf) {
        if (!w->failed && fwrite(b, 1, n, w->f) != n) {
            w->failed = true;
            w->err_no = errno;
        }
        return;
    }
    memcpy(w->buf + w->used, b, n);
    w->used += n;
}

static size_t leb(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        out[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

static uint64_t zig(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void put_u(wd_trace_writer *w, uint64_t v)
{
    uint8_t b[10];
    put_bytes(w, b, leb(b, v));
}

static void put_str(wd_trace_writer *w, const char *s)
{
    size_t n = strlen(s);
    if (n > MAX_STRING)
        n = MAX_STRING;
    put_u(w, n);
    put_bytes(w, s, n);
}

/* Event payloads are built in w->ev, then written after their code and size. */
static void ev_u(wd_trace_writer *w, uint64_t v)
{
    if (w->ev_size + 10 <= sizeof w->ev)
        w->ev_size += leb(w->ev + w->ev_size, v);
}

static void ev_z(wd_trace_writer *w, int64_t v)
{
    ev_u(w, zig(v));
}

static void ev_str(wd_trace_writer *w, const char *s)
{
    size_t n = strlen(s);
    if (n > MAX_STRING)
        n = MAX_STRING;
    ev_u(w, n);
    if (w->ev_size + n <= sizeof w->ev) {
        memcpy(w->ev + w->ev_size, s, n);
        w->ev_size += n;
    }
}

static void ev_time(wd_trace_writer *w, uint64_t ticks, int64_t ns)
{
    ev_z(w, (int64_t)(ticks - w->last_ticks));
    ev_z(w, (int64_t)((uint64_t)ns - (uint64_t)w->last_ns));
    w->last_ticks = ticks;
    w->last_ns = ns;
}

static void ev_end(wd_trace_writer *w, int kind)
{
    uint8_t head[20];
    size_t n = leb(head, w->code[kind]);
    n += leb(head + n, w->ev_size);
    put_bytes(w, head, n);
    put_bytes(w, w->ev, w->ev_size);
    w->ev_size = 0;
}

wd_status wd_trace_writer_open(wd_ctx *ctx, const char *path, const wd_trace_meta *meta,
                               uint32_t meta_count, const char *const *kind_order,
                               uint32_t code_base, wd_trace_writer **out, wd_error *err)
{
    *out = NULL;
    wd_trace_writer *w = wd_calloc(ctx, 1, sizeof *w);
    if (w == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    w->ctx = ctx;
    w->f = fopen(path, "wb");
    if (w->f == NULL) {
        wd_free(ctx, w);
        return wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", path, strerror(errno));
    }
    w->path = wd_strndup(ctx, path, strlen(path));
    int order[EV_COUNT];
    for (int k = 0; k < EV_COUNT; k++)
        order[k] = k;
    if (kind_order != NULL) {
        for (int k = 0; k < EV_COUNT; k++)
            for (int e = 0; e < EV_COUNT; e++)
                if (strcmp(kind_order[k], ev_names[e]) == 0)
                    order[k] = e;
    }
    put_bytes(w, MAGIC, 8);
    put_u(w, VERSION);
    put_u(w, meta_count);
    for (uint32_t i = 0; i < meta_count; i++) {
        put_str(w, meta[i].key);
        put_str(w, meta[i].value);
    }
    put_u(w, EV_COUNT);
    for (int k = 0; k < EV_COUNT; k++) {
        int e = order[k];
        w->code[e] = code_base + (uint32_t)k;
        put_u(w, w->code[e]);
        put_str(w, ev_names[e]);
        put_str(w, ev_fields[e]);
    }
    /* Symbol kinds, listed in reverse so that their codes are not the enum's. */
    put_u(w, WD_PROF_KIND_COUNT);
    for (int k = WD_PROF_KIND_COUNT; k-- > 0;) {
        put_u(w, (uint64_t)(WD_PROF_KIND_COUNT - 1 - k) + 1);
        put_str(w, wd_prof_kind_name((wd_prof_kind)k));
    }
    *out = w;
    return WD_OK;
}

wd_status wd_trace_writer_close(wd_trace_writer *w, wd_error *err)
{
    if (w == NULL)
        return WD_OK;
    flush(w);
    bool failed = w->failed;
    int e = w->err_no;
    if (fclose(w->f) != 0 && !failed) {
        failed = true;
        e = errno;
    }
    wd_status st = WD_OK;
    if (failed)
        st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot write: %s", w->path ? w->path : "trace",
                     strerror(e));
    wd_free(w->ctx, w->path);
    wd_free(w->ctx, w);
    return st;
}

/* Symbol kind codes: see wd_trace_writer_open. */
static uint32_t kind_code(wd_prof_kind k)
{
    return (uint32_t)(WD_PROF_KIND_COUNT - 1 - (int)k) + 1;
}

void wd_trace_put_symbol(wd_trace_writer *w, uint32_t id, wd_prof_kind kind, uint32_t idx,
                         const char *name)
{
    ev_u(w, id);
    ev_u(w, kind_code(kind));
    ev_u(w, idx);
    ev_str(w, name);
    ev_end(w, EV_SYMBOL);
}

void wd_trace_put_call(wd_trace_writer *w, uint64_t ticks, int64_t ns, uint32_t sym)
{
    ev_time(w, ticks, ns);
    ev_u(w, sym);
    ev_end(w, EV_CALL);
}

void wd_trace_put_ret(wd_trace_writer *w, uint64_t ticks, int64_t ns)
{
    ev_time(w, ticks, ns);
    ev_end(w, EV_RET);
}

void wd_trace_put_phase(wd_trace_writer *w, uint64_t ticks, int64_t ns, const char *name,
                        bool begin)
{
    ev_time(w, ticks, ns);
    ev_u(w, begin);
    ev_str(w, name);
    ev_end(w, EV_PHASE);
}

void wd_trace_put_step(wd_trace_writer *w, uint64_t ticks, uint64_t cost, const char *what,
                       uint64_t operand)
{
    ev_z(w, (int64_t)(ticks - w->last_ticks));
    w->last_ticks = ticks;
    ev_u(w, cost);
    ev_u(w, operand);
    ev_str(w, what);
    ev_end(w, EV_STEP);
}

void wd_trace_put_level(wd_trace_writer *w, uint32_t level)
{
    ev_u(w, level);
    ev_end(w, EV_LEVEL);
}

void wd_trace_put_run_info(wd_trace_writer *w, const wd_prof_run_info *info)
{
    ev_u(w, info->level);
    ev_u(w, info->index);
    ev_u(w, info->start);
    ev_u(w, info->effective);
    ev_str(w, wd_prof_outcome_name(info->outcome));
    ev_u(w, info->reboot);
    ev_str(w, info->reason ? info->reason : "");
    ev_z(w, info->ns);
    ev_end(w, EV_RUN);
}

void wd_trace_put_frame(wd_trace_writer *w, const wd_prof_frame *f, uint32_t more)
{
    ev_str(w, f->function ? f->function : "");
    ev_u(w, f->func_idx);
    ev_u(w, f->offset);
    ev_str(w, f->file ? f->file : "");
    ev_u(w, f->file ? f->line : 0);
    ev_u(w, more);
    ev_end(w, EV_FRAME);
}

void wd_trace_put_stop(wd_trace_writer *w, int64_t ns)
{
    ev_z(w, ns); /* the clock itself, not a delta: no later event is stamped against it */
    ev_end(w, EV_STOP);
}

void wd_trace_put_end(wd_trace_writer *w, uint64_t ticks)
{
    ev_z(w, (int64_t)(ticks - w->last_ticks));
    w->last_ticks = ticks;
    ev_end(w, EV_END);
    flush(w);
}

void wd_prof_record(wd_prof *p, wd_trace_writer *w)
{
    p->rec = w;
    if (w == NULL)
        return;
    for (uint32_t i = 0; i < p->syms.count; i++) {
        const prof_sym *y = &p->syms.data[i];
        wd_trace_put_symbol(w, i, (wd_prof_kind)y->kind, y->idx, y->raw);
    }
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct meta_pair {
    char *key, *value;
} meta_pair;

struct wd_trace_reader {
    wd_ctx *ctx;
    FILE *f;
    char *path;
    uint64_t offset; /* of the next byte */
    WD_VEC(meta_pair) meta;
    int ev_of_code[MAX_KINDS];  /* -1: unknown */
    int kind_of_code[MAX_KINDS];
    uint8_t payload[MAX_PAYLOAD];
};

static wd_status bad(wd_trace_reader *r, uint64_t at, const char *what, wd_error *err)
{
    return wd_fail(err, WD_ERR_MALFORMED, (size_t)at, "%s:0x%llx: malformed trace: %s", r->path,
                   (unsigned long long)at, what);
}

static wd_status rd_bytes(wd_trace_reader *r, void *out, size_t n, wd_error *err)
{
    size_t got = fread(out, 1, n, r->f);
    r->offset += got;
    if (got != n)
        return ferror(r->f) ? wd_fail(err, WD_ERR_IO, 0, "%s: cannot read: %s", r->path,
                                      strerror(errno))
                            : bad(r, r->offset, "unexpected end", err);
    return WD_OK;
}

static wd_status rd_u(wd_trace_reader *r, uint64_t *v, wd_error *err)
{
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t b;
        WD_TRY(rd_bytes(r, &b, 1, err));
        if (shift == 63 && b > 1)
            return bad(r, r->offset - 1, "integer too large", err);
        *v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return WD_OK;
    }
    return bad(r, r->offset, "integer too long", err);
}

static wd_status rd_str(wd_trace_reader *r, char **out, wd_error *err)
{
    uint64_t n;
    *out = NULL;
    WD_TRY(rd_u(r, &n, err));
    if (n > MAX_STRING)
        return bad(r, r->offset, "string too long", err);
    char *s = wd_alloc(r->ctx, (size_t)n + 1);
    if (s == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    wd_status st = rd_bytes(r, s, (size_t)n, err);
    if (st != WD_OK) {
        wd_free(r->ctx, s);
        return st;
    }
    s[n] = '\0';
    *out = s;
    return WD_OK;
}

void wd_trace_close(wd_trace_reader *r)
{
    if (r == NULL)
        return;
    for (uint32_t i = 0; i < r->meta.count; i++) {
        wd_free(r->ctx, r->meta.data[i].key);
        wd_free(r->ctx, r->meta.data[i].value);
    }
    WD_VEC_FREE(r->ctx, &r->meta);
    if (r->f != NULL)
        fclose(r->f);
    wd_free(r->ctx, r->path);
    wd_free(r->ctx, r);
}

static wd_status read_tables(wd_trace_reader *r, wd_error *err)
{
    uint64_t n;
    WD_TRY(rd_u(r, &n, err));
    if (n > MAX_KINDS)
        return bad(r, r->offset, "too many event kinds", err);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t code;
        char *name = NULL, *fields = NULL;
        WD_TRY(rd_u(r, &code, err));
        wd_status st = rd_str(r, &name, err);
        if (st == WD_OK)
            st = rd_str(r, &fields, err);
        if (st == WD_OK && code >= MAX_KINDS)
            st = bad(r, r->offset, "event kind code too large", err);
        for (int e = 0; st == WD_OK && e < EV_COUNT; e++)
            if (strcmp(name, ev_names[e]) == 0)
                r->ev_of_code[code] = e;
        wd_free(r->ctx, name);
        wd_free(r->ctx, fields);
        WD_TRY(st);
    }
    WD_TRY(rd_u(r, &n, err));
    if (n > MAX_KINDS)
        return bad(r, r->offset, "too many symbol kinds", err);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t code;
        char *name = NULL;
        WD_TRY(rd_u(r, &code, err));
        WD_TRY(rd_str(r, &name, err));
        if (code >= MAX_KINDS) {
            wd_free(r->ctx, name);
            return bad(r, r->offset, "symbol kind code too large", err);
        }
        wd_prof_kind k = wd_prof_kind_parse(name);
        /* A kind this version does not know: its symbols are called and return like a
         * function's. */
        r->kind_of_code[code] = k == WD_PROF_KIND_COUNT ? WD_PROF_DIRECT : (int)k;
        wd_free(r->ctx, name);
    }
    return WD_OK;
}

wd_status wd_trace_open(wd_ctx *ctx, const char *path, wd_trace_reader **out, wd_error *err)
{
    *out = NULL;
    wd_trace_reader *r = wd_calloc(ctx, 1, sizeof *r);
    if (r == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    r->ctx = ctx;
    for (int i = 0; i < (int)MAX_KINDS; i++)
        r->ev_of_code[i] = r->kind_of_code[i] = -1;
    r->path = wd_strndup(ctx, path, strlen(path));
    r->f = fopen(path, "rb");
    if (r->path == NULL || r->f == NULL) {
        wd_status st = r->path == NULL
                           ? wd_fail(err, WD_ERR_NOMEM, 0, "out of memory")
                           : wd_fail(err, WD_ERR_IO, 0, "%s: cannot open: %s", path,
                                     strerror(errno));
        wd_trace_close(r);
        return st;
    }
    char magic[8];
    uint64_t version = 0, n = 0;
    wd_status st = rd_bytes(r, magic, 8, err);
    if (st == WD_OK && memcmp(magic, MAGIC, 8) != 0)
        st = bad(r, 0, "not a wasmdbg trace", err);
    if (st == WD_OK)
        st = rd_u(r, &version, err);
    if (st == WD_OK && version != VERSION)
        st = bad(r, 8, "unsupported trace version", err);
    if (st == WD_OK)
        st = rd_u(r, &n, err);
    if (st == WD_OK && n > MAX_META)
        st = bad(r, r->offset, "too many meta entries", err);
    for (uint64_t i = 0; st == WD_OK && i < n; i++) {
        meta_pair m = {NULL, NULL};
        st = rd_str(r, &m.key, err);
        if (st == WD_OK)
            st = rd_str(r, &m.value, err);
        if (st == WD_OK && !WD_VEC_PUSH(ctx, &r->meta, m))
            st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        if (st != WD_OK) {
            wd_free(ctx, m.key);
            wd_free(ctx, m.value);
        }
    }
    if (st == WD_OK)
        st = read_tables(r, err);
    if (st != WD_OK) {
        wd_trace_close(r);
        return st;
    }
    *out = r;
    return WD_OK;
}

const char *wd_trace_meta_get(const wd_trace_reader *r, const char *key)
{
    for (uint32_t i = r->meta.count; i-- > 0;)
        if (strcmp(r->meta.data[i].key, key) == 0)
            return r->meta.data[i].value;
    return NULL;
}

/* A cursor over one payload. */
typedef struct cursor {
    const uint8_t *p, *end;
    bool bad;
} cursor;

static uint64_t cu(cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (c->p == c->end) {
            c->bad = true;
            return 0;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7F) << (shift < 64 ? shift : 63);
        if (!(b & 0x80))
            return v;
    }
    c->bad = true;
    return 0;
}

static int64_t cz(cursor *c)
{
    uint64_t v = cu(c);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A string of the payload, copied NUL-terminated into buf (cut at its size). */
static const char *cs(cursor *c, char *buf, size_t size)
{
    uint64_t n = cu(c);
    if (c->bad || n > (uint64_t)(c->end - c->p)) {
        c->bad = true;
        buf[0] = '\0';
        return buf;
    }
    size_t k = (size_t)n < size - 1 ? (size_t)n : size - 1;
    memcpy(buf, c->p, k);
    buf[k] = '\0';
    c->p += n;
    return buf;
}

typedef struct replay {
    wd_trace_reader *r;
    wd_prof *p;
    uint32_t *map; /* recorded symbol id -> p's */
    uint32_t map_count, map_cap;
    uint64_t ticks;
    uint64_t clock; /* the ticks of the last call, return, phase or end */
    int64_t ns;
    bool ended;
} replay;

static void advance(replay *x, cursor *c, bool with_ns)
{
    x->ticks += (uint64_t)cz(c);
    if (with_ns)
        x->ns = (int64_t)((uint64_t)x->ns + (uint64_t)cz(c));
}

/* Calls, returns, phases and the end come in the order of their ticks, as the thread's
 * counter only grows (hot steps may not: they are exact to their basic block): one that
 * goes back would make a node's self ticks wrap around. False for such an event. */
static bool in_order(replay *x)
{
    if (x->ticks < x->clock)
        return false;
    x->clock = x->ticks;
    return true;
}

/* One event; false when its payload does not hold what its kind needs. */
static bool event(replay *x, int ev, cursor *c)
{
    static char s1[MAX_STRING + 1], s2[MAX_STRING + 1];
    switch (ev) {
    case EV_SYMBOL: {
        uint64_t id = cu(c), code = cu(c), idx = cu(c);
        const char *name = cs(c, s1, sizeof s1);
        if (c->bad || id != x->map_count || code >= MAX_KINDS || idx > UINT32_MAX)
            return false;
        int k = x->r->kind_of_code[code];
        if (k < 0)
            return false;
        uint32_t sym = wd_prof_symbol(x->p, (wd_prof_kind)k, (uint32_t)idx, name, strlen(name));
        if (x->map_count == x->map_cap &&
            !wd_grow(x->r->ctx, (void **)&x->map, &x->map_cap, sizeof *x->map,
                     (uint64_t)x->map_count + 1)) {
            prof_nomem(x->p);
            return true;
        }
        x->map[x->map_count++] = sym;
        return true;
    }
    case EV_CALL: {
        advance(x, c, true);
        uint64_t sym = cu(c);
        if (c->bad || sym >= x->map_count || !in_order(x))
            return false;
        wd_prof_call(x->p, x->ticks, x->ns, x->map[sym]);
        return true;
    }
    case EV_RET:
        advance(x, c, true);
        if (c->bad || !in_order(x))
            return false;
        wd_prof_ret(x->p, x->ticks, x->ns);
        return true;
    case EV_PHASE: {
        advance(x, c, true);
        uint64_t begin = cu(c);
        const char *name = cs(c, s1, sizeof s1);
        if (c->bad || !in_order(x))
            return false;
        wd_prof_phase(x->p, x->ticks, x->ns, name, begin != 0);
        return true;
    }
    case EV_STEP: {
        advance(x, c, false);
        uint64_t cost = cu(c), operand = cu(c);
        const char *what = cs(c, s1, sizeof s1);
        if (!c->bad)
            wd_prof_step(x->p, x->ticks, cost, what, operand);
        return !c->bad;
    }
    case EV_LEVEL: {
        uint64_t level = cu(c);
        if (c->bad || level > UINT32_MAX)
            return false;
        wd_prof_level(x->p, (uint32_t)level);
        return true;
    }
    case EV_RUN: {
        wd_prof_run_info info = {.frames = NULL}; /* its frames follow (EV_FRAME) */
        uint64_t level = cu(c), index = cu(c);
        info.start = cu(c);
        info.effective = cu(c);
        info.outcome = wd_prof_outcome_parse(cs(c, s2, sizeof s2));
        info.reboot = cu(c) != 0;
        info.reason = cs(c, s1, sizeof s1);
        info.ns = cz(c);
        if (c->bad || level > UINT32_MAX || index > UINT32_MAX)
            return false;
        if (info.outcome == WD_PROF_OUTCOME_COUNT)
            info.outcome = WD_PROF_STUCK;
        info.level = (uint32_t)level;
        info.index = (uint32_t)index;
        wd_prof_run_info_add(x->p, &info);
        return true;
    }
    case EV_FRAME: {
        wd_prof_frame f;
        f.function = cs(c, s1, sizeof s1);
        uint64_t idx = cu(c), offset = cu(c);
        f.file = cs(c, s2, sizeof s2);
        uint64_t line = cu(c), more = cu(c);
        if (c->bad || idx > UINT32_MAX || offset > UINT32_MAX || line > UINT32_MAX ||
            more > UINT32_MAX)
            return false;
        f.func_idx = (uint32_t)idx;
        f.offset = (uint32_t)offset;
        f.line = (uint32_t)line;
        if (f.file[0] == '\0')
            f.file = NULL;
        wd_prof_run_frame(x->p, &f, (uint32_t)more);
        return true;
    }
    case EV_STOP: {
        int64_t ns = cz(c);
        if (c->bad)
            return false;
        wd_prof_stop(x->p, ns);
        return true;
    }
    case EV_END:
        x->ticks += (uint64_t)cz(c);
        if (c->bad || !in_order(x))
            return false;
        wd_prof_end(x->p, x->ticks);
        x->ended = true;
        return true;
    }
    return true;
}

wd_status wd_trace_replay(wd_trace_reader *r, wd_prof *p, bool *truncated, wd_error *err)
{
    replay x = {.r = r, .p = p};
    wd_status st = WD_OK;
    *truncated = false;
    while (!x.ended) {
        uint64_t at = r->offset, code, size;
        uint8_t b;
        size_t got = fread(&b, 1, 1, r->f);
        if (got == 0) {
            if (ferror(r->f))
                st = wd_fail(err, WD_ERR_IO, 0, "%s: cannot read: %s", r->path, strerror(errno));
            else
                *truncated = true;
            break;
        }
        ungetc(b, r->f);
        if ((st = rd_u(r, &code, err)) != WD_OK || (st = rd_u(r, &size, err)) != WD_OK)
            break;
        if (size > MAX_PAYLOAD) {
            st = bad(r, at, "event too large", err);
            break;
        }
        if ((st = rd_bytes(r, r->payload, (size_t)size, err)) != WD_OK)
            break;
        int ev = code < MAX_KINDS ? r->ev_of_code[code] : -1;
        if (ev < 0)
            continue; /* a kind this version does not know */
        cursor c = {r->payload, r->payload + size, false};
        if (!event(&x, ev, &c)) {
            st = bad(r, at, "bad event payload", err);
            break;
        }
    }
    if (!x.ended) /* where the last event in order was, or a hot step after it */
        wd_prof_end(p, WD_MAX(x.ticks, x.clock));
    wd_free(r->ctx, x.map);
    if (st == WD_OK && wd_prof_status(p, err) != WD_OK)
        st = wd_prof_status(p, err);
    return st;
}
