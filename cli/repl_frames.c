/* repl_frames.c: the REPL's view of a paused kernel_run: backtraces (also of a trap, from
 * the frames recorded as the trap unwound them), frame selection, locals with their types
 * and names, the frame's operand slots, the instance's globals. Reads only. */
#include "cli/repl.h"

#include <stdio.h>
#include <string.h>


static bool paused(const wd_repl *r)
{
    return r->t->state == WD_THREAD_PAUSED && r->t->frame_count > 0 &&
           wd_pvm_get_state(r->s.pvm) == WD_PVM_EVAL;
}

const char *wd_repl_func_name(const wd_module *m, uint32_t idx, char *buf, size_t size)
{
    const char *name = wd_module_func_name(m, idx, buf, size);
    if (name != buf)
        return name;
    for (uint32_t i = 0; i < m->export_count; i++)
        if (m->exports[i].kind == WD_EXTERN_FUNC && m->exports[i].idx == idx)
            return m->exports[i].name;
    return name;
}

wd_instance *wd_repl_instance(wd_repl *r)
{
    if (paused(r))
        return r->t->frames[r->t->frame_count - 1].func->inst;
    if (r->inst != NULL && r->inst_runs == wd_repl_run_count(r) &&
        wd_pvm_memory(r->s.pvm) == r->inst->memory)
        return r->inst;
    return NULL;
}

/* `name (func[i]) at 0xOFF (file:line)`, or for a host function `module.name`. */
static void describe(wd_repl *r, const wd_snapshot *s, uint32_t i, char *buf, size_t size)
{
    wd_snapshot_entry e;
    wd_snapshot_entry_get(s, i, wd_srcloc_lookup, &r->loc, &e);
    if (e.kind == WD_FRAME_HOST || (s->frames[i].func != NULL && s->frames[i].func->code == NULL)) {
        snprintf(buf, size, "%s (host function)", e.func_name);
        return;
    }
    char idx[32], buf2[48];
    snprintf(idx, sizeof idx, "func[%u]", e.func_idx);
    if (strcmp(e.func_name, idx) == 0 && s->frames[i].func != NULL)
        e.func_name = wd_repl_func_name(s->frames[i].func->inst->module, e.func_idx, buf2,
                                        sizeof buf2);
    int n = strcmp(e.func_name, idx) == 0
                ? snprintf(buf, size, "%s at 0x%x", idx, e.offset)
                : snprintf(buf, size, "%.120s (%s) at 0x%x", e.func_name, idx, e.offset);
    if (e.file != NULL && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s:%u)", e.file, e.line);
}

/* The frame of a paused thread that is i-th from the top, as a one-frame snapshot. */
static wd_snap_frame snap_of(const wd_thread *t, uint32_t i)
{
    uint32_t k = t->frame_count - 1 - i;
    const wd_frame *fr = &t->frames[k];
    const wd_code *code = fr->func->code;
    const wd_insn *at = i > 0 && fr->ip != NULL ? fr->ip - 1 : fr->ip;
    uintptr_t lo = (uintptr_t)code->insns, p = (uintptr_t)at;
    size_t idx = p >= lo && p < lo + code->insn_count * sizeof *at ? (p - lo) / sizeof *at : 0;
    uint32_t offset = code->insn_count ? code->offsets[idx] : 0;
    return (wd_snap_frame){fr->func, code->func_idx, offset,
                           k == 0 ? WD_FRAME_ENTRY : WD_FRAME_WASM};
}

bool wd_repl_where(wd_repl *r, char *buf, size_t size)
{
    if (!paused(r))
        return false;
    wd_snap_frame f = snap_of(r->t, 0);
    wd_snapshot s = {&f, 1, r->t->ticks};
    describe(r, &s, 0, buf, size);
    return true;
}

uint64_t wd_repl_copy_split(wd_repl *r, char *buf, size_t size)
{
    if (!paused(r))
        return UINT64_MAX;
    const wd_frame *fr = &r->t->frames[r->t->frame_count - 1];
    const wd_code *code = fr->func->code;
    const wd_insn *ip = fr->ip;
    if (ip == NULL || ip < code->insns || ip + 1 >= code->insns + code->insn_count ||
        !wd_op_is_copy(ip->op))
        return UINT64_MAX;
    uint32_t i = (uint32_t)(ip - code->insns);
    wd_snap_frame f = snap_of(r->t, 0);
    f.offset = code->offsets[i + 1]; /* the DATA's: the store's */
    wd_snapshot s = {&f, 1, r->t->ticks};
    describe(r, &s, 0, buf, size);
    return code->costs[i] - ip[1].a;
}

/* The frames a trap unwound, while its kernel_run's instance is still there. */
static bool trap_frames(wd_repl *r, const char **reason)
{
    wd_pvm *p = r->s.pvm;
    const wd_run_report *cur = wd_pvm_current_run(p);
    if (r->unwound.count == 0 || r->t->state != WD_THREAD_IDLE ||
        r->run_seq != wd_repl_run_count(r))
        return false;
    if (cur != NULL && wd_repl_finished(r) && cur->outcome != WD_RUN_OK) {
        *reason = cur->reason;
        return true;
    }
    if (wd_pvm_get_state(p) == WD_PVM_STUCK) {
        *reason = wd_pvm_stuck_reason(p);
        return true;
    }
    return false;
}

static void no_stack(wd_repl *r)
{
    char buf[320];
    const char *st = wd_pvm_internal_status(r->s.pvm, buf, sizeof buf);
    if (strcmp(st, "Eval") == 0)
        printf("No stack: kernel_run has not started yet (its first instruction is next).\n");
    else
        printf("No stack: kernel_run is not paused (internal status: %s).\n", st);
}

void wd_repl_bt(wd_repl *r, int argc, char **argv)
{
    uint64_t limit = 100;
    bool all = argc == 2 && strcmp(argv[1], "all") == 0;
    if (argc == 2 && !all && (!wd_repl_parse_u64(argv[1], UINT32_MAX, &limit) || limit == 0)) {
        wd_repl_error("Error: expected `bt`, `bt <n>` or `bt all`, got `bt %.80s`", argv[1]);
        return;
    }
    wd_snapshot snap = {0};
    const char *reason = NULL;
    bool owned = false;
    if (paused(r)) {
        wd_error err;
        wd_error_clear(&err);
        if (wd_snapshot_take(&r->s.ctx, r->t, &snap, &err) != WD_OK) {
            wd_repl_error("Error: %s", err.msg);
            return;
        }
        owned = true;
    } else if (trap_frames(r, &reason)) {
        snap = (wd_snapshot){r->unwound.data, r->unwound.count, r->unwound_ticks};
        printf("kernel_run ended (%s); the stack when it did:\n", reason);
    } else {
        no_stack(r);
        return;
    }
    uint32_t shown = all || snap.count <= limit ? snap.count : (uint32_t)limit, same = 0;
    char line[512], prev[512] = "";
    for (uint32_t i = 0; i <= shown; i++) {
        if (i < shown)
            describe(r, &snap, i, line, sizeof line);
        if (i < shown && i > 0 && strcmp(line, prev) == 0) {
            same++; /* a deep recursion: runs of one frame are told once */
            continue;
        }
        if (same > 0)
            printf("     (the frame above %u more time%s: #%u to #%u)\n", same,
                   same == 1 ? "" : "s", i - same, i - 1);
        same = 0;
        if (i < shown) {
            printf("#%-3u %s\n", i, line);
            memcpy(prev, line, sizeof prev);
        }
    }
    if (shown < snap.count)
        printf("(%u more frames: `bt all` shows them)\n", snap.count - shown);
    if (owned)
        wd_snapshot_free(&r->s.ctx, &snap);
}

static bool need_paused(wd_repl *r)
{
    if (paused(r))
        return true;
    const char *reason;
    if (trap_frames(r, &reason))
        printf("No frame: kernel_run has ended (%s), its frames are gone (`bt` shows where it "
               "was).\n",
               reason);
    else
        no_stack(r);
    return false;
}

void wd_repl_frame(wd_repl *r, int argc, char **argv)
{
    if (!need_paused(r))
        return;
    uint64_t n = r->frame;
    if (argc == 2 && (!wd_repl_parse_u64(argv[1], UINT32_MAX, &n) || n >= r->t->frame_count)) {
        wd_repl_error("Error: no frame %.80s (frames 0 to %u)", argv[1], r->t->frame_count - 1);
        return;
    }
    r->frame = (uint32_t)n;
    wd_snap_frame f = snap_of(r->t, r->frame);
    wd_snapshot s = {&f, 1, r->t->ticks};
    char line[512];
    describe(r, &s, 0, line, sizeof line);
    printf("#%-3u %s\n", r->frame, line);
}

/* A value of type t in slots v[0] (and v[1] for a v128). */
static void print_typed(uint8_t t, const wd_val *v)
{
    switch (t) {
    case WD_I32:
        printf("%d (0x%x)", v->i32, v->u32);
        break;
    case WD_I64:
        printf("%lld (0x%llx)", (long long)v->i64, (unsigned long long)v->u64);
        break;
    case WD_F32:
        printf("%g", (double)v->f32);
        break;
    case WD_F64:
        printf("%g", v->f64);
        break;
    case WD_V128:
        printf("0x%016llx%016llx", (unsigned long long)v[1].u64, (unsigned long long)v[0].u64);
        break;
    default: /* references: 0 is null */
        printf("%s", v->u64 == 0 ? "null" : "(non-null reference)");
        break;
    }
}

/* The k-th frame of the thread from the bottom for the selected frame. */
static const wd_frame *selected(wd_repl *r)
{
    if (r->frame >= r->t->frame_count)
        r->frame = 0;
    return &r->t->frames[r->t->frame_count - 1 - r->frame];
}

void wd_repl_locals(wd_repl *r)
{
    if (!need_paused(r))
        return;
    const wd_frame *fr = selected(r);
    const wd_func *f = fr->func;
    const wd_module *m = f->inst->module;
    uint32_t idx = f->code->func_idx;
    const wd_funcdef *def = idx < m->func_count ? &m->funcs[idx] : NULL;
    uint32_t params = f->type->param_count, locals = def != NULL ? def->local_count : 0;
    char buf[48];
    printf("Frame %u, %s: %u param%s, %u local%s\n", r->frame,
           wd_repl_func_name(m, idx, buf, sizeof buf), params, params == 1 ? "" : "s", locals,
           locals == 1 ? "" : "s");
    uint32_t slot = 0, group = 0, left = 0; /* the group of local i - params, left in it */
    for (uint32_t i = 0; i < params + locals; i++) {
        if (i >= params && left == 0) {
            while (def->local_decls[group].count == 0)
                group++;
            left = def->local_decls[group++].count;
        }
        uint8_t t = i < params ? f->type->params[i] : def->local_decls[group - 1].type;
        left -= i >= params;
        if (slot + (t == WD_V128 ? 2u : 1u) > f->code->local_slots)
            break;
        printf("  %s %u", i < params ? "param" : "local", i);
        const char *name = wd_module_local_name(m, idx, i);
        if (name != NULL)
            printf(" %s", name);
        printf(": %s = ", wd_valtype_name(t));
        print_typed(t, &fr->fp[slot]);
        printf("\n");
        slot += t == WD_V128 ? 2 : 1;
    }
}

#define MAX_SLOTS 256u

void wd_repl_stack(wd_repl *r)
{
    if (!need_paused(r))
        return;
    const wd_frame *fr = selected(r);
    const wd_code *code = fr->func->code;
    uint32_t lo = code->local_slots, hi = code->max_slots;
    uint32_t k = r->t->frame_count - 1 - r->frame;
    if (k + 1 < r->t->frame_count) {
        /* a caller: its operand stack ends where its callee's arguments begin */
        ptrdiff_t d = r->t->frames[k + 1].fp - fr->fp;
        hi = d >= lo && d <= (ptrdiff_t)code->max_slots ? (uint32_t)d : lo;
    }
    printf("Frame %u operand slots %u..%u (the frame's slots above its %u local slot%s; the "
           "live height is not tracked: the top ones may hold stale values)%s\n",
           r->frame, lo, hi, lo, lo == 1 ? "" : "s", hi == lo ? ": none" : ":");
    for (uint32_t i = lo; i < hi && i < lo + MAX_SLOTS; i++)
        printf("  [%u] 0x%016llx %lld\n", i, (unsigned long long)fr->fp[i].u64,
               (long long)fr->fp[i].i64);
    if (hi > lo + MAX_SLOTS)
        printf("  (%u more slots)\n", hi - lo - MAX_SLOTS);
}

void wd_repl_globals(wd_repl *r)
{
    wd_instance *inst = wd_repl_instance(r);
    if (inst == NULL && wd_pvm_memory(r->s.pvm) != NULL) {
        printf("No instance yet: globals are shown once kernel_run has started (`step instr`).\n");
        return;
    }
    if (inst == NULL) {
        char buf[320];
        printf("No instance: globals exist while a kernel_run runs or has just ended "
               "(internal status: %s).\n",
               wd_pvm_internal_status(r->s.pvm, buf, sizeof buf));
        return;
    }
    const wd_module *m = inst->module;
    printf("Globals: %u\n", m->global_count);
    for (uint32_t i = 0; i < m->global_count; i++) {
        const wd_global *g = inst->globals[i];
        printf("  global[%u] %s%s = ", i, g->type.mut ? "mut " : "",
               wd_valtype_name(g->type.type));
        print_typed(g->type.type, g->val);
        for (uint32_t e = 0; e < m->export_count; e++)
            if (m->exports[e].kind == WD_EXTERN_GLOBAL && m->exports[e].idx == i)
                printf(" (export %s)", m->exports[e].name);
        printf("\n");
    }
}
