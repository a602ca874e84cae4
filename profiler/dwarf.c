/* dwarf.c: a reader of DWARF line-number programs (DWARF 5 section 6.2; versions 2-4 differ
 * in the header's directory and file tables). It runs each program's state machine and keeps
 * the rows (address, file, line, column) sorted by address, with sequence ends as rows that
 * have no line. Every read is bounds-checked: a broken section gives an error, never a read
 * outside it. */
#include "profiler/dwarf.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FILES (1u << 20)

typedef struct row {
    uint64_t addr;
    uint32_t file; /* index into files; UINT32_MAX: end of a sequence */
    uint32_t line, column;
    uint32_t order; /* for a stable sort */
} row;

typedef WD_VEC(const char *) strvec;

struct wd_dwarf_lines {
    wd_ctx *ctx;
    wd_arena arena;
    WD_VEC(row) rows;
    strvec files;
};

typedef struct rd {
    const uint8_t *base, *p, *end;
    bool bad;
} rd;

static uint64_t rd_n(rd *r, size_t n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t rd_uleb(rd *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->p == r->end) {
            r->bad = true;
            return 0;
        }
        uint8_t b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t rd_sleb(rd *r)
{
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        if (r->p == r->end) {
            r->bad = true;
            return 0;
        }
        b = *r->p++;
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7F) << shift);
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= (int64_t)(~(uint64_t)0 << shift);
    return v;
}

static const char *rd_cstr(rd *r)
{
    const uint8_t *s = r->p;
    while (r->p < r->end && *r->p != 0)
        r->p++;
    if (r->p == r->end) {
        r->bad = true;
        return "";
    }
    r->p++;
    return (const char *)s;
}

/* A NUL-terminated string at `off` in a string section, or "" when out of bounds. */
static const char *str_at(const uint8_t *sec, size_t size, uint64_t off)
{
    if (sec == NULL || off >= size || memchr(sec + off, 0, size - off) == NULL)
        return "";
    return (const char *)sec + off;
}

typedef struct header {
    int version;
    bool dwarf64;
    uint8_t min_inst, line_base_ok;
    int8_t line_base;
    uint8_t line_range, opcode_base;
    bool default_is_stmt;
    const uint8_t *std_lengths;
    uint32_t file_base; /* index of the unit's first file in l->files */
    uint32_t file_count;
    bool files_from_zero; /* DWARF 5 numbers files from 0, earlier versions from 1 */
} header;

static const char *join(wd_dwarf_lines *l, const char *dir, const char *name)
{
    size_t nd = dir ? strlen(dir) : 0, nn = strlen(name);
    if (nd == 0 || name[0] == '/')
        return wd_arena_dup(&l->arena, name, nn + 1);
    char *s = wd_arena_alloc(&l->arena, nd + nn + 2);
    if (s == NULL)
        return NULL;
    memcpy(s, dir, nd);
    s[nd] = '/';
    memcpy(s + nd + 1, name, nn + 1);
    return s;
}

/* One attribute value of a DWARF 5 directory or file entry: a string for paths, a number
 * for directory indices; other content is skipped. */
static void rd_form(rd *r, uint64_t form, bool dwarf64, const wd_dwarf_sections *s,
                    const char **str, uint64_t *num)
{
    *str = NULL;
    *num = 0;
    switch (form) {
    case 0x08: *str = rd_cstr(r); break;                                           /* string */
    case 0x1f: *str = str_at(s->line_str, s->line_str_size, rd_n(r, dwarf64 ? 8 : 4)); break;
    case 0x0e: *str = str_at(s->str, s->str_size, rd_n(r, dwarf64 ? 8 : 4)); break; /* strp */
    case 0x0f: *num = rd_uleb(r); break;                                            /* udata */
    case 0x0b: *num = rd_n(r, 1); break;
    case 0x05: *num = rd_n(r, 2); break;
    case 0x06: *num = rd_n(r, 4); break;
    case 0x07: *num = rd_n(r, 8); break;
    case 0x1e: (void)rd_n(r, 8), (void)rd_n(r, 8); break;                           /* data16 */
    case 0x09: {                                                                    /* block */
        uint64_t n = rd_uleb(r);
        if (n > (uint64_t)(r->end - r->p))
            r->bad = true;
        else
            r->p += n;
        break;
    }
    default: r->bad = true;
    }
}

/* DWARF 5 directory/file tables: entry formats, then the entries. */
static bool v5_table(wd_dwarf_lines *l, rd *r, const wd_dwarf_sections *s, bool dwarf64,
                     const char **dirs, uint32_t ndirs, strvec *out)
{
    uint8_t nfmt = (uint8_t)rd_n(r, 1);
    uint64_t types[32], forms[32];
    if (nfmt > 32)
        r->bad = true;
    if (r->bad)
        return false;
    for (uint8_t i = 0; i < nfmt; i++) {
        types[i] = rd_uleb(r);
        forms[i] = rd_uleb(r);
    }
    /* Every form takes a byte at least (an unknown one is an error): entries that could not
     * all be read, or that are made of nothing, are a broken table, not a million names made
     * of a few bytes. */
    uint64_t count = rd_uleb(r);
    if (count > MAX_FILES || (count > 0 && (nfmt == 0 || count > (uint64_t)(r->end - r->p))))
        r->bad = true;
    if (r->bad)
        return false;
    for (uint64_t k = 0; k < count && !r->bad; k++) {
        const char *path = "", *str;
        uint64_t dir = 0, num;
        for (uint8_t i = 0; i < nfmt; i++) {
            rd_form(r, forms[i], dwarf64, s, &str, &num);
            if (types[i] == 1 && str != NULL) /* DW_LNCT_path */
                path = str;
            else if (types[i] == 2) /* DW_LNCT_directory_index */
                dir = num;
        }
        /* Directory 0 is the compilation directory: names are shown relative to it. */
        const char *d = dirs != NULL && dir != 0 && dir < ndirs ? dirs[dir] : NULL;
        const char *name = join(l, d, path);
        if (name == NULL || !WD_VEC_PUSH(l->ctx, out, name))
            return false;
    }
    return !r->bad;
}

/* The header's directory and file tables; files are appended to l->files. */
static bool read_tables(wd_dwarf_lines *l, rd *r, header *h, const wd_dwarf_sections *s)
{
    h->file_base = l->files.count;
    if (h->version >= 5) {
        strvec dirs = {0};
        bool ok = v5_table(l, r, s, h->dwarf64, NULL, 0, &dirs) &&
                  v5_table(l, r, s, h->dwarf64, dirs.data, dirs.count, &l->files);
        WD_VEC_FREE(l->ctx, &dirs);
        h->files_from_zero = true;
        h->file_count = l->files.count - h->file_base;
        return ok;
    }
    strvec dirs = {0};
    bool ok = true;
    while (ok && !r->bad) {
        const char *d = rd_cstr(r);
        if (*d == '\0')
            break;
        ok = WD_VEC_PUSH(l->ctx, &dirs, d);
        r->bad = r->bad || dirs.count > MAX_FILES;
    }
    while (ok && !r->bad) {
        const char *name = rd_cstr(r);
        if (*name == '\0')
            break;
        uint64_t dir = rd_uleb(r);
        (void)rd_uleb(r); /* mtime */
        (void)rd_uleb(r); /* length */
        const char *full = join(l, dir != 0 && dir <= dirs.count ? dirs.data[dir - 1] : NULL,
                                name);
        ok = full != NULL && WD_VEC_PUSH(l->ctx, &l->files, full);
        r->bad = r->bad || l->files.count - h->file_base > MAX_FILES;
    }
    WD_VEC_FREE(l->ctx, &dirs);
    h->files_from_zero = false;
    h->file_count = l->files.count - h->file_base;
    return ok && !r->bad;
}

typedef struct state {
    uint64_t addr;
    uint64_t file;
    uint32_t line, column;
} state;

static bool emit(wd_dwarf_lines *l, const header *h, const state *st, bool end)
{
    uint64_t f = st->file;
    uint32_t file = UINT32_MAX;
    if (!end) {
        if (!h->files_from_zero)
            f = f == 0 ? UINT64_MAX : f - 1;
        file = f < h->file_count ? h->file_base + (uint32_t)f : UINT32_MAX - 1;
    }
    row x = {st->addr, file, st->line, st->column, l->rows.count};
    return WD_VEC_PUSH(l->ctx, &l->rows, x);
}

/* Runs one unit's line-number program over r (the unit's remaining bytes). */
static bool run_program(wd_dwarf_lines *l, rd *r, const header *h)
{
    state st = {0, 1, 1, 0};
    while (r->p < r->end && !r->bad) {
        uint8_t op = (uint8_t)rd_n(r, 1);
        if (op >= h->opcode_base) {
            uint8_t adj = (uint8_t)(op - h->opcode_base);
            st.addr += (uint64_t)(adj / h->line_range) * h->min_inst;
            st.line = (uint32_t)((int64_t)st.line + h->line_base + adj % h->line_range);
            if (!emit(l, h, &st, false))
                return false;
            continue;
        }
        switch (op) {
        case 0: { /* extended */
            uint64_t len = rd_uleb(r);
            if (len == 0 || len > (uint64_t)(r->end - r->p)) {
                r->bad = true;
                break;
            }
            const uint8_t *next = r->p + len;
            uint8_t sub = (uint8_t)rd_n(r, 1);
            if (sub == 1) { /* end_sequence */
                if (!emit(l, h, &st, true))
                    return false;
                st = (state){0, 1, 1, 0};
            } else if (sub == 2) { /* set_address */
                st.addr = rd_n(r, (size_t)WD_MIN(len - 1, (uint64_t)8));
            }
            r->p = next;
            break;
        }
        case 1: /* copy */
            if (!emit(l, h, &st, false))
                return false;
            break;
        case 2: st.addr += rd_uleb(r) * h->min_inst; break;
        case 3: st.line = (uint32_t)((int64_t)st.line + rd_sleb(r)); break;
        case 4: st.file = rd_uleb(r); break;
        case 5: st.column = (uint32_t)rd_uleb(r); break;
        case 8: st.addr += (uint64_t)((255 - h->opcode_base) / h->line_range) * h->min_inst; break;
        case 9: st.addr += rd_n(r, 2); break;
        case 6: case 7: case 10: case 11: break;
        default: /* an opcode this reader does not know: skip its operands */
            for (uint8_t k = 0; k < h->std_lengths[op - 1]; k++)
                (void)rd_uleb(r);
        }
    }
    return true;
}

/* One unit at r->p; leaves r->p after it. */
static wd_status read_unit(wd_dwarf_lines *l, rd *r, const wd_dwarf_sections *s, wd_error *err)
{
    size_t at = (size_t)(r->p - r->base);
    header h = {0};
    uint64_t len = rd_n(r, 4);
    if (len == 0xffffffffu) {
        h.dwarf64 = true;
        len = rd_n(r, 8);
    }
    if (r->bad || len > (uint64_t)(r->end - r->p))
        return wd_fail(err, WD_ERR_MALFORMED, at, ".debug_line:0x%zx: unit longer than the section",
                       at);
    rd u = {r->base, r->p, r->p + len, false};
    r->p += len;
    h.version = (int)rd_n(&u, 2);
    if (h.version < 2 || h.version > 5)
        return wd_fail(err, WD_ERR_MALFORMED, at, ".debug_line:0x%zx: unsupported version %d",
                       at, h.version);
    if (h.version >= 5)
        (void)rd_n(&u, 2); /* address size, segment selector size */
    uint64_t hlen = rd_n(&u, h.dwarf64 ? 8 : 4);
    if (hlen > (uint64_t)(u.end - u.p))
        return wd_fail(err, WD_ERR_MALFORMED, at, ".debug_line:0x%zx: bad header length", at);
    const uint8_t *program = u.p + hlen;
    h.min_inst = (uint8_t)rd_n(&u, 1);
    if (h.version >= 4)
        (void)rd_n(&u, 1); /* maximum operations per instruction (VLIW only) */
    h.default_is_stmt = rd_n(&u, 1) != 0;
    h.line_base = (int8_t)rd_n(&u, 1);
    h.line_range = (uint8_t)rd_n(&u, 1);
    h.opcode_base = (uint8_t)rd_n(&u, 1);
    if (u.bad || h.line_range == 0 || h.opcode_base == 0 ||
        (size_t)(u.end - u.p) < (size_t)h.opcode_base - 1)
        return wd_fail(err, WD_ERR_MALFORMED, at, ".debug_line:0x%zx: bad header", at);
    h.std_lengths = u.p;
    u.p += h.opcode_base - 1;
    rd tables = {u.base, u.p, program, false};
    if (!read_tables(l, &tables, &h, s))
        return tables.bad ? wd_fail(err, WD_ERR_MALFORMED, at,
                                    ".debug_line:0x%zx: bad directory or file table", at)
                          : wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    rd prog = {u.base, program, u.end, false};
    if (!run_program(l, &prog, &h))
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (prog.bad)
        return wd_fail(err, WD_ERR_MALFORMED, (size_t)(prog.p - prog.base),
                       ".debug_line:0x%zx: truncated line program", (size_t)(prog.p - prog.base));
    return WD_OK;
}

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    /* a sequence that ends where another starts: the end first */
    bool ex = x->file == UINT32_MAX, ey = y->file == UINT32_MAX;
    if (ex != ey)
        return ex ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

wd_status wd_dwarf_lines_parse(wd_ctx *ctx, const wd_dwarf_sections *s, wd_dwarf_lines **out,
                               wd_error *err)
{
    *out = NULL;
    wd_dwarf_lines *l = wd_calloc(ctx, 1, sizeof *l);
    if (l == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    l->ctx = ctx;
    wd_arena_init(&l->arena, ctx);
    rd r = {s->line, s->line, s->line + s->line_size, false};
    wd_status st = WD_OK;
    while (st == WD_OK && r.p < r.end)
        st = read_unit(l, &r, s, err);
    if (st != WD_OK) {
        wd_dwarf_lines_free(l);
        return st;
    }
    if (l->rows.count > 1)
        qsort(l->rows.data, l->rows.count, sizeof *l->rows.data, cmp_row);
    *out = l;
    return WD_OK;
}

void wd_dwarf_lines_free(wd_dwarf_lines *l)
{
    if (l == NULL)
        return;
    WD_VEC_FREE(l->ctx, &l->rows);
    WD_VEC_FREE(l->ctx, &l->files);
    wd_arena_fini(&l->arena);
    wd_free(l->ctx, l);
}

bool wd_dwarf_lookup(const wd_dwarf_lines *l, uint64_t address, const char **file,
                     uint32_t *line, uint32_t *column)
{
    *file = NULL;
    *line = *column = 0;
    /* The last row at or before the address. */
    uint32_t lo = 0, hi = l->rows.count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->rows.data[mid].addr <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return false;
    const row *x = &l->rows.data[lo - 1];
    if (x->file == UINT32_MAX)
        return false; /* past the end of a sequence */
    *file = x->file < l->files.count ? l->files.data[x->file] : "?";
    *line = x->line;
    *column = x->column;
    return true;
}

uint32_t wd_dwarf_row_count(const wd_dwarf_lines *l)
{
    return l->rows.count;
}
