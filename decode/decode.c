/* decode.c: the binary module decoder (WebAssembly 2.0, binary format, section 5) and
 * module-level validation (section 3.4), then body validation through validate.c.
 *
 * Three phases, in the order the spec's reference interpreter reports errors, so that a
 * module with one defect gets the spec's message for it:
 *   1. read every section (binary format errors: WD_ERR_MALFORMED);
 *   2. validate the module-level parts in the reference's order (WD_ERR_INVALID):
 *      imports, function types, globals, tables, memories, element and data segments,
 *      start, exports, the memory count; then the `name` section, PVM restrictions and
 *      the functions referenced outside bodies (C.refs);
 *   3. validate and translate each function body (validate.c).
 *
 * Reading follows the reference interpreter's stream semantics: a section's contents are
 * read against the end of the module, not of the section, and the section's size is
 * checked afterwards ("section size mismatch"); every length or vector count is checked
 * against the bytes left in the module ("length out of bounds") before anything is
 * allocated from it, so allocations stay proportional to the input. */
#include "decode/decode.h"

#include "decode/names.h"
#include "decode/reader.h"
#include "decode/validate.h"
#include "decode/validate_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declared locals per function. The spec allows 2^32-1; this engine limit (the JS API's)
 * bounds the frame of a call and the translator's array of a body's local types. */
#define MAX_LOCALS 50000u
#define MAX_PAGES  65536u

/* Marks a constant expression that was not exactly one instruction (phase 1); phase 2
 * rejects it with "type mismatch", as the reference does after its other checks. */
#define CONST_BAD   0x80u
#define CONST_EMPTY 0x7Fu

enum {
    SEC_CUSTOM,
    SEC_TYPE,
    SEC_IMPORT,
    SEC_FUNC,
    SEC_TABLE,
    SEC_MEMORY,
    SEC_GLOBAL,
    SEC_EXPORT,
    SEC_START,
    SEC_ELEM,
    SEC_CODE,
    SEC_DATA,
    SEC_DATACOUNT,
    SEC_COUNT
};

typedef struct decoder {
    wd_module *m;
    wd_ctx *ctx;
    const wd_decode_opts *opts;
    const uint8_t *bytes;
    size_t size;
    wd_reader r;
    wd_error *err;
    bool fresh; /* err held no error on entry: ours are the ones recorded */

    unsigned last_rank; /* order rank of the last non-custom section read */
    bool funcs_open, tables_open, memories_open, globals_open;
    uint32_t defined_func_count; /* the function section's count */
    uint32_t code_count;
    uint32_t datacount; /* the DataCount section's value (m->has_data_count) */
    WD_VEC(wd_custom) customs;

    /* Byte offsets kept for errors reported in phase 2 (0: none). Per index space entry
     * for functions, tables, memories and globals (imports included). */
    uint32_t *type_float;  /* per type: its first f32/f64 */
    uint32_t *func_off;    /* per function: its import, or its type index */
    uint32_t *local_float; /* per function: its first f32/f64 local */
    uint32_t *table_off, *memory_off, *global_off;
    uint32_t *export_off, *elem_off, *data_off;
    uint32_t start_off;
} decoder;

static wd_status nomem(decoder *d)
{
    return wd_fail(d->err, WD_ERR_NOMEM, d->r.pos, "out of memory");
}

static uint32_t here(const decoder *d)
{
    return (uint32_t)d->r.pos; /* modules are smaller than 2 GiB */
}

/* `count` zeroed elements in the module's arena; NULL when count is 0 or out of memory. */
static void *arena_array(decoder *d, uint64_t count, size_t elem)
{
    if (count == 0 || count > SIZE_MAX / elem)
        return NULL;
    return wd_arena_alloc(&d->m->arena, (size_t)count * elem);
}

/* A zeroed scratch array of offsets, freed when decoding ends. */
static wd_status scratch_offsets(decoder *d, uint64_t count, uint32_t **out)
{
    *out = count <= SIZE_MAX / sizeof **out ? wd_calloc(d->ctx, (size_t)count, sizeof **out) : NULL;
    return *out != NULL ? WD_OK : nomem(d);
}

/* ---- Phase 1: the binary format ---- */

/* A vector count or byte length: at most the bytes left in the module from where the
 * number starts, as the reference interpreter checks it. */
static wd_status read_len(decoder *d, uint32_t *out)
{
    size_t at = d->r.pos;
    WD_TRY(wd_read_u32(&d->r, out));
    if (*out > d->size - at)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "length out of bounds");
    return WD_OK;
}

/* A name: a NUL-terminated copy in the arena (the size excludes the NUL). */
static wd_status read_name(decoder *d, const char **out, uint32_t *size)
{
    size_t at = d->r.pos;
    uint32_t len = 0;
    const uint8_t *bytes = NULL;
    WD_TRY(read_len(d, &len));
    WD_TRY(wd_read_bytes(&d->r, len, &bytes));
    if (!wd_utf8_valid(bytes, len))
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed UTF-8 encoding");
    char *s = wd_arena_alloc(&d->m->arena, (size_t)len + 1);
    if (s == NULL)
        return nomem(d);
    memcpy(s, bytes, len);
    *out = s;
    *size = len;
    return WD_OK;
}

/* A type byte that is not one: the reference reads types as signed LEB128, so a byte
 * with the continuation bit reads as an over-long number. */
static wd_status bad_type(decoder *d, size_t at, uint8_t b, const char *what)
{
    if (b & 0x80)
        return wd_fail(d->err, WD_ERR_MALFORMED, at + 1, "integer representation too long");
    return wd_fail(d->err, WD_ERR_MALFORMED, at, "%s", what);
}

static wd_status read_valtype(decoder *d, uint8_t *out)
{
    size_t at = d->r.pos;
    uint8_t b = 0;
    WD_TRY(wd_read_u8(&d->r, &b));
    switch (b) {
    case WD_I32:
    case WD_I64:
    case WD_F32:
    case WD_F64:
    case WD_FUNCREF:
    case WD_EXTERNREF:
        *out = b;
        return WD_OK;
    case WD_V128:
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "SIMD not supported yet");
    default:
        return bad_type(d, at, b, "malformed value type");
    }
}

static wd_status read_reftype(decoder *d, uint8_t *out)
{
    size_t at = d->r.pos;
    uint8_t b = 0;
    WD_TRY(wd_read_u8(&d->r, &b));
    if (b != WD_FUNCREF && b != WD_EXTERNREF)
        return bad_type(d, at, b, "malformed reference type");
    *out = b;
    return WD_OK;
}

/* Limits: a flag (read as a 1-bit LEB128, as the reference does), min, optional max. */
static wd_status read_limits(decoder *d, wd_limits *lim)
{
    size_t at = d->r.pos;
    uint8_t flag = 0;
    uint32_t v = 0;
    WD_TRY(wd_read_u8(&d->r, &flag));
    if ((flag & 0x7F) > 1)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "integer too large");
    if (flag & 0x80)
        return wd_fail(d->err, WD_ERR_MALFORMED, at + 1, "integer representation too long");
    WD_TRY(wd_read_u32(&d->r, &v));
    lim->min = v;
    lim->has_max = flag == 1;
    if (lim->has_max) {
        WD_TRY(wd_read_u32(&d->r, &v));
        lim->max = v;
    }
    return WD_OK;
}

static wd_status read_globaltype(decoder *d, wd_globaltype *g)
{
    WD_TRY(read_valtype(d, &g->type));
    size_t at = d->r.pos;
    uint8_t mut = 0;
    WD_TRY(wd_read_u8(&d->r, &mut));
    if (mut > 1)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed mutability");
    g->mut = mut == 1;
    return WD_OK;
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* One instruction of a constant expression (op already read at `at`). Instructions that
 * exist but are not constant are INVALID, as the reference finds at validation. */
static wd_status read_const_instr(decoder *d, uint8_t op, size_t at, wd_constexpr *e)
{
    wd_reader *r = &d->r;
    int64_t v = 0;
    const uint8_t *p = NULL;
    switch (op) {
    case 0x41:
        WD_TRY(wd_read_sleb(r, 32, &v));
        *e = (wd_constexpr){.kind = WD_CONST_I32, .type = WD_I32, .value.u64 = (uint32_t)v};
        return WD_OK;
    case 0x42:
        WD_TRY(wd_read_sleb(r, 64, &v));
        *e = (wd_constexpr){.kind = WD_CONST_I64, .type = WD_I64, .value.u64 = (uint64_t)v};
        return WD_OK;
    case 0x43:
        WD_TRY(wd_read_bytes(r, 4, &p));
        *e = (wd_constexpr){.kind = WD_CONST_F32, .type = WD_F32, .value.u64 = read_le(p, 4)};
        return WD_OK;
    case 0x44:
        WD_TRY(wd_read_bytes(r, 8, &p));
        *e = (wd_constexpr){.kind = WD_CONST_F64, .type = WD_F64, .value.u64 = read_le(p, 8)};
        return WD_OK;
    case 0x23:
        *e = (wd_constexpr){.kind = WD_CONST_GLOBAL}; /* its type is known in phase 2 */
        return wd_read_u32(r, &e->idx);
    case 0xD0:
        *e = (wd_constexpr){.kind = WD_CONST_REFNULL};
        return read_reftype(d, &e->type);
    case 0xD2:
        *e = (wd_constexpr){.kind = WD_CONST_REFFUNC, .type = WD_FUNCREF};
        return wd_read_u32(r, &e->idx);
    case 0xFD:
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "SIMD not supported yet");
    case 0xFC: {
        uint32_t sub = 0;
        WD_TRY(wd_read_u32(r, &sub));
        if (wd_op_decode(0xFC, sub) == WD_OP_COUNT)
            return wd_fail(d->err, WD_ERR_MALFORMED, at, "illegal opcode fc %x", (unsigned)sub);
        return wd_fail(d->err, WD_ERR_INVALID, at, "constant expression required");
    }
    default:
        if (wd_op_decode(0, op) == WD_OP_COUNT)
            return wd_fail(d->err, WD_ERR_MALFORMED, at, "illegal opcode %02x", (unsigned)op);
        return wd_fail(d->err, WD_ERR_INVALID, at, "constant expression required");
    }
}

/* A constant expression: instructions up to `end`. Only the first is kept; a sequence
 * of other than one instruction is marked CONST_BAD for phase 2. */
static wd_status read_const(decoder *d, wd_constexpr *e)
{
    uint32_t offset = here(d), n = 0;
    *e = (wd_constexpr){.kind = CONST_BAD | CONST_EMPTY, .offset = offset};
    for (;;) { /* bounded: each instruction consumes at least one byte */
        size_t at = d->r.pos;
        uint8_t op = 0;
        WD_TRY(wd_read_u8(&d->r, &op));
        if (op == 0x0B)
            break;
        wd_constexpr instr;
        WD_TRY(read_const_instr(d, op, at, &instr));
        if (n++ == 0)
            *e = instr;
        else
            e->kind |= CONST_BAD;
    }
    e->offset = offset;
    return WD_OK;
}

static wd_status read_valtypes(decoder *d, uint32_t *count, const uint8_t **out,
                               uint32_t *float_off)
{
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    uint8_t *types = arena_array(d, n, 1);
    if (n != 0 && types == NULL)
        return nomem(d);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = here(d);
        WD_TRY(read_valtype(d, &types[i]));
        if ((types[i] == WD_F32 || types[i] == WD_F64) && *float_off == 0)
            *float_off = at;
    }
    *count = n;
    *out = types;
    return WD_OK;
}

static wd_status read_type_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    m->types = arena_array(d, n, sizeof *m->types);
    if (n != 0 && m->types == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, n, &d->type_float));
    m->type_count = n;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = d->r.pos;
        uint8_t form = 0;
        WD_TRY(wd_read_u8(&d->r, &form));
        if (form != 0x60)
            return bad_type(d, at, form, "malformed function type");
        wd_functype *t = &m->types[i];
        WD_TRY(read_valtypes(d, &t->param_count, &t->params, &d->type_float[i]));
        WD_TRY(read_valtypes(d, &t->result_count, &t->results, &d->type_float[i]));
    }
    return WD_OK;
}

static wd_status read_import(decoder *d, wd_import *imp)
{
    wd_module *m = d->m;
    imp->offset = here(d);
    WD_TRY(read_name(d, &imp->module, &imp->module_size));
    WD_TRY(read_name(d, &imp->name, &imp->name_size));
    size_t at = d->r.pos;
    WD_TRY(wd_read_u8(&d->r, &imp->kind));
    switch (imp->kind) {
    case WD_EXTERN_FUNC:
        m->import_func_count++;
        return wd_read_u32(&d->r, &imp->desc.type_idx);
    case WD_EXTERN_TABLE:
        m->import_table_count++;
        WD_TRY(read_reftype(d, &imp->desc.table.elem));
        return read_limits(d, &imp->desc.table.limits);
    case WD_EXTERN_MEMORY:
        m->import_memory_count++;
        return read_limits(d, &imp->desc.memory.limits);
    case WD_EXTERN_GLOBAL:
        m->import_global_count++;
        return read_globaltype(d, &imp->desc.global);
    default:
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed import kind");
    }
}

static wd_status read_import_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    m->imports = arena_array(d, n, sizeof *m->imports);
    if (n != 0 && m->imports == NULL)
        return nomem(d);
    m->import_count = n;
    for (uint32_t i = 0; i < n; i++)
        WD_TRY(read_import(d, &m->imports[i]));
    return WD_OK;
}

/* Opens an index space: imports first, then `defined` entries to come. Counts are
 * bounded by the module size (< 2 GiB), so their sums fit in 32 bits. */
static wd_status open_funcs(decoder *d, uint32_t defined)
{
    wd_module *m = d->m;
    d->funcs_open = true;
    m->func_count = m->import_func_count + defined;
    m->funcs = arena_array(d, m->func_count, sizeof *m->funcs);
    if (m->func_count != 0 && m->funcs == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, m->func_count, &d->func_off));
    WD_TRY(scratch_offsets(d, m->func_count, &d->local_float));
    for (uint32_t i = 0, k = 0; i < m->import_count; i++) {
        if (m->imports[i].kind == WD_EXTERN_FUNC) {
            m->funcs[k].type_idx = m->imports[i].desc.type_idx;
            d->func_off[k++] = m->imports[i].offset;
        }
    }
    return WD_OK;
}

static wd_status open_tables(decoder *d, uint32_t defined)
{
    wd_module *m = d->m;
    d->tables_open = true;
    m->table_count = m->import_table_count + defined;
    m->tables = arena_array(d, m->table_count, sizeof *m->tables);
    if (m->table_count != 0 && m->tables == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, m->table_count, &d->table_off));
    for (uint32_t i = 0, k = 0; i < m->import_count; i++) {
        if (m->imports[i].kind == WD_EXTERN_TABLE) {
            m->tables[k] = m->imports[i].desc.table;
            d->table_off[k++] = m->imports[i].offset;
        }
    }
    return WD_OK;
}

static wd_status open_memories(decoder *d, uint32_t defined)
{
    wd_module *m = d->m;
    d->memories_open = true;
    m->memory_count = m->import_memory_count + defined;
    m->memories = arena_array(d, m->memory_count, sizeof *m->memories);
    if (m->memory_count != 0 && m->memories == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, m->memory_count, &d->memory_off));
    for (uint32_t i = 0, k = 0; i < m->import_count; i++) {
        if (m->imports[i].kind == WD_EXTERN_MEMORY) {
            m->memories[k] = m->imports[i].desc.memory;
            d->memory_off[k++] = m->imports[i].offset;
        }
    }
    return WD_OK;
}

static wd_status open_globals(decoder *d, uint32_t defined)
{
    wd_module *m = d->m;
    d->globals_open = true;
    m->global_count = m->import_global_count + defined;
    m->globals = arena_array(d, m->global_count, sizeof *m->globals);
    if (m->global_count != 0 && m->globals == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, m->global_count, &d->global_off));
    for (uint32_t i = 0, k = 0; i < m->import_count; i++) {
        if (m->imports[i].kind == WD_EXTERN_GLOBAL) {
            m->globals[k].type = m->imports[i].desc.global;
            d->global_off[k++] = m->imports[i].offset;
        }
    }
    return WD_OK;
}

static wd_status read_func_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    WD_TRY(open_funcs(d, n));
    d->defined_func_count = n;
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        d->func_off[i] = here(d);
        WD_TRY(wd_read_u32(&d->r, &m->funcs[i].type_idx));
    }
    return WD_OK;
}

static wd_status read_table_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    WD_TRY(open_tables(d, n));
    for (uint32_t i = m->import_table_count; i < m->table_count; i++) {
        d->table_off[i] = here(d);
        WD_TRY(read_reftype(d, &m->tables[i].elem));
        WD_TRY(read_limits(d, &m->tables[i].limits));
    }
    return WD_OK;
}

static wd_status read_memory_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    WD_TRY(open_memories(d, n));
    for (uint32_t i = m->import_memory_count; i < m->memory_count; i++) {
        d->memory_off[i] = here(d);
        WD_TRY(read_limits(d, &m->memories[i].limits));
    }
    return WD_OK;
}

static wd_status read_global_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    WD_TRY(open_globals(d, n));
    for (uint32_t i = m->import_global_count; i < m->global_count; i++) {
        d->global_off[i] = here(d);
        WD_TRY(read_globaltype(d, &m->globals[i].type));
        WD_TRY(read_const(d, &m->globals[i].init));
    }
    return WD_OK;
}

static wd_status read_export_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    m->exports = arena_array(d, n, sizeof *m->exports);
    if (n != 0 && m->exports == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, n, &d->export_off));
    m->export_count = n;
    for (uint32_t i = 0; i < n; i++) {
        wd_export *e = &m->exports[i];
        d->export_off[i] = here(d);
        WD_TRY(read_name(d, &e->name, &e->name_size));
        size_t at = d->r.pos;
        WD_TRY(wd_read_u8(&d->r, &e->kind));
        if (e->kind > WD_EXTERN_GLOBAL)
            return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed export kind");
        WD_TRY(wd_read_u32(&d->r, &e->idx));
    }
    return WD_OK;
}

static wd_status read_start_section(decoder *d)
{
    d->start_off = here(d);
    d->m->has_start = true;
    return wd_read_u32(&d->r, &d->m->start_idx);
}

/* Element segment items: function indices (flags 0-3) or expressions (flags 4-7). */
static wd_status read_elem_items(decoder *d, wd_elemseg *seg, bool exprs)
{
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    wd_constexpr *items = arena_array(d, n, sizeof *items);
    if (n != 0 && items == NULL)
        return nomem(d);
    for (uint32_t i = 0; i < n; i++) {
        if (exprs) {
            WD_TRY(read_const(d, &items[i]));
        } else {
            items[i] =
                (wd_constexpr){.kind = WD_CONST_REFFUNC, .type = WD_FUNCREF, .offset = here(d)};
            WD_TRY(wd_read_u32(&d->r, &items[i].idx));
        }
    }
    seg->count = n;
    seg->items = items;
    return WD_OK;
}

/* Flags: bit 0 passive or declarative (bit 1 then says which), else active with an
 * explicit table index when bit 1 is set; bit 2 items are expressions. A type is given
 * (an element kind, or with expressions a reference type) unless the flags are 0 or 4. */
static wd_status read_elem(decoder *d, wd_elemseg *seg)
{
    size_t at = d->r.pos;
    uint32_t flags = 0;
    WD_TRY(wd_read_u32(&d->r, &flags));
    if (flags > 7)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed elements segment kind");
    bool exprs = flags & 4;
    seg->exprs = exprs;
    seg->type = WD_FUNCREF;
    if (flags & 1) {
        seg->mode = flags & 2 ? WD_SEG_DECLARATIVE : WD_SEG_PASSIVE;
    } else {
        seg->mode = WD_SEG_ACTIVE;
        if (flags & 2)
            WD_TRY(wd_read_u32(&d->r, &seg->table_idx));
        WD_TRY(read_const(d, &seg->offset));
    }
    if (flags & 3) {
        if (exprs) {
            WD_TRY(read_reftype(d, &seg->type));
        } else {
            size_t kat = d->r.pos;
            uint8_t kind = 0;
            WD_TRY(wd_read_u8(&d->r, &kind));
            if (kind != 0x00)
                return wd_fail(d->err, WD_ERR_MALFORMED, kat, "malformed element kind");
        }
    }
    return read_elem_items(d, seg, exprs);
}

static wd_status read_elem_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    m->elems = arena_array(d, n, sizeof *m->elems);
    if (n != 0 && m->elems == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, n, &d->elem_off));
    m->elem_count = n;
    for (uint32_t i = 0; i < n; i++) {
        d->elem_off[i] = here(d);
        WD_TRY(read_elem(d, &m->elems[i]));
    }
    return WD_OK;
}

static wd_status read_datacount_section(decoder *d)
{
    d->m->has_data_count = true;
    return wd_read_u32(&d->r, &d->datacount);
}

/* Local declarations: (count, type) groups, kept as such (module.h). Their number is
 * bounded by the bytes left before anything is allocated; their total by MAX_LOCALS. */
static wd_status read_locals(decoder *d, uint32_t func_idx, wd_funcdef *f)
{
    size_t at = d->r.pos;
    uint32_t groups = 0;
    uint64_t total = 0;
    WD_TRY(read_len(d, &groups));
    wd_localdecl *decls = NULL;
    if (f != NULL && groups != 0) { /* not for an extra body: reported at the end */
        decls = arena_array(d, groups, sizeof *decls);
        if (decls == NULL)
            return nomem(d);
    }
    uint32_t zero_tail = 0;
    for (uint32_t i = 0; i < groups; i++) {
        uint32_t n = 0;
        uint8_t t = 0;
        WD_TRY(wd_read_u32(&d->r, &n));
        uint32_t tat = here(d);
        WD_TRY(read_valtype(d, &t));
        total += n;
        zero_tail = n == 0 ? zero_tail + 1 : 0;
        if (decls != NULL)
            decls[i] = (wd_localdecl){n, t};
        if (n != 0 && (t == WD_F32 || t == WD_F64) && f != NULL && d->local_float[func_idx] == 0)
            d->local_float[func_idx] = tat;
    }
    if (total > MAX_LOCALS)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "too many locals");
    if (f != NULL) {
        f->local_groups = groups;
        f->local_zero_tail = zero_tail;
        f->local_count = (uint32_t)total;
        f->local_decls = decls;
    }
    return WD_OK;
}

static wd_status read_code_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    if (!d->funcs_open)
        WD_TRY(open_funcs(d, 0));
    d->code_count = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t size = 0;
        WD_TRY(read_len(d, &size));
        size_t start = d->r.pos;
        uint32_t idx = m->import_func_count + i;
        wd_funcdef *f = i < d->defined_func_count ? &m->funcs[idx] : NULL;
        WD_TRY(read_locals(d, idx, f));
        if (d->r.pos - start > size)
            return wd_fail(d->err, WD_ERR_MALFORMED, start, "section size mismatch");
        if (size > d->size - start) /* the body runs past the end of the module */
            return wd_fail(d->err, WD_ERR_MALFORMED, d->size,
                           "unexpected end of section or function");
        if (f != NULL) {
            f->body_offset = (uint32_t)start;
            f->body_size = size;
        }
        d->r.pos = start + size;
    }
    return WD_OK;
}

static wd_status read_data(decoder *d, wd_dataseg *seg)
{
    size_t at = d->r.pos;
    uint32_t flags = 0, size = 0;
    WD_TRY(wd_read_u32(&d->r, &flags));
    if (flags > 2)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed data segment kind");
    seg->mode = flags == 1 ? WD_SEG_PASSIVE : WD_SEG_ACTIVE;
    if (flags == 2)
        WD_TRY(wd_read_u32(&d->r, &seg->memory_idx));
    if (flags != 1)
        WD_TRY(read_const(d, &seg->offset));
    WD_TRY(read_len(d, &size));
    const uint8_t *bytes = NULL;
    seg->bytes_offset = here(d);
    WD_TRY(wd_read_bytes(&d->r, size, &bytes));
    seg->size = size;
    if (size != 0 && d->opts->bytes_kept) {
        seg->bytes = bytes;
    } else if (size != 0) {
        seg->bytes = wd_arena_dup(&d->m->arena, bytes, size);
        if (seg->bytes == NULL)
            return nomem(d);
    }
    return WD_OK;
}

static wd_status read_data_section(decoder *d)
{
    wd_module *m = d->m;
    uint32_t n = 0;
    WD_TRY(read_len(d, &n));
    m->datas = arena_array(d, n, sizeof *m->datas);
    if (n != 0 && m->datas == NULL)
        return nomem(d);
    WD_TRY(scratch_offsets(d, n, &d->data_off));
    m->data_count = n;
    for (uint32_t i = 0; i < n; i++) {
        d->data_off[i] = here(d);
        WD_TRY(read_data(d, &m->datas[i]));
    }
    return WD_OK;
}

/* A custom section: its name, then a payload filling the rest of the section. The name
 * is read first even when it runs past the section, as the reference reads it. */
static wd_status read_custom_section(decoder *d, size_t start, uint32_t size)
{
    wd_custom c = {0};
    uint32_t name_size = 0;
    WD_TRY(read_name(d, &c.name, &name_size));
    size_t used = d->r.pos - start;
    if (used > size)
        return wd_fail(d->err, WD_ERR_MALFORMED, d->size, "unexpected end of section or function");
    c.offset = here(d);
    c.size = (uint32_t)(size - used);
    const uint8_t *payload = NULL;
    WD_TRY(wd_read_bytes(&d->r, c.size, &payload));
    if (c.size != 0) {
        c.data = wd_arena_dup(&d->m->arena, payload, c.size);
        if (c.data == NULL)
            return nomem(d);
    }
    if (!WD_VEC_PUSH(d->ctx, &d->customs, c))
        return nomem(d);
    return WD_OK;
}

static wd_status read_section_body(decoder *d, uint8_t id, size_t start, uint32_t size)
{
    switch (id) {
    case SEC_CUSTOM:
        return read_custom_section(d, start, size);
    case SEC_TYPE:
        return read_type_section(d);
    case SEC_IMPORT:
        return read_import_section(d);
    case SEC_FUNC:
        return read_func_section(d);
    case SEC_TABLE:
        return read_table_section(d);
    case SEC_MEMORY:
        return read_memory_section(d);
    case SEC_GLOBAL:
        return read_global_section(d);
    case SEC_EXPORT:
        return read_export_section(d);
    case SEC_START:
        return read_start_section(d);
    case SEC_ELEM:
        return read_elem_section(d);
    case SEC_CODE:
        return read_code_section(d);
    case SEC_DATA:
        return read_data_section(d);
    case SEC_DATACOUNT:
        return read_datacount_section(d);
    }
    WD_ASSERT(0);
    return WD_ERR_MALFORMED;
}

static wd_status read_section(decoder *d)
{
    /* Where each section may appear: DataCount (12) sits between Element and Code. */
    static const uint8_t rank[SEC_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 10};
    size_t at = d->r.pos;
    uint8_t id = 0;
    uint32_t size = 0;
    WD_TRY(wd_read_u8(&d->r, &id));
    if (id >= SEC_COUNT)
        return wd_fail(d->err, WD_ERR_MALFORMED, at, "malformed section id");
    if (id != SEC_CUSTOM) {
        if (rank[id] <= d->last_rank)
            return wd_fail(d->err, WD_ERR_MALFORMED, at, "unexpected content after last section");
        d->last_rank = rank[id];
    }
    WD_TRY(read_len(d, &size));
    size_t start = d->r.pos;
    WD_TRY(read_section_body(d, id, start, size));
    if (d->r.pos != start + size)
        return wd_fail(d->err, WD_ERR_MALFORMED, start, "section size mismatch");
    return WD_OK;
}

static wd_status read_header(decoder *d)
{
    static const uint8_t magic[4] = {0x00, 0x61, 0x73, 0x6D};
    static const uint8_t version[4] = {0x01, 0x00, 0x00, 0x00};
    const uint8_t *p = NULL;
    WD_TRY(wd_read_bytes(&d->r, 4, &p));
    if (memcmp(p, magic, 4) != 0)
        return wd_fail(d->err, WD_ERR_MALFORMED, 0, "magic header not detected");
    WD_TRY(wd_read_bytes(&d->r, 4, &p));
    if (memcmp(p, version, 4) != 0)
        return wd_fail(d->err, WD_ERR_MALFORMED, 4, "unknown binary version");
    return WD_OK;
}

/* Index spaces whose section was absent hold their imports only; custom sections move
 * to the arena. */
static wd_status finish_sections(decoder *d)
{
    wd_module *m = d->m;
    if (!d->funcs_open)
        WD_TRY(open_funcs(d, 0));
    if (!d->tables_open)
        WD_TRY(open_tables(d, 0));
    if (!d->memories_open)
        WD_TRY(open_memories(d, 0));
    if (!d->globals_open)
        WD_TRY(open_globals(d, 0));
    if (d->customs.count != 0) {
        m->customs =
            wd_arena_dup(&m->arena, d->customs.data, d->customs.count * sizeof *d->customs.data);
        if (m->customs == NULL)
            return nomem(d);
        m->custom_count = d->customs.count;
    }
    return WD_OK;
}

static wd_status read_module(decoder *d)
{
    if (d->size > INT32_MAX) /* offsets are 32-bit */
        return wd_fail(d->err, WD_ERR_MALFORMED, 0, "module too large");
    WD_TRY(read_header(d));
    while (d->r.pos < d->size)
        WD_TRY(read_section(d));
    if (d->defined_func_count != d->code_count)
        return wd_fail(d->err, WD_ERR_MALFORMED, d->size,
                       "function and code section have inconsistent lengths");
    if (d->m->has_data_count && d->datacount != d->m->data_count)
        return wd_fail(d->err, WD_ERR_MALFORMED, d->size,
                       "data count and data section have inconsistent lengths");
    return finish_sections(d);
}

/* ---- Phase 2: module-level validation ---- */

static wd_status check_limits(decoder *d, const wd_limits *lim, uint64_t range, uint32_t at,
                              const char *range_msg)
{
    if (lim->min > range || (lim->has_max && lim->max > range))
        return wd_fail(d->err, WD_ERR_INVALID, at, "%s", range_msg);
    if (lim->has_max && lim->min > lim->max)
        return wd_fail(d->err, WD_ERR_INVALID, at, "size minimum must not be greater than maximum");
    return WD_OK;
}

static wd_status check_table(decoder *d, const wd_tabletype *t, uint32_t at)
{
    return check_limits(d, &t->limits, UINT32_MAX, at, "table size must be at most 2^32-1");
}

static wd_status check_memory(decoder *d, const wd_memtype *t, uint32_t at)
{
    return check_limits(d, &t->limits, MAX_PAGES, at,
                        "memory size must be at most 65536 pages (4GiB)");
}

/* A constant expression producing `want`. Its global.get may read imported immutable
 * globals only (WebAssembly 2.0, 3.4.10: globals are validated under C'). */
static wd_status check_const(decoder *d, wd_constexpr *e, uint8_t want)
{
    wd_module *m = d->m;
    unsigned kind = e->kind & ~CONST_BAD;
    if (kind == WD_CONST_GLOBAL) {
        if (e->idx >= m->import_global_count)
            return wd_fail(d->err, WD_ERR_INVALID, e->offset, "unknown global %u", e->idx);
        const wd_globaltype *g = &m->globals[e->idx].type;
        if (g->mut)
            return wd_fail(d->err, WD_ERR_INVALID, e->offset, "constant expression required");
        e->type = g->type;
    } else if (kind == WD_CONST_REFFUNC && e->idx >= m->func_count) {
        return wd_fail(d->err, WD_ERR_INVALID, e->offset, "unknown function %u", e->idx);
    }
    if ((e->kind & CONST_BAD) || e->type != want)
        return wd_fail(d->err, WD_ERR_INVALID, e->offset, "type mismatch");
    return WD_OK;
}

static wd_status check_imports_and_funcs(decoder *d)
{
    wd_module *m = d->m;
    for (uint32_t i = 0; i < m->import_count; i++) {
        const wd_import *imp = &m->imports[i];
        if (imp->kind == WD_EXTERN_FUNC && imp->desc.type_idx >= m->type_count)
            return wd_fail(d->err, WD_ERR_INVALID, imp->offset, "unknown type %u",
                           imp->desc.type_idx);
        if (imp->kind == WD_EXTERN_TABLE)
            WD_TRY(check_table(d, &imp->desc.table, imp->offset));
        if (imp->kind == WD_EXTERN_MEMORY)
            WD_TRY(check_memory(d, &imp->desc.memory, imp->offset));
    }
    for (uint32_t i = m->import_func_count; i < m->func_count; i++)
        if (m->funcs[i].type_idx >= m->type_count)
            return wd_fail(d->err, WD_ERR_INVALID, d->func_off[i], "unknown type %u",
                           m->funcs[i].type_idx);
    return WD_OK;
}

static wd_status check_elem(decoder *d, wd_elemseg *seg, uint32_t at)
{
    wd_module *m = d->m;
    for (uint32_t i = 0; i < seg->count; i++)
        WD_TRY(check_const(d, (wd_constexpr *)&seg->items[i], seg->type));
    if (seg->mode != WD_SEG_ACTIVE)
        return WD_OK;
    if (seg->table_idx >= m->table_count)
        return wd_fail(d->err, WD_ERR_INVALID, at, "unknown table %u", seg->table_idx);
    if (m->tables[seg->table_idx].elem != seg->type)
        return wd_fail(d->err, WD_ERR_INVALID, at, "type mismatch");
    return check_const(d, &seg->offset, WD_I32);
}

static wd_status check_segments(decoder *d)
{
    wd_module *m = d->m;
    for (uint32_t i = m->import_global_count; i < m->global_count; i++)
        WD_TRY(check_const(d, &m->globals[i].init, m->globals[i].type.type));
    for (uint32_t i = m->import_table_count; i < m->table_count; i++)
        WD_TRY(check_table(d, &m->tables[i], d->table_off[i]));
    for (uint32_t i = m->import_memory_count; i < m->memory_count; i++)
        WD_TRY(check_memory(d, &m->memories[i], d->memory_off[i]));
    for (uint32_t i = 0; i < m->elem_count; i++)
        WD_TRY(check_elem(d, &m->elems[i], d->elem_off[i]));
    for (uint32_t i = 0; i < m->data_count; i++) {
        wd_dataseg *seg = &m->datas[i];
        if (seg->mode != WD_SEG_ACTIVE)
            continue;
        if (seg->memory_idx >= m->memory_count)
            return wd_fail(d->err, WD_ERR_INVALID, d->data_off[i], "unknown memory %u",
                           seg->memory_idx);
        WD_TRY(check_const(d, &seg->offset, WD_I32));
    }
    return WD_OK;
}

static int compare_exports(const void *pa, const void *pb)
{
    const wd_export *a = *(const wd_export *const *)pa, *b = *(const wd_export *const *)pb;
    if (a->name_size != b->name_size)
        return a->name_size < b->name_size ? -1 : 1;
    int c = memcmp(a->name, b->name, a->name_size);
    if (c != 0)
        return c;
    return a < b ? -1 : a > b; /* equal names keep their order */
}

/* The index of the first export whose name an earlier export has, or export_count. */
static wd_status find_duplicate_export(decoder *d, uint32_t *out)
{
    wd_module *m = d->m;
    *out = m->export_count;
    if (m->export_count < 2)
        return WD_OK;
    const wd_export **sorted = wd_calloc(d->ctx, m->export_count, sizeof *sorted);
    if (sorted == NULL)
        return nomem(d);
    for (uint32_t i = 0; i < m->export_count; i++)
        sorted[i] = &m->exports[i];
    qsort(sorted, m->export_count, sizeof *sorted, compare_exports);
    for (uint32_t i = 1; i < m->export_count; i++) {
        const wd_export *a = sorted[i - 1], *b = sorted[i];
        uint32_t later = (uint32_t)(b - m->exports);
        if (a->name_size == b->name_size && memcmp(a->name, b->name, a->name_size) == 0 &&
            later < *out)
            *out = later;
    }
    wd_free(d->ctx, sorted);
    return WD_OK;
}

static wd_status check_exports(decoder *d)
{
    static const char *const what[] = {"function", "table", "memory", "global"};
    wd_module *m = d->m;
    uint32_t dup = 0;
    WD_TRY(find_duplicate_export(d, &dup));
    for (uint32_t i = 0; i < m->export_count; i++) {
        const wd_export *e = &m->exports[i];
        uint32_t limit = e->kind == WD_EXTERN_FUNC     ? m->func_count
                         : e->kind == WD_EXTERN_TABLE  ? m->table_count
                         : e->kind == WD_EXTERN_MEMORY ? m->memory_count
                                                       : m->global_count;
        if (e->idx >= limit)
            return wd_fail(d->err, WD_ERR_INVALID, d->export_off[i], "unknown %s %u", what[e->kind],
                           e->idx);
        if (i == dup)
            return wd_fail(d->err, WD_ERR_INVALID, d->export_off[i],
                           "duplicate export name \"%.*s\"", (int)WD_MIN(e->name_size, 64u),
                           e->name);
    }
    return WD_OK;
}

static wd_status validate_module(decoder *d)
{
    wd_module *m = d->m;
    WD_TRY(check_imports_and_funcs(d));
    WD_TRY(check_segments(d));
    if (m->has_start) {
        if (m->start_idx >= m->func_count)
            return wd_fail(d->err, WD_ERR_INVALID, d->start_off, "unknown function %u",
                           m->start_idx);
        const wd_functype *t = &m->types[m->funcs[m->start_idx].type_idx];
        if (t->param_count != 0 || t->result_count != 0)
            return wd_fail(d->err, WD_ERR_INVALID, d->start_off,
                           "start function must not have parameters or results");
    }
    WD_TRY(check_exports(d));
    if (m->memory_count > 1)
        return wd_fail(d->err, WD_ERR_INVALID, d->memory_off[1], "multiple memories");
    return WD_OK;
}

/* C.refs: functions referenced by ref.func or element segments outside function bodies,
 * and exported functions; ref.func in a body may name only these. */
static wd_status mark_declared_funcs(decoder *d)
{
    wd_module *m = d->m;
    if (m->func_count == 0)
        return WD_OK;
    m->declared_funcs = arena_array(d, m->func_count, 1);
    if (m->declared_funcs == NULL)
        return nomem(d);
    for (uint32_t i = m->import_global_count; i < m->global_count; i++)
        if (m->globals[i].init.kind == WD_CONST_REFFUNC)
            m->declared_funcs[m->globals[i].init.idx] = 1;
    for (uint32_t i = 0; i < m->elem_count; i++)
        for (uint32_t k = 0; k < m->elems[i].count; k++)
            if (m->elems[i].items[k].kind == WD_CONST_REFFUNC)
                m->declared_funcs[m->elems[i].items[k].idx] = 1;
    for (uint32_t i = 0; i < m->export_count; i++)
        if (m->exports[i].kind == WD_EXTERN_FUNC)
            m->declared_funcs[m->exports[i].idx] = 1;
    return WD_OK;
}

/* ---- PVM mode: no floating-point types anywhere ---- */

static wd_status pvm_fail(decoder *d, uint32_t at, uint8_t type, uint32_t func_idx, const char *fmt,
                          const char *where)
{
    char buf[300];
    snprintf(buf, sizeof buf, fmt, type == WD_F32 ? "f32" : "f64", where);
    wd_status st =
        wd_fail(d->err, WD_ERR_INVALID, at, "float types are not allowed in PVM mode: %s", buf);
    if (d->fresh && d->err != NULL)
        d->err->func_idx = func_idx;
    return st;
}

/* "kernel_run" from the name section, else the index. */
static const char *func_label(const decoder *d, uint32_t idx, char *buf, size_t size)
{
    const wd_names *nm = &d->m->names;
    if (nm->funcs != NULL && idx < d->m->func_count && nm->funcs[idx] != NULL)
        return nm->funcs[idx];
    snprintf(buf, size, "%u", (unsigned)idx);
    return buf;
}

/* Types, globals and locals (instructions are the validator's). Function types come
 * first so that the error names a function where one uses the type. */
static wd_status check_pvm(decoder *d)
{
    wd_module *m = d->m;
    const uint8_t *b = d->bytes;
    char buf[16];
    for (uint32_t i = 0; i < m->func_count; i++) {
        uint32_t at = d->type_float[m->funcs[i].type_idx];
        if (at != 0)
            return pvm_fail(d, at, b[at], i, "%s in the type of function %s",
                            func_label(d, i, buf, sizeof buf));
    }
    for (uint32_t i = 0; i < m->type_count; i++) {
        uint32_t at = d->type_float[i];
        if (at != 0) {
            snprintf(buf, sizeof buf, "%u", (unsigned)i);
            return pvm_fail(d, at, b[at], UINT32_MAX, "%s in type %s", buf);
        }
    }
    for (uint32_t i = 0; i < m->global_count; i++) {
        uint8_t t = m->globals[i].type.type;
        if (t == WD_F32 || t == WD_F64) { /* at the global's type, or its import */
            snprintf(buf, sizeof buf, "%u", (unsigned)i);
            return pvm_fail(d, d->global_off[i], t, UINT32_MAX, "%s in the type of global %s", buf);
        }
    }
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        uint32_t at = d->local_float[i];
        if (at != 0)
            return pvm_fail(d, at, b[at], i, "%s in the locals of function %s",
                            func_label(d, i, buf, sizeof buf));
    }
    return WD_OK;
}

/* ---- Phase 3 and the entry point ---- */

/* Every body, translated (bodies.c); the error of the lowest function that fails. */
static wd_status validate_bodies(decoder *d)
{
    wd_module *m = d->m;
    if (m->import_func_count == m->func_count)
        return WD_OK;
    wd_error e;
    wd_error_clear(&e);
    wd_status st = wd_translate_bodies(m, d->ctx, d->bytes, d->size, d->opts, &e);
    if (st != WD_OK && d->fresh && d->err != NULL)
        *d->err = e;
    return st;
}

static wd_status decode(decoder *d)
{
    wd_status st = read_module(d);
    /* The reference words every read past the end this way; "unexpected end" (reader.h)
     * is its prefix, and the spec tests expect one or the other. */
    if (st == WD_ERR_MALFORMED && d->fresh && d->err != NULL &&
        strcmp(d->err->msg, "unexpected end") == 0)
        snprintf(d->err->msg, sizeof d->err->msg, "unexpected end of section or function");
    if (st != WD_OK)
        return st;
    WD_TRY(validate_module(d));
    const wd_custom *names = wd_module_custom(d->m, "name");
    WD_TRY(wd_names_parse(d->m, names != NULL ? names->data : NULL, names != NULL ? names->size : 0,
                          d->err));
    if (d->opts->pvm)
        WD_TRY(check_pvm(d));
    WD_TRY(mark_declared_funcs(d));
    return validate_bodies(d);
}

static void decoder_fini(decoder *d)
{
    WD_VEC_FREE(d->ctx, &d->customs);
    uint32_t *scratch[] = {d->type_float, d->func_off,   d->local_float,
                           d->table_off,  d->memory_off, d->global_off,
                           d->export_off, d->elem_off,   d->data_off};
    for (size_t i = 0; i < WD_ARRAY_COUNT(scratch); i++)
        wd_free(d->ctx, scratch[i]);
}

wd_status wd_decode_module(wd_ctx *ctx, const uint8_t *bytes, size_t size,
                           const wd_decode_opts *opts, wd_module **out, wd_error *err)
{
    WD_ASSERT(opts != NULL);
    *out = NULL;
    bool fresh = err == NULL || err->status == WD_OK;
    if (err != NULL && fresh)
        err->func_idx = UINT32_MAX;
    wd_module *m = wd_alloc(ctx, sizeof *m);
    if (m == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->size = size;
    wd_arena_init(&m->arena, ctx);
    decoder d = {.m = m,
                 .ctx = ctx,
                 .opts = opts,
                 .bytes = bytes,
                 .size = size,
                 .r = {.base = bytes, .pos = 0, .end = size, .err = err},
                 .err = err,
                 .fresh = fresh};
    wd_status st = decode(&d);
    decoder_fini(&d);
    if (st != WD_OK)
        wd_module_free(m); /* a partial module is never handed out */
    else
        *out = m;
    return st;
}

void wd_module_free(wd_module *m)
{
    if (m == NULL)
        return;
    wd_arena_fini(&m->arena);
    wd_free(m->ctx, m);
}
