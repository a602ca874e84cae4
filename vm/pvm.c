/* pvm.c: the PVM state machine. The reference steps decode, link and init one small step
 * per tick; wasmdbg performs each phase at once and charges the ticks the tick model
 * gives for it, so every observable tick figure is the model's exact sum. */
#include "vm/pvm.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "decode/decode.h"
#include "vm/pvmticks.h"

#define MAX_REBOOTS 1000u

enum { WD_STAGE_NONE, WD_STAGE_RUNNING, WD_STAGE_FINISHED };

typedef struct level_outbox {
    wd_msg *msgs;
    uint32_t count;
} level_outbox;

struct wd_pvm {
    wd_ctx *ctx;
    wd_pvm_config cfg;
    wd_durable *durable;
    wd_thread thread;
    wd_host_env env;
    wd_pvm_state state;
    char stuck[256];

    uint32_t levels;          /* inboxes loaded so far; the current level is levels - 1 */
    wd_msg *inbox;            /* framed messages of the current level (owned) */
    uint32_t inbox_count;
    uint32_t reboots_left;    /* the reboot counter (1001 after a yield) */
    uint32_t run_index;       /* runs so far in the current level */

    level_outbox *outboxes;   /* per level */
    uint32_t outbox_cap;

    WD_VEC(wd_run_report) runs;

    /* The kernel run in progress (state EVAL). */
    int stage;            /* WD_STAGE_* */
    wd_run_report cur;    /* its report so far */
    double cur_started;   /* wall clock at its start */
    wd_store *store;      /* its instance's store */
    wd_func *entry;       /* kernel_run, NULL when a phase before eval failed */
    uint64_t eval_start;  /* tick at which eval started */
    bool fresh;           /* kernel_run not invoked yet */
    wd_error last_error;  /* how the last eval ended */
    wd_reveal_prompt prompt; /* asks for reveal data not found, or NULL */
    void *prompt_ud;
    bool finished_unseen; /* FINISHED was not yet a stop of wd_pvm_advance */
    bool too_many_ticks;  /* the run did not reach Padding within its period */
    uint64_t step_start;  /* the tick the last atomic step of wd_pvm_advance began at */

    /* The last decoded kernel, reused while /kernel/boot.wasm is unchanged (decoding is
     * deterministic, so the figures are those of decoding it again). Its bytes are the
     * durable value kept, not a copy (0.26 MB of tx-kernel: 65 page faults). */
    const wd_durable_kept *kernel_kept;
    const uint8_t *kernel;
    size_t kernel_size;
    wd_module *module;
    wd_status module_status;
    wd_error module_err;
    wd_pvmticks_decode decode_steps; /* the module's decode steps (pvm_phases), once known */
    bool decode_steps_known;
};

uint64_t wd_pvm_default_period(int version)
{
    return version >= WD_PVM_V4 ? 50000000000000ull : 11000000000ull;
}

/* Octez's stack_size_limit (wasm_vm.ml: 300 in 2.0.0, 60,000 after) counts the PVM's own
 * bottom frame (the one holding [Invoke kernel_run]): the kernel gets one frame less. */
uint32_t wd_pvm_default_max_frames(int version)
{
    return version == WD_PVM_V0 ? 299u : 59999u;
}

/* ---- small helpers ------------------------------------------------------------------------ */

#define KEY(s) s, sizeof(s) - 1

static void phase(wd_pvm *p, const char *name, bool begin)
{
    const wd_hooks *h = p->cfg.hooks;
    if (h != NULL && h->phase != NULL)
        h->phase(h->ud, p->thread.ticks, name, begin);
}

static void write_reboot_counter(wd_pvm *p)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(p->reboots_left >> (8 * i));
    (void)wd_durable_set(p->durable, KEY("/readonly/kernel/env/reboot_counter"), b, sizeof b);
}

static void flag(wd_pvm *p, const char *key, size_t len, bool set)
{
    if (set)
        (void)wd_durable_set(p->durable, key, len, NULL, 0);
    else
        (void)wd_durable_delete(p->durable, key, len, false);
}

/* Moves the current level's outbox (the host env's) into the per-level table; called when
 * the level ends (the next inbox is loaded). */
static wd_status save_outbox(wd_pvm *p, wd_error *err)
{
    uint32_t level = p->env.level;
    if (level >= p->outbox_cap) {
        uint32_t cap = p->outbox_cap;
        if (!wd_grow(p->ctx, (void **)&p->outboxes, &cap, sizeof *p->outboxes,
                     (uint64_t)level + 1))
            return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        memset(p->outboxes + p->outbox_cap, 0,
               (cap - p->outbox_cap) * sizeof *p->outboxes);
        p->outbox_cap = cap;
    }
    level_outbox *o = &p->outboxes[level];
    wd_free(p->ctx, o->msgs);
    o->msgs = NULL;
    o->count = p->env.outbox_count;
    if (o->count != 0) {
        o->msgs = wd_alloc(p->ctx, o->count * sizeof *o->msgs);
        if (o->msgs == NULL)
            return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        memcpy(o->msgs, p->env.outbox, o->count * sizeof *o->msgs);
    }
    p->env.outbox_count = 0; /* ownership of the bytes moved to the table */
    return WD_OK;
}

/* ---- reveals ------------------------------------------------------------------------------ */

static wd_status read_file(const char *path, uint8_t *buf, size_t max, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return WD_ERR_IO;
    size_t total = 0;
    uint8_t scratch[4096];
    for (;;) {
        size_t n = fread(scratch, 1, sizeof scratch, f);
        if (n == 0)
            break;
        if (total < max)
            memcpy(buf + total, scratch, WD_MIN(n, max - total));
        total += n;
    }
    bool bad = ferror(f);
    fclose(f);
    *size = total;
    return bad ? WD_ERR_IO : WD_OK;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* What a reveal request is, decoded as the reference decodes it: the whole payload under
 * the protocol's reveal_encoding (src/proto_alpha/lib_protocol/sc_rollup_PVM_sig.ml):
 *   00 ‖ 00 ‖ 32-byte Blake2b hash          raw data (Sc_rollup_reveal_hash.encoding)
 *   01                                      metadata
 *   02 ‖ page id                            a DAL page; page id: published level (int32
 *                                           BE, >= 0: Raw_level_repr), slot index (uint8),
 *                                           page index (int16 BE)
 *   03                                      DAL parameters
 *   04 ‖ page id ‖ threshold (uint8) ‖      an adaptive DAL page; publishers:
 *        publishers                         00 (None) or 01 ‖ at most 10 contracts of 22
 *                                           bytes (00 ‖ key hash tag 0-3 ‖ 20, or 01 ‖ 20 ‖
 *                                           padding)
 * Anything else (another tag, a byte more or less, a negative level) does not decode, and
 * the reference then asks for the preimage of the well-known hash, the empty string: it
 * does not stick the PVM (src/proto_alpha/lib_protocol/sc_rollup_wasm.ml,
 * V2_0_0.decode_reveal, which the debugger calls in src/lib_wasm_debugger/commands.ml,
 * `reveals`, where reveal_preimage_builtin answers the well-known hash with ""). */
enum { REVEAL_EMPTY, REVEAL_RAW, REVEAL_METADATA, REVEAL_DAL_PAGE, REVEAL_DAL_PARAMS,
       REVEAL_ADAL_PAGE };

static bool contracts_ok(const uint8_t *b, size_t size)
{
    if (size % 22 != 0 || size / 22 > 10)
        return false;
    for (size_t i = 0; i < size; i += 22)
        if (b[i] > 1 || (b[i] == 0 && b[i + 1] > 3))
            return false;
    return true;
}

static int reveal_kind(const uint8_t *req, size_t size)
{
    if (size == 0)
        return REVEAL_EMPTY;
    bool page_ok = size >= 8 && be32(req + 1) < 0x80000000u;
    switch (req[0]) {
    case 0x00:
        return size == 34 && req[1] == 0x00 ? REVEAL_RAW : REVEAL_EMPTY;
    case 0x01:
        return size == 1 ? REVEAL_METADATA : REVEAL_EMPTY;
    case 0x02:
        return size == 8 && page_ok ? REVEAL_DAL_PAGE : REVEAL_EMPTY;
    case 0x03:
        return size == 1 ? REVEAL_DAL_PARAMS : REVEAL_EMPTY;
    case 0x04:
        return page_ok && size >= 10 &&
                       ((req[9] == 0x00 && size == 10) ||
                        (req[9] == 0x01 && contracts_ok(req + 10, size - 10)))
                   ? REVEAL_ADAL_PAGE
                   : REVEAL_EMPTY;
    default:
        return REVEAL_EMPTY;
    }
}

/* Answers a reveal request as the reference debugger does (src/lib_wasm_debugger/
 * commands.ml, `reveals`): the preimage from --preimage-dir (or the prompt), the
 * metadata, a DAL page from --dal-pages-dir; the empty string for a request that does not
 * decode (reveal_kind). */
static wd_status reveal(void *ud, const uint8_t *req, size_t req_size, uint8_t *buf, size_t max,
                        size_t *size, wd_error *err)
{
    wd_pvm *p = ud;
    *size = 0;
    switch (reveal_kind(req, req_size)) {
    case REVEAL_EMPTY:
        return WD_OK;
    case REVEAL_RAW: { /* 33-byte hash, tag 00 + Blake2b-256 */
        uint8_t empty[32];
        crypto_generichash(empty, sizeof empty, NULL, 0, NULL, 0);
        if (memcmp(req + 2, empty, 32) == 0)
            return WD_OK; /* the well-known hash: the empty string */
        char name[67], path[4200];
        hex(req + 1, 33, name);
        snprintf(path, sizeof path, "%s/%s", p->cfg.preimage_dir ? p->cfg.preimage_dir : "preimage",
                 name);
        const char *dir = p->cfg.preimage_dir ? p->cfg.preimage_dir : "preimage";
        if (read_file(path, buf, max, size) == WD_OK)
            return WD_OK;
        if (p->prompt != NULL)
            return p->prompt(p->prompt_ud, "Preimage", name, dir, buf, max, size, err);
        return wd_fail(err, WD_TRAP, 0, "preimage %s not found in %s", name, dir);
    }
    case REVEAL_METADATA: { /* rollup address and origination level 0 */
        uint8_t md[24] = {0};
        memcpy(md, p->cfg.rollup, 20);
        memcpy(buf, md, WD_MIN(max, sizeof md));
        *size = sizeof md;
        return WD_OK;
    }
    case REVEAL_DAL_PAGE: { /* published level i32 BE, slot u8, page i16 BE */
        int32_t lvl = (int32_t)be32(req + 1);
        int page = (int16_t)((uint16_t)(req[6] << 8 | req[7]));
        const char *dir = p->cfg.dal_dir ? p->cfg.dal_dir : "dal_pages";
        char name[32], path[4200];
        snprintf(name, sizeof name, "%d-%d-%d", lvl, req[5], page);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (read_file(path, buf, max, size) == WD_OK)
            return WD_OK;
        if (p->prompt != NULL)
            return p->prompt(p->prompt_ud, "DAL page", name, dir, buf, max, size, err);
        return wd_fail(err, WD_TRAP, 0, "DAL page %s not found", path);
    }
    case REVEAL_DAL_PARAMS:
        return wd_fail(err, WD_TRAP, 0,
                       "The kernel tried to request DAL parameters, but this is not yet "
                       "supported by the debugger.");
    default: /* the reference debugger fails an assertion */
        return wd_fail(err, WD_TRAP, 0,
                       "The kernel tried to request an adaptive DAL page, which the debugger "
                       "does not support.");
    }
}

/* ---- phases ------------------------------------------------------------------------------- */

/* Decode ticks under the model, per section: a step per section header, per vector item,
 * per instruction, per name character and per data byte; a custom section is skipped in
 * one step. Reported as `decode:<section>` phases inside `decode`, in binary order. */
typedef struct section_cost {
    const char *name;
    uint64_t ticks;
} section_cost;

static uint32_t decode_costs(const wd_module *m, const wd_costs *c, section_cost *out)
{
    uint64_t sec = c->decode_per_section, item = c->decode_per_item, chr = c->decode_per_name_char;
    uint32_t n = 0;
    uint32_t defined = m->func_count - m->import_func_count;
#define SECTION(present, label, cost)                                                                  do {                                                                                                   if (present)                                                                                           out[n++] = (section_cost){label, sec + (cost)};                                            } while (0)
    uint64_t types = 0, imports = 0, exports = 0, elems = 0, insns = 0, locals = 0, bytes = 0;
    for (uint32_t i = 0; i < m->type_count; i++)
        types += item * (1 + m->types[i].param_count + m->types[i].result_count);
    for (uint32_t i = 0; i < m->import_count; i++)
        imports += item + chr * ((uint64_t)m->imports[i].module_size + m->imports[i].name_size);
    for (uint32_t i = 0; i < m->export_count; i++)
        exports += item + chr * m->exports[i].name_size;
    for (uint32_t i = 0; i < m->elem_count; i++)
        elems += item * (1 + (uint64_t)m->elems[i].count);
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        locals += m->funcs[i].local_count;
        if (m->funcs[i].code != NULL)
            insns += m->funcs[i].code->wasm_insn_count;
    }
    for (uint32_t i = 0; i < m->data_count; i++)
        bytes += m->datas[i].size;
    SECTION(m->type_count != 0, "decode:type", types);
    SECTION(m->import_count != 0, "decode:import", imports);
    SECTION(defined != 0, "decode:function", item * defined);
    SECTION(m->table_count > m->import_table_count, "decode:table",
            item * (m->table_count - m->import_table_count));
    SECTION(m->memory_count > m->import_memory_count, "decode:memory",
            item * (m->memory_count - m->import_memory_count));
    SECTION(m->global_count > m->import_global_count, "decode:global",
            (item + c->decode_per_insn) * (m->global_count - m->import_global_count));
    SECTION(m->export_count != 0, "decode:export", exports);
    SECTION(m->has_start, "decode:start", 0);
    SECTION(m->elem_count != 0, "decode:element", elems);
    SECTION(m->has_data_count, "decode:datacount", 0);
    SECTION(defined != 0, "decode:code", item * (defined + locals) + c->decode_per_insn * insns);
    SECTION(m->data_count != 0, "decode:data",
            item * m->data_count + c->decode_per_data_byte * bytes);
#undef SECTION
    return n;
}

/* Charges the decode phase's sections, reporting each. */
static void charge_decode(wd_pvm *p)
{
    section_cost sections[16];
    uint32_t n = decode_costs(p->module, p->cfg.costs, sections);
    for (uint32_t i = 0; i < n; i++) {
        phase(p, sections[i].name, true);
        p->thread.ticks += sections[i].ticks;
        phase(p, sections[i].name, false);
    }
    for (uint32_t i = 0; i < p->module->custom_count; i++) {
        char name[96];
        snprintf(name, sizeof name, "decode:custom:%.80s", p->module->customs[i].name);
        phase(p, name, true);
        p->thread.ticks += p->cfg.costs->decode_per_custom;
        phase(p, name, false);
    }
}

static uint64_t init_ticks(const wd_module *m, const wd_costs *c)
{
    uint64_t elems = 0, data = 0;
    for (uint32_t i = 0; i < m->elem_count; i++)
        if (m->elems[i].mode == WD_SEG_ACTIVE)
            elems += m->elems[i].count;
    for (uint32_t i = 0; i < m->data_count; i++)
        if (m->datas[i].mode == WD_SEG_ACTIVE)
            data += m->datas[i].size;
    return c->init_base + (uint64_t)(m->global_count - m->import_global_count) * c->init_per_global +
           elems * c->init_per_elem + data * c->init_per_data_byte;
}

/* Decodes the kernel at /kernel/boot.wasm, reusing the last module when the bytes are the
 * same. */
static wd_status load_kernel(wd_pvm *p, wd_error *err)
{
    size_t size;
    const uint8_t *bytes;
    const wd_durable_kept *k = wd_durable_keep(p->durable, KEY("/kernel/boot.wasm"), &bytes, &size);
    if (k == NULL && wd_durable_value_size(p->durable, KEY("/kernel/boot.wasm")) >= 0)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory"); /* a sparse value made whole */
    if (k == NULL)
        return wd_fail(err, WD_ERR_MALFORMED, 0, "no kernel at /kernel/boot.wasm");
    if (p->kernel_kept != NULL &&
        (k == p->kernel_kept || (size == p->kernel_size && memcmp(bytes, p->kernel, size) == 0))) {
        wd_durable_release(p->durable, k);
        if (p->module_status != WD_OK)
            *err = p->module_err;
        return p->module_status;
    }
    wd_module_free(p->module);
    p->module = NULL;
    p->decode_steps_known = false;
    if (p->kernel_kept != NULL)
        wd_durable_release(p->durable, p->kernel_kept);
    p->kernel_kept = k;
    p->kernel = bytes;
    p->kernel_size = size;
    wd_error_clear(&p->module_err);
    wd_decode_opts opts = {.costs = p->cfg.costs, .pvm = true, .no_fuse = p->cfg.no_fuse};
    p->module_status = wd_decode_module(p->ctx, p->kernel, size, &opts, &p->module, &p->module_err);
    if (p->module_status != WD_OK)
        *err = p->module_err;
    return p->module_status;
}

static void set_stuck(wd_pvm *p, const char *fmt, const char *detail)
{
    p->state = WD_PVM_STUCK;
    snprintf(p->stuck, sizeof p->stuck, fmt, detail);
}

/* Describes a trap or error with the function (by symbol) and offset. */
static void describe(const wd_pvm *p, const wd_error *e, char *out, size_t size)
{
    char name[96];
    if (e->func_idx != UINT32_MAX && p->module != NULL && e->func_idx < p->module->func_count)
        snprintf(out, size, "%s in %s at 0x%zx", e->msg,
                 wd_module_func_name(p->module, e->func_idx, name, sizeof name), e->offset);
    else
        snprintf(out, size, "%s", e->msg);
}

/* A kernel that fails to decode, link or initialise: restore the fallback kernel if there
 * is a different one, else the PVM is stuck (pvm.md section 5). */
static void kernel_failed(wd_pvm *p, wd_run_report *r, const char *what)
{
    size_t fsize, ksize;
    const uint8_t *fb = wd_durable_value(p->durable, KEY("/readonly/kernel/boot.wasm"), &fsize);
    const uint8_t *k = wd_durable_value(p->durable, KEY("/kernel/boot.wasm"), &ksize);
    if (fb != NULL && !(k != NULL && ksize == fsize && memcmp(k, fb, fsize) == 0)) {
        (void)wd_durable_copy(p->durable, KEY("/readonly/kernel/boot.wasm"),
                              KEY("/kernel/boot.wasm"), false);
        flag(p, KEY("/readonly/kernel/env/upgrade_error"), true);
        r->outcome = WD_RUN_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s; fallback kernel restored", what);
    } else {
        r->outcome = WD_RUN_STUCK;
        set_stuck(p, "No_fallback_kernel (%s)", what);
        snprintf(r->reason, sizeof r->reason, "%s", p->stuck);
    }
}

/* Runs `f` on the thread until it finishes, bounded by the run's tick limit. */
static wd_status invoke(wd_pvm *p, wd_func *f, wd_error *err)
{
    wd_status st = wd_eval_invoke(&p->thread, f, NULL, err);
    if (st == WD_PAUSED) /* nobody pauses a plain run; treat as an internal stop */
        wd_eval_abort(&p->thread);
    return st;
}

/* ---- phases as the Octez PVM counts them (pvm_phases; vm/pvmticks.h) ---------------------
 * From the Snapshot tick S: S -> MKStart (outside every phase), decode D, link 1 + I,
 * init 1 + N; each `phase` call is made at the tick the reference profiler opens or closes
 * the phase at (src/lib_wasm_debugger/profiling.ml, update_on_decode / _link / _init). */

/* Decode (decode.ml module_step): the snapshot tick, then D as `decode:<section>` phases.
 * A decode error's own tick is not modelled: the phase then ends where it began. */
static wd_status pvm_decode(wd_pvm *p, wd_run_report *r, wd_error *err)
{
    wd_thread *t = &p->thread;
    t->ticks += WD_PVMTICKS_SNAPSHOT; /* wasm_vm.ml initial_boot_state */
    uint64_t t0 = t->ticks;
    phase(p, "decode", true);
    wd_status st = load_kernel(p, err);
    if (st == WD_OK && !p->decode_steps_known) {
        st = wd_pvmticks_decode_steps(p->module, p->kernel, p->kernel_size, &p->decode_steps, err);
        p->decode_steps_known = st == WD_OK;
    }
    if (st == WD_OK) {
        const wd_pvmticks_decode *d = &p->decode_steps;
        for (int i = 0; i < WD_PVMTICKS_PARTS; i++) {
            if (i == WD_PVMTICKS_MODULE) {
                for (uint32_t k = 0; k < p->module->custom_count; k++) {
                    char name[96];
                    snprintf(name, sizeof name, "decode:custom:%.80s", p->module->customs[k].name);
                    phase(p, name, true);
                    t->ticks += d->per_custom;
                    phase(p, name, false);
                }
            }
            if (d->part[i] == 0)
                continue;
            phase(p, wd_pvmticks_part_names[i], true);
            t->ticks += d->part[i];
            phase(p, wd_pvmticks_part_names[i], false);
        }
    }
    phase(p, "decode", false);
    r->phase[WD_PHASE_DECODE] = t->ticks - t0;
    return st;
}

/* Link (wasm_vm.ml, Link): MKStop -> Link, then one tick per import, looked up by module and
 * name (Host_funcs.lookup_opt ~version); an unknown one is a Link_error at its tick. Types
 * are checked later, in init (eval.ml add_import): *mismatch is the last import whose type
 * does not match, the first that init's right-to-left fold meets, or UINT32_MAX. */
static wd_status pvm_link(wd_pvm *p, wd_run_report *r, wd_store *s, wd_extern *externs,
                          uint32_t *mismatch, wd_error *err)
{
    wd_thread *t = &p->thread;
    const wd_module *m = p->module;
    uint64_t t0 = t->ticks;
    *mismatch = UINT32_MAX;
    phase(p, "link", true);
    wd_status st = wd_host_register(&p->env, s, err);
    for (uint32_t j = 0; st == WD_OK && j < m->import_count; j++) {
        const wd_import *imp = &m->imports[j];
        wd_extern ext;
        memset(&ext, 0, sizeof ext);
        st = wd_host_resolve(&p->env, imp, &ext, err);
        if (st == WD_OK && ext.u.func == NULL)
            st = wd_fail(err, WD_ERR_UNLINKABLE, imp->offset, "unknown import \"%s\".\"%s\"",
                         imp->module, imp->name);
        if (st != WD_OK) {
            t->ticks = t0 + wd_pvmticks_link_error(j); /* Stuck (Link_error) */
            break;
        }
        if (imp->kind != WD_EXTERN_FUNC ||
            !wd_functype_equal(ext.u.func->type, &m->types[imp->desc.type_idx]))
            *mismatch = j;
    }
    if (st == WD_OK) {
        t->ticks = t0 + wd_pvmticks_link(m);
        if (*mismatch == UINT32_MAX)
            st = wd_link_resolve(m, wd_host_resolve, &p->env, externs, err);
    }
    phase(p, "link", false);
    r->phase[WD_PHASE_LINK] = t->ticks - t0;
    return st;
}

/* Runs the start function as init's admin eval does: Plain (Call start), the call (the
 * interpreter charges the callee's entry, body and end), the frame's return. */
static wd_status pvm_start(wd_pvm *p, wd_instance *inst, const wd_pvmticks_init *n, wd_error *err)
{
    wd_thread *t = &p->thread;
    t->ticks += n->start_call;
    t->entry_open = 0;
    p->env.in_start = true;
    wd_status st = invoke(p, inst->funcs[p->module->start_idx], err);
    p->env.in_start = false;
    if (st == WD_OK)
        t->ticks += n->start_return;
    return st;
}

/* Init (eval.ml init_step): Link finished -> IK_Start, then N (module_instance, exports
 * with the check of memory 0 (wasm_vm.ml ~check_module_exports:Exports_memory_0), the
 * segments' and the start function's admin eval). The tick of a trap in a segment is not
 * modelled: the run fails where the steps before the admin eval end. */
static wd_status pvm_init(wd_pvm *p, wd_run_report *r, wd_store *s, const wd_extern *externs,
                          uint32_t mismatch, wd_instance **inst, wd_error *err)
{
    wd_thread *t = &p->thread;
    const wd_module *m = p->module;
    uint64_t t0 = t->ticks;
    wd_pvmticks_init n;
    wd_pvmticks_init_steps(m, p->cfg.costs, &n);
    phase(p, "init", true);
    t->ticks += WD_PVMTICKS_TO_INIT; /* link_finished */
    wd_status st = WD_OK;
    bool memory0 = false;
    for (uint32_t i = 0; i < m->export_count; i++)
        memory0 |= m->exports[i].kind == WD_EXTERN_MEMORY && m->exports[i].idx == 0;
    if (mismatch != UINT32_MAX) {
        const wd_import *imp = &m->imports[mismatch];
        t->ticks = t0 + wd_pvmticks_import_type_error(m, mismatch);
        st = wd_fail(err, WD_ERR_UNLINKABLE, imp->offset,
                     "incompatible import type for \"%s\".\"%s\"", imp->module, imp->name);
    } else if (!memory0) {
        t->ticks += n.exports_checked; /* Missing_memory_0_export */
        st = wd_fail(err, WD_ERR_UNINSTANTIABLE, 0,
                     "Init_error: the kernel does not export its memory 0");
    } else {
        t->ticks += n.before_admin;
        st = wd_link_instantiate(s, m, externs, inst, err);
    }
    if (st == WD_OK)
        t->ticks += n.segments;
    if (st == WD_OK && m->has_start)
        st = pvm_start(p, *inst, &n, err);
    if (st == WD_OK)
        t->ticks += n.end;
    phase(p, "init", false);
    r->phase[WD_PHASE_INIT] = t->ticks - t0;
    return st;
}

/* Decode, link and init as the Octez PVM counts them; on success *entry is kernel_run, and
 * the Init IK_Stop -> Eval tick is the caller's (the first of kernel_run's phase). */
static wd_status prepare_pvm(wd_pvm *p, wd_run_report *r, wd_store *s, wd_func **entry,
                             wd_error *err)
{
    WD_TRY(pvm_decode(p, r, err));
    const wd_module *m = p->module;
    wd_extern *externs = wd_calloc(p->ctx, m->import_count + 1u, sizeof *externs);
    if (externs == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    uint32_t mismatch;
    wd_instance *inst = NULL;
    wd_status st = pvm_link(p, r, s, externs, &mismatch, err);
    if (st == WD_OK)
        st = pvm_init(p, r, s, externs, mismatch, &inst, err);
    wd_free(p->ctx, externs);
    if (st != WD_OK)
        return st;
    int64_t idx = wd_module_find_export(m, "kernel_run", WD_EXTERN_FUNC);
    if (idx < 0) {
        /* wasm_vm.ml: IK_Stop -> Eval finds no kernel_run: Stuck at S + 4 + D + I + N */
        p->thread.ticks += WD_PVMTICKS_TO_EVAL;
        set_stuck(p, "Invalid_state (%s)", "the kernel does not export a function kernel_run");
        return WD_ERR_INVALID;
    }
    *entry = inst->funcs[m->exports[idx].idx];
    /* the kernel reached evaluation: it becomes the fallback kernel (save_fallback_kernel) */
    (void)wd_durable_copy(p->durable, KEY("/kernel/boot.wasm"), KEY("/readonly/kernel/boot.wasm"),
                          false);
    return WD_OK;
}

/* Decode, link and init of one run. On success *inst and *entry are set. */
static wd_status prepare(wd_pvm *p, wd_run_report *r, wd_store *s, wd_func **entry,
                         wd_error *err)
{
    if (p->cfg.costs->pvm_phases)
        return prepare_pvm(p, r, s, entry, err);
    wd_thread *t = &p->thread;
    uint64_t t0 = t->ticks;
    phase(p, "decode", true);
    t->ticks += 1; /* the snapshot tick */
    wd_status st = load_kernel(p, err);
    if (st == WD_OK)
        charge_decode(p);
    phase(p, "decode", false);
    r->phase[WD_PHASE_DECODE] = t->ticks - t0;
    if (st != WD_OK)
        return st;

    const wd_module *m = p->module;
    t0 = t->ticks;
    phase(p, "link", true);
    wd_extern *externs = wd_calloc(p->ctx, m->import_count + 1u, sizeof *externs);
    if (externs == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    st = wd_host_register(&p->env, s, err);
    if (st == WD_OK)
        st = wd_link_resolve(m, wd_host_resolve, &p->env, externs, err);
    t->ticks += p->cfg.costs->link_base + (uint64_t)m->import_count * p->cfg.costs->link_per_import;
    phase(p, "link", false);
    r->phase[WD_PHASE_LINK] = t->ticks - t0;

    t0 = t->ticks;
    phase(p, "init", true);
    wd_instance *inst = NULL;
    if (st == WD_OK) {
        st = wd_link_instantiate(s, m, externs, &inst, err);
        t->ticks += init_ticks(m, p->cfg.costs);
    }
    wd_free(p->ctx, externs);
    if (st == WD_OK && m->has_start) {
        p->env.in_start = true;
        st = invoke(p, inst->funcs[m->start_idx], err);
        p->env.in_start = false;
    }
    int64_t idx = st == WD_OK ? wd_module_find_export(m, "kernel_run", WD_EXTERN_FUNC) : -1;
    if (st == WD_OK && idx < 0) {
        phase(p, "init", false);
        r->phase[WD_PHASE_INIT] = t->ticks - t0;
        set_stuck(p, "Invalid_state (%s)", "the kernel does not export a function kernel_run");
        return WD_ERR_INVALID;
    }
    if (st == WD_OK) {
        *entry = inst->funcs[m->exports[idx].idx];
        /* the kernel reached evaluation: it becomes the fallback kernel */
        (void)wd_durable_copy(p->durable, KEY("/kernel/boot.wasm"),
                              KEY("/readonly/kernel/boot.wasm"), false);
    }
    phase(p, "init", false);
    r->phase[WD_PHASE_INIT] = t->ticks - t0;
    return st;
}

/* The end of a top-level cycle: pad to the period's end, then reboot or yield. */
static void end_of_run(wd_pvm *p, wd_run_report *r, uint64_t start)
{
    wd_thread *t = &p->thread;
    if (p->state == WD_PVM_STUCK) {
        t->ticks = start + p->cfg.period;
        return;
    }
    t->ticks += 1; /* patch the flags, enter Padding */
    r->effective = t->ticks - start;
    t->ticks = start + p->cfg.period;
    bool reboot = wd_durable_has(p->durable, KEY("/kernel/env/reboot")) != 0;
    if (reboot && p->reboots_left > 0) {
        r->reboot = true;
        p->state = WD_PVM_SNAPSHOT;
    } else {
        r->reboot_refused = reboot;
        flag(p, KEY("/readonly/kernel/env/too_many_reboot"), reboot);
        p->state = WD_PVM_COLLECT;
        p->reboots_left = MAX_REBOOTS + 1;
        flag(p, KEY("/kernel/env/reboot"), true); /* the run after the next inbox reboots */
        p->env.inputs = NULL; /* unread messages are lost */
        p->env.input_count = p->env.input_next = 0;
    }
    write_reboot_counter(p);
}

/* ---- a kernel run in stages -------------------------------------------------------------
 * SNAPSHOT --run_begin--> EVAL/RUNNING (kernel_run suspended: ticks or a pause)
 *          --run_continue--> EVAL/FINISHED (kernel_run returned or failed; its instance is
 *          still there to inspect) --run_end--> SNAPSHOT (reboot) or COLLECT (yield). */

/* The call stack kept by the thread when the eval failed, named from the name section,
 * innermost first: the faulting instruction, then each caller's call. */
static void backtrace(const wd_pvm *p, wd_run_report *r)
{
    const wd_thread *t = &p->thread;
    r->backtrace_count = r->backtrace_more = 0;
    for (uint32_t k = t->trap_frame_count; k > 0; k--) {
        if (r->backtrace_count == WD_RUN_FRAMES) {
            r->backtrace_more = k;
            return;
        }
        const wd_frame *f = &t->trap_frames[k - 1];
        const wd_code *code = f->func->code;
        uint32_t i = (uint32_t)(f->ip - code->insns);
        if (k < t->trap_frame_count && i > 0)
            i--; /* a caller waits on the call before its return address */
        wd_run_frame *o = &r->backtrace[r->backtrace_count++];
        o->func_idx = f->func->idx;
        o->offset = code->offsets[i];
        const char *name =
            wd_module_func_name(f->func->inst->module, f->func->idx, o->name, sizeof o->name);
        if (name != o->name)
            snprintf(o->name, sizeof o->name, "%s", name);
    }
}

/* The current run's period's last tick: a state other than Padding there is Stuck
 * (wasm_vm.ml, Too_many_ticks). */
static uint64_t last_tick(const wd_pvm *p)
{
    return p->cur.start + p->cfg.period - 1;
}

/* The end of kernel_run's eval as the Octez PVM counts it (pvm_phases), outside the
 * kernel_run phase: after a return, the frame's return into the PVM's bottom frame,
 * frame0's label and SK_Result; after a trap, SK_Trapped (the interpreter charged the
 * Trapping step, the phase's last). The first Padding tick must come by the period's last
 * tick, else the PVM is stuck (wasm_vm.ml: Too_many_ticks): the status becomes
 * WD_OUT_OF_TICKS. */
static wd_status eval_tail(wd_pvm *p, wd_status st, const wd_error *e)
{
    wd_thread *t = &p->thread;
    const wd_costs *c = p->cfg.costs;
    if (st == WD_OK) {
        t->ticks += wd_pvmticks_result_tail(c, p->entry->type->result_count);
    } else if (st == WD_TRAP && e->trap != WD_TRAP_NONE && e->trap != WD_TRAP_HOST) {
        t->ticks += wd_pvmticks_trapped(c);
    } else {
        return st;
    }
    uint64_t last = last_tick(p);
    if (t->ticks + 1 > last) { /* the step to Padding would come too late */
        t->ticks = WD_MIN(t->ticks, last);
        return WD_OUT_OF_TICKS;
    }
    return st;
}

/* Records how the eval (or the phases before it) ended. */
static void eval_done(wd_pvm *p, wd_status st, const wd_error *e)
{
    wd_run_report *r = &p->cur;
    if (p->cfg.costs->pvm_phases && p->entry != NULL && p->state != WD_PVM_STUCK)
        st = eval_tail(p, st, e);
    char why[224];
    describe(p, e, why, sizeof why);
    p->stage = WD_STAGE_FINISHED;
    p->finished_unseen = true;
    p->last_error = *e;
    if (p->entry != NULL && (st == WD_TRAP || st == WD_EXHAUSTED))
        backtrace(p, r);
    if (p->state == WD_PVM_STUCK) {
        r->outcome = WD_RUN_STUCK;
        snprintf(r->reason, sizeof r->reason, "%s", p->stuck);
    } else if (p->entry == NULL && !(st == WD_OUT_OF_TICKS && p->cfg.costs->pvm_phases)) {
        kernel_failed(p, r, why); /* decode, link or init failed */
    } else if (st == WD_OK) {
        flag(p, KEY("/readonly/kernel/env/stuck"), false);
        flag(p, KEY("/readonly/kernel/env/upgrade_error"), false);
    } else if (st == WD_TRAP && e->trap != WD_TRAP_NONE && e->trap != WD_TRAP_HOST) {
        r->outcome = WD_RUN_TRAPPED;
        snprintf(r->reason, sizeof r->reason, "%s", why);
        flag(p, KEY("/readonly/kernel/env/stuck"), true);
    } else if (st == WD_OUT_OF_TICKS) {
        r->outcome = WD_RUN_STUCK;
        p->too_many_ticks = true;
        set_stuck(p, "Too_many_ticks%s", "");
        snprintf(r->reason, sizeof r->reason,
                 "too many ticks: the run did not finish within %llu ticks",
                 (unsigned long long)p->cfg.period);
    } else {
        r->outcome = WD_RUN_STUCK;
        set_stuck(p, "Eval_error (%s)", why);
        snprintf(r->reason, sizeof r->reason, "%s", p->stuck);
    }
}

/* SNAPSHOT: decode, link, init; then kernel_run is started (suspended at once). */
static wd_status run_begin(wd_pvm *p, wd_error *err)
{
    wd_thread *t = &p->thread;
    p->cur = (wd_run_report){.level = p->levels - 1, .index = p->run_index++,
                             .start = t->ticks, .outcome = WD_RUN_OK};
    p->cur_started = wd_clock_seconds();
    p->too_many_ticks = false;
    /* Every run is a reboot: the flag (set by the kernel, or by the PVM when it yielded)
     * is consumed and the counter decremented; the first run of a level uses the one
     * "used to read the inbox" (pvm.md section 5). */
    flag(p, KEY("/kernel/env/reboot"), false);
    if (p->reboots_left > 0)
        p->reboots_left--;
    write_reboot_counter(p);
    t->tick_limit = last_tick(p); /* the last tick ends the run */
    p->store = wd_store_new(p->ctx);
    if (p->store == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    p->state = WD_PVM_EVAL;
    p->entry = NULL;
    wd_error e;
    wd_error_clear(&e);
    wd_status st = prepare(p, &p->cur, p->store, &p->entry, &e);
    if (st == WD_ERR_NOMEM) /* wasmdbg's limit, not the kernel's: the session ends */
        return wd_fail(err, st, e.offset, "level %u, kernel run %u: %s", p->cur.level,
                       p->cur.index, e.msg);
    uint64_t run_limit = last_tick(p);
    if (p->cfg.costs->pvm_phases && t->ticks >= run_limit && p->state != WD_PVM_STUCK) {
        /* wasm_vm.ml: at the period's last tick a state other than Padding is Stuck
         * (Too_many_ticks): decode, link and init took the whole period */
        t->ticks = run_limit;
        st = WD_OUT_OF_TICKS;
    }
    if (st != WD_OK) {
        eval_done(p, st, &e);
        return WD_OK;
    }
    p->stage = WD_STAGE_RUNNING;
    p->eval_start = t->ticks;
    if (p->cfg.costs->pvm_phases) {
        t->ticks += WD_PVMTICKS_TO_EVAL; /* Init IK_Stop -> Eval: kernel_run's first tick */
        t->entry_open = WD_PVMTICKS_TO_EVAL; /* the profiler opens kernel_run before it */
    }
    p->fresh = true; /* wd_eval_invoke at the first continue */
    return WD_OK;
}

/* EVAL/RUNNING: runs kernel_run on until `limit` (at most the run's own limit) or a pause. */
static wd_status run_continue(wd_pvm *p, uint64_t limit, wd_status *eval_st, wd_error *err)
{
    wd_thread *t = &p->thread;
    uint64_t run_limit = last_tick(p);
    t->tick_limit = WD_MIN(limit, run_limit);
    wd_error e;
    wd_error_clear(&e);
    wd_status st = p->fresh ? wd_eval_invoke(t, p->entry, NULL, &e) : wd_eval_resume(t, &e);
    p->fresh = false;
    p->cur.phase[WD_PHASE_EVAL] = t->ticks - p->eval_start;
    *eval_st = st;
    if (st == WD_ERR_NOMEM) {
        *err = e;
        return st;
    }
    /* suspended: a pause, or the caller's own tick budget; out of the run's ticks, the next
     * instruction cannot end within the period: Too_many_ticks */
    if (st == WD_PAUSED || (st == WD_OUT_OF_TICKS && limit < run_limit))
        return WD_OK;
    eval_done(p, st, &e);
    return WD_OK;
}

/* EVAL/FINISHED: padding, the reboot or yield decision; the report is kept. */
static wd_status run_end(wd_pvm *p, wd_error *err)
{
    wd_run_report *r = &p->cur;
    /* a run out of ticks is Stuck from the tick after its period's last (wasm_vm.ml
     * unsafe_next_tick_state), wherever within its last instruction that falls */
    r->effective = p->too_many_ticks ? p->cfg.period : p->thread.ticks - r->start;
    if (p->state != WD_PVM_STUCK)
        p->state = WD_PVM_SNAPSHOT; /* end_of_run moves on from here */
    end_of_run(p, r, r->start);
    wd_store_free(p->store);
    p->store = NULL;
    p->entry = NULL;
    p->stage = WD_STAGE_NONE;
    r->seconds = wd_clock_seconds() - p->cur_started;
    if (!WD_VEC_PUSH(p->ctx, &p->runs, *r))
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    return WD_OK;
}

wd_status wd_pvm_advance(wd_pvm *p, wd_pvm_goal goal, uint64_t n, wd_pvm_stop *stop,
                         wd_error *err)
{
    wd_thread *t = &p->thread;
    uint64_t budget_end = goal == WD_GOAL_TICKS ? t->ticks + n : UINT64_MAX;
    bool single = goal == WD_GOAL_INSTRS;
    uint64_t steps = 0;
    for (;;) {
        if (p->state == WD_PVM_STUCK && p->stage == WD_STAGE_NONE) {
            *stop = WD_STOP_STUCK;
            return WD_OK;
        }
        if (p->state == WD_PVM_COLLECT) {
            *stop = WD_STOP_INPUT;
            return WD_OK;
        }
        if (p->state == WD_PVM_SNAPSHOT) {
            if (goal == WD_GOAL_KERNEL_RUN && steps++ > 0) {
                *stop = WD_STOP_GOAL;
                return WD_OK;
            }
            p->step_start = t->ticks; /* decode, link and init are one step here */
            WD_TRY(run_begin(p, err));
            continue;
        }
        /* EVAL (or STUCK with the run that got it stuck not ended yet) */
        if (p->stage == WD_STAGE_RUNNING) {
            if (t->ticks >= budget_end) {
                *stop = WD_STOP_GOAL;
                return WD_OK;
            }
            t->single_step = single;
            wd_status st;
            uint64_t before = t->ticks;
            wd_status rc = run_continue(p, budget_end, &st, err);
            bool forced = false;
            if (rc == WD_OK && st == WD_OUT_OF_TICKS && t->ticks == before &&
                p->stage == WD_STAGE_RUNNING) {
                /* the next instruction costs more than the ticks asked for: an instruction
                 * is the smallest step, so run exactly one */
                t->single_step = forced = true;
                p->step_start = t->ticks;
                rc = run_continue(p, UINT64_MAX, &st, err);
            }
            t->single_step = false;
            WD_TRY(rc);
            if (p->stage == WD_STAGE_RUNNING) {
                if (st == WD_PAUSED && single && ++steps < n)
                    continue;
                *stop = st == WD_PAUSED && !single && !forced ? WD_STOP_PAUSED : WD_STOP_GOAL;
                return WD_OK;
            }
        }
        /* FINISHED: stop there once for the goals that end with kernel_run */
        bool first_stop = p->finished_unseen;
        p->finished_unseen = false;
        if (first_stop &&
            (goal == WD_GOAL_RESULT || goal == WD_GOAL_TICKS || goal == WD_GOAL_INSTRS)) {
            *stop = WD_STOP_GOAL; /* kernel_run ended: its instance is still there */
            return WD_OK;
        }
        WD_TRY(run_end(p, err));
        if (goal == WD_GOAL_KERNEL_RUN && p->state == WD_PVM_SNAPSHOT) {
            *stop = WD_STOP_GOAL;
            return WD_OK;
        }
    }
}

wd_status wd_pvm_kernel_run(wd_pvm *p, wd_error *err)
{
    if (p->state != WD_PVM_SNAPSHOT && p->state != WD_PVM_EVAL)
        return wd_fail(err, WD_ERR_USAGE, 0, "no kernel run is due (the PVM %s)",
                       p->state == WD_PVM_STUCK ? "is stuck" : "waits for input");
    wd_pvm_stop stop;
    do {
        WD_TRY(wd_pvm_advance(p, WD_GOAL_KERNEL_RUN, 0, &stop, err));
    } while (stop == WD_STOP_PAUSED && p->state == WD_PVM_EVAL);
    return WD_OK;
}

wd_status wd_pvm_run_until_input(wd_pvm *p, void (*after_run)(void *), void *ud,
                                 wd_error *err)
{
    wd_pvm_stop stop = WD_STOP_GOAL;
    while (p->state == WD_PVM_SNAPSHOT || p->state == WD_PVM_EVAL) {
        WD_TRY(wd_pvm_advance(p, after_run != NULL ? WD_GOAL_KERNEL_RUN : WD_GOAL_INPUT, 0,
                              &stop, err));
        if (after_run != NULL)
            after_run(ud);
        if (stop == WD_STOP_PAUSED && p->thread.pending)
            return wd_fail(err, WD_PAUSED, 0, "interrupted at tick %" PRIu64,
                           p->thread.ticks);
        /* any other pause: nobody asked for it here, go on */
    }
    return WD_OK;
}

wd_memory *wd_pvm_memory(wd_pvm *p)
{
    if (p->state != WD_PVM_EVAL || p->entry == NULL)
        return NULL;
    return p->entry->inst->memory;
}

wd_thread *wd_pvm_thread(wd_pvm *p)
{
    return &p->thread;
}

void wd_pvm_set_reveal_prompt(wd_pvm *p, wd_reveal_prompt prompt, void *ud)
{
    p->prompt = prompt;
    p->prompt_ud = ud;
}

void wd_pvm_set_hooks(wd_pvm *p, const wd_hooks *hooks)
{
    p->cfg.hooks = hooks;
    p->thread.hooks = hooks;
}

const char *wd_pvm_internal_status(const wd_pvm *p, char *buf, size_t size)
{
    switch (p->state) {
    case WD_PVM_COLLECT:
        return "Collect";
    case WD_PVM_SNAPSHOT:
        return "Snapshot";
    case WD_PVM_STUCK:
        snprintf(buf, size, "Stuck (%s)", p->stuck);
        return buf;
    case WD_PVM_EVAL:
        break;
    }
    if (p->stage == WD_STAGE_RUNNING)
        return "Eval";
    if (p->cur.outcome == WD_RUN_OK)
        return "Evaluation succeeded";
    snprintf(buf, size, "Evaluation failed (%s)", p->cur.reason);
    return buf;
}

const wd_run_report *wd_pvm_current_run(const wd_pvm *p)
{
    return p->state == WD_PVM_EVAL ? &p->cur : NULL;
}

const wd_msg *wd_pvm_inbox(const wd_pvm *p, uint32_t *count, uint32_t *next)
{
    *count = p->env.input_count;
    *next = p->env.input_next;
    return p->env.inputs;
}

static void free_inbox(wd_pvm *p)
{
    for (uint32_t i = 0; i < p->inbox_count; i++)
        wd_free(p->ctx, p->inbox[i].bytes);
    wd_free(p->ctx, p->inbox);
    p->inbox = NULL;
    p->inbox_count = 0;
}

wd_status wd_pvm_load_inbox(wd_pvm *p, const wd_inbox *inbox, wd_error *err)
{
    if (p->state != WD_PVM_COLLECT)
        return wd_fail(err, WD_ERR_USAGE, 0, "the PVM is not expecting inputs (%s)",
                       p->state == WD_PVM_STUCK ? "it is stuck" : "a kernel run is due");
    if (p->levels > 0)
        WD_TRY(save_outbox(p, err));
    free_inbox(p);
    wd_inbox framed;
    WD_TRY(wd_inputs_frame_level(p->ctx, inbox, &framed, err));
    p->inbox = wd_calloc(p->ctx, (size_t)framed.count + 1, sizeof *p->inbox);
    wd_status st = p->inbox ? WD_OK : wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    p->levels++;
    p->env.level = p->levels - 1;
    p->run_index = 0;
    for (uint32_t i = 0; st == WD_OK && i < framed.count; i++) {
        const wd_input_msg *m = &framed.msgs[i];
        uint8_t *copy = wd_alloc(p->ctx, m->size);
        if (copy == NULL) {
            st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
            break;
        }
        if (m->size != 0)
            memcpy(copy, m->data, m->size);
        p->inbox[p->inbox_count] = (wd_msg){copy, m->size, p->levels - 1, p->inbox_count};
        p->inbox_count++;
    }
    wd_inputs_frame_free(p->ctx, &framed);
    if (st != WD_OK)
        return st;
    p->env.inputs = p->inbox;
    p->env.input_count = p->inbox_count;
    p->env.input_next = 0;
    /* one tick per message fed, then padding to the end of the collect period */
    p->thread.ticks += p->cfg.period;
    p->state = WD_PVM_SNAPSHOT;
    return WD_OK;
}

/* The reference debugger's profiling directives, `__wasm_debugger__::start_section(<data>)`
 * and `end_section(<data>)`, become phases named `section:<data>` (write_debug costs no
 * extra ticks, so they are free annotations). */
static void directive(wd_pvm *p, const uint8_t *bytes, size_t size)
{
    static const char prefix[] = "__wasm_debugger__::";
    size_t k = sizeof prefix - 1;
    if (size < k || memcmp(bytes, prefix, k) != 0 || bytes[size - 1] != ')')
        return;
    bool begin;
    if (size - k > 14 && memcmp(bytes + k, "start_section(", 14) == 0)
        begin = true, k += 14;
    else if (size - k > 12 && memcmp(bytes + k, "end_section(", 12) == 0)
        begin = false, k += 12;
    else
        return;
    char name[136];
    snprintf(name, sizeof name, "section:%.*s", (int)WD_MIN(size - 1 - k, (size_t)120),
             (const char *)bytes + k);
    phase(p, name, begin);
}

static void debug_sink(void *ud, const uint8_t *bytes, size_t size)
{
    wd_pvm *p = ud;
    directive(p, bytes, size);
    if (p->cfg.debug != NULL)
        p->cfg.debug(p->cfg.debug_ud, bytes, size);
}

wd_status wd_pvm_new(wd_ctx *ctx, const wd_pvm_config *cfg, const uint8_t *kernel, size_t size,
                     wd_pvm **out, wd_error *err)
{
    *out = NULL;
    wd_pvm *p = wd_calloc(ctx, 1, sizeof *p);
    if (p == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    p->ctx = ctx;
    p->cfg = *cfg;
    if (p->cfg.period == 0)
        p->cfg.period = wd_pvm_default_period(cfg->version);
    if (p->cfg.max_frames == 0)
        p->cfg.max_frames = wd_pvm_default_max_frames(cfg->version);
    p->durable = wd_durable_new(ctx);
    wd_status st = p->durable ? WD_OK : wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (st == WD_OK)
        st = wd_thread_init(&p->thread, ctx, (size_t)1 << 22, p->cfg.max_frames, cfg->costs, err);
    if (st != WD_OK) {
        wd_durable_free(p->durable);
        wd_free(ctx, p);
        return st;
    }
    p->thread.hooks = cfg->hooks;
    p->env = (wd_host_env){.ctx = ctx, .version = cfg->version, .costs = cfg->costs,
                           .durable = p->durable, .reveal = reveal, .reveal_ud = p,
                           .debug = debug_sink, .debug_ud = p};
    p->state = WD_PVM_COLLECT;
    p->reboots_left = MAX_REBOOTS + 1;
    const char *v = wd_pvm_version_name(cfg->version);
    if (wd_durable_set(p->durable, KEY("/readonly/wasm_version"), (const uint8_t *)v,
                       strlen(v)) != 0 ||
        wd_durable_set(p->durable, KEY("/kernel/boot.wasm"), kernel, size) != 0) {
        wd_pvm_free(p);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    flag(p, KEY("/kernel/env/reboot"), true);
    write_reboot_counter(p);
    /* As the reference debugger does at start-up: the kernel must decode, validate and link. */
    st = load_kernel(p, err);
    if (st == WD_OK) {
        wd_store *s = wd_store_new(ctx);
        wd_extern *externs = wd_calloc(ctx, p->module->import_count + 1u, sizeof *externs);
        if (s == NULL || externs == NULL)
            st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        if (st == WD_OK)
            st = wd_host_register(&p->env, s, err);
        if (st == WD_OK)
            st = wd_link_resolve(p->module, wd_host_resolve, &p->env, externs, err);
        wd_free(ctx, externs);
        wd_store_free(s);
    }
    if (st != WD_OK) {
        wd_pvm_free(p);
        return st;
    }
    *out = p;
    return WD_OK;
}

void wd_pvm_free(wd_pvm *p)
{
    if (p == NULL)
        return;
    wd_host_env_fini(&p->env);
    for (uint32_t i = 0; i < p->outbox_cap; i++) {
        for (uint32_t j = 0; j < p->outboxes[i].count; j++)
            wd_free(p->ctx, p->outboxes[i].msgs[j].bytes);
        wd_free(p->ctx, p->outboxes[i].msgs);
    }
    wd_free(p->ctx, p->outboxes);
    free_inbox(p);
    WD_VEC_FREE(p->ctx, &p->runs);
    if (p->thread.state == WD_THREAD_PAUSED)
        wd_eval_abort(&p->thread);
    wd_store_free(p->store);
    wd_module_free(p->module);
    if (p->kernel_kept != NULL)
        wd_durable_release(p->durable, p->kernel_kept);
    wd_thread_fini(&p->thread);
    wd_durable_free(p->durable);
    wd_free(p->ctx, p);
}

wd_pvm_state wd_pvm_get_state(const wd_pvm *p)
{
    return p->state;
}

const char *wd_pvm_stuck_reason(const wd_pvm *p)
{
    return p->state == WD_PVM_STUCK ? p->stuck : NULL;
}

bool wd_pvm_running(const wd_pvm *p)
{
    return p->state == WD_PVM_EVAL && p->stage == WD_STAGE_RUNNING;
}

uint64_t wd_pvm_step_start(const wd_pvm *p)
{
    return p->step_start;
}

uint64_t wd_pvm_ticks(const wd_pvm *p)
{
    return p->thread.ticks;
}

uint32_t wd_pvm_level(const wd_pvm *p)
{
    return p->levels;
}

wd_durable *wd_pvm_durable(wd_pvm *p)
{
    return p->durable;
}

const wd_pvm_config *wd_pvm_get_config(const wd_pvm *p)
{
    return &p->cfg;
}

const wd_run_report *wd_pvm_runs(const wd_pvm *p, uint32_t *count)
{
    *count = p->runs.count;
    return p->runs.data;
}

const wd_msg *wd_pvm_outbox(const wd_pvm *p, uint32_t level, uint32_t *count)
{
    *count = 0;
    if (p->levels == 0 || level >= p->levels)
        return NULL;
    if (level == p->levels - 1) { /* the current level: still in the host env */
        *count = p->env.outbox_count;
        return p->env.outbox;
    }
    if (level >= p->outbox_cap)
        return NULL;
    *count = p->outboxes[level].count;
    return p->outboxes[level].msgs;
}

const wd_module *wd_pvm_module(const wd_pvm *p)
{
    return p->module;
}
