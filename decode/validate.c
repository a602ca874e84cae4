/* validate.c: function-body validation, the entry point, and the decoding of body
 * instructions shared with the translator (translate.c, which has the typing rules and
 * the translation to internal code).
 *
 * Binary-format errors found in a body are reported before typing errors, as the
 * reference interpreter (which decodes the whole module before validating) does: when
 * typing fails, the rest of the body is scanned for a malformed instruction. */
#include "decode/validate.h"

#include "decode/validate_priv.h"

#include <inttypes.h>
#include <string.h>

enum { SCAN_BLOCK, SCAN_IF, SCAN_ELSE };

/* ---- decoding ------------------------------------------------------------------------ */

/* One-byte numbers are read inline (reader.h), the rest out of line. */
WD_INLINE wd_status read_u32(wd_reader *r, uint32_t *out)
{
    return wd_read_u32(r, out);
}

static wd_status malformed_at(wd_reader *r, size_t at, const char *msg)
{
    return wd_fail(r->err, WD_ERR_MALFORMED, at, "%s", msg);
}

static bool is_valtype(uint8_t b)
{
    switch (b) {
    case WD_I32:
    case WD_I64:
    case WD_F32:
    case WD_F64:
    case WD_V128:
    case WD_FUNCREF:
    case WD_EXTERNREF:
        return true;
    default:
        return false;
    }
}

static wd_status read_valtype(wd_reader *r, uint8_t *out)
{
    size_t at = r->pos;
    uint8_t b = 0;
    WD_TRY(wd_read_u8(r, &b));
    if (!is_valtype(b))
        return malformed_at(r, at, "malformed value type");
    *out = b;
    return WD_OK;
}

static wd_status read_zero(wd_reader *r)
{
    size_t at = r->pos;
    uint8_t b = 0;
    WD_TRY(wd_read_u8(r, &b));
    return b == 0 ? WD_OK : malformed_at(r, at, "zero byte expected");
}

/* blocktype: 0x40, a value type, or a type index as a non-negative s33. */
wd_status wd_validate_read_blocktype(wd_reader *r, wd_body_imm *im)
{
    size_t at = r->pos;
    if (at >= r->end)
        return wd_read_eof(r);
    uint8_t b = r->base[at];
    if (b == 0x40) {
        r->pos++;
        im->bt_kind = WD_BT_EMPTY;
        return WD_OK;
    }
    if ((b & 0xC0) == 0x40) {
        im->bt_kind = WD_BT_VALUE;
        return read_valtype(r, &im->vt);
    }
    int64_t v = 0;
    WD_TRY(wd_read_sleb(r, 33, &v));
    if (v < 0)
        return malformed_at(r, at, "malformed value type");
    im->bt_kind = WD_BT_INDEX;
    im->x = (uint32_t)v;
    return WD_OK;
}

wd_status wd_validate_read_memarg(wd_reader *r, uint32_t *align, uint32_t *offset)
{
    size_t at = r->pos;
    WD_TRY(read_u32(r, align));
    if (*align > 32)
        return malformed_at(r, at, "malformed memop flags");
    return read_u32(r, offset);
}

WD_INLINE wd_status read_memarg(wd_reader *r, wd_body_imm *im)
{
    uint32_t offset = 0;
    WD_TRY(wd_validate_read_memarg(r, &im->align, &offset));
    im->value = offset;
    return WD_OK;
}

/* A vector length that must fit in what is left of the body. */
static wd_status read_length(wd_reader *r, uint32_t *out)
{
    size_t at = r->pos;
    WD_TRY(read_u32(r, out));
    if (*out > r->end - r->pos)
        return malformed_at(r, at, "length out of bounds");
    return WD_OK;
}

static wd_status read_br_table(wd_body_dec *d, wd_body_imm *im)
{
    WD_TRY(read_length(&d->r, &im->count));
    if (im->count > d->label_cap &&
        !wd_grow(d->ctx, (void **)&d->labels, &d->label_cap, sizeof *d->labels, im->count))
        return wd_fail(d->r.err, WD_ERR_NOMEM, d->r.pos, "out of memory");
    for (uint32_t i = 0; i < im->count; i++)
        WD_TRY(read_u32(&d->r, &d->labels[i]));
    return read_u32(&d->r, &im->y);
}

/* select t*: the types are decoded here, their number is checked by validation. */
static wd_status read_select_types(wd_reader *r, wd_body_imm *im)
{
    WD_TRY(read_length(r, &im->count));
    for (uint32_t i = 0; i < im->count; i++)
        WD_TRY(read_valtype(r, &im->vt));
    return WD_OK;
}

static wd_status read_bits(wd_reader *r, size_t n, uint64_t *out)
{
    const uint8_t *p = NULL;
    WD_TRY(wd_read_bytes(r, n, &p));
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    *out = v;
    return WD_OK;
}

/* memory.init and data.drop need the DataCount section (a binary-format rule). An index
 * past the data segments is left to validation ("unknown data segment"): wabt omits the
 * section from modules without data segments, and the spec tests written in the text
 * format expect the typing error there. */
static wd_status need_data_count(wd_body_dec *d, uint32_t idx, size_t at)
{
    if (!d->m->has_data_count && idx < d->m->data_count)
        return malformed_at(&d->r, at, "data count section required");
    return WD_OK;
}

/* Immediates: x = local, global, function, type (call_indirect, block), table (table.*,
 * the destination of table.copy), label, data segment; y = table (call_indirect, source
 * of table.copy), elem segment (table.init, elem.drop), br_table default. */
static wd_status decode_imm(wd_body_dec *d, wd_body_imm *im, size_t at)
{
    wd_reader *r = &d->r;
    int64_t v = 0;
    switch (im->op) {
    case WD_OP_BLOCK:
    case WD_OP_LOOP:
    case WD_OP_IF:
        return wd_validate_read_blocktype(r, im);
    case WD_OP_BR:
    case WD_OP_BR_IF:
    case WD_OP_CALL:
    case WD_OP_LOCAL_GET:
    case WD_OP_LOCAL_SET:
    case WD_OP_LOCAL_TEE:
    case WD_OP_GLOBAL_GET:
    case WD_OP_GLOBAL_SET:
    case WD_OP_TABLE_GET:
    case WD_OP_TABLE_SET:
    case WD_OP_TABLE_GROW:
    case WD_OP_TABLE_SIZE:
    case WD_OP_TABLE_FILL:
    case WD_OP_REF_FUNC:
        return read_u32(r, &im->x);
    case WD_OP_BR_TABLE:
        return read_br_table(d, im);
    case WD_OP_CALL_INDIRECT:
    case WD_OP_TABLE_COPY:
        WD_TRY(read_u32(r, &im->x));
        return read_u32(r, &im->y);
    case WD_OP_TABLE_INIT:
        WD_TRY(read_u32(r, &im->y));
        return read_u32(r, &im->x);
    case WD_OP_ELEM_DROP:
        return read_u32(r, &im->y);
    case WD_OP_SELECT_T:
        return read_select_types(r, im);
    case WD_OP_MEMORY_SIZE:
    case WD_OP_MEMORY_GROW:
    case WD_OP_MEMORY_FILL:
        return read_zero(r);
    case WD_OP_MEMORY_COPY:
        WD_TRY(read_zero(r));
        return read_zero(r);
    case WD_OP_MEMORY_INIT:
        WD_TRY(read_u32(r, &im->x));
        WD_TRY(read_zero(r));
        return need_data_count(d, im->x, at);
    case WD_OP_DATA_DROP:
        WD_TRY(read_u32(r, &im->x));
        return need_data_count(d, im->x, at);
    case WD_OP_I32_CONST:
        WD_TRY(wd_read_sleb(r, 32, &v));
        im->value = (uint32_t)v;
        return WD_OK;
    case WD_OP_I64_CONST:
        WD_TRY(wd_read_sleb(r, 64, &v));
        im->value = (uint64_t)v;
        return WD_OK;
    case WD_OP_F32_CONST:
        return read_bits(r, 4, &im->value);
    case WD_OP_F64_CONST:
        return read_bits(r, 8, &im->value);
    case WD_OP_REF_NULL: {
        size_t pos = r->pos;
        WD_TRY(wd_read_u8(r, &im->vt));
        if (im->vt != WD_FUNCREF && im->vt != WD_EXTERNREF)
            return malformed_at(r, pos, "malformed reference type");
        return WD_OK;
    }
    default:
        return WD_OK;
    }
}

/* Classes of immediates. Those decoded inline (local.*, global.*, call, br, br_if,
 * i32.const, loads and stores, numeric operations) cover 95% of the instructions of the
 * tx-kernel and of bench's big.wasm; the rest go through decode_imm. */
enum { IM_NONE, IM_INDEX, IM_MEMARG, IM_I32, IM_OTHER };

enum {
#define OP(name, prefix, code, text, kind, t1, t2) CODE_##name = (prefix) << 8 | (code),
#define IOP(name, text)
#include "decode/ops.def"
#undef OP
#undef IOP
};

#define IS_CODE(c, n1, n2, n3, n4)                                                                 \
    ((c) == CODE_##n1 || (c) == CODE_##n2 || (c) == CODE_##n3 || (c) == CODE_##n4)
#define IMM_CLASS(code, kind)                                                                      \
    ((kind) == WD_KIND_LOAD || (kind) == WD_KIND_STORE ? IM_MEMARG                                 \
     : (kind) == WD_KIND_UN || (kind) == WD_KIND_BIN   ? IM_NONE                                   \
     : IS_CODE(code, NOP, END, ELSE, DROP) ||                                                      \
             IS_CODE(code, SELECT, RETURN, UNREACHABLE, REF_IS_NULL)                               \
         ? IM_NONE                                                                                 \
     : IS_CODE(code, LOCAL_GET, LOCAL_SET, LOCAL_TEE, GLOBAL_GET) ||                               \
             IS_CODE(code, GLOBAL_SET, CALL, BR, BR_IF)                                            \
         ? IM_INDEX                                                                                \
     : (code) == CODE_I32_CONST ? IM_I32                                                           \
                                : IM_OTHER)

/* ops.def spells the prefix 0 or 0xFC: pasted onto a name, it selects a maker of a case
 * of wd_validate_decode_insn's switch (single-byte opcodes) or of an entry of op_of_fc. */
#define BYTE_CASE_0(name, code, kind)                                                              \
    case code:                                                                                     \
        im->op = WD_OP_##name;                                                                     \
        cls = IMM_CLASS(code, WD_KIND_##kind);                                                     \
        break;
#define BYTE_CASE_0xFC(name, code, kind)
#define FC_ENTRY_0(name, code)
#define FC_ENTRY_0xFC(name, code) [code] = WD_OP_##name + 1,

/* The opcode plus one of each 0xFC instruction, by sub-opcode; 0 for none. */
enum { FC_CODES = 32 };
static const uint16_t op_of_fc[FC_CODES] = {
#define OP(name, prefix, code, text, kind, t1, t2) FC_ENTRY_##prefix(name, code)
#define IOP(name, text)
#include "decode/ops.def"
#undef OP
#undef IOP
};

/* An illegal opcode, or an instruction with the 0xFC prefix, at `at` (`b` read). */
static WD_NOINLINE wd_status decode_prefixed(wd_body_dec *d, wd_body_imm *im, uint8_t b, size_t at)
{
    wd_reader *r = &d->r;
    uint32_t code = 0;
    if (b == 0xFD)
        return malformed_at(r, at, "SIMD not supported yet");
    if (b != 0xFC)
        return wd_fail(r->err, WD_ERR_MALFORMED, at, "illegal opcode 0x%02x", (unsigned)b);
    WD_TRY(read_u32(r, &code));
    if (code >= FC_CODES || op_of_fc[code] == 0)
        return wd_fail(r->err, WD_ERR_MALFORMED, at, "illegal opcode 0xfc %" PRIu32, code);
    im->op = op_of_fc[code] - 1u;
    return decode_imm(d, im, at);
}

/* The slow paths of wd_validate_decode_insn, out of line so that its fast paths need no
 * stack frame. */
static WD_NOINLINE wd_status read_index(wd_reader *r, wd_body_imm *im)
{
    return read_u32(r, &im->x);
}

static WD_NOINLINE wd_status read_i32(wd_reader *r, wd_body_imm *im)
{
    int64_t v = 0;
    WD_TRY(wd_read_sleb(r, 32, &v));
    im->value = (uint32_t)v;
    return WD_OK;
}

static WD_NOINLINE wd_status read_memarg_long(wd_reader *r, wd_body_imm *im)
{
    return read_memarg(r, im);
}

/* The common cases are tested inline: immediates of one byte each (a small index or
 * constant; a memarg of small alignment and offset). A switch on the opcode byte, where
 * each case sets a constant class, compiles to one indirect jump straight to the code of
 * the class (no table load on the way: this runs once per instruction). */
wd_status wd_validate_decode_insn(wd_body_dec *d, wd_body_imm *im)
{
    wd_reader *r = &d->r;
    const uint8_t *p = r->base;
    size_t at = r->pos, end = r->end, next = at + 1;
    unsigned cls;
    memset(im, 0, sizeof *im);
    if (WD_UNLIKELY(at >= end))
        return wd_read_eof(r);
    r->pos = next;
    switch (p[at]) {
#define OP(name, prefix, code, text, kind, t1, t2) BYTE_CASE_##prefix(name, code, kind)
#define IOP(name, text)
#include "decode/ops.def"
#undef OP
#undef IOP
    default:
        return decode_prefixed(d, im, p[at], at);
    }
    switch (cls) {
    case IM_NONE:
        return WD_OK;
    case IM_INDEX:
        if (WD_LIKELY(next < end) && p[next] < 0x80) {
            im->x = p[next];
            r->pos = next + 1;
            return WD_OK;
        }
        return read_index(r, im);
    case IM_MEMARG:
        if (WD_LIKELY(end - next >= 2) && p[next] <= 32 && p[next + 1] < 0x80) {
            im->align = p[next];
            im->value = p[next + 1];
            r->pos = next + 2;
            return WD_OK;
        }
        return read_memarg_long(r, im);
    case IM_I32:
        if (WD_LIKELY(next < end) && p[next] < 0x80) {
            im->value = (uint32_t)(p[next] ^ 0x40u) - 0x40u; /* bit 6 is the sign */
            r->pos = next + 1;
            return WD_OK;
        }
        return read_i32(r, im);
    default:
        return decode_imm(d, im, at);
    }
}

/* Skips the local declarations (already read by the module reader). */
wd_status wd_validate_skip_locals(wd_reader *r)
{
    uint32_t groups = 0, n = 0;
    uint8_t t = 0;
    WD_TRY(read_length(r, &groups));
    for (uint32_t i = 0; i < groups; i++) {
        WD_TRY(read_u32(r, &n));
        WD_TRY(read_valtype(r, &t));
    }
    return WD_OK;
}

/* The body ended with frames open. The reference interpreter reads on into what follows
 * the body, so its message depends on the next byte; we give the same three answers. */
wd_status wd_validate_missing_end(wd_body_dec *d)
{
    size_t p = d->r.pos;
    if (p >= d->module_size)
        return malformed_at(&d->r, p, "unexpected end of section or function");
    if (d->r.base[p] == 0x0B)
        return malformed_at(&d->r, p, "section size mismatch");
    return malformed_at(&d->r, p, "END opcode expected");
}

/* The binary-format checks of a whole body without typing: opcodes, immediates, nesting,
 * `else` placement, the final `end` at the body's end. */
static wd_status scan_body(wd_body_dec *d)
{
    uint8_t *kinds = NULL;
    uint32_t cap = 0, depth = 0;
    wd_status st = wd_validate_skip_locals(&d->r);
    if (st == WD_OK && !wd_grow(d->ctx, (void **)&kinds, &cap, 1, 1))
        st = wd_fail(d->r.err, WD_ERR_NOMEM, d->r.pos, "out of memory");
    if (st == WD_OK)
        kinds[depth++] = SCAN_BLOCK;
    while (st == WD_OK && depth > 0) {
        wd_body_imm im;
        size_t at = d->r.pos;
        if (at >= d->r.end) {
            st = wd_validate_missing_end(d);
            break;
        }
        st = wd_validate_decode_insn(d, &im);
        if (st != WD_OK)
            break;
        if (im.op == WD_OP_BLOCK || im.op == WD_OP_LOOP || im.op == WD_OP_IF) {
            if (!wd_grow(d->ctx, (void **)&kinds, &cap, 1, (uint64_t)depth + 1))
                st = wd_fail(d->r.err, WD_ERR_NOMEM, at, "out of memory");
            else
                kinds[depth++] = im.op == WD_OP_IF ? SCAN_IF : SCAN_BLOCK;
        } else if (im.op == WD_OP_ELSE) {
            if (kinds[depth - 1] != SCAN_IF)
                st = malformed_at(&d->r, at, "END opcode expected");
            kinds[depth - 1] = SCAN_ELSE;
        } else if (im.op == WD_OP_END) {
            depth--;
        }
    }
    if (st == WD_OK && d->r.pos != d->r.end)
        st = malformed_at(&d->r, d->r.pos, "section size mismatch");
    wd_free(d->ctx, kinds);
    return st;
}

/* ---- the entry point ------------------------------------------------------------------ */

static void dec_init(wd_body_dec *d, wd_ctx *ctx, const wd_module *m, const uint8_t *bytes,
                     size_t size, const wd_funcdef *fd, wd_error *err)
{
    memset(d, 0, sizeof *d);
    d->r.base = bytes;
    d->r.pos = fd->body_offset;
    d->r.end = (size_t)fd->body_offset + fd->body_size;
    d->r.err = err;
    d->m = m;
    d->ctx = ctx;
    d->module_size = size;
}

/* Typing failed: a binary-format error later in the body takes precedence. */
static wd_status prefer_malformed(wd_ctx *ctx, const wd_module *m, const wd_funcdef *fd,
                                  const uint8_t *bytes, size_t size, wd_error *err)
{
    wd_error e;
    wd_error_clear(&e);
    wd_body_dec d;
    dec_init(&d, ctx, m, bytes, size, fd, &e);
    wd_status st = scan_body(&d);
    wd_free(d.ctx, d.labels);
    if (st != WD_ERR_MALFORMED && st != WD_ERR_NOMEM) /* out of memory: say so */
        return WD_ERR_INVALID;
    *err = e;
    return st;
}

wd_status wd_validate_func_with(wd_translator *t, wd_module *m, uint32_t func_idx,
                                const uint8_t *bytes, size_t size, wd_error *err)
{
    WD_ASSERT(t != NULL && m != NULL && err != NULL);
    WD_ASSERT(func_idx >= m->import_func_count && func_idx < m->func_count);
    wd_funcdef *fd = &m->funcs[func_idx];
    WD_ASSERT(fd->type_idx < m->type_count);
    bool had_error = err->status != WD_OK;
    fd->code = NULL;
    wd_status st;
    if ((size_t)fd->body_offset + fd->body_size > size) {
        st = wd_fail(err, WD_ERR_MALFORMED, fd->body_offset, "unexpected end");
    } else {
        wd_body_dec d;
        dec_init(&d, wd_translator_ctx(t), m, bytes, size, fd, err);
        st = wd_translate_func(t, m, func_idx, &d, err);
        wd_free(d.ctx, d.labels);
        if (st == WD_ERR_INVALID && !had_error)
            st = prefer_malformed(wd_translator_ctx(t), m, fd, bytes, size, err);
    }
    if (st != WD_OK && !had_error) {
        /* the reference words every read past the end this way (as decode.c does) */
        if (st == WD_ERR_MALFORMED && strcmp(err->msg, "unexpected end") == 0)
            snprintf(err->msg, sizeof err->msg, "unexpected end of section or function");
        err->func_idx = func_idx;
    }
    return st;
}

wd_status wd_validate_func(wd_module *m, uint32_t func_idx, const uint8_t *bytes, size_t size,
                           const wd_decode_opts *opts, wd_error *err)
{
    WD_ASSERT(m != NULL && opts != NULL && opts->costs != NULL && err != NULL);
    wd_translator *t = wd_translator_new(m->ctx, opts);
    if (t == NULL) {
        bool had_error = err->status != WD_OK;
        m->funcs[func_idx].code = NULL;
        wd_status st = wd_fail(err, WD_ERR_NOMEM, m->funcs[func_idx].body_offset, "out of memory");
        if (!had_error)
            err->func_idx = func_idx;
        return st;
    }
    wd_status st = wd_validate_func_with(t, m, func_idx, bytes, size, err);
    wd_translator_free(t);
    return st;
}

/* ---- debugging ------------------------------------------------------------------------ */

void wd_code_dump(FILE *out, const wd_code *c)
{
    fprintf(out,
            "func %" PRIu32 ": params %" PRIu32 ", locals %" PRIu32 ", results %" PRIu32
            ", slots %" PRIu32 ", %" PRIu32 " insns\n",
            c->func_idx, c->param_slots, c->local_slots, c->result_slots, c->max_slots,
            c->insn_count);
    for (uint32_t i = 0; i < c->insn_count; i++) {
        const wd_insn *in = &c->insns[i];
        const char *name = in->op < WD_OP_COUNT ? wd_op_names[in->op] : "?";
        if (in->op == WD_OP_CONST64)
            fprintf(out, "%6" PRIu32 "  %-20s %" PRIu32 " 0x%" PRIx64, i, name, in->a, in->bc);
        else
            fprintf(out, "%6" PRIu32 "  %-20s %" PRIu32 " %" PRIu32 " %" PRIu32, i, name, in->a,
                    in->b, in->c);
        fprintf(out, "    ; cost %" PRIu32 " @0x%" PRIx32 "\n", c->costs[i], c->offsets[i]);
    }
}
