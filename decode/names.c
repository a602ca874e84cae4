/* names.c: the `name` custom section (WebAssembly 2.0, appendix 7.4) and UTF-8 checks.
 *
 * The name section is debugging information: whatever is wrong in it never makes the
 * module malformed or invalid. A subsection that goes wrong is dropped from that point
 * on (the entries read before it are kept) and the next subsection is still read, since
 * its size is known. Only running out of memory is an error. */
#include "decode/names.h"

#include "decode/reader.h"

#include <stdlib.h>
#include <string.h>

bool wd_utf8_valid(const uint8_t *s, size_t size)
{
    size_t i = 0;
    while (i < size) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF; /* the range of the first continuation byte */
        if (c < 0xC2)
            return false; /* a stray continuation byte, or an overlong 2-byte form */
        else if (c < 0xE0)
            need = 1;
        else if (c < 0xF0) {
            need = 2;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates U+D800..U+DFFF */
        } else if (c < 0xF5) {
            need = 3;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* above U+10FFFF */
        } else
            return false;
        if (need > size - i - 1)
            return false;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += need + 1;
    }
    return true;
}

typedef struct names_parser {
    wd_module *m;
    wd_reader r;
    uint32_t *local_counts; /* m->names.local_counts, writable */
    wd_error *err;          /* where out of memory is recorded */
} names_parser;

static wd_status nomem(names_parser *p)
{
    return wd_fail(p->err, WD_ERR_NOMEM, 0, "out of memory");
}

/* Reads a name; *out is a NUL-terminated copy in the arena, or with out NULL nothing is
 * kept. MALFORMED when the name is cut short or not UTF-8 (the caller drops the rest of
 * the subsection). */
static wd_status read_name(names_parser *p, const char **out)
{
    uint32_t len = 0;
    const uint8_t *bytes = NULL;
    WD_TRY(wd_read_u32(&p->r, &len));
    WD_TRY(wd_read_bytes(&p->r, len, &bytes));
    if (!wd_utf8_valid(bytes, len))
        return WD_ERR_MALFORMED;
    if (out == NULL)
        return WD_OK;
    char *s = wd_arena_alloc(&p->m->arena, (size_t)len + 1);
    if (s == NULL)
        return nomem(p);
    memcpy(s, bytes, len);
    *out = s;
    return WD_OK;
}

/* A name map (vec of index, name) into names[0..count); out-of-range indices and
 * repeated ones (the first wins) are skipped. */
static wd_status read_name_map(names_parser *p, const char **names, uint32_t count)
{
    uint32_t n = 0;
    WD_TRY(wd_read_u32(&p->r, &n));
    for (uint32_t i = 0; i < n; i++) { /* each entry takes at least 2 bytes: bounded */
        uint32_t idx = 0;
        const char *name = NULL;
        WD_TRY(wd_read_u32(&p->r, &idx));
        WD_TRY(read_name(p, &name));
        if (idx < count && names[idx] == NULL)
            names[idx] = name;
    }
    return WD_OK;
}

static int compare_keys(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Keeps the `count` names of names[] (entry k naming local keys[k] >> 32) as function
 * fidx's: sorted by index, the first of a repeated index kept. */
static wd_status keep_local_names(names_parser *p, uint32_t fidx, uint64_t *keys,
                                  const char **names, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        keys[k] |= k; /* the entry's order under its index: qsort is not stable */
    qsort(keys, count, sizeof *keys, compare_keys);
    wd_local_name *out = wd_arena_alloc(&p->m->arena, (size_t)count * sizeof *out);
    if (out == NULL)
        return nomem(p);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t idx = (uint32_t)(keys[k] >> 32);
        if (kept == 0 || out[kept - 1].idx != idx)
            out[kept++] = (wd_local_name){idx, names[(uint32_t)keys[k]]};
    }
    p->m->names.locals[fidx] = out;
    p->local_counts[fidx] = kept;
    return WD_OK;
}

/* The name map of function fidx's locals (parameters first; indices below `total` only),
 * kept with keep_local_names when `keep`. It is read twice: to count the names it holds,
 * then to keep them, so that what is allocated follows the bytes of the map and not the
 * locals the function declares (7 bytes of a body declare 50,000). A map cut short keeps
 * the names before the cut, and its error ends the subsection. */
static wd_status read_local_map(names_parser *p, uint32_t fidx, uint64_t total, bool keep)
{
    size_t start = p->r.pos;
    uint32_t n = 0, entries = 0, named = 0;
    WD_TRY(wd_read_u32(&p->r, &n));
    wd_status st = WD_OK;
    for (; entries < n; entries++) { /* each entry takes at least 2 bytes: bounded */
        uint32_t idx = 0;
        st = wd_read_u32(&p->r, &idx);
        if (st == WD_OK)
            st = read_name(p, NULL);
        if (st != WD_OK)
            break;
        named += idx < total;
    }
    if (!keep || named == 0)
        return st;
    size_t end = p->r.pos;
    uint64_t *keys = wd_alloc(p->m->ctx, (size_t)named * sizeof *keys);
    const char **names = wd_alloc(p->m->ctx, (size_t)named * sizeof *names);
    wd_status kst = keys != NULL && names != NULL ? WD_OK : nomem(p);
    p->r.pos = start;
    (void)wd_read_u32(&p->r, &n); /* read above */
    for (uint32_t i = 0, k = 0; kst == WD_OK && i < entries; i++) {
        uint32_t idx = 0;
        (void)wd_read_u32(&p->r, &idx);
        if (idx < total) {
            keys[k] = (uint64_t)idx << 32;
            kst = read_name(p, &names[k++]);
        } else {
            kst = read_name(p, NULL);
        }
    }
    if (kst == WD_OK)
        kst = keep_local_names(p, fidx, keys, names, named);
    wd_free(p->m->ctx, keys);
    wd_free(p->m->ctx, names);
    p->r.pos = end;
    return kst != WD_OK ? kst : st;
}

/* Local names: vec of (function index, name map of its locals, parameters included). A
 * second map for a function already named is read and dropped. */
static wd_status read_local_names(names_parser *p)
{
    wd_module *m = p->m;
    uint32_t n = 0;
    WD_TRY(wd_read_u32(&p->r, &n));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fidx = 0;
        WD_TRY(wd_read_u32(&p->r, &fidx));
        uint64_t total = 0;
        bool keep = false;
        if (fidx < m->func_count) {
            const wd_funcdef *f = &m->funcs[fidx];
            total = (uint64_t)m->types[f->type_idx].param_count + f->local_count;
            keep = m->names.locals[fidx] == NULL;
        }
        WD_TRY(read_local_map(p, fidx, total, keep));
    }
    return WD_OK;
}

static wd_status read_subsection(names_parser *p, uint8_t id)
{
    wd_names *nm = &p->m->names;
    switch (id) {
    case 0: {
        const char *name = NULL;
        WD_TRY(read_name(p, &name));
        if (nm->module == NULL)
            nm->module = name;
        return WD_OK;
    }
    case 1:
        return read_name_map(p, nm->funcs, p->m->func_count);
    case 2:
        return read_local_names(p);
    default:
        return WD_OK; /* unknown subsections are skipped */
    }
}

static wd_status alloc_tables(names_parser *p)
{
    wd_module *m = p->m;
    size_t n = m->func_count;
    if (n == 0)
        return WD_OK;
    m->names.funcs = wd_arena_alloc(&m->arena, n * sizeof *m->names.funcs);
    m->names.locals = wd_arena_alloc(&m->arena, n * sizeof *m->names.locals);
    p->local_counts = wd_arena_alloc(&m->arena, n * sizeof *p->local_counts);
    m->names.local_counts = p->local_counts;
    if (m->names.funcs == NULL || m->names.locals == NULL || p->local_counts == NULL)
        return nomem(p);
    return WD_OK;
}

wd_status wd_names_parse(wd_module *m, const uint8_t *data, size_t size, wd_error *err)
{
    memset(&m->names, 0, sizeof m->names);
    wd_error scratch; /* read errors only end a subsection: they are not reported */
    wd_error_clear(&scratch);
    names_parser p = {
        .m = m, .r = {.base = data, .pos = 0, .end = size, .err = &scratch}, .err = err};
    WD_TRY(alloc_tables(&p));
    if (data == NULL)
        return WD_OK;
    while (p.r.pos < size) {
        uint8_t id = 0;
        uint32_t len = 0;
        if (wd_read_u8(&p.r, &id) != WD_OK || wd_read_u32(&p.r, &len) != WD_OK ||
            len > size - p.r.pos)
            break; /* the subsection structure itself is broken: nothing more to read */
        size_t next = p.r.pos + len;
        p.r.end = next;
        wd_status st = read_subsection(&p, id);
        if (st == WD_ERR_NOMEM)
            return st;
        p.r.pos = next;
        p.r.end = size;
    }
    return WD_OK;
}
