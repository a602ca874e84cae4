/* eval.c: threads and invocations: the API of eval/eval.h around the loop in interp.c. */
#include "eval/eval.h"

#include "eval/interp.h"

#include <string.h>

wd_status wd_thread_init(wd_thread *t, wd_ctx *ctx, size_t stack_slots, uint32_t max_frames,
                         const wd_costs *costs, wd_error *err)
{
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->costs = costs;
    t->tick_limit = UINT64_MAX;
    t->state = WD_THREAD_IDLE;
    if (stack_slots > SIZE_MAX / sizeof(wd_val))
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    /* Not zeroed: every slot is written before it is read (arguments are copied, declared
     * locals zeroed at entry, and validation orders the operand stack), and a large stack
     * then costs only the pages a program touches. */
    t->stack = wd_alloc(ctx, stack_slots * sizeof(wd_val));
    t->frames = wd_alloc(ctx, (size_t)max_frames * sizeof(wd_frame));
    t->trap_frames = wd_alloc(ctx, (size_t)max_frames * sizeof(wd_frame));
    t->eval_private = wd_calloc(ctx, 1, sizeof(wd_eval_state));
    if (t->stack == NULL || t->frames == NULL || t->trap_frames == NULL ||
        t->eval_private == NULL) {
        wd_thread_fini(t);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    t->stack_slots = stack_slots;
    t->max_frames = max_frames;
    return WD_OK;
}

void wd_thread_fini(wd_thread *t)
{
    wd_free(t->ctx, t->stack);
    wd_free(t->ctx, t->frames);
    wd_free(t->ctx, t->trap_frames);
    wd_free(t->ctx, t->eval_private);
    t->stack = NULL;
    t->frames = NULL;
    t->trap_frames = NULL;
    t->trap_frame_count = 0;
    t->eval_private = NULL;
    t->stack_slots = 0;
    t->frame_count = 0;
    t->state = WD_THREAD_IDLE;
}

static wd_status busy(const wd_thread *t, wd_error *err)
{
    const wd_eval_state *es = t->eval_private;
    if (es->running)
        return wd_fail(err, WD_ERR_USAGE, 0, "the thread is running (re-entrant invocation)");
    return wd_fail(err, WD_ERR_USAGE, 0, "the thread has a suspended invocation");
}

static wd_status exhausted(const wd_func *f, wd_error *err)
{
    bool fresh = err->status == WD_OK;
    wd_fail(err, WD_EXHAUSTED, 0, "call stack exhausted");
    if (fresh)
        err->func_idx = f->code != NULL ? f->code->func_idx : UINT32_MAX;
    return WD_EXHAUSTED;
}

/* The hooks hear an invocation's entry, where the reference profiler opens its node: before
 * the ticks the caller charged for it (t->entry_open). */
static void hook_entry(wd_thread *t, const wd_func *f)
{
    if (t->hooks != NULL && t->hooks->call != NULL)
        t->hooks->call(t->hooks->ud, t->ticks - WD_MIN(t->entry_open, t->ticks), f,
                       WD_CALL_ENTRY);
}

/* The invocation of a host function on its own: no frame, the results left in place. */
static wd_status invoke_host(wd_thread *t, wd_func *f, wd_error *err)
{
    uint64_t end = WD_MAX(t->tick_limit, t->ticks);
    t->state = WD_THREAD_PAUSED;
    hook_entry(t, f);
    bool paid;
    wd_status st = wd_interp_call_host(t, f, t->stack, end, &paid, err);
    if (st != WD_OK) {
        t->state = WD_THREAD_IDLE;
        return st;
    }
    if (!paid)
        return WD_OUT_OF_TICKS;
    t->state = WD_THREAD_IDLE;
    return WD_OK;
}

wd_status wd_eval_invoke(wd_thread *t, wd_func *f, const wd_val *args, wd_error *err)
{
    wd_error dummy;
    if (err == NULL) {
        wd_error_clear(&dummy);
        err = &dummy;
    }
    wd_eval_state *es = t->eval_private;
    if (es->running || t->state != WD_THREAD_IDLE)
        return busy(t, err);
    const wd_functype *ft = f->type;
    uint32_t params = wd_eval_type_slots(ft->params, ft->param_count);
    uint32_t results = wd_eval_type_slots(ft->results, ft->result_count);
    const wd_code *code = f->code;
    size_t need = code != NULL ? code->max_slots : WD_MAX(params, results);
    t->entry_type = ft;
    t->frame_count = 0;
    es->debt = 0;
    es->debt_func = NULL;
    if (need > t->stack_slots || (code != NULL && t->max_frames == 0))
        return exhausted(f, err);
    if (params != 0)
        memmove(t->stack, args, params * sizeof *args);
    es->running = true;
    wd_status st;
    if (code == NULL) {
        st = invoke_host(t, f, err);
    } else {
        for (uint32_t k = code->param_slots; k < code->local_slots; k++)
            t->stack[k].u64 = 0;
        t->frames[0] = (wd_frame){.func = f, .ip = code->insns, .fp = t->stack, .base = code->insns};
        t->frame_count = 1;
        t->state = WD_THREAD_PAUSED;
        hook_entry(t, f);
        st = wd_interp_run(t, err);
    }
    es->running = false;
    return st;
}

wd_status wd_eval_resume(wd_thread *t, wd_error *err)
{
    wd_error dummy;
    if (err == NULL) {
        wd_error_clear(&dummy);
        err = &dummy;
    }
    wd_eval_state *es = t->eval_private;
    if (es->running)
        return busy(t, err);
    if (t->state != WD_THREAD_PAUSED)
        return wd_fail(err, WD_ERR_USAGE, 0, "no suspended invocation to resume");
    es->running = true;
    wd_status st = wd_interp_run(t, err);
    es->running = false;
    return st;
}

void wd_eval_abort(wd_thread *t)
{
    wd_eval_state *es = t->eval_private;
    if (es->running || t->state != WD_THREAD_PAUSED)
        return;
    /* Listeners hear the end of every open call, as on a trap, so their stacks balance. */
    es->debt = 0;
    if (es->debt_func != NULL) {
        const wd_func *f = es->debt_func;
        es->debt_func = NULL;
        if (t->hooks != NULL && t->hooks->ret != NULL)
            t->hooks->ret(t->hooks->ud, t->ticks, f);
    }
    wd_interp_unwind(t);
}

const wd_val *wd_eval_results(const wd_thread *t)
{
    return t->stack;
}

/* Ticks charged by a host function are owed until it returns, then paid up to the limit
 * (interp.c, wd_interp_pay_debt). Outside a host call they are added directly. */
void wd_eval_charge(wd_thread *t, uint64_t ticks)
{
    wd_eval_state *es = t->eval_private;
    if (es->in_host)
        es->debt = es->debt > UINT64_MAX - ticks ? UINT64_MAX : es->debt + ticks;
    else
        t->ticks = t->ticks > UINT64_MAX - ticks ? UINT64_MAX : t->ticks + ticks;
}

wd_memory *wd_eval_caller_memory(wd_thread *t)
{
    const wd_eval_state *es = t->eval_private;
    if (!es->in_host || t->frame_count == 0)
        return NULL;
    return t->frames[t->frame_count - 1].func->inst->memory;
}
