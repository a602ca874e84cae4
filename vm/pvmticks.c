/* pvmticks.c: the Octez WASM PVM's step counts of decode, link and init, from a decoded
 * module (shared/reference/octez-ticks/RULES.md sections 3-5; Octez files are paths in
 * tezos/tezos-mirror). A step is one tick: one `Decode.module_step`, one Link import, one
 * `Eval.init_step`. The counts depend on the module's structure only, never on byte
 * widths or immediates.
 *
 * Constant expressions: WebAssembly 2.0 allows exactly one instruction before the `end`
 * (the decoder rejects others), so k, the instructions of a global's initialiser, of a
 * segment's offset or of an element expression, is always 1 here. */
#include "vm/pvmticks.h"

#include "decode/validate_priv.h"

#include <string.h>

#define K_CONST 1u /* instructions in a constant expression, its `end` not counted */

const char *const wd_pvmticks_part_names[WD_PVMTICKS_PARTS] = {
    "decode:type",   "decode:import", "decode:function", "decode:table",   "decode:memory",
    "decode:global", "decode:export", "decode:start",    "decode:element", "decode:datacount",
    "decode:code",   "decode:data",   "decode:module",
};

/* ---- decode (src/lib_webassembly/binary/decode.ml, module_step) -------------------------- */

/* Steps of a vector section's frame (MKSkipCustom -> MKFieldStart, -> MKField, the end of
 * the vector -> next), present or not; start and datacount have no vector (MKFieldStart
 * StartField / DataCountField). */
enum { VECTOR_SECTION = 3, SINGLE_SECTION = 2 };

/* name_step: NKStart, one step per UTF-8 code point, NKStop (the 2 are in the callers'). */
static uint64_t code_points(const char *s, uint32_t size)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < size; i++)
        n += ((uint8_t)s[i] & 0xC0) != 0x80;
    return n;
}

/* code_step and block_step over one body: CKStart 1, 1 per local group, -> Accumulate 1, per
 * fetched group 1 + its count, -> CKBody 1; BlockStart 1, 1 per opcode, one more IKStop per
 * `end` and `else`, BlockStop 1; CKBody's end 1; MKCode -> MKField 1. A zero-count group
 * after the last local is never fetched (CKLocalsAccumulate). */
static uint64_t body_steps(const wd_funcdef *f)
{
    const wd_code *c = f->code;
    return 7 + 2 * (uint64_t)f->local_groups - f->local_zero_tail + f->local_count +
           c->wasm_insn_count + c->shape.ends;
}

/* MKElaborateFunc of a body with no memory.init or data.drop: a set-up step; every block
 * list breadth-first (the body, each block's and loop's, each if's then and else, an absent
 * else being the empty list), 1 per instruction and 1 at its end; 1 when done. A block,
 * loop or if is one instruction of its list; `end` and `else` are none. */
static uint64_t elaboration_steps(const wd_code *c)
{
    const wd_body_shape *s = &c->shape;
    uint64_t instrs = c->wasm_insn_count - s->ends;
    uint64_t lists = 1 + (uint64_t)s->blocks + s->loops + 2 * (uint64_t)s->ifs;
    return 2 + instrs + lists;
}

/* What the elaboration walk needs of each opcode. */
enum { W_PLAIN, W_BLOCK, W_IF, W_ELSE, W_END, W_DATA };

typedef struct walk {
    uint8_t *kind;     /* n opcodes, the final end included */
    uint32_t *close;   /* of a block, loop or if: the index of its `end` */
    uint32_t *else_at; /* of an if: its `else`, or its `end` when it has none */
    uint32_t *queue;   /* the start of each block list, breadth-first */
    uint32_t n;
} walk;

/* Reads body f's opcodes into w (kinds and matching ends). */
static wd_status read_body(const wd_module *m, const wd_funcdef *f, const uint8_t *bytes,
                           size_t size, walk *w, wd_error *err)
{
    wd_body_dec d;
    memset(&d, 0, sizeof d);
    d.r = (wd_reader){.base = bytes,
                      .pos = f->body_offset,
                      .end = (size_t)f->body_offset + f->body_size,
                      .err = err};
    d.m = m;
    d.ctx = m->ctx;
    d.module_size = size;
    uint32_t *open = wd_alloc(m->ctx, ((size_t)w->n + 1) * sizeof *open);
    wd_status st = open == NULL ? wd_fail(err, WD_ERR_NOMEM, 0, "out of memory") : WD_OK;
    if (st == WD_OK && (size_t)f->body_offset + f->body_size > size)
        st = wd_fail(err, WD_ERR_MALFORMED, f->body_offset, "body past the module's end");
    if (st == WD_OK)
        st = wd_validate_skip_locals(&d.r);
    uint32_t depth = 0, i = 0;
    for (; st == WD_OK && i < w->n; i++) { /* bounded by the count the translator made */
        wd_body_imm im;
        st = wd_validate_decode_insn(&d, &im);
        if (st != WD_OK)
            break;
        uint8_t k = W_PLAIN;
        if (im.op == WD_OP_BLOCK || im.op == WD_OP_LOOP || im.op == WD_OP_IF) {
            k = im.op == WD_OP_IF ? W_IF : W_BLOCK;
            w->else_at[i] = UINT32_MAX;
            open[depth++] = i;
        } else if (im.op == WD_OP_ELSE && depth > 0) {
            k = W_ELSE;
            w->else_at[open[depth - 1]] = i;
        } else if (im.op == WD_OP_END) {
            k = W_END;
            if (depth > 0) {
                uint32_t o = open[--depth];
                w->close[o] = i;
                if (w->else_at[o] == UINT32_MAX)
                    w->else_at[o] = i;
            }
        } else if (im.op == WD_OP_MEMORY_INIT || im.op == WD_OP_DATA_DROP) {
            k = W_DATA;
        }
        w->kind[i] = k;
    }
    if (st == WD_OK && (depth != 0 || w->kind[w->n - 1] != W_END))
        st = wd_fail(err, WD_ERR_MALFORMED, f->body_offset, "body is not the one decoded");
    wd_free(m->ctx, d.labels);
    wd_free(m->ctx, open);
    return st;
}

/* The elaboration walk over w, breadth-first, until the first memory.init or data.drop:
 * the step that reads it is the function's last (*stopped set). */
static uint64_t walk_lists(walk *w, bool *stopped)
{
    uint64_t steps = 1; /* set-up */
    uint32_t head = 0, tail = 0;
    w->queue[tail++] = 0;
    *stopped = false;
    while (head < tail) {
        uint32_t i = w->queue[head++];
        for (;;) {
            uint8_t k = w->kind[i];
            steps++; /* an instruction, or the list's end */
            if (k == W_END || k == W_ELSE)
                break;
            if (k == W_DATA) {
                *stopped = true;
                return steps;
            }
            if (k == W_BLOCK) {
                w->queue[tail++] = i + 1;
            } else if (k == W_IF) {
                w->queue[tail++] = i + 1;
                /* the else list, or the empty one: its start is the if's end */
                uint32_t e = w->else_at[i];
                w->queue[tail++] = w->kind[e] == W_ELSE ? e + 1 : e;
            }
            i = k == W_BLOCK || k == W_IF ? w->close[i] + 1 : i + 1;
        }
    }
    return steps + 1; /* done */
}

/* MKElaborateFunc of body f, walked over its bytes: for a body with a data op. */
static wd_status walk_elaboration(const wd_module *m, const wd_funcdef *f, const uint8_t *bytes,
                                  size_t size, uint64_t *steps, bool *stopped, wd_error *err)
{
    walk w = {.n = f->code->wasm_insn_count};
    *steps = 0;
    *stopped = false;
    if (w.n == 0)
        return wd_fail(err, WD_ERR_MALFORMED, f->body_offset, "empty body");
    size_t n = w.n;
    w.kind = wd_alloc(m->ctx, n);
    w.close = wd_alloc(m->ctx, n * sizeof *w.close);
    w.else_at = wd_alloc(m->ctx, n * sizeof *w.else_at);
    w.queue = wd_alloc(m->ctx, (2 * n + 1) * sizeof *w.queue); /* 1 + 2 lists per opener */
    wd_status st = WD_OK;
    if (w.kind == NULL || w.close == NULL || w.else_at == NULL || w.queue == NULL)
        st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (st == WD_OK)
        st = read_body(m, f, bytes, size, &w, err);
    if (st == WD_OK)
        *steps = walk_lists(&w, stopped);
    wd_free(m->ctx, w.kind);
    wd_free(m->ctx, w.close);
    wd_free(m->ctx, w.else_at);
    wd_free(m->ctx, w.queue);
    return st;
}

/* The code section's items: each body, then the elaboration of each (in decode:code), which
 * happens when #func = #code, as it is in a valid module. The walk stops for good at the
 * first memory.init or data.drop: every later function costs its set-up step only. */
static wd_status code_steps(const wd_module *m, const uint8_t *bytes, size_t size, uint64_t *out,
                            wd_error *err)
{
    uint64_t steps = 0;
    bool walking = true;
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        const wd_funcdef *f = &m->funcs[i];
        steps += body_steps(f);
        if (!walking) {
            steps += 1;
        } else if (!f->code->shape.data_op) {
            steps += elaboration_steps(f->code);
        } else {
            uint64_t walked;
            bool stopped;
            WD_TRY(walk_elaboration(m, f, bytes, size, &walked, &stopped, err));
            steps += walked;
            walking = !stopped;
        }
    }
    *out = steps;
    return WD_OK;
}

/* elem_step: ek_start, the mode, the offset (block_step: 4 + k), the items (elem_index 1 per
 * index; EKInitConst 4 + k per expression), the end. */
static uint64_t elem_steps(const wd_elemseg *s)
{
    uint64_t head = s->mode == WD_SEG_ACTIVE ? 8 + K_CONST : 4;
    uint64_t per_item = s->exprs ? 4 + K_CONST : 1;
    return head + per_item * s->count;
}

/* data_start, data_step, byte_vector_step (1 per byte); an active one's offset. */
static uint64_t data_steps(const wd_dataseg *s)
{
    return (s->mode == WD_SEG_ACTIVE ? 10 + K_CONST : 6) + (uint64_t)s->size;
}

/* A section's steps: its frame and items when it has items, else its frame goes to the
 * module's part. */
static void section(wd_pvmticks_decode *out, int part, uint32_t frame, uint64_t count,
                    uint64_t items)
{
    if (count != 0)
        out->part[part] += frame + items;
    else
        out->part[WD_PVMTICKS_MODULE] += frame;
}

wd_status wd_pvmticks_decode_steps(const wd_module *m, const uint8_t *bytes, size_t size,
                                   wd_pvmticks_decode *out, wd_error *err)
{
    memset(out, 0, sizeof *out);
    wd_pvmticks_decode d = {.per_custom = 1};
    uint64_t types = 0, imports = 0, exports = 0, elems = 0, datas = 0, code = 0;
    for (uint32_t i = 0; i < m->type_count; i++) /* func_type_step, MKTypes / MKField */
        types += 5 + (uint64_t)m->types[i].param_count + m->types[i].result_count;
    for (uint32_t i = 0; i < m->import_count; i++) /* import_step, two name_steps */
        imports += 9 + code_points(m->imports[i].module, m->imports[i].module_size) +
                   code_points(m->imports[i].name, m->imports[i].name_size);
    for (uint32_t i = 0; i < m->export_count; i++) /* export_step */
        exports += 6 + code_points(m->exports[i].name, m->exports[i].name_size);
    for (uint32_t i = 0; i < m->elem_count; i++)
        elems += elem_steps(&m->elems[i]);
    for (uint32_t i = 0; i < m->data_count; i++)
        datas += data_steps(&m->datas[i]);
    WD_TRY(code_steps(m, bytes, size, &code, err));
    uint32_t funcs = m->func_count - m->import_func_count;
    uint32_t tables = m->table_count - m->import_table_count;
    uint32_t memories = m->memory_count - m->import_memory_count;
    uint32_t globals = m->global_count - m->import_global_count;
    /* MKStart (magic, version); the final MKSkipCustom None; the elaboration's last step
     * (-> MKBuild); MKBuild -> MKStop */
    d.part[WD_PVMTICKS_MODULE] = 1 + 1 + 1 + 1;
    section(&d, WD_PVMTICKS_TYPE, VECTOR_SECTION, m->type_count, types);
    section(&d, WD_PVMTICKS_IMPORT, VECTOR_SECTION, m->import_count, imports);
    section(&d, WD_PVMTICKS_FUNCTION, VECTOR_SECTION, funcs, funcs); /* MKField FuncField */
    section(&d, WD_PVMTICKS_TABLE, VECTOR_SECTION, tables, tables);
    section(&d, WD_PVMTICKS_MEMORY, VECTOR_SECTION, memories, memories);
    section(&d, WD_PVMTICKS_GLOBAL, VECTOR_SECTION, globals, (5 + K_CONST) * (uint64_t)globals);
    section(&d, WD_PVMTICKS_EXPORT, VECTOR_SECTION, m->export_count, exports);
    section(&d, WD_PVMTICKS_START, SINGLE_SECTION, m->has_start, 0);
    section(&d, WD_PVMTICKS_ELEMENT, VECTOR_SECTION, m->elem_count, elems);
    section(&d, WD_PVMTICKS_DATACOUNT, SINGLE_SECTION, m->has_data_count, 0);
    section(&d, WD_PVMTICKS_CODE, VECTOR_SECTION, funcs, code);
    section(&d, WD_PVMTICKS_DATA, VECTOR_SECTION, m->data_count, datas);
    d.total = d.per_custom * m->custom_count;
    for (int i = 0; i < WD_PVMTICKS_PARTS; i++)
        d.total += d.part[i];
    *out = d;
    return WD_OK;
}

/* ---- link (src/lib_scoru_wasm/wasm_vm.ml, Link) -------------------------------------------- */

uint64_t wd_pvmticks_link(const wd_module *m)
{
    return WD_PVMTICKS_TO_LINK + (uint64_t)m->import_count;
}

uint64_t wd_pvmticks_link_error(uint32_t j)
{
    /* MKStop -> Link, j imports found, the step of import j (Host_funcs.lookup_opt) */
    return WD_PVMTICKS_TO_LINK + (uint64_t)j + 1;
}

/* ---- init (src/lib_webassembly/exec/eval.ml, init_step) ------------------------------------ */

/* join_step over lists of lengths l1..lK, given one at a time: nothing for none, 1 for
 * one, else the cumulative concatenations (1 + l1 + l2, then 1 + l1 + ... + lj for each
 * later list) and a last step. */
typedef struct join {
    uint64_t acc, steps;
    uint32_t count;
} join;

static void join_add(join *j, uint64_t len)
{
    j->acc += len;
    if (++j->count >= 2)
        j->steps += 1 + j->acc;
}

static uint64_t join_steps(const join *j)
{
    return j->count < 2 ? j->count : j->steps + 1;
}

/* eval_const: 6 Eval.steps per instruction + 7 to SK_Result, then EC_Stop. */
static uint64_t const_steps(void)
{
    return 6 * K_CONST + 7 + 1;
}

/* Admin instructions per segment (run_elem, run_data): 5 for an active one (From_block of
 * the offset, const 0, const n, table.init / memory.init, elem.drop / data.drop), 1 for a
 * declarative one (elem.drop), none for a passive one. */
static uint64_t admin_count(uint8_t mode)
{
    return mode == WD_SEG_ACTIVE ? 5 : mode == WD_SEG_DECLARATIVE ? 1 : 0;
}

/* The admin eval of an active segment of n elements or bytes (step ~init:true): From_block
 * of its offset 6k + 3, const 0 3, const n 3, table.init / memory.init 3 + 42 per unit (7
 * meta + 7 plain steps of 3), elem.drop / data.drop 3. */
static uint64_t active_segment_eval(uint64_t n)
{
    return 6 * K_CONST + 3 + 3 + 3 + 3 + 42 * n + 3;
}

/* A tick_map_step section (load, create, store per item), then IK_Aggregate_concat over
 * the imported and defined items (concat_step, one per item) and its end. */
static uint64_t aggregate(uint64_t per_item, uint32_t imported, uint32_t total)
{
    uint32_t defined = total - imported;
    return per_item * defined + 1 + (uint64_t)imported + defined + 1;
}

void wd_pvmticks_init_steps(const wd_module *m, const wd_costs *c, wd_pvmticks_init *out)
{
    uint64_t elem_items = 0, segments = 0;
    join es_elems = {0}, es_datas = {0}, admin = {0}; /* run_elem / run_data lists */
    for (uint32_t i = 0; i < m->elem_count; i++) {
        const wd_elemseg *s = &m->elems[i];
        elem_items += 2 + (2 + const_steps()) * (uint64_t)s->count; /* create_elem_step */
        join_add(&es_elems, admin_count(s->mode));
        if (s->mode == WD_SEG_ACTIVE)
            segments += active_segment_eval(s->count);
        else if (s->mode == WD_SEG_DECLARATIVE)
            segments += 3;
    }
    for (uint32_t i = 0; i < m->data_count; i++) {
        join_add(&es_datas, admin_count(m->datas[i].mode));
        if (m->datas[i].mode == WD_SEG_ACTIVE)
            segments += active_segment_eval(m->datas[i].size);
    }
    join_add(&admin, es_elems.acc);
    join_add(&admin, es_datas.acc);
    join_add(&admin, m->has_start ? 1 : 0);                /* run_start: Plain (Call start) */
    out->exports_checked = 1                               /* IK_Start */
                           + (uint64_t)m->import_count + 1 /* fold_right2_step */
                           + (uint64_t)m->type_count + 1   /* IK_Type: map_step */
                           + aggregate(3, m->import_func_count, m->func_count) +
                           aggregate(2 + const_steps(), m->import_global_count,
                                     m->global_count) /* create_global_step */
                           + aggregate(3, m->import_table_count, m->table_count) +
                           aggregate(3, m->import_memory_count, m->memory_count) +
                           (uint64_t)m->export_count + 1;           /* fold_left_s_step */
    out->before_admin = out->exports_checked + elem_items + 1       /* IK_Elems */
                        + (uint64_t)m->data_count + 1               /* IK_Datas */
                        + m->elem_count + 2 + join_steps(&es_elems) /* map_concat, join */
                        + m->data_count + 2 + join_steps(&es_datas) + join_steps(&admin) +
                        1; /* IK_Join_admin */
    out->segments = segments;
    out->start_call = 0;
    out->start_return = 0;
    if (m->has_start) {
        const wd_functype *ft = &m->types[m->funcs[m->start_idx].type_idx];
        out->start_call = c->label_step; /* Plain (Call start) */
        /* SK_Consolidate_label_result into the admin frame's empty label */
        out->start_return = c->frame_return + (uint64_t)ft->result_count * c->per_value;
    }
    /* the admin eval's end: Label_result 3, SK_Result 1; then IK_Eval (SK_Result) ->
     * IK_Stop */
    out->end = 3 + 1 + 1;
    out->total = out->before_admin + out->segments + out->start_call + out->start_return + out->end;
}

uint64_t wd_pvmticks_import_type_error(const wd_module *m, uint32_t j)
{
    /* Link finished -> IK_Start, IK_Start's step, then fold_right2_step from the last
     * import down to j, whose add_import raises the Link.error (an Init_error) */
    return WD_PVMTICKS_TO_INIT + 1 + (uint64_t)(m->import_count - j);
}

/* ---- eval's end (eval.ml frame_step; wasm_vm.ml) --------------------------------------------- */

uint64_t wd_pvmticks_result_tail(const wd_costs *c, uint32_t results)
{
    /* SK_Consolidate_label_result into frame0, frame0's label -> Label_result, SK_Result */
    return c->frame_return + (uint64_t)results * c->per_value + c->label_step + c->final_step;
}

uint64_t wd_pvmticks_trapped(const wd_costs *c)
{
    return c->final_step; /* Label_trapped -> SK_Trapped (no unwinding) */
}
