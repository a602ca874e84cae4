/* interp.c: the interpreter loop over decode/code.h's internal code.
 *
 * State. ip (the instruction running), fp (the frame's slot 0), base (the function's first
 * instruction, for branch targets), inst, the memory base and size, and `remaining` (the
 * tick budget left: tick_limit - ticks) live in C locals; SAVE() writes them back to the
 * thread before anything that can observe them (hooks, host functions, traps, stops).
 * Frames live on t->frames: a caller's frame holds its return address (the instruction
 * after its CALL, also while a host function it called runs); the top frame's ip is written
 * when the thread stops, and is the instruction a resume runs first.
 *
 * Hooks: `call` fires once the callee's frame is pushed, at the tick where the reference
 * profiler opens its node (the CALL charged but for costs->call_open), `ret`
 * while the ending frame is still on the stack. A host function has no frame; its `ret`
 * fires once the ticks it charged are paid (see wd_eval_state.debt).
 *
 * Metering (decode/code.h "Metering", DESIGN.md "The invariant"). Two modes share one copy
 * of the opcode bodies:
 *   fast: a METER charges its whole block at once. Invariant: the costs of the
 *     instructions from ip to the next METER are already charged.
 *   slow: nothing is prepaid; each instruction is charged its own costs[i] just before it
 *     runs, if the budget holds it (else the thread stops there with WD_OUT_OF_TICKS, so a
 *     resume runs it). A METER met in slow mode goes back to fast when its whole block
 *     fits and no stepping or pending request stands.
 * With computed goto the mode is the dispatch table: the slow table sends every opcode
 * through the per-instruction check first. The fast path thus costs nothing extra per
 * instruction. Every stop (limit, step, pending request, breakpoint) happens in slow mode,
 * so t->ticks is then exactly the sum of the costs of what ran. A trap in fast mode refunds
 * the prepaid costs of the instructions after it; a dynamic cost (bulk bytes, pages grown)
 * that does not fit refunds the rest of the block, the instruction's own cost included,
 * and reruns the instruction in slow mode, which charges it exactly or stops before it. */
#include "eval/interp.h"

#include "base/clock.h"
#include "eval/numeric.h"
#include "link/link_private.h"

#include <string.h>

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "wasmdbg needs a little-endian host: memory and slots are read in place");
#endif

uint32_t wd_eval_type_slots(const uint8_t *types, uint32_t count)
{
    uint32_t n = count;
    for (uint32_t i = 0; i < count; i++)
        n += types[i] == WD_V128;
    return n;
}

/* Sum of costs[j] for `from` <= j < the next METER: what fast mode prepaid from `from` on. */
static uint64_t block_rest(const wd_code *code, uint32_t from)
{
    uint64_t sum = 0;
    for (uint32_t j = from; j < code->insn_count && code->insns[j].op != WD_OP_METER; j++)
        sum += code->costs[j];
    return sum;
}

/* Appends the record (head, ticks, clock) to the hooks' records when they have room
 * (eval/hooks.h, wd_hook_records); false when the hook must hear the event instead. */
WD_INLINE bool record(const wd_hooks *h, uint64_t head, uint64_t ticks)
{
    wd_hook_records *r = h->records;
    if (r == NULL || r->end - r->w < 3)
        return false;
    uint64_t *w = r->w;
    w[0] = head;
    w[1] = ticks;
    w[2] = h->records_timed ? wd_clock_fast() - h->records_c0 : 0;
    r->w = w + 3;
    return true;
}

/* The hooks hear a call (kind: WD_CALL_*), or the records take it: a call by `call` or
 * `call_indirect` of a function the listener tagged for that kind. */
WD_NOINLINE static void hook_call(wd_thread *t, const wd_func *f, wd_call_kind kind)
{
    const wd_hooks *h = t->hooks;
    if (h == NULL)
        return;
    /* where the reference profiler opens the callee's node: before the call instruction's
     * last steps (base/costs.h call_open) */
    uint64_t at = t->ticks - (t->costs != NULL ? WD_MIN(t->costs->call_open, t->ticks) : 0);
    if (kind == WD_CALL_DIRECT || kind == WD_CALL_INDIRECT) {
        uint32_t tag =
            f->hook_gen == h->records_gen ? f->hook_tag[kind - WD_CALL_DIRECT] : UINT32_MAX;
        if (tag != UINT32_MAX && record(h, WD_HOOK_REC_CALL | (uint64_t)tag << 8, at))
            return;
    }
    if (h->call != NULL)
        h->call(h->ud, at, f, kind);
}

/* The hooks hear a return (RETURN offers it to the records first). */
WD_NOINLINE static void hook_ret(wd_thread *t, const wd_func *f)
{
    const wd_hooks *h = t->hooks;
    if (h != NULL && h->ret != NULL)
        h->ret(h->ud, t->ticks, f);
}

WD_NOINLINE static void hook_big_step(wd_thread *t, uint64_t ticks, uint64_t cost, uint32_t op,
                                      uint64_t operand)
{
    const wd_hooks *h = t->hooks;
    if (h->big_step != NULL)
        h->big_step(h->ud, ticks, cost, wd_op_names[op], operand);
}

/* Keeps the call stack of a failing invocation for backtraces (eval.h, trap_frames). */
static void keep_trap_stack(wd_thread *t)
{
    uint32_t n = t->trap_frames != NULL ? t->frame_count : 0;
    if (n != 0)
        memcpy(t->trap_frames, t->frames, n * sizeof *t->frames);
    t->trap_frame_count = n;
}

void wd_interp_unwind(wd_thread *t)
{
    while (t->frame_count > 0) {
        hook_ret(t, t->frames[t->frame_count - 1].func);
        t->frame_count--;
    }
    t->state = WD_THREAD_IDLE;
}

bool wd_interp_pay_debt(wd_thread *t, uint64_t end)
{
    wd_eval_state *es = t->eval_private;
    uint64_t room = end - t->ticks;
    if (es->debt > room) {
        t->ticks = end;
        es->debt -= room;
        return false;
    }
    t->ticks += es->debt;
    es->debt = 0;
    if (es->debt_func != NULL) {
        const wd_func *f = es->debt_func;
        es->debt_func = NULL;
        hook_ret(t, f);
    }
    return true;
}

wd_status wd_interp_call_host(wd_thread *t, wd_func *f, wd_val *args, uint64_t end, bool *paid,
                              wd_error *err)
{
    wd_eval_state *es = t->eval_private;
    es->in_host = true;
    if (t->costs != NULL)
        wd_eval_charge(t, t->costs->host_entry); /* the invoke's steps before h's countdown */
    wd_status st = f->host(t, f->host_ud, args, err);
    es->in_host = false;
    es->debt_func = f;
    *paid = wd_interp_pay_debt(t, end);
    if (st == WD_OK)
        return WD_OK;
    /* The invocation ends: what the host charged beyond the budget is dropped. */
    es->debt = 0;
    if (es->debt_func != NULL) {
        es->debt_func = NULL;
        hook_ret(t, f);
    }
    if (st == WD_OUT_OF_TICKS || st == WD_PAUSED) {
        st = WD_ERR_USAGE; /* a host function cannot suspend the thread */
        wd_fail(err, st, 0, "host function %s.%s returned a resumable status", f->host_module,
                f->host_name);
    }
    if (err->status == WD_OK)
        wd_fail(err, st, 0, "host function %s.%s failed", f->host_module, f->host_name);
    return st;
}

/* ---- long opcode bodies ---- */

typedef struct target {
    wd_func *f;
    wd_trap trap;
} target;

/* CALL_INDIRECT a=type b=first argument slot c=table: the callee, or the trap. */
WD_NOINLINE static target indirect_target(const wd_instance *inst, const wd_val *fp,
                                          const wd_insn *ip)
{
    const wd_functype *want = &inst->module->types[ip->a];
    const wd_table *tab = inst->tables[ip->c];
    uint32_t i = fp[ip->b + ip->k].u32;
    target r = {NULL, WD_TRAP_NONE};
    if (i >= tab->size)
        r.trap = WD_TRAP_UNDEFINED_ELEMENT;
    else if (tab->elems[i] == 0)
        r.trap = WD_TRAP_UNINITIALIZED_ELEMENT;
    else {
        r.f = (wd_func *)(uintptr_t)tab->elems[i];
        if (r.f->type != want && !wd_functype_equal(r.f->type, want))
            r.trap = WD_TRAP_INDIRECT_TYPE_MISMATCH;
    }
    return r;
}

/* Records trap `kind` at instruction `ip`. A missing table element is named by its index,
 * as the reference interpreter does ("uninitialized element 2"). */
WD_NOINLINE static void record_trap(wd_error *err, wd_trap kind, const wd_val *fp,
                                    const wd_insn *ip, uint32_t offset)
{
    if ((kind == WD_TRAP_UNDEFINED_ELEMENT || kind == WD_TRAP_UNINITIALIZED_ELEMENT) &&
        ip->op == WD_OP_CALL_INDIRECT && err->status == WD_OK) {
        uint32_t i = fp[ip->b + ip->k].u32;
        err->trap = kind;
        wd_fail(err, WD_TRAP, offset, "%s %u", wd_trap_message(kind), i);
        return;
    }
    wd_fail_trap(err, kind, offset);
}

static uint64_t elem_seg_count(const wd_instance *inst, uint32_t seg)
{
    return inst->elem_dropped[seg] ? 0 : inst->module->elems[seg].count;
}

WD_NOINLINE static void table_init(const wd_instance *inst, uint32_t seg, wd_table *tab, uint32_t d,
                                   uint32_t s, uint32_t n)
{
    const wd_constexpr *items = inst->module->elems[seg].items;
    for (uint32_t k = 0; k < n; k++) {
        wd_val v[2];
        wd_link_const_eval(inst, &items[s + k], v);
        tab->elems[d + k] = v[0].u64;
    }
}

WD_NOINLINE static void table_fill(wd_table *tab, uint32_t i, uint64_t ref, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        tab->elems[i + k] = ref;
}

/* A br_table entry's moves of the values it carries. */
WD_INLINE void br_table_moves(wd_val *fp, const wd_insn *e, uint32_t arity)
{
    if (arity == 1)
        fp[e->b] = fp[e->c];
    else if (arity > 1)
        memmove(fp + e->b, fp + e->c, arity * sizeof *fp);
}

/* ---- the loop ---- */

#define A      (ip->a)
#define B      (ip->b)
#define C      (ip->c)
#define U32(x) (fp[x].u32)
#define S32(x) (fp[x].i32)
#define U64(x) (fp[x].u64)
#define S64(x) (fp[x].i64)
#define F32(x) (fp[x].f32)
#define F64(x) (fp[x].f64)
/* Results fill the whole slot: an i32 or f32 is zero-extended. */
#define PUT32(v)  (fp[A].u64 = (uint32_t)(v))
#define PUT64(v)  (fp[A].u64 = (uint64_t)(v))
#define PUTF32(v) (fp[A].u64 = f32_bits(v))
#define PUTF64(v) (fp[A].u64 = f64_bits(v))

/* A COPY's load and store addresses (ops.def, COPY8..): plain, or sums modulo 2^32. */
#define COPY_SRC    ((uint64_t)U32(B) + C)
#define COPY_DST    ((uint64_t)U32(A) + ip[1].b)
#define COPY_SRC_RI ((uint64_t)(uint32_t)(U32(B) + C))
#define COPY_DST_RI ((uint64_t)(uint32_t)(U32(A) + ip[1].b))

/* The width of what a fused load (the *_RR and *_RI entries of ops.def) reads. */
static unsigned fused_load_width(uint32_t op)
{
    switch (op) {
    case WD_OP_I32_LOAD8_S_RR: case WD_OP_I32_LOAD8_U_RR:
    case WD_OP_I32_LOAD8_S_RI: case WD_OP_I32_LOAD8_U_RI:
        return 1;
    case WD_OP_I32_LOAD16_S_RR: case WD_OP_I32_LOAD16_U_RR:
    case WD_OP_I32_LOAD16_S_RI: case WD_OP_I32_LOAD16_U_RI:
        return 2;
    case WD_OP_I64_LOAD_RR: case WD_OP_I64_LOAD_RI:
        return 8;
    default:
        return 4;
    }
}

/* Whether the instruction at ip, one of wd_op_traps_with_result (or a COPY's load), traps
 * with the operands it has now, and how: the tests its handler makes before it writes its
 * result. */
static WD_NOINLINE bool traps_now(const wd_insn *ip, const wd_val *fp, uint64_t mem_size,
                                  wd_trap *out)
{
    uint64_t r, ea;
    unsigned width;
    wd_trap k = WD_TRAP_NONE;
    switch (ip->op) {
    case WD_OP_I32_DIV_S:
        k = S32(C) == 0 ? WD_TRAP_DIV_ZERO
            : S32(B) == INT32_MIN && S32(C) == -1 ? WD_TRAP_INT_OVERFLOW : WD_TRAP_NONE;
        break;
    case WD_OP_I64_DIV_S:
        k = S64(C) == 0 ? WD_TRAP_DIV_ZERO
            : S64(B) == INT64_MIN && S64(C) == -1 ? WD_TRAP_INT_OVERFLOW : WD_TRAP_NONE;
        break;
    case WD_OP_I32_DIV_U: case WD_OP_I32_REM_S: case WD_OP_I32_REM_U:
        k = U32(C) == 0 ? WD_TRAP_DIV_ZERO : WD_TRAP_NONE;
        break;
    case WD_OP_I64_DIV_U: case WD_OP_I64_REM_S: case WD_OP_I64_REM_U:
        k = U64(C) == 0 ? WD_TRAP_DIV_ZERO : WD_TRAP_NONE;
        break;
    case WD_OP_I32_TRUNC_F32_S: k = trunc_f32_s32(F32(B), &r); break;
    case WD_OP_I32_TRUNC_F32_U: k = trunc_f32_u32(F32(B), &r); break;
    case WD_OP_I32_TRUNC_F64_S: k = trunc_f64_s32(F64(B), &r); break;
    case WD_OP_I32_TRUNC_F64_U: k = trunc_f64_u32(F64(B), &r); break;
    case WD_OP_I64_TRUNC_F32_S: k = trunc_f32_s64(F32(B), &r); break;
    case WD_OP_I64_TRUNC_F32_U: k = trunc_f32_u64(F32(B), &r); break;
    case WD_OP_I64_TRUNC_F64_S: k = trunc_f64_s64(F64(B), &r); break;
    case WD_OP_I64_TRUNC_F64_U: k = trunc_f64_u64(F64(B), &r); break;
    case WD_OP_COPY8: case WD_OP_COPY16: case WD_OP_COPY32: case WD_OP_COPY64:
    case WD_OP_COPY8_RI: case WD_OP_COPY16_RI: case WD_OP_COPY32_RI: case WD_OP_COPY64_RI:
        /* its load */
        ea = ip->op >= WD_OP_COPY8_RI ? COPY_SRC_RI : COPY_SRC;
        k = ea + (1u << ((ip->op - WD_OP_COPY8) & 3)) > mem_size ? WD_TRAP_MEMORY_OOB
                                                                 : WD_TRAP_NONE;
        break;
    default:
        if (wd_op_info[ip->op].kind == WD_KIND_LOAD) {
            ea = (uint64_t)U32(B) + C;
            width = 1u << wd_op_info[ip->op].t2;
        } else {
            bool rr = ip->op <= WD_OP_I64_LOAD32_U_RR;
            ea = (uint32_t)(U32(B) + (rr ? U32(C) : C));
            width = fused_load_width(ip->op);
        }
        k = ea + width > mem_size ? WD_TRAP_MEMORY_OOB : WD_TRAP_NONE;
    }
    *out = k;
    return k != WD_TRAP_NONE;
}

/* In slow mode, an instruction that does not fit in the `remaining` ticks but traps with a
 * local.set folded into it, or a COPY whose load traps: the set (the store) never runs, so
 * the Octez PVM runs the instruction (the load) and traps, and so must wasmdbg, where the
 * period's last ticks allow that part alone (a trap in them would otherwise be
 * Too_many_ticks, a set's or store's cost too early). Its own cost (without the set's or
 * store's) in *cost, its trap in *trap. */
static bool traps_within(const wd_code *code, const wd_insn *ip, const wd_val *fp,
                         uint64_t mem_size, uint64_t remaining, uint64_t *cost, wd_trap *trap)
{
    uint32_t rest;
    if (wd_op_is_copy(ip->op))
        rest = ip[1].a;
    else if (wd_op_traps_with_result(ip->op) && ip->a < code->local_slots)
        rest = code->set_cost;
    else
        return false;
    *cost = code->costs[ip - code->insns] - rest;
    return *cost <= remaining && traps_now(ip, fp, mem_size, trap);
}

#if WD_USE_GOTO
#define JUMP()     goto *tbl[ip->op]
#define CASE(name) L_##name:
#define SET_SLOW() (t->slow = 1, tbl = slow_labels)
#define SET_FAST() (t->slow = 0, tbl = fast_labels)
#else
#define JUMP()     goto loop_top
#define CASE(name) case WD_OP_##name:
#define SET_SLOW() (t->slow = 1)
#define SET_FAST() (t->slow = 0)
#endif
#define NEXT()                                                                                     \
    do {                                                                                           \
        ip++;                                                                                      \
        JUMP();                                                                                    \
    } while (0)

/* Continues at `p`, the METER heading a basic block (every branch target and every
 * instruction after a conditional branch or a call is one). In fast mode the block is
 * charged here, saving the METER's own dispatch; in slow mode the METER runs as usual. */
#define GO_BLOCK(p)                                                                                \
    do {                                                                                           \
        ip = (p);                                                                                  \
        if (WD_UNLIKELY(remaining < ip->a || t->brake)) {                                          \
            if (t->slow)                                                                           \
                JUMP(); /* the METER runs as an instruction */                                     \
            SET_SLOW();                                                                            \
            goto meter_slow;                                                                       \
        }                                                                                          \
        remaining -= ip->a;                                                                        \
        ip++;                                                                                      \
        JUMP();                                                                                    \
    } while (0)

/* A taken branch to `p`, the METER heading its target, charging `edge` more (code.h,
 * "(edge)") and doing `moves` on the way: the edge's charge and the target block's in one
 * test; when both do not fit, the edge alone is tried as a dynamic cost (dyn_short, before
 * any move), then GO_BLOCK. TAKE is a conditional branch's. */
#define TAKE_EDGE(edge, p, moves)                                                                  \
    do {                                                                                           \
        const wd_insn *p_ = (p);                                                                   \
        uint64_t e_ = (edge), need_ = e_ + p_->a;                                                  \
        if (WD_UNLIKELY(remaining < need_ || t->brake)) {                                          \
            if (e_ > remaining)                                                                    \
                goto dyn_short;                                                                    \
            remaining -= e_;                                                                       \
            moves;                                                                                 \
            GO_BLOCK(p_);                                                                          \
        }                                                                                          \
        moves;                                                                                     \
        remaining -= need_;                                                                        \
        ip = p_ + 1;                                                                               \
        JUMP();                                                                                    \
    } while (0)
#define TAKE(p) TAKE_EDGE(ip->edge, p, (void)0)

#define SAVE(at)                                                                                   \
    do {                                                                                           \
        frame->ip = (at);                                                                          \
        t->ticks = END - remaining;                                                                \
        t->frame_count = (uint32_t)(frame - frames) + 1;                                           \
    } while (0)

#define RELOAD_MEM()                                                                               \
    do {                                                                                           \
        const wd_memory *m_ = inst->memory;                                                        \
        mem = m_ != NULL ? m_->data : NULL;                                                        \
        mem_size = m_ != NULL ? m_->size : 0;                                                      \
    } while (0)

#define TRAP(kind)                                                                                 \
    do {                                                                                           \
        trap = (kind);                                                                             \
        goto on_trap;                                                                              \
    } while (0)

/* A dynamic cost known once the instruction runs (after its bounds checks), for `n` bytes,
 * elements or pages. Listeners hear of it (hook big_step) only when hooks are set. */
#define CHARGE_DYN(x, n)                                                                           \
    do {                                                                                           \
        uint64_t dyn_ = (x);                                                                       \
        if (WD_UNLIKELY(dyn_ > remaining))                                                         \
            goto dyn_short;                                                                        \
        remaining -= dyn_;                                                                         \
        if (WD_UNLIKELY(hooks != NULL))                                                            \
            hook_big_step(t, END - remaining, dyn_, ip->op, (n));                                  \
    } while (0)
#define DYN(field) (costs != NULL ? (uint64_t)costs->field : 0)

#define UNOP(name, put, expr)                                                                      \
    CASE(name)                                                                                     \
    {                                                                                              \
        put(expr);                                                                                 \
        NEXT();                                                                                    \
    }
#define BINOP(name, put, expr) UNOP(name, put, expr)

/* The ten comparisons P_EQ.. P_GE_U (SUF: nothing, or _I for an immediate right operand) of
 * one operand type, each made by M(name, condition): U and S read the left operand
 * unsigned and signed, RU and RS the right one. M is CMP (the result, 0 or 1) or BRCMP
 * (compare and branch). */
#define CMPS(M, P, SUF, U, S, RU, RS)                                                              \
    M(P##_EQ##SUF, U(B) == (RU))                                                                   \
    M(P##_NE##SUF, U(B) != (RU))                                                                   \
    M(P##_LT_S##SUF, S(B) < (RS))                                                                  \
    M(P##_LT_U##SUF, U(B) < (RU))                                                                  \
    M(P##_GT_S##SUF, S(B) > (RS))                                                                  \
    M(P##_GT_U##SUF, U(B) > (RU))                                                                  \
    M(P##_LE_S##SUF, S(B) <= (RS))                                                                 \
    M(P##_LE_U##SUF, U(B) <= (RU))                                                                 \
    M(P##_GE_S##SUF, S(B) >= (RS))                                                                 \
    M(P##_GE_U##SUF, U(B) >= (RU))
#define CMP(name, cond) BINOP(name, PUT32, cond)

/* Integer division and remainder (numeric.h's `fn`): a zero divisor traps; so does INT_MIN
 * / -1, while INT_MIN % -1 is 0 (undefined in C, hence the test). DIV_U serves both unsigned
 * ones. */
#define DIV_S(name, S, put, min, fn)                                                               \
    CASE(name)                                                                                     \
    {                                                                                              \
        if (WD_UNLIKELY(S(C) == 0))                                                                \
            TRAP(WD_TRAP_DIV_ZERO);                                                                \
        if (WD_UNLIKELY(S(B) == (min) && S(C) == -1))                                              \
            TRAP(WD_TRAP_INT_OVERFLOW);                                                            \
        put(fn(S(B), S(C)));                                                                       \
        NEXT();                                                                                    \
    }
#define REM_S(name, S, put, fn)                                                                    \
    CASE(name)                                                                                     \
    {                                                                                              \
        if (WD_UNLIKELY(S(C) == 0))                                                                \
            TRAP(WD_TRAP_DIV_ZERO);                                                                \
        put(S(C) == -1 ? 0 : fn(S(B), S(C)));                                                      \
        NEXT();                                                                                    \
    }
#define DIV_U(name, U, put, fn)                                                                    \
    CASE(name)                                                                                     \
    {                                                                                              \
        if (WD_UNLIKELY(U(C) == 0))                                                                \
            TRAP(WD_TRAP_DIV_ZERO);                                                                \
        put(fn(U(B), U(C)));                                                                       \
        NEXT();                                                                                    \
    }

#define LOAD(name, width, T, put, conv) LOAD_AT(name, (uint64_t)U32(B) + C, width, T, put, conv)
#define LOAD_AT(name, ea, width, T, put, conv)                                                     \
    CASE(name)                                                                                     \
    {                                                                                              \
        uint64_t ea_ = (ea);                                                                       \
        if (WD_UNLIKELY(ea_ + (width) > mem_size))                                                 \
            TRAP(WD_TRAP_MEMORY_OOB);                                                              \
        T v_;                                                                                      \
        memcpy(&v_, mem + ea_, (width));                                                           \
        put(conv);                                                                                 \
        NEXT();                                                                                    \
    }

#define STORE(name, width, T, val) STORE_AT(name, (uint64_t)U32(A) + C, width, T, val)
#define STORE_AT(name, ea, width, T, val)                                                          \
    CASE(name)                                                                                     \
    {                                                                                              \
        uint64_t ea_ = (ea);                                                                       \
        if (WD_UNLIKELY(ea_ + (width) > mem_size))                                                 \
            TRAP(WD_TRAP_MEMORY_OOB);                                                              \
        T v_ = (T)(val);                                                                           \
        memcpy(mem + ea_, &v_, (width));                                                           \
        NEXT();                                                                                    \
    }

#define TRUNC(name, fn, src)                                                                       \
    CASE(name)                                                                                     \
    {                                                                                              \
        uint64_t r_;                                                                               \
        wd_trap k_ = fn(src, &r_);                                                                 \
        if (WD_UNLIKELY(k_ != WD_TRAP_NONE))                                                       \
            TRAP(k_);                                                                              \
        fp[A].u64 = r_;                                                                            \
        NEXT();                                                                                    \
    }

/* The call of `callee` with its frame at `nfp` (kind_: WD_CALL_*), from the instruction
 * at ip: pushes the frame and charges the entry METER, or goes to host_call (a host
 * function is heard as WD_CALL_HOST however it is called). Expanded in
 * each call instruction, so that callee and nfp stay in registers. The loop zeroing the
 * declared locals has an empty asm in it, lest the compiler make it a memset call. */
#define ENTER_CALL(kind_)                                                                          \
    do {                                                                                           \
        frame->ip = ip + 1; /* the return address */                                               \
        const wd_code *cc_ = callee->code;                                                         \
        if (WD_UNLIKELY(cc_ == NULL))                                                              \
            goto host_call;                                                                        \
        if (WD_UNLIKELY(frame + 1 == frame_limit || (size_t)(stack_end - nfp) < cc_->max_slots))  \
            goto exhausted;                                                                        \
        for (wd_val *z_ = nfp + cc_->param_slots, *e_ = nfp + cc_->local_slots; z_ < e_; z_++) {   \
            z_->u64 = 0;                                                                           \
            __asm__("" : "+r"(z_));                                                                \
        }                                                                                          \
        frame++;                                                                                   \
        frame->func = callee;                                                                      \
        frame->fp = nfp;                                                                           \
        base = cc_->insns;                                                                         \
        frame->base = base;                                                                        \
        fp = nfp;                                                                                  \
        if (callee->inst != inst) {                                                                \
            inst = callee->inst;                                                                   \
            RELOAD_MEM();                                                                          \
        }                                                                                          \
        if (WD_UNLIKELY(hooks != NULL)) {                                                          \
            SAVE(base);                                                                            \
            hook_call(t, callee, (kind_));                                                         \
        }                                                                                          \
        GO_BLOCK(base); /* the entry METER */                                                      \
    } while (0)

wd_status wd_interp_run(wd_thread *t, wd_error *err)
{
#if WD_USE_GOTO
#define LABEL_CTRL(name)  &&L_ILLEGAL
#define LABEL_UN(name)    &&L_##name
#define LABEL_BIN(name)   &&L_##name
#define LABEL_LOAD(name)  &&L_##name
#define LABEL_STORE(name) &&L_##name
#define LABEL_MISC(name)  &&L_##name
    static const void *const fast_labels[WD_OP_COUNT] = {
#define OP(name, prefix, code, text, kind, t1, t2) [WD_OP_##name] = LABEL_##kind(name),
#define IOP(name, text)                            [WD_OP_##name] = &&L_##name,
#include "decode/ops.def"
#undef OP
#undef IOP
    };
    static const void *const slow_labels[WD_OP_COUNT] = {
#define OP(name, prefix, code, text, kind, t1, t2) [WD_OP_##name] = &&L_SLOW,
#define IOP(name, text)                            [WD_OP_##name] = &&L_SLOW,
#include "decode/ops.def"
#undef OP
#undef IOP
    };
    const void *const *tbl;
#endif
    wd_eval_state *const es = t->eval_private;
    wd_frame *const frames = t->frames;
    wd_frame *const frame_limit = frames + t->max_frames;
    wd_val *const stack_end = t->stack + t->stack_slots;
    const wd_hooks *const hooks = t->hooks;
    const wd_costs *const costs = t->costs;

    uint64_t remaining = t->tick_limit > t->ticks ? t->tick_limit - t->ticks : 0;
    es->end = t->ticks + remaining;
/* Kept in the thread, not a local: it is only needed where the thread is synced. */
#define END (((wd_eval_state *)t->eval_private)->end)
    bool stepped = false; /* an instruction ran in slow mode in this call (single_step) */

    /* A host call that stopped at the limit with ticks still owed ends first. */
    if (es->debt_func != NULL) {
        if (!wd_interp_pay_debt(t, END))
            return WD_OUT_OF_TICKS;
        remaining = END - t->ticks;
        stepped = true;
    }
    if (t->frame_count == 0) { /* the invocation was of a host function: it is over */
        t->state = WD_THREAD_IDLE;
        return WD_OK;
    }

    wd_frame *frame = frames + t->frame_count - 1;
    const wd_insn *ip = frame->ip;
    wd_val *fp = frame->fp;
    const wd_insn *base = frame->func->code->insns;
    wd_instance *inst = frame->func->inst;
    uint8_t *mem;
    uint64_t mem_size;
    RELOAD_MEM();
    wd_trap trap;
    wd_func *callee;
    wd_val *nfp;

    /* Always start slow: a resume may land mid-block, where nothing is prepaid. */
    SET_SLOW();
    JUMP();

    /* The #if-shaped dispatch below confuses clang-format: it is laid out by hand. */
    // clang-format off
#if WD_USE_GOTO
L_SLOW:
#else
loop_top:
    if (WD_UNLIKELY(t->slow)) {
#endif
    if (t->single_step && stepped)
        goto stop_paused;
    if (ip->op == WD_OP_METER)
        goto meter_slow;
    if (ip->op == WD_OP_BREAK)
        goto stop_paused;
    {
        uint32_t c_ = frame->func->code->costs[ip - base];
        uint64_t own_;
        if (c_ > remaining) {
            if (!traps_within(frame->func->code, ip, fp, mem_size, remaining, &own_, &trap))
                goto stop_ticks;
            remaining -= own_;
            goto trapped;
        }
        remaining -= c_;
        stepped = true;
    }
#if WD_USE_GOTO
    goto *fast_labels[ip->op];
#else
    }
    switch (ip->op) {
#endif

    /* ---- control ---- */

    CASE(METER)
    {
        /* single_step needs no test here: a stepping thread never leaves the slow path */
        if (WD_UNLIKELY(remaining < A || t->pending)) {
            SET_SLOW();
            goto meter_slow;
        }
        remaining -= A;
        NEXT();
    }
    CASE(NOP_COST)
    {
        NEXT();
    }
    CASE(UNREACHABLE)
    {
        TRAP(WD_TRAP_UNREACHABLE);
    }
    CASE(JMP)
    {
        GO_BLOCK(base + A);
    }
    CASE(BR_IF_NZ)
    {
        if (U32(B) != 0)
            TAKE(base + A);
        GO_BLOCK(ip + 1);
    }
    CASE(BR_IF_Z)
    {
        if (U32(B) == 0)
            TAKE(base + A);
        GO_BLOCK(ip + 1);
    }
    CASE(BR_TABLE)
    {
        uint32_t i = U32(A), arity = C;
        if (i >= B)
            i = B - 1;
        const wd_insn *e = ip + 1 + i;
        TAKE_EDGE(e->edge, base + e->a, br_table_moves(fp, e, arity));
    }
    CASE(RETURN)
    {
        if (A != 0)
            for (uint32_t k = 0; k < B; k++)
                fp[k] = fp[A + k];
        if (WD_UNLIKELY(hooks != NULL) && !record(hooks, WD_HOOK_REC_RET, END - remaining)) {
            SAVE(ip);
            hook_ret(t, frame->func);
        }
        if (frame == frames)
            goto finished;
        frame--;
        fp = frame->fp;
        base = frame->base;
        if (WD_UNLIKELY(frame->func->inst != inst)) {
            /* within an instance, mem and mem_size follow memory.grow and host calls */
            inst = frame->func->inst;
            RELOAD_MEM();
        }
        GO_BLOCK(frame->ip); /* the METER after the call */
    }
    CASE(CALL)
    {
        callee = inst->funcs[A];
        nfp = fp + B;
        ENTER_CALL(WD_CALL_DIRECT);
    }
    CASE(CALL_INDIRECT)
    {
        /* the common case inline: an element of the very type named (types of one module
         * are distinct objects); indirect_target does the rest and names the traps */
        const wd_functype *want = &inst->module->types[A];
        const wd_table *tab = inst->tables[C];
        uint32_t i = U32(B + ip->k);
        callee = i < tab->size ? (wd_func *)(uintptr_t)tab->elems[i] : NULL;
        if (WD_UNLIKELY(callee == NULL || callee->type != want)) {
            target r = indirect_target(inst, fp, ip);
            if (WD_UNLIKELY(r.trap != WD_TRAP_NONE))
                TRAP(r.trap);
            callee = r.f;
        }
        nfp = fp + B;
        ENTER_CALL(WD_CALL_INDIRECT);
    }

    /* ---- moves and constants ---- */

    CASE(MOV)
    {
        fp[A] = fp[B];
        NEXT();
    }
    CASE(MOV2)
    {
        fp[A] = fp[B];
        fp[C] = fp[ip->k];
        NEXT();
    }
    CASE(MOVE_N)
    {
        memmove(fp + A, fp + B, (size_t)C * sizeof *fp);
        NEXT();
    }
    CASE(CONST32)
    {
        fp[A].u64 = B;
        NEXT();
    }
    CASE(CONST64)
    {
        fp[A].u64 = ip->bc;
        NEXT();
    }
    CASE(SELECT)
    {
        if (U32(C) == 0)
            fp[A] = fp[B];
        NEXT();
    }
    CASE(GLOBAL_GET)
    {
        const wd_global *g = inst->globals[B];
        fp[A] = g->val[0];
        if (WD_UNLIKELY(g->type.type == WD_V128))
            fp[A + 1] = g->val[1];
        NEXT();
    }
    CASE(GLOBAL_SET)
    {
        wd_global *g = inst->globals[B];
        g->val[0] = fp[A];
        if (WD_UNLIKELY(g->type.type == WD_V128))
            g->val[1] = fp[A + 1];
        NEXT();
    }

    /* ---- references and tables ---- */

    CASE(REF_NULL)
    {
        fp[A].u64 = 0;
        NEXT();
    }
    CASE(REF_IS_NULL)
    {
        PUT32(U64(B) == 0);
        NEXT();
    }
    CASE(REF_FUNC)
    {
        fp[A].u64 = (uint64_t)(uintptr_t)inst->funcs[B];
        NEXT();
    }
    CASE(TABLE_GET)
    {
        const wd_table *tab = inst->tables[C];
        uint32_t i = U32(B);
        if (WD_UNLIKELY(i >= tab->size))
            TRAP(WD_TRAP_TABLE_OOB);
        fp[A].u64 = tab->elems[i];
        NEXT();
    }
    CASE(TABLE_SET)
    {
        wd_table *tab = inst->tables[C];
        uint32_t i = U32(A);
        if (WD_UNLIKELY(i >= tab->size))
            TRAP(WD_TRAP_TABLE_OOB);
        tab->elems[i] = U64(A + 1);
        NEXT();
    }
    CASE(TABLE_SIZE)
    {
        PUT32(inst->tables[C]->size);
        NEXT();
    }
    CASE(TABLE_GROW)
    {
        int64_t r = wd_table_grow(inst->ctx, inst->tables[C], U32(A + 1), U64(A));
        PUT32(r);
        NEXT();
    }
    CASE(TABLE_FILL)
    {
        wd_table *tab = inst->tables[C];
        uint32_t i = U32(A), n = U32(A + 2);
        if (WD_UNLIKELY((uint64_t)i + n > tab->size))
            TRAP(WD_TRAP_TABLE_OOB);
        CHARGE_DYN(DYN(bulk_per_elem) * n, n);
        table_fill(tab, i, U64(A + 1), n);
        NEXT();
    }
    CASE(TABLE_COPY)
    {
        wd_table *dt = inst->tables[B];
        const wd_table *st = inst->tables[C];
        uint32_t d = U32(A), s = U32(A + 1), n = U32(A + 2);
        if (WD_UNLIKELY((uint64_t)s + n > st->size || (uint64_t)d + n > dt->size))
            TRAP(WD_TRAP_TABLE_OOB);
        CHARGE_DYN(DYN(bulk_copy_per_elem) * n, n);
        if (n != 0)
            memmove(dt->elems + d, st->elems + s, (size_t)n * sizeof *dt->elems);
        NEXT();
    }
    CASE(TABLE_INIT)
    {
        wd_table *tab = inst->tables[C];
        uint32_t d = U32(A), s = U32(A + 1), n = U32(A + 2);
        if (WD_UNLIKELY((uint64_t)s + n > elem_seg_count(inst, B) ||
                        (uint64_t)d + n > tab->size))
            TRAP(WD_TRAP_TABLE_OOB);
        CHARGE_DYN(DYN(bulk_per_elem) * n, n);
        table_init(inst, B, tab, d, s, n);
        NEXT();
    }
    CASE(ELEM_DROP)
    {
        inst->elem_dropped[A] = true;
        NEXT();
    }

    /* ---- memory ---- */

    LOAD(I32_LOAD, 4, uint32_t, PUT32, v_)
    LOAD(I64_LOAD, 8, uint64_t, PUT64, v_)
    LOAD(F32_LOAD, 4, uint32_t, PUT32, v_)
    LOAD(F64_LOAD, 8, uint64_t, PUT64, v_)
    LOAD(I32_LOAD8_S, 1, uint8_t, PUT32, sext32(v_, 8))
    LOAD(I32_LOAD8_U, 1, uint8_t, PUT32, v_)
    LOAD(I32_LOAD16_S, 2, uint16_t, PUT32, sext32(v_, 16))
    LOAD(I32_LOAD16_U, 2, uint16_t, PUT32, v_)
    LOAD(I64_LOAD8_S, 1, uint8_t, PUT64, sext64(v_, 8))
    LOAD(I64_LOAD8_U, 1, uint8_t, PUT64, v_)
    LOAD(I64_LOAD16_S, 2, uint16_t, PUT64, sext64(v_, 16))
    LOAD(I64_LOAD16_U, 2, uint16_t, PUT64, v_)
    LOAD(I64_LOAD32_S, 4, uint32_t, PUT64, sext64(v_, 32))
    LOAD(I64_LOAD32_U, 4, uint32_t, PUT64, v_)
    STORE(I32_STORE, 4, uint32_t, U32(B))
    STORE(I64_STORE, 8, uint64_t, U64(B))
    STORE(F32_STORE, 4, uint32_t, U32(B))
    STORE(F64_STORE, 8, uint64_t, U64(B))
    STORE(I32_STORE8, 1, uint8_t, U32(B))
    STORE(I32_STORE16, 2, uint16_t, U32(B))
    STORE(I64_STORE8, 1, uint8_t, U64(B))
    STORE(I64_STORE16, 2, uint16_t, U64(B))
    STORE(I64_STORE32, 4, uint32_t, U64(B))
    /* fused: the address an i32.add computed (code.h) */
#define EA_RR ((uint64_t)(uint32_t)(U32(B) + U32(C)))
#define EA_RI ((uint64_t)(uint32_t)(U32(B) + C))
#define EA_SRR ((uint64_t)(uint32_t)(U32(A) + U32(C)))
#define EA_SRI ((uint64_t)(uint32_t)(U32(A) + C))
    LOAD_AT(I32_LOAD_RR, EA_RR, 4, uint32_t, PUT32, v_)
    LOAD_AT(I32_LOAD8_S_RR, EA_RR, 1, uint8_t, PUT32, sext32(v_, 8))
    LOAD_AT(I32_LOAD8_U_RR, EA_RR, 1, uint8_t, PUT32, v_)
    LOAD_AT(I32_LOAD16_S_RR, EA_RR, 2, uint16_t, PUT32, sext32(v_, 16))
    LOAD_AT(I32_LOAD16_U_RR, EA_RR, 2, uint16_t, PUT32, v_)
    LOAD_AT(I64_LOAD_RR, EA_RR, 8, uint64_t, PUT64, v_)
    LOAD_AT(I64_LOAD32_U_RR, EA_RR, 4, uint32_t, PUT64, v_)
    LOAD_AT(I32_LOAD_RI, EA_RI, 4, uint32_t, PUT32, v_)
    LOAD_AT(I32_LOAD8_S_RI, EA_RI, 1, uint8_t, PUT32, sext32(v_, 8))
    LOAD_AT(I32_LOAD8_U_RI, EA_RI, 1, uint8_t, PUT32, v_)
    LOAD_AT(I32_LOAD16_S_RI, EA_RI, 2, uint16_t, PUT32, sext32(v_, 16))
    LOAD_AT(I32_LOAD16_U_RI, EA_RI, 2, uint16_t, PUT32, v_)
    LOAD_AT(I64_LOAD_RI, EA_RI, 8, uint64_t, PUT64, v_)
    LOAD_AT(I64_LOAD32_U_RI, EA_RI, 4, uint32_t, PUT64, v_)
    STORE_AT(I32_STORE_RR, EA_SRR, 4, uint32_t, U32(B))
    STORE_AT(I32_STORE8_RR, EA_SRR, 1, uint8_t, U32(B))
    STORE_AT(I32_STORE16_RR, EA_SRR, 2, uint16_t, U32(B))
    STORE_AT(I64_STORE_RR, EA_SRR, 8, uint64_t, U64(B))
    STORE_AT(I64_STORE32_RR, EA_SRR, 4, uint32_t, U64(B))
    STORE_AT(I32_STORE_RI, EA_SRI, 4, uint32_t, U32(B))
    STORE_AT(I32_STORE8_RI, EA_SRI, 1, uint8_t, U32(B))
    STORE_AT(I32_STORE16_RI, EA_SRI, 2, uint16_t, U32(B))
    STORE_AT(I64_STORE_RI, EA_SRI, 8, uint64_t, U64(B))
    STORE_AT(I64_STORE32_RI, EA_SRI, 4, uint32_t, U64(B))
    STORE_AT(I32_STORE_RRI, EA_SRR, 4, uint32_t, B)
    STORE_AT(I32_STORE8_RRI, EA_SRR, 1, uint8_t, B)
    STORE(I32_STORE_I, 4, uint32_t, B)
    STORE(I32_STORE8_I, 1, uint8_t, B)
    STORE(I32_STORE16_I, 2, uint16_t, B)
    STORE(I64_STORE_I, 8, uint64_t, (uint64_t)(int64_t)(int32_t)B)
#define ADDK (U32(B) + (uint32_t)(int32_t)(int16_t)ip->k)
    STORE(I32_STORE_ADDK, 4, uint32_t, ADDK)
    STORE(I32_STORE8_ADDK, 1, uint8_t, ADDK)
    STORE_AT(I32_STORE_RI_ADDK, EA_SRI, 4, uint32_t, ADDK)
    STORE_AT(I32_STORE8_RI_ADDK, EA_SRI, 1, uint8_t, ADDK)
#undef ADDK
    /* a load and the store of its value (ops.def, COPY8...): a trap in the load gives back
     * the store's cost (the DATA's a); one in the store is the DATA's, at its offset */
#define COPY(name, T, src, dst)                                                                    \
    CASE(name)                                                                                     \
    {                                                                                              \
        uint64_t s_ = (src), d_ = (dst);                                                           \
        if (WD_UNLIKELY(s_ + sizeof(T) > mem_size)) {                                              \
            remaining += ip[1].a;                                                                  \
            TRAP(WD_TRAP_MEMORY_OOB);                                                              \
        }                                                                                          \
        if (WD_UNLIKELY(d_ + sizeof(T) > mem_size)) {                                              \
            ip++;                                                                                  \
            TRAP(WD_TRAP_MEMORY_OOB);                                                              \
        }                                                                                          \
        T v_;                                                                                      \
        memcpy(&v_, mem + s_, sizeof(T));                                                          \
        memcpy(mem + d_, &v_, sizeof(T));                                                          \
        ip += 2;                                                                                   \
        JUMP();                                                                                    \
    }
    COPY(COPY8, uint8_t, COPY_SRC, COPY_DST)
    COPY(COPY16, uint16_t, COPY_SRC, COPY_DST)
    COPY(COPY32, uint32_t, COPY_SRC, COPY_DST)
    COPY(COPY64, uint64_t, COPY_SRC, COPY_DST)
    COPY(COPY8_RI, uint8_t, COPY_SRC_RI, COPY_DST_RI)
    COPY(COPY16_RI, uint16_t, COPY_SRC_RI, COPY_DST_RI)
    COPY(COPY32_RI, uint32_t, COPY_SRC_RI, COPY_DST_RI)
    COPY(COPY64_RI, uint64_t, COPY_SRC_RI, COPY_DST_RI)

    CASE(MEMORY_SIZE)
    {
        PUT32(mem_size / 65536);
        NEXT();
    }
    CASE(MEMORY_GROW)
    {
        uint32_t delta = U32(B);
        CHARGE_DYN(DYN(grow_per_page) * delta, delta);
        int64_t r = wd_memory_grow(inst->ctx, inst->memory, delta);
        PUT32(r);
        RELOAD_MEM();
        NEXT();
    }
    CASE(MEMORY_FILL)
    {
        uint32_t d = U32(A), n = U32(A + 2);
        if (WD_UNLIKELY((uint64_t)d + n > mem_size))
            TRAP(WD_TRAP_MEMORY_OOB);
        CHARGE_DYN(DYN(bulk_per_byte) * n, n);
        if (n != 0)
            memset(mem + d, (int)(U32(A + 1) & 0xFF), n);
        NEXT();
    }
    CASE(MEMORY_COPY)
    {
        uint32_t d = U32(A), s = U32(A + 1), n = U32(A + 2);
        if (WD_UNLIKELY((uint64_t)s + n > mem_size || (uint64_t)d + n > mem_size))
            TRAP(WD_TRAP_MEMORY_OOB);
        CHARGE_DYN(DYN(bulk_copy_per_byte) * n, n);
        if (n != 0)
            memmove(mem + d, mem + s, n);
        NEXT();
    }
    CASE(MEMORY_INIT)
    {
        uint32_t d = U32(A), s = U32(A + 1), n = U32(A + 2);
        const wd_dataseg *seg = &inst->module->datas[B];
        uint64_t seg_size = inst->data_dropped[B] ? 0 : seg->size;
        if (WD_UNLIKELY((uint64_t)s + n > seg_size || (uint64_t)d + n > mem_size))
            TRAP(WD_TRAP_MEMORY_OOB);
        CHARGE_DYN(DYN(bulk_per_byte) * n, n);
        if (n != 0)
            memcpy(mem + d, seg->bytes + s, n);
        NEXT();
    }
    CASE(DATA_DROP)
    {
        inst->data_dropped[A] = true;
        NEXT();
    }

    /* ---- i32 ---- */

    UNOP(I32_EQZ, PUT32, U32(B) == 0)
    CMPS(CMP, I32, , U32, S32, U32(C), S32(C))
    UNOP(I32_CLZ, PUT32, clz32(U32(B)))
    UNOP(I32_CTZ, PUT32, ctz32(U32(B)))
    UNOP(I32_POPCNT, PUT32, popcnt32(U32(B)))
    BINOP(I32_ADD, PUT32, U32(B) + U32(C))
    BINOP(I32_SUB, PUT32, U32(B) - U32(C))
    BINOP(I32_MUL, PUT32, U32(B) * U32(C))
    DIV_S(I32_DIV_S, S32, PUT32, INT32_MIN, sdiv32)
    DIV_U(I32_DIV_U, U32, PUT32, udiv32)
    REM_S(I32_REM_S, S32, PUT32, srem32)
    DIV_U(I32_REM_U, U32, PUT32, urem32)
    BINOP(I32_AND, PUT32, U32(B) & U32(C))
    BINOP(I32_OR, PUT32, U32(B) | U32(C))
    BINOP(I32_XOR, PUT32, U32(B) ^ U32(C))
    BINOP(I32_SHL, PUT32, U32(B) << (U32(C) & 31))
    BINOP(I32_SHR_S, PUT32, shr_s32(U32(B), U32(C)))
    BINOP(I32_SHR_U, PUT32, U32(B) >> (U32(C) & 31))
    BINOP(I32_ROTL, PUT32, rotl32(U32(B), U32(C)))
    BINOP(I32_ROTR, PUT32, rotr32(U32(B), U32(C)))

    /* ---- i64 ---- */

    UNOP(I64_EQZ, PUT32, U64(B) == 0)
    CMPS(CMP, I64, , U64, S64, U64(C), S64(C))
    UNOP(I64_CLZ, PUT64, clz64(U64(B)))
    UNOP(I64_CTZ, PUT64, ctz64(U64(B)))
    UNOP(I64_POPCNT, PUT64, popcnt64(U64(B)))
    BINOP(I64_ADD, PUT64, U64(B) + U64(C))
    BINOP(I64_SUB, PUT64, U64(B) - U64(C))
    BINOP(I64_MUL, PUT64, U64(B) * U64(C))
    DIV_S(I64_DIV_S, S64, PUT64, INT64_MIN, sdiv64)
    DIV_U(I64_DIV_U, U64, PUT64, udiv64)
    REM_S(I64_REM_S, S64, PUT64, srem64)
    DIV_U(I64_REM_U, U64, PUT64, urem64)
    BINOP(I64_AND, PUT64, U64(B) & U64(C))
    BINOP(I64_OR, PUT64, U64(B) | U64(C))
    BINOP(I64_XOR, PUT64, U64(B) ^ U64(C))
    BINOP(I64_SHL, PUT64, U64(B) << (U64(C) & 63))
    BINOP(I64_SHR_S, PUT64, shr_s64(U64(B), U64(C)))
    BINOP(I64_SHR_U, PUT64, U64(B) >> (U64(C) & 63))

    /* ---- fused instructions (ops.def's end) ---- */

#define IMM64 ((uint64_t)(int64_t)(int32_t)C)
    BINOP(I32_ADD_I, PUT32, U32(B) + C)
    BINOP(I32_SUB_I, PUT32, U32(B) - C)
    BINOP(I32_MUL_I, PUT32, U32(B) * C)
    BINOP(I32_AND_I, PUT32, U32(B) & C)
    BINOP(I32_OR_I, PUT32, U32(B) | C)
    BINOP(I32_XOR_I, PUT32, U32(B) ^ C)
    BINOP(I32_SHL_I, PUT32, U32(B) << (C & 31))
    BINOP(I32_SHR_S_I, PUT32, shr_s32(U32(B), C))
    BINOP(I32_SHR_U_I, PUT32, U32(B) >> (C & 31))
    CMPS(CMP, I32, _I, U32, S32, C, (int32_t)C)
    BINOP(I64_ADD_I, PUT64, U64(B) + IMM64)
    BINOP(I64_SUB_I, PUT64, U64(B) - IMM64)
    BINOP(I64_MUL_I, PUT64, U64(B) * IMM64)
    BINOP(I64_AND_I, PUT64, U64(B) & IMM64)
    BINOP(I64_OR_I, PUT64, U64(B) | IMM64)
    BINOP(I64_XOR_I, PUT64, U64(B) ^ IMM64)
    BINOP(I64_SHL_I, PUT64, U64(B) << (C & 63))
    BINOP(I64_SHR_S_I, PUT64, shr_s64(U64(B), C))
    BINOP(I64_SHR_U_I, PUT64, U64(B) >> (C & 63))
/* An instruction followed by a DATA (wd_op_has_data): k_ is the DATA's 64 bits. */
#define WITH_DATA(name, put, expr)                                                                 \
    CASE(name)                                                                                     \
    {                                                                                              \
        uint64_t k_ = ip[1].bc;                                                                    \
        put(expr);                                                                                 \
        ip += 2;                                                                                   \
        JUMP();                                                                                    \
    }
    WITH_DATA(I64_ADD_W, PUT64, U64(B) + k_)
    WITH_DATA(I64_SUB_W, PUT64, U64(B) - k_)
    WITH_DATA(I64_MUL_W, PUT64, U64(B) * k_)
    WITH_DATA(I64_AND_W, PUT64, U64(B) & k_)
    WITH_DATA(I64_OR_W, PUT64, U64(B) | k_)
    WITH_DATA(I64_XOR_W, PUT64, U64(B) ^ k_)
    /* k_ = ceil(2^64 / |C|) */
    WITH_DATA(I32_DIV_S_K, PUT32, wd_sdivk32(U32(B), C, k_))
    WITH_DATA(I32_DIV_U_K, PUT32, wd_divk32(U32(B), k_))
    WITH_DATA(I32_REM_S_K, PUT32, U32(B) - wd_sdivk32(U32(B), C, k_) * C)
    WITH_DATA(I32_REM_U_K, PUT32, U32(B) - wd_divk32(U32(B), k_) * C)
    BINOP(I32_ROTL_I, PUT32, rotl32(U32(B), C))
    BINOP(I32_ROTR_I, PUT32, rotr32(U32(B), C))
    BINOP(I64_ROTL_I, PUT64, rotl64(U64(B), C))
    BINOP(I64_ROTR_I, PUT64, rotr64(U64(B), C))
    CMPS(CMP, I64, _I, U64, S64, IMM64, (int64_t)IMM64)

#define BRCMP(name, cond)                                                                          \
    CASE(name)                                                                                     \
    {                                                                                              \
        if (cond)                                                                                  \
            TAKE(base + A);                                                                        \
        GO_BLOCK(ip + 1);                                                                          \
    }
    CMPS(BRCMP, BR_I32, , U32, S32, U32(C), S32(C))
    CMPS(BRCMP, BR_I32, _I, U32, S32, C, (int32_t)C)
    CMPS(BRCMP, BR_I64, , U64, S64, U64(C), S64(C))
    CMPS(BRCMP, BR_I64, _I, U64, S64, IMM64, (int64_t)IMM64)
    BRCMP(BR_I32_AND_NZ_I, (U32(B) & C) != 0)
    BRCMP(BR_I32_AND_Z_I, (U32(B) & C) == 0)
    BRCMP(BR_I64_Z, U64(B) == 0)
    BRCMP(BR_I64_NZ, U64(B) != 0)
#undef BRCMP
#undef IMM64
    /* a shift or rotation by `k` and the xor, or or add consuming it; a xor rotated */
#define K (ip->k)
    BINOP(I32_XOR_SHL, PUT32, (U32(B) << K) ^ U32(C))
    BINOP(I32_XOR_SHR_U, PUT32, (U32(B) >> K) ^ U32(C))
    BINOP(I32_XOR_ROTL, PUT32, rotl32(U32(B), K) ^ U32(C))
    BINOP(I32_OR_SHL, PUT32, (U32(B) << K) | U32(C))
    BINOP(I32_OR_SHR_U, PUT32, (U32(B) >> K) | U32(C))
    BINOP(I32_OR_ROTL, PUT32, rotl32(U32(B), K) | U32(C))
    BINOP(I32_ADD_SHL, PUT32, (U32(B) << K) + U32(C))
    BINOP(I32_ADD_SHR_U, PUT32, (U32(B) >> K) + U32(C))
    BINOP(I32_ADD_ROTL, PUT32, rotl32(U32(B), K) + U32(C))
    BINOP(I64_XOR_SHL, PUT64, (U64(B) << K) ^ U64(C))
    BINOP(I64_XOR_SHR_U, PUT64, (U64(B) >> K) ^ U64(C))
    BINOP(I64_XOR_ROTL, PUT64, rotl64(U64(B), K) ^ U64(C))
    BINOP(I64_OR_SHL, PUT64, (U64(B) << K) | U64(C))
    BINOP(I64_OR_SHR_U, PUT64, (U64(B) >> K) | U64(C))
    BINOP(I64_OR_ROTL, PUT64, rotl64(U64(B), K) | U64(C))
    BINOP(I64_ADD_SHL, PUT64, (U64(B) << K) + U64(C))
    BINOP(I64_ADD_SHR_U, PUT64, (U64(B) >> K) + U64(C))
    BINOP(I64_ADD_ROTL, PUT64, rotl64(U64(B), K) + U64(C))
    BINOP(I32_ROTL_XOR, PUT32, rotl32(U32(B) ^ U32(C), K))
    BINOP(I64_ROTL_XOR, PUT64, rotl64(U64(B) ^ U64(C), K))
    /* a multiplication and the add of its product to the slot `k` */
    BINOP(I32_MUL_ADD, PUT32, U32(B) * U32(C) + U32(K))
    BINOP(I64_MUL_ADD, PUT64, U64(B) * U64(C) + U64(K))
#undef K
    BINOP(I64_ROTL, PUT64, rotl64(U64(B), U64(C)))
    BINOP(I64_ROTR, PUT64, rotr64(U64(B), U64(C)))

    /* ---- f32 / f64: comparisons and arithmetic are IEEE as C has them ---- */

    BINOP(F32_EQ, PUT32, F32(B) == F32(C))
    BINOP(F32_NE, PUT32, F32(B) != F32(C))
    BINOP(F32_LT, PUT32, F32(B) < F32(C))
    BINOP(F32_GT, PUT32, F32(B) > F32(C))
    BINOP(F32_LE, PUT32, F32(B) <= F32(C))
    BINOP(F32_GE, PUT32, F32(B) >= F32(C))
    BINOP(F64_EQ, PUT32, F64(B) == F64(C))
    BINOP(F64_NE, PUT32, F64(B) != F64(C))
    BINOP(F64_LT, PUT32, F64(B) < F64(C))
    BINOP(F64_GT, PUT32, F64(B) > F64(C))
    BINOP(F64_LE, PUT32, F64(B) <= F64(C))
    BINOP(F64_GE, PUT32, F64(B) >= F64(C))

    UNOP(F32_ABS, PUT32, U32(B) & 0x7FFFFFFFu)
    UNOP(F32_NEG, PUT32, U32(B) ^ 0x80000000u)
    UNOP(F32_CEIL, PUTF32, f32_ceil(F32(B)))
    UNOP(F32_FLOOR, PUTF32, f32_floor(F32(B)))
    UNOP(F32_TRUNC, PUTF32, f32_trunc(F32(B)))
    UNOP(F32_NEAREST, PUTF32, f32_nearest(F32(B)))
    UNOP(F32_SQRT, PUTF32, sqrtf(F32(B)))
    BINOP(F32_ADD, PUTF32, F32(B) + F32(C))
    BINOP(F32_SUB, PUTF32, F32(B) - F32(C))
    BINOP(F32_MUL, PUTF32, F32(B) * F32(C))
    BINOP(F32_DIV, PUTF32, F32(B) / F32(C))
    BINOP(F32_MIN, PUTF32, f32_min(F32(B), F32(C)))
    BINOP(F32_MAX, PUTF32, f32_max(F32(B), F32(C)))
    BINOP(F32_COPYSIGN, PUT32, (U32(B) & 0x7FFFFFFFu) | (U32(C) & 0x80000000u))

    UNOP(F64_ABS, PUT64, U64(B) & 0x7FFFFFFFFFFFFFFFu)
    UNOP(F64_NEG, PUT64, U64(B) ^ 0x8000000000000000u)
    UNOP(F64_CEIL, PUTF64, f64_ceil(F64(B)))
    UNOP(F64_FLOOR, PUTF64, f64_floor(F64(B)))
    UNOP(F64_TRUNC, PUTF64, f64_trunc(F64(B)))
    UNOP(F64_NEAREST, PUTF64, f64_nearest(F64(B)))
    UNOP(F64_SQRT, PUTF64, sqrt(F64(B)))
    BINOP(F64_ADD, PUTF64, F64(B) + F64(C))
    BINOP(F64_SUB, PUTF64, F64(B) - F64(C))
    BINOP(F64_MUL, PUTF64, F64(B) * F64(C))
    BINOP(F64_DIV, PUTF64, F64(B) / F64(C))
    BINOP(F64_MIN, PUTF64, f64_min(F64(B), F64(C)))
    BINOP(F64_MAX, PUTF64, f64_max(F64(B), F64(C)))
    BINOP(F64_COPYSIGN, PUT64,
          (U64(B) & 0x7FFFFFFFFFFFFFFFu) | (U64(C) & 0x8000000000000000u))

    /* ---- conversions ---- */

    UNOP(I32_WRAP_I64, PUT32, U64(B))
    TRUNC(I32_TRUNC_F32_S, trunc_f32_s32, F32(B))
    TRUNC(I32_TRUNC_F32_U, trunc_f32_u32, F32(B))
    TRUNC(I32_TRUNC_F64_S, trunc_f64_s32, F64(B))
    TRUNC(I32_TRUNC_F64_U, trunc_f64_u32, F64(B))
    UNOP(I64_EXTEND_I32_S, PUT64, sext64(U32(B), 32))
    UNOP(I64_EXTEND_I32_U, PUT64, U32(B))
    TRUNC(I64_TRUNC_F32_S, trunc_f32_s64, F32(B))
    TRUNC(I64_TRUNC_F32_U, trunc_f32_u64, F32(B))
    TRUNC(I64_TRUNC_F64_S, trunc_f64_s64, F64(B))
    TRUNC(I64_TRUNC_F64_U, trunc_f64_u64, F64(B))
    /* Integer to float conversions round to nearest (C does, in the default mode; a u64
     * above 2^63 is handled by the compiler without double rounding). */
    UNOP(F32_CONVERT_I32_S, PUTF32, (float)S32(B))
    UNOP(F32_CONVERT_I32_U, PUTF32, (float)U32(B))
    UNOP(F32_CONVERT_I64_S, PUTF32, (float)S64(B))
    UNOP(F32_CONVERT_I64_U, PUTF32, (float)U64(B))
    UNOP(F32_DEMOTE_F64, PUTF32, (float)F64(B))
    UNOP(F64_CONVERT_I32_S, PUTF64, (double)S32(B))
    UNOP(F64_CONVERT_I32_U, PUTF64, (double)U32(B))
    UNOP(F64_CONVERT_I64_S, PUTF64, (double)S64(B))
    UNOP(F64_CONVERT_I64_U, PUTF64, (double)U64(B))
    UNOP(F64_PROMOTE_F32, PUTF64, (double)F32(B))
    UNOP(I32_REINTERPRET_F32, PUT32, U32(B))
    UNOP(I64_REINTERPRET_F64, PUT64, U64(B))
    UNOP(F32_REINTERPRET_I32, PUT32, U32(B))
    UNOP(F64_REINTERPRET_I64, PUT64, U64(B))

    UNOP(I32_EXTEND8_S, PUT32, sext32(U32(B), 8))
    UNOP(I32_EXTEND16_S, PUT32, sext32(U32(B), 16))
    UNOP(I64_EXTEND8_S, PUT64, sext64(U64(B), 8))
    UNOP(I64_EXTEND16_S, PUT64, sext64(U64(B), 16))
    UNOP(I64_EXTEND32_S, PUT64, sext64(U64(B), 32))

    UNOP(I32_TRUNC_SAT_F32_S, PUT64, trunc_sat_s32(F32(B)))
    UNOP(I32_TRUNC_SAT_F32_U, PUT64, trunc_sat_u32(F32(B)))
    UNOP(I32_TRUNC_SAT_F64_S, PUT64, trunc_sat_s32(F64(B)))
    UNOP(I32_TRUNC_SAT_F64_U, PUT64, trunc_sat_u32(F64(B)))
    UNOP(I64_TRUNC_SAT_F32_S, PUT64, trunc_sat_s64(F32(B)))
    UNOP(I64_TRUNC_SAT_F32_U, PUT64, trunc_sat_u64(F32(B)))
    UNOP(I64_TRUNC_SAT_F64_S, PUT64, trunc_sat_s64(F64(B)))
    UNOP(I64_TRUNC_SAT_F64_U, PUT64, trunc_sat_u64(F64(B)))

    /* ---- never executed ---- */

    CASE(BREAK)
    {
        /* A breakpoint reached in fast mode: give back what was prepaid for it and the
         * rest of its block, and stop in front of it without running it. */
        remaining += block_rest(frame->func->code, (uint32_t)(ip - base));
        SET_SLOW();
        goto stop_paused;
    }
    CASE(DATA)
    {
        goto illegal;
    }
#if WD_USE_GOTO
L_ILLEGAL:
#else
    default:
#endif
        goto illegal;
#if !WD_USE_GOTO
    }
#endif

    /* ---- shared tails ---- */

meter_slow:
    /* A METER in slow mode: stop for a pending request; go fast when the whole block fits;
     * else charge its own cost (0, or the function-entry cost) and go on one by one. */
    if (t->pending)
        goto stop_paused;
    if (!t->single_step && !t->always_slow && A <= remaining) {
        remaining -= A;
        SET_FAST();
        NEXT();
    }
    {
        uint32_t c_ = frame->func->code->costs[ip - base];
        if (c_ > remaining)
            goto stop_ticks;
        remaining -= c_;
    }
    NEXT();

host_call: {
    /* a host call's site is followed by the METER of what only a wasm callee's return
     * costs (translate.c post_call): the host's return steps over it */
    SAVE(ip + 2);
    if (hooks != NULL)
        hook_call(t, callee, WD_CALL_HOST);
    bool paid;
    wd_status st = wd_interp_call_host(t, callee, nfp, END, &paid, err);
    remaining = END - t->ticks;
    if (st != WD_OK) {
        const wd_code *code = frame->func->code;
        err->func_idx = code->func_idx;
        if (err->offset == 0)
            err->offset = code->offsets[ip - base];
        frame->ip = ip; /* the backtrace shows the failing call, not its return address */
        keep_trap_stack(t);
        wd_interp_unwind(t);
        return st;
    }
    ip += 2;
    if (!paid) { /* stopped at the limit with host ticks owed: the call ends on resume */
        SET_SLOW();
        goto stop_ticks;
    }
    RELOAD_MEM(); /* the host may have grown it */
    JUMP();
}

dyn_short:
    /* A dynamic cost does not fit. Slow mode: stop before the instruction, its own cost
     * given back. Fast mode: give back what was prepaid from it to the block's end and
     * rerun it slowly, which charges it exactly or stops in front of it. */
    if (t->slow) {
        remaining += frame->func->code->costs[ip - base];
        goto stop_ticks;
    }
    remaining += block_rest(frame->func->code, (uint32_t)(ip - base));
    SET_SLOW();
    JUMP();

on_trap:
    if (!t->slow)
        remaining += block_rest(frame->func->code, (uint32_t)(ip - base) + 1);
    if (wd_op_traps_with_result(ip->op) && ip->a < frame->func->code->local_slots)
        remaining += frame->func->code->set_cost; /* the local.set folded into it did not run */
trapped: { /* the trapping instruction's own cost is paid, nothing after it */
    const wd_code *code = frame->func->code;
    uint32_t i = (uint32_t)(ip - base);
    if (costs != NULL) /* the Trapping step: where the reference profiler closes the frame */
        remaining -= WD_MIN(remaining, costs->label_step);
    SAVE(ip);
    bool fresh = err->status == WD_OK;
    record_trap(err, trap, fp, ip, code->offsets[i]);
    if (fresh)
        err->func_idx = code->func_idx;
    keep_trap_stack(t);
    wd_interp_unwind(t);
    return WD_TRAP;
}

exhausted: {
    const wd_code *code = frame->func->code;
    uint32_t i = (uint32_t)(ip - base);
    if (!t->slow)
        remaining += block_rest(code, i + 1);
    /* the failing invoke runs to its end (ENTER_CALL: callee is the wasm function called) */
    remaining -= WD_MIN(remaining, callee->code->costs[0]);
    SAVE(ip);
    bool fresh = err->status == WD_OK;
    wd_fail(err, WD_EXHAUSTED, code->offsets[i], "call stack exhausted");
    if (fresh)
        err->func_idx = code->func_idx;
    keep_trap_stack(t);
    wd_interp_unwind(t);
    return WD_EXHAUSTED;
}

stop_ticks:
    SAVE(ip);
    return WD_OUT_OF_TICKS;

stop_paused:
    SAVE(ip);
    return WD_PAUSED;

finished:
    t->ticks = END - remaining;
    t->frame_count = 0;
    t->state = WD_THREAD_IDLE;
    return WD_OK;

illegal:
    /* CTRL opcodes and DATA never reach the interpreter: the translator's contract. */
    WD_ASSERT(!"illegal instruction in translated code");
    TRAP(WD_TRAP_UNREACHABLE);
}
// clang-format on
