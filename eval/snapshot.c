/* snapshot.c: stack snapshots. Frames are read, never written: a caller's frame holds its
 * return address (the instruction after its CALL), the top frame the instruction it runs
 * next (interp.c keeps both synced whenever hooks run or the thread stops). */
#include "eval/snapshot.h"

#include <stdio.h>
#include <string.h>

#include "eval/interp.h"

static uint32_t offset_at(const wd_code *code, const wd_insn *ip)
{
    if (code == NULL || code->insn_count == 0)
        return 0;
    size_t i = ip != NULL && ip >= code->insns ? (size_t)(ip - code->insns) : 0;
    if (i >= code->insn_count)
        i = code->insn_count - 1;
    return code->offsets[i];
}

/* The host function the top frame's CALL or CALL_INDIRECT (just before `ip`) called. */
static const wd_func *host_callee(const wd_frame *fr)
{
    const wd_code *code = fr->func->code;
    if (code == NULL || fr->ip == NULL || fr->ip <= code->insns ||
        fr->ip > code->insns + code->insn_count)
        return NULL;
    const wd_insn *call = fr->ip - 1;
    const wd_instance *inst = fr->func->inst;
    if (call->op == WD_OP_CALL)
        return call->a < inst->module->func_count ? inst->funcs[call->a] : NULL;
    if (call->op == WD_OP_CALL_INDIRECT && call->a < inst->module->type_count &&
        call->c < inst->module->table_count) {
        uint32_t i = fr->fp[call->b + call->k].u32;
        const wd_table *tab = inst->tables[call->c];
        if (i < tab->size && tab->elems[i] != 0)
            return (const wd_func *)(uintptr_t)tab->elems[i];
    }
    return NULL;
}

wd_status wd_snapshot_take(wd_ctx *ctx, const wd_thread *t, wd_snapshot *out, wd_error *err)
{
    memset(out, 0, sizeof *out);
    out->ticks = t->ticks;
    const wd_eval_state *es = t->eval_private;
    uint32_t n = t->frame_count;
    bool host = es != NULL && (es->in_host || es->debt_func != NULL);
    if (n == 0 && !host)
        return WD_OK;
    out->frames = wd_calloc(ctx, (size_t)n + 1, sizeof *out->frames);
    if (out->frames == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (host) {
        const wd_func *f = es->debt_func;
        if (f == NULL && n > 0)
            f = host_callee(&t->frames[n - 1]);
        out->frames[out->count++] =
            (wd_snap_frame){f, UINT32_MAX, 0, n == 0 ? WD_FRAME_ENTRY : WD_FRAME_HOST};
    }
    for (uint32_t k = n; k-- > 0;) {
        const wd_frame *fr = &t->frames[k];
        const wd_code *code = fr->func->code;
        /* The top frame runs fr->ip next, unless a host function it called is running:
         * then, like every caller, it waits on the call before its return address. */
        bool waits = k + 1 < n || host;
        const wd_insn *at = waits && fr->ip != NULL ? fr->ip - 1 : fr->ip;
        out->frames[out->count++] =
            (wd_snap_frame){fr->func, code != NULL ? code->func_idx : fr->func->idx,
                            offset_at(code, at), k == 0 ? WD_FRAME_ENTRY : WD_FRAME_WASM};
    }
    return WD_OK;
}

void wd_snapshot_free(wd_ctx *ctx, wd_snapshot *s)
{
    wd_free(ctx, s->frames);
    s->frames = NULL;
    s->count = 0;
}

void wd_snapshot_entry_get(const wd_snapshot *s, uint32_t i, wd_srcloc_fn loc, void *loc_ud,
                           wd_snapshot_entry *out)
{
    memset(out, 0, sizeof *out);
    const wd_snap_frame *fr = &s->frames[i];
    out->kind = fr->kind;
    out->func_idx = fr->func_idx;
    out->offset = fr->offset;
    out->module_name = "";
    const wd_func *f = fr->func;
    if (f == NULL) {
        out->func_name = "<host function>";
        return;
    }
    if (f->code == NULL) { /* a host function */
        snprintf(out->buf, sizeof out->buf, "%s.%s", f->host_module ? f->host_module : "?",
                 f->host_name ? f->host_name : "?");
        out->func_name = out->buf;
        out->module_name = f->host_module ? f->host_module : "";
        return;
    }
    const wd_module *m = f->inst->module;
    out->func_name = wd_module_func_name(m, fr->func_idx, out->buf, sizeof out->buf);
    if (m->names.module != NULL)
        out->module_name = m->names.module;
    if (loc != NULL && !loc(loc_ud, m, fr->offset, &out->file, &out->line, &out->column)) {
        out->file = NULL;
        out->line = out->column = 0;
    }
}
