/* translate.c: function-body typing fused with translation to internal code.
 *
 * Validation follows the WebAssembly 2.0 spec, Appendix "Validation Algorithm": a stack of
 * value types where T_ANY plays the spec's Unknown, and a stack of control frames with
 * start types, end types, height and an unreachable flag. Translation runs in the same
 * pass and emits the code of decode/code.h:
 *
 * - Slots. The value at operand-stack height h (0 = bottom) lives in slot local_slots + h,
 *   so every operand's slot is known statically and instructions name their slots.
 *
 * - Liveness. `live` says whether any path reaches the current instruction. It is stricter
 *   than the spec's unreachable flag: code after the `end` of a block that is neither
 *   fallen out of nor branched to is dead although still typed with concrete types. Dead
 *   code is validated but never emitted, and its costs are dropped.
 *
 * - Labels. No instruction is emitted for block, loop or end. A loop's label is the index
 *   of its header (a METER); forward branches are chained through their `a` operand
 *   (frame.fixups, NONE-terminated) and patched when the frame's end is placed. A branch
 *   never executes its target instruction: a branch to a block skips its `end`, the false
 *   edge of an `if` skips `else`/`end`.
 *
 * - Lazy operands. `local.get` and constants emit nothing at first: the operand remembers
 *   the local or the constant (xlate.lz), and its consumer reads the local's slot or takes
 *   the constant as an immediate. So does an i32.add of the two (a pointer plus an
 *   offset): a load or store takes it as its address (reg + imm form), anything else gets
 *   it as an I32_ADD_I where it is consumed. An operand is materialized (moved into its own slot)
 *   where a consumer needs it there: before a write to its local, before control
 *   instructions that join paths or carry values (block, loop, if, else, end, branches),
 *   and for instructions that read consecutive slots (calls, select, bulk memory). A call
 *   leaves lazy operands below its arguments alone: it cannot change the caller's locals.
 *   With no_fuse nothing is lazy.
 *
 * - Metering. METERs are emitted lazily: a basic block is closed (`open` = false) at every
 *   label and after every branch, call and return, and the next instruction emitted in
 *   live code opens a new one. The cost of an instruction is charged on the first
 *   instruction it emits; elided ones (nop, block, drop, untargeted end, ...) leave it
 *   `pending` for the next emitted instruction of the same basic block, and a NOP_COST
 *   carries it where the block ends first. The structural costs (base/costs.h: the PVM's
 *   steps around control flow, docs/ticks.md) go where the control flow decides them: a
 *   block's fall-through end and an unconditional branch into their own block; a
 *   conditional branch's and a br_table entry's taken edge into their `edge` (code.h); a
 *   function's end and a return into the callee's last block; the frame's return into
 *   the first block after the call (post_call).
 *
 * - Speed. The main loop (translate_body) decodes the common instructions itself, their
 *   short immediates inline, and calls their handlers directly; the rest, 0xFC ones,
 *   illegal opcodes and, in PVM mode, float ones go through wd_validate_decode_insn and
 *   dispatch. Tables built once per module (wd_translator) give each opcode its cost,
 *   class and fused forms, and its buffers are reused from one body to the next. Each
 *   WebAssembly instruction first reserves room for what it may emit (RESERVE), so that
 *   appending an instruction is a few stores; the insns go straight into the module's
 *   arena while they fit in its current chunk (no copy at the end). The open block's
 *   charge is kept aside (xlate.charge) until the block closes. Measured with callgrind
 *   (`loadtime --once`): bench's big.wasm 1252M -> 488M instructions, the tx-kernel in
 *   PVM mode 42.2M -> 19.2M. */
#include "decode/validate_priv.h" /* this file's interface */

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#define NONE  UINT32_MAX
#define T_ANY 0 /* the spec's Unknown operand type */

/* Implementation limits that keep translation linear in the body size: types used in a
 * body have at most MAX_ARITY params and results; a frame has at most MAX_SLOTS slots. */
#define MAX_ARITY 1000u
_Static_assert(MAX_ARITY <= UINT16_MAX, "a call_indirect's param count is its 16-bit k");
#define MAX_SLOTS (1u << 26)

enum { K_FUNC, K_BLOCK, K_LOOP, K_IF, K_ELSE };

typedef struct frame {
    uint8_t kind;     /* K_* */
    bool unreachable; /* the spec's flag */
    bool live_in;     /* entered by live code (for an if: its BR_IF_Z exists) */
    uint32_t height;  /* operand height at entry, below the params */
    uint32_t param_count, result_count;
    const uint8_t *params, *results;
    uint32_t label;      /* loop: index of its header */
    uint32_t fixups;     /* chain of branches to this frame's end */
    uint32_t else_fixup; /* if: the BR_IF_Z to patch at else or end */
} frame;

/* A lazy operand (see "Lazy operands" above): the value at operand height `h` is not in
 * its slot but in local `local` (a local.get), is the constant `k` (a const), or is
 * local + k (LZ_ADDK: an i32.add of the two, which a load or store of offset 0 takes as
 * its address, else an I32_ADD_I where it is consumed). */
enum { LZ_LOCAL, LZ_CONST32, LZ_CONST64, LZ_ADDK };
#define MAX_LAZY 16u

typedef struct lazy {
    uint32_t h;
    uint32_t kind; /* LZ_* (not a byte: stores of bytes may alias anything) */
    uint32_t local;
    uint64_t k;
} lazy;

/* Room made before each WebAssembly instruction (reserve), in internal instructions: more
 * than one emits, the DATA of a br_table aside (it reserves those itself). The most is
 * about 23: materializing every lazy operand (MAX_LAZY) and a few more (METERs, moves,
 * NOP_COSTs, a conditional branch and a JMP in emit_br_if or do_end). put() asserts it. */
#define RESERVE (2 * MAX_LAZY + 32)

/* Classes of single-byte opcodes in translate_body: each is decoded there and handled by
 * its own function; C_SLOW goes through wd_validate_decode_insn and dispatch. */
// clang-format off
enum {
    C_SLOW, C_UN, C_BIN, C_LOAD, C_STORE, C_LOCAL_GET, C_LOCAL_SET, C_LOCAL_TEE, C_GLOBAL_GET,
    C_GLOBAL_SET, C_I32_CONST, C_I64_CONST, C_CALL, C_BR, C_BR_IF, C_BLOCK, C_ELSE, C_END,
    C_DROP, C_NOP, C_SELECT, C_RETURN
};
// clang-format on

#if defined(__GNUC__) || defined(__clang__)
#define UNREACHABLE() __builtin_unreachable()
#else
#define UNREACHABLE() ((void)0)
#endif

/* Facts about an opcode for the peephole pass (see the functions that compute them). */
enum { F_PURE = 1, F_TRAPS = 2, F_COPY = 4 }; /* F_COPY: copyable into a loop's back edge */

typedef struct opform {
    uint16_t imm;        /* imm_form */
    uint16_t mirror;     /* mirrored */
    uint16_t mirror_imm; /* imm_form of mirrored, 0 if either is 0 */
    uint16_t wide;       /* wide_form */
    uint16_t mem[3];     /* mem_forms[...][1 + k], k = 0, 1, 2 */
    uint16_t br[2];      /* branch_form, not negated and negated */
    uint16_t shift;      /* shift_form */
    uint8_t flags;       /* F_* */
} opform;

struct wd_translator {
    wd_ctx *ctx;
    wd_arena *arena; /* where code goes, or NULL: the module's */
    const wd_costs *costs;
    bool pvm, no_fuse;
    uint8_t cls[256];         /* C_* of each byte */
    uint16_t op_of_byte[256]; /* the opcode of each single-byte instruction */
    uint32_t op_cost[WD_OP_COUNT];
    opform forms[WD_OP_COUNT];
    bool *type_ok; /* of the types of module type_ok_for */
    const wd_module *type_ok_for;
    /* buffers lent to each body's translation */
    uint16_t *vals;
    uint32_t val_cap;
    frame *ctrls;
    uint32_t ctrl_cap;
    uint8_t *ltypes;
    uint32_t ltype_cap;
    wd_insn *insns;
    uint32_t *icosts, *offs;
    uint32_t insn_cap;
};

typedef struct xlate {
    wd_translator *t;
    wd_body_dec *d; /* the body's decoder (borrowed) */
    wd_module *m;
    wd_ctx *ctx;
    wd_arena *arena; /* where the code goes */
    const wd_costs *costs;
    const opform *forms;
    bool *type_ok; /* by type index: check_functype passed */
    bool pvm, no_fuse;
    wd_error *err;
    uint32_t func_idx;
    const wd_functype *type;
    uint8_t *ltypes; /* the type of each local, params first (the translator's) */
    uint32_t ltype_cap;
    uint32_t local_slots; /* params + declared locals */

    uint16_t *vals; /* operand types (not bytes: stores of bytes may alias anything) */
    uint32_t val_count, val_cap, max_height;
    frame *ctrls;
    frame *top; /* ctrls[ctrl_count - 1] */
    uint32_t ctrl_count, ctrl_cap;
    lazy lz[MAX_LAZY]; /* lazy operands, by increasing height */
    uint32_t nlz;
    uint32_t lz_end; /* one past the height of the last lazy operand, 0 if none */

    /* The output, insns with parallel costs and offsets. The insns go straight into the
     * free end of the module's arena while they fit there (in_arena, tail_cap of them),
     * else into `scratch`; scratch, icosts and offs are the translator's (scratch_cap). */
    wd_insn *insns;
    uint32_t *icosts, *offs;
    uint32_t insn_count, insn_cap; /* insn_cap: what all three can take now */
    uint32_t insn_limit;           /* a count from which RESERVE more do not fit */
    wd_insn *scratch;
    uint32_t scratch_cap, tail_cap;
    bool in_arena;

    bool live, open;
    const uint32_t *cost; /* the cost of each opcode: live ? op_cost : all zero (set_live) */
    uint32_t meter;       /* the open block's METER */
    uint32_t charge;      /* the open block's charge so far (its METER's, once closed) */
    uint64_t pending;     /* costs of elided instructions */
    uint64_t cur;         /* cost of the current instruction not yet charged */
    uint32_t pending_off; /* offset of the first instruction in `pending` */
    uint32_t bb_off;      /* offset of the first instruction of the next block */
    uint32_t op_off;      /* offset of the current instruction */
    const char *what;     /* what errors name instead of the instruction, or NULL */
    uint32_t wasm_insn_count;
    wd_body_shape shape;
    uint32_t garbage_at; /* wd_code.garbage_at */
} xlate;

static wd_insn *tail(xlate *x, uint32_t k);
static bool charge_to(xlate *x, uint32_t i);

/* ---- errors -------------------------------------------------------------------------- */

/* The name of what is being validated, for error messages: the instruction at op_off
 * (decoded without error already), unless `what` says otherwise. */
static const char *op_name(const xlate *x)
{
    if (x->what != NULL)
        return x->what;
    const wd_reader *r = &x->d->r;
    uint8_t b = r->base[x->op_off];
    uint32_t op = wd_op_decode(0, b);
    if (b == 0xFC) {
        wd_reader sub = {.base = r->base, .pos = (size_t)x->op_off + 1, .end = r->end};
        uint32_t code = 0;
        op = wd_read_u32(&sub, &code) == WD_OK ? wd_op_decode(0xFC, code) : WD_OP_COUNT;
    }
    return op < WD_OP_COUNT ? wd_op_names[op] : "?";
}

/* The validator's Unknown type reads "any". */
static const char *type_name(uint8_t t)
{
    const char *n = wd_valtype_name(t);
    return n[0] == '?' ? "any" : n;
}

static WD_NOINLINE wd_status invalid(xlate *x, const char *fmt, ...) WD_PRINTF(2, 3);
static WD_NOINLINE wd_status invalid(xlate *x, const char *fmt, ...)
{
    char msg[sizeof x->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wd_fail(x->err, WD_ERR_INVALID, x->op_off, "%s", msg);
}

static WD_NOINLINE wd_status nomem(xlate *x)
{
    return wd_fail(x->err, WD_ERR_NOMEM, x->op_off, "out of memory");
}

static WD_NOINLINE wd_status unsupported_simd(xlate *x)
{
    return wd_fail(x->err, WD_ERR_MALFORMED, x->op_off, "SIMD not supported yet");
}

static WD_NOINLINE wd_status forbidden_float(xlate *x, const char *what)
{
    char buf[64];
    const char *name = wd_module_func_name(x->m, x->func_idx, buf, sizeof buf);
    return wd_fail(x->err, WD_ERR_INVALID, x->op_off,
                   "float instructions are forbidden in PVM mode: %s in function %.96s at "
                   "offset 0x%" PRIx32,
                   what, name, x->op_off);
}

static bool is_float(uint8_t t)
{
    return t == WD_F32 || t == WD_F64;
}

/* A value type used by the body: v128 is not supported, floats not in PVM mode. */
WD_INLINE wd_status check_valtype(xlate *x, uint8_t t)
{
    if (WD_UNLIKELY(t == WD_V128))
        return unsupported_simd(x);
    if (WD_UNLIKELY(x->pvm && is_float(t)))
        return forbidden_float(x, op_name(x));
    return WD_OK;
}

static WD_NOINLINE wd_status check_new_functype(xlate *x, const wd_functype *ft, uint32_t idx)
{
    if (ft->param_count > MAX_ARITY || ft->result_count > MAX_ARITY)
        return invalid(
            x, "function type too large: %" PRIu32 " params, %" PRIu32 " results (the limit is %u)",
            ft->param_count, ft->result_count, MAX_ARITY);
    for (uint32_t i = 0; i < ft->param_count; i++)
        WD_TRY(check_valtype(x, ft->params[i]));
    for (uint32_t i = 0; i < ft->result_count; i++)
        WD_TRY(check_valtype(x, ft->results[i]));
    x->type_ok[idx] = true;
    return WD_OK;
}

/* ft is one of the module's types: each is checked once (type_ok). */
WD_INLINE wd_status check_functype(xlate *x, const wd_functype *ft)
{
    uint32_t idx = (uint32_t)(ft - x->m->types);
    return x->type_ok[idx] ? WD_OK : check_new_functype(x, ft, idx);
}

/* ---- operand and control stacks (the spec's algorithm) --------------------------------- */

static uint32_t slot(const xlate *x, uint32_t height)
{
    return x->local_slots + height;
}

static uint32_t top_slot(const xlate *x)
{
    return x->local_slots + x->val_count - 1;
}

static frame *top_frame(xlate *x)
{
    return x->top;
}

/* push to a height never reached before in this body: max_height grows, and the stack
 * with it when full (so val_cap >= max_height, and push checks one of the two). */
static WD_NOINLINE wd_status new_height(xlate *x)
{
    if (x->local_slots + x->val_count >= MAX_SLOTS)
        return invalid(x, "operand stack too deep (the limit is %u slots)", MAX_SLOTS);
    if (x->val_count == x->val_cap &&
        !wd_grow(x->ctx, (void **)&x->vals, &x->val_cap, sizeof *x->vals,
                 (uint64_t)x->val_count + 1))
        return nomem(x);
    x->max_height = x->val_count + 1;
    return WD_OK;
}

/* Forgets the lazy operands at heights h and above. */
WD_INLINE void forget_above(xlate *x, uint32_t h)
{
    uint32_t n = x->nlz;
    while (n > 0 && x->lz[n - 1].h >= h)
        n--;
    x->nlz = n;
    x->lz_end = n > 0 ? x->lz[n - 1].h + 1 : 0;
}

/* Float types never get here in PVM mode: the function's type, its locals, block types,
 * the types of globals, callees and select are checked where they are read (check_valtype),
 * and float instructions are rejected before they are handled. */
WD_INLINE wd_status push(xlate *x, uint8_t t)
{
    if (WD_UNLIKELY(x->val_count == x->max_height)) /* a new height: room made (val_cap) */
        WD_TRY(new_height(x));
    if (WD_UNLIKELY(x->lz_end > x->val_count))
        forget_above(x, x->val_count); /* popped lazy operands, once their height is reused */
    x->vals[x->val_count++] = t;
    return WD_OK;
}

static WD_NOINLINE wd_status pop_nothing(xlate *x, uint8_t want)
{
    return invalid(x, "type mismatch in %s: expected %s, got nothing", op_name(x),
                   want == T_ANY ? "a value" : type_name(want));
}

static WD_NOINLINE wd_status pop_mismatch(xlate *x, uint8_t want, uint8_t t)
{
    return invalid(x, "type mismatch in %s: expected %s, got %s", op_name(x), type_name(want),
                   type_name(t));
}

/* Pops an operand of type `want` (T_ANY: any); *got its type (T_ANY: the spec's Unknown). */
WD_INLINE wd_status pop_got(xlate *x, uint8_t want, uint8_t *got)
{
    uint8_t t = T_ANY;
    if (WD_UNLIKELY(x->val_count == x->top->height)) {
        if (!x->top->unreachable)
            return pop_nothing(x, want);
    } else {
        t = (uint8_t)x->vals[--x->val_count];
    }
    if (WD_UNLIKELY(t != want) && t != T_ANY && want != T_ANY)
        return pop_mismatch(x, want, t);
    *got = t;
    return WD_OK;
}

WD_INLINE wd_status pop(xlate *x, uint8_t want)
{
    uint8_t t = 0;
    return pop_got(x, want, &t);
}

static wd_status pop_n(xlate *x, const uint8_t *types, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;) {
        frame *f = top_frame(x);
        if (x->val_count == f->height && f->unreachable)
            break; /* the rest pop as Unknown */
        WD_TRY(pop(x, types[i]));
    }
    return WD_OK;
}

static wd_status push_n(xlate *x, const uint8_t *types, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        WD_TRY(push(x, types[i]));
    return WD_OK;
}

static wd_status push_ctrl(xlate *x, const frame *proto)
{
    if (x->ctrl_count == x->ctrl_cap && !wd_grow(x->ctx, (void **)&x->ctrls, &x->ctrl_cap,
                                                 sizeof *x->ctrls, (uint64_t)x->ctrl_count + 1))
        return nomem(x);
    frame *f = &x->ctrls[x->ctrl_count++];
    x->top = f;
    *f = *proto;
    f->height = x->val_count;
    f->unreachable = false;
    return push_n(x, f->params, f->param_count);
}

static wd_status pop_ctrl(xlate *x, frame *out)
{
    frame *f = top_frame(x);
    WD_TRY(pop_n(x, f->results, f->result_count));
    if (x->val_count != f->height)
        return invalid(x, "type mismatch in %s: %" PRIu32 " extra values at the end of the block",
                       op_name(x), x->val_count - f->height);
    *out = *f;
    x->ctrl_count--;
    x->top = x->ctrl_count > 0 ? f - 1 : NULL;
    return WD_OK;
}

static wd_status get_label(xlate *x, uint32_t depth, frame **out)
{
    if (depth >= x->ctrl_count)
        return invalid(x, "unknown label %" PRIu32, depth);
    *out = &x->ctrls[x->ctrl_count - 1 - depth];
    return WD_OK;
}

static uint32_t label_arity(const frame *f)
{
    return f->kind == K_LOOP ? f->param_count : f->result_count;
}

static const uint8_t *label_types(const frame *f)
{
    return f->kind == K_LOOP ? f->params : f->results;
}

/* ---- emission ------------------------------------------------------------------------- */

static void set_cap(xlate *x)
{
    x->insn_cap = x->in_arena ? WD_MIN(x->tail_cap, x->scratch_cap) : x->scratch_cap;
    x->insn_limit = x->insn_cap >= RESERVE ? x->insn_cap - RESERVE + 1 : 0;
}

/* Makes room for `need` more instructions: grows the scratch buffers, and moves the insns
 * there when the arena's tail is full. */
static WD_NOINLINE wd_status grow_code(xlate *x, uint64_t need)
{
    uint64_t want = x->insn_count + need;
    if (want > x->scratch_cap) {
        uint64_t cap = x->scratch_cap ? (uint64_t)x->scratch_cap * 2 : 256;
        if (cap < want)
            cap = want;
        if (cap > UINT32_MAX / 2)
            return nomem(x);
        wd_insn *insns = wd_realloc(x->ctx, x->scratch, (size_t)cap * sizeof *insns);
        if (insns == NULL)
            return nomem(x);
        x->scratch = insns;
        if (!x->in_arena)
            x->insns = insns;
        uint32_t *c = wd_realloc(x->ctx, x->icosts, (size_t)cap * sizeof *c);
        if (c == NULL)
            return nomem(x);
        x->icosts = c;
        uint32_t *o = wd_realloc(x->ctx, x->offs, (size_t)cap * sizeof *o);
        if (o == NULL)
            return nomem(x);
        x->offs = o;
        x->scratch_cap = (uint32_t)cap;
    }
    if (x->in_arena && want > x->tail_cap) {
        memcpy(x->scratch, x->insns, (size_t)x->insn_count * sizeof *x->insns);
        x->insns = x->scratch;
        x->in_arena = false;
    }
    set_cap(x);
    return WD_OK;
}

/* Where the insns go first: the arena's tail if it has room for a few blocks. */
static void start_code(xlate *x)
{
    size_t room = 0;
    wd_insn *at = wd_arena_tail(x->arena, (size_t)4 * RESERVE * sizeof *at, &room);
    x->in_arena = at != NULL;
    x->insns = x->in_arena ? at : x->scratch;
    x->tail_cap = (uint32_t)WD_MIN(room / sizeof *at, UINT32_MAX / 2);
    set_cap(x);
}

/* Room for RESERVE instructions (and `more`), made before each WebAssembly instruction. */
WD_INLINE wd_status reserve(xlate *x, uint32_t more)
{
    if (WD_UNLIKELY(x->insn_count >= x->insn_limit) ||
        (more != 0 && x->insn_cap - x->insn_count < (uint64_t)RESERVE + more))
        return grow_code(x, (uint64_t)RESERVE + more);
    return WD_OK;
}

/* Appends an instruction as is; returns its index. Room was reserved. */
WD_INLINE uint32_t put(xlate *x, uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint32_t cost,
                       uint32_t off)
{
    WD_ASSERT(x->insn_count < x->insn_cap);
    uint32_t i = x->insn_count++;
    wd_insn *in = &x->insns[i];
    in->op = (uint16_t)op;
    in->edge = 0;
    in->a = a;
    in->b = b;
    in->c = c;
    x->icosts[i] = cost;
    x->offs[i] = off;
    return i;
}

/* The open block's charge is kept in x->charge and stored into its METER here. */
static void close_block(xlate *x)
{
    if (x->open)
        x->insns[x->meter].a = x->charge;
    x->open = false;
    x->bb_off = NONE;
}

static WD_NOINLINE void open_block(xlate *x)
{
    uint32_t off = x->bb_off != NONE ? x->bb_off : x->op_off;
    x->meter = put(x, WD_OP_METER, 0, 0, 0, 0, off);
    x->charge = 0;
    x->open = true;
}

static WD_NOINLINE wd_status too_costly(xlate *x)
{
    return invalid(x, "basic block too costly: its charge exceeds 2^32-1 ticks");
}

/* Emits an instruction of live code at code offset `off`, opening a basic block if none
 * is open, and charges it the pending costs and the current instruction's. */
WD_INLINE wd_status emit_at(xlate *x, uint32_t op, uint32_t a, uint32_t b, uint32_t c,
                            uint32_t *idx, uint32_t off)
{
    WD_ASSERT(x->live);
    if (WD_UNLIKELY(!x->open))
        open_block(x);
    uint64_t cost = x->pending + x->cur;
    uint64_t charge = x->charge + cost;
    if (WD_UNLIKELY(charge > UINT32_MAX))
        return too_costly(x);
    x->pending = x->cur = 0;
    x->pending_off = NONE;
    x->charge = (uint32_t)charge;
    uint32_t i = put(x, op, a, b, c, (uint32_t)cost, off);
    if (idx != NULL)
        *idx = i;
    return WD_OK;
}

/* Emits the current instruction's op (emit_at). */
WD_INLINE wd_status emit(xlate *x, uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint32_t *idx)
{
    return emit_at(x, op, a, b, c, idx, x->op_off);
}

/* Emits op (emit) with `k` set: a fused instruction's count, slot or constant (code.h). */
static wd_status emit_k(xlate *x, uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint16_t k)
{
    uint32_t idx = 0;
    WD_TRY(emit(x, op, a, b, c, &idx));
    x->insns[idx].k = k;
    return WD_OK;
}

/* A NOP_COST: it charges the pending costs where the first of them was. */
static wd_status emit_nop_cost(xlate *x)
{
    uint32_t off = x->pending_off != NONE ? x->pending_off : x->op_off;
    return emit_at(x, WD_OP_NOP_COST, 0, 0, 0, NULL, off);
}

/* Emits a CONST64 of k into slot dst. */
static wd_status emit_const64(xlate *x, uint32_t dst, uint64_t k)
{
    uint32_t idx = 0;
    WD_TRY(emit(x, WD_OP_CONST64, dst, 0, 0, &idx));
    x->insns[idx].bc = k;
    return WD_OK;
}

/* Ends the current basic block; pending costs of live code go on a NOP_COST. */
static wd_status flush(xlate *x)
{
    if (x->live && x->cur != 0) {
        if (x->pending_off == NONE)
            x->pending_off = x->op_off;
        x->pending += x->cur;
        x->cur = 0;
    }
    if (x->live && x->pending != 0) {
        /* elided instructions at a block's end: a non-trapping last instruction pays for
         * them, else a NOP_COST does */
        wd_insn *l1 = tail(x, 1);
        if (l1 == NULL || !(x->forms[l1->op].flags & F_PURE) || !charge_to(x, x->insn_count - 1))
            WD_TRY(emit_nop_cost(x));
    }
    close_block(x);
    return WD_OK;
}

static void patch(xlate *x, uint32_t chain, uint32_t target)
{
    while (chain != NONE) {
        uint32_t next = x->insns[chain].a;
        x->insns[chain].a = target;
        chain = next;
    }
}

/* Points branch `idx` (its `a`) at frame f's label. */
static void link_branch(xlate *x, frame *f, uint32_t idx)
{
    if (f->kind == K_LOOP) {
        x->insns[idx].a = f->label;
    } else {
        x->insns[idx].a = f->fixups;
        f->fixups = idx;
    }
}

static wd_status emit_cond_branch(xlate *x, bool when_true, uint32_t h, uint32_t *idx);

/* Emits a JMP or (op BR_IF_NZ) a branch on the popped condition at height h to f's label;
 * a conditional one charges `edge` more when taken (code.h, "(edge)"). */
static wd_status emit_branch(xlate *x, uint32_t op, uint32_t h, frame *f, uint32_t edge)
{
    uint32_t idx = 0;
    if (op == WD_OP_BR_IF_NZ)
        WD_TRY(emit_cond_branch(x, true, h, &idx));
    else
        WD_TRY(emit(x, op, NONE, 0, 0, &idx));
    link_branch(x, f, idx);
    x->insns[idx].edge = (uint16_t)edge;
    close_block(x);
    return WD_OK;
}

/* ---- peephole fusion (code.h, "Peephole fusion") --------------------------------------
 * Only the open basic block's last instructions are looked at, right before their consumer
 * is emitted, so nothing can come between a fused producer and its consumer. The forms an
 * opcode fuses into are looked up in wd_translator.forms, made by the functions below. */

/* The open block's k-th instruction from its end (1: the last), or NULL. */
WD_INLINE wd_insn *tail(xlate *x, uint32_t k)
{
    if (x->no_fuse || !x->live || !x->open || x->insn_count < k || x->insn_count - k <= x->meter)
        return NULL;
    return &x->insns[x->insn_count - k];
}

/* Removes the open block's last instruction; its cost goes to the next one emitted. */
static void drop_last(xlate *x)
{
    uint32_t i = --x->insn_count;
    x->charge -= x->icosts[i];
    x->pending += x->icosts[i];
    if (x->pending_off == NONE)
        x->pending_off = x->offs[i];
}

/* Emits a move of slot src into slot dst: one with the move the block's last instruction is,
 * when it is one (MOV2, the second source in `k`), which then carries this one's cost. */
static wd_status emit_mov(xlate *x, uint32_t dst, uint32_t src)
{
    wd_insn *l1 = tail(x, 1);
    if (l1 != NULL && l1->op == WD_OP_MOV && src <= UINT16_MAX &&
        charge_to(x, x->insn_count - 1)) {
        l1->op = WD_OP_MOV2;
        l1->c = dst;
        l1->k = (uint16_t)src;
        return WD_OK;
    }
    return emit(x, WD_OP_MOV, dst, src, 0, NULL);
}

static wd_status emit_moves(xlate *x, uint32_t dst, uint32_t src, uint32_t n)
{
    if (n == 0 || dst == src)
        return WD_OK;
    if (n == 1)
        return emit_mov(x, dst, src);
    return emit(x, WD_OP_MOVE_N, dst, src, n, NULL);
}

/* The immediate form of a binary operation, or 0. */
static uint32_t imm_form(uint32_t op)
{
    switch (op) {
    case WD_OP_I32_ADD: return WD_OP_I32_ADD_I;
    case WD_OP_I32_SUB: return WD_OP_I32_SUB_I;
    case WD_OP_I32_MUL: return WD_OP_I32_MUL_I;
    case WD_OP_I32_AND: return WD_OP_I32_AND_I;
    case WD_OP_I32_OR: return WD_OP_I32_OR_I;
    case WD_OP_I32_XOR: return WD_OP_I32_XOR_I;
    case WD_OP_I32_SHL: return WD_OP_I32_SHL_I;
    case WD_OP_I32_SHR_S: return WD_OP_I32_SHR_S_I;
    case WD_OP_I32_SHR_U: return WD_OP_I32_SHR_U_I;
    case WD_OP_I32_EQ: return WD_OP_I32_EQ_I;
    case WD_OP_I32_NE: return WD_OP_I32_NE_I;
    case WD_OP_I32_LT_S: return WD_OP_I32_LT_S_I;
    case WD_OP_I32_LT_U: return WD_OP_I32_LT_U_I;
    case WD_OP_I32_GT_S: return WD_OP_I32_GT_S_I;
    case WD_OP_I32_GT_U: return WD_OP_I32_GT_U_I;
    case WD_OP_I32_LE_S: return WD_OP_I32_LE_S_I;
    case WD_OP_I32_LE_U: return WD_OP_I32_LE_U_I;
    case WD_OP_I32_GE_S: return WD_OP_I32_GE_S_I;
    case WD_OP_I32_GE_U: return WD_OP_I32_GE_U_I;
    case WD_OP_I64_ADD: return WD_OP_I64_ADD_I;
    case WD_OP_I64_SUB: return WD_OP_I64_SUB_I;
    case WD_OP_I64_MUL: return WD_OP_I64_MUL_I;
    case WD_OP_I64_AND: return WD_OP_I64_AND_I;
    case WD_OP_I64_OR: return WD_OP_I64_OR_I;
    case WD_OP_I64_XOR: return WD_OP_I64_XOR_I;
    case WD_OP_I64_SHL: return WD_OP_I64_SHL_I;
    case WD_OP_I64_SHR_S: return WD_OP_I64_SHR_S_I;
    case WD_OP_I64_SHR_U: return WD_OP_I64_SHR_U_I;
    case WD_OP_I32_ROTL: return WD_OP_I32_ROTL_I;
    case WD_OP_I32_ROTR: return WD_OP_I32_ROTR_I;
    case WD_OP_I64_ROTL: return WD_OP_I64_ROTL_I;
    case WD_OP_I64_ROTR: return WD_OP_I64_ROTR_I;
    default:
        /* the comparisons: their _I forms follow the same order */
        if (op >= WD_OP_I64_EQ && op <= WD_OP_I64_GE_U)
            return op - WD_OP_I64_EQ + WD_OP_I64_EQ_I;
        return 0;
    }
}

/* The operation computing `b op a` for `a op b` (a commutative op, or a comparison
 * mirrored), or 0. */
static uint32_t mirrored(uint32_t op)
{
    switch (op) {
    case WD_OP_I32_ADD: case WD_OP_I32_MUL: case WD_OP_I32_AND: case WD_OP_I32_OR:
    case WD_OP_I32_XOR: case WD_OP_I32_EQ: case WD_OP_I32_NE:
    case WD_OP_I64_ADD: case WD_OP_I64_MUL: case WD_OP_I64_AND: case WD_OP_I64_OR:
    case WD_OP_I64_XOR:
        return op;
    case WD_OP_I32_LT_S: return WD_OP_I32_GT_S;
    case WD_OP_I32_LT_U: return WD_OP_I32_GT_U;
    case WD_OP_I32_GT_S: return WD_OP_I32_LT_S;
    case WD_OP_I32_GT_U: return WD_OP_I32_LT_U;
    case WD_OP_I32_LE_S: return WD_OP_I32_GE_S;
    case WD_OP_I32_LE_U: return WD_OP_I32_GE_U;
    case WD_OP_I32_GE_S: return WD_OP_I32_LE_S;
    case WD_OP_I32_GE_U: return WD_OP_I32_LE_U;
    case WD_OP_I64_EQ: case WD_OP_I64_NE: return op;
    case WD_OP_I64_LT_S: return WD_OP_I64_GT_S;
    case WD_OP_I64_LT_U: return WD_OP_I64_GT_U;
    case WD_OP_I64_GT_S: return WD_OP_I64_LT_S;
    case WD_OP_I64_GT_U: return WD_OP_I64_LT_U;
    case WD_OP_I64_LE_S: return WD_OP_I64_GE_S;
    case WD_OP_I64_LE_U: return WD_OP_I64_GE_U;
    case WD_OP_I64_GE_S: return WD_OP_I64_LE_S;
    case WD_OP_I64_GE_U: return WD_OP_I64_LE_U;
    default: return 0;
    }
}

/* The form of i64 operation op with a 64-bit constant operand in a DATA, or 0. */
static uint32_t wide_form(uint32_t op)
{
    switch (op) {
    case WD_OP_I64_ADD: return WD_OP_I64_ADD_W;
    case WD_OP_I64_SUB: return WD_OP_I64_SUB_W;
    case WD_OP_I64_MUL: return WD_OP_I64_MUL_W;
    case WD_OP_I64_AND: return WD_OP_I64_AND_W;
    case WD_OP_I64_OR: return WD_OP_I64_OR_W;
    case WD_OP_I64_XOR: return WD_OP_I64_XOR_W;
    default: return 0;
    }
}

/* The first of the three forms of xor, or or add `op` fused with a shift or rotation by an
 * immediate (ops.def: ..._SHL, ..._SHR_U, ..._ROTL, in that order), or 0. */
static uint32_t shift_form(uint32_t op)
{
    switch (op) {
    case WD_OP_I32_XOR: return WD_OP_I32_XOR_SHL;
    case WD_OP_I32_OR: return WD_OP_I32_OR_SHL;
    case WD_OP_I32_ADD: return WD_OP_I32_ADD_SHL;
    case WD_OP_I64_XOR: return WD_OP_I64_XOR_SHL;
    case WD_OP_I64_OR: return WD_OP_I64_OR_SHL;
    case WD_OP_I64_ADD: return WD_OP_I64_ADD_SHL;
    default: return 0;
    }
}

/* Instruction i as a shift or rotation by an immediate of an operand of `type`: which (0 a
 * shl, 1 a shr_u, 2 a rotl, as shift_form orders them; a rotr is the rotl by the width less
 * its count) and its count, below the width, in *count; -1 if it is none. */
static int shift_kind(const wd_insn *i, uint8_t type, uint32_t *count)
{
    bool wide = type == WD_I64;
    uint32_t mask = wide ? 63 : 31, op = i->op;
    *count = i->c & mask;
    if (op == (wide ? WD_OP_I64_SHL_I : WD_OP_I32_SHL_I))
        return 0;
    if (op == (wide ? WD_OP_I64_SHR_U_I : WD_OP_I32_SHR_U_I))
        return 1;
    if (op == (wide ? WD_OP_I64_ROTL_I : WD_OP_I32_ROTL_I))
        return 2;
    if (op == (wide ? WD_OP_I64_ROTR_I : WD_OP_I32_ROTR_I)) {
        *count = (0u - i->c) & mask;
        return 2;
    }
    return -1;
}

/* The fused forms of each memory instruction (ops.def): after the instruction itself, its
 * forms with the address from an i32.add, from an i32.add of an immediate, and with a
 * constant value (stores); 0 where there is none. */
static const uint16_t mem_forms[][4] = {
    {WD_OP_I32_LOAD, WD_OP_I32_LOAD_RR, WD_OP_I32_LOAD_RI, 0},
    {WD_OP_I32_LOAD8_S, WD_OP_I32_LOAD8_S_RR, WD_OP_I32_LOAD8_S_RI, 0},
    {WD_OP_I32_LOAD8_U, WD_OP_I32_LOAD8_U_RR, WD_OP_I32_LOAD8_U_RI, 0},
    {WD_OP_I32_LOAD16_S, WD_OP_I32_LOAD16_S_RR, WD_OP_I32_LOAD16_S_RI, 0},
    {WD_OP_I32_LOAD16_U, WD_OP_I32_LOAD16_U_RR, WD_OP_I32_LOAD16_U_RI, 0},
    {WD_OP_I64_LOAD, WD_OP_I64_LOAD_RR, WD_OP_I64_LOAD_RI, 0},
    {WD_OP_I64_LOAD32_U, WD_OP_I64_LOAD32_U_RR, WD_OP_I64_LOAD32_U_RI, 0},
    {WD_OP_I32_STORE, WD_OP_I32_STORE_RR, WD_OP_I32_STORE_RI, WD_OP_I32_STORE_I},
    {WD_OP_I32_STORE8, WD_OP_I32_STORE8_RR, WD_OP_I32_STORE8_RI, WD_OP_I32_STORE8_I},
    {WD_OP_I32_STORE16, WD_OP_I32_STORE16_RR, WD_OP_I32_STORE16_RI, WD_OP_I32_STORE16_I},
    {WD_OP_I64_STORE, WD_OP_I64_STORE_RR, WD_OP_I64_STORE_RI, WD_OP_I64_STORE_I},
    {WD_OP_I64_STORE32, WD_OP_I64_STORE32_RR, WD_OP_I64_STORE32_RI, 0},
};

/* The comparison-and-branch for comparison `op` (negated: jump when it is false). */
static uint32_t branch_form(uint32_t op, bool negate)
{
    /* the ten comparisons of each group in opcode order: eq ne lt_s lt_u gt_s gt_u le_s
     * le_u ge_s ge_u, and the index of each one's negation */
    static const uint8_t negation[10] = {1, 0, 8, 9, 6, 7, 4, 5, 2, 3};
    static const uint32_t group[][2] = {
        /* first comparison, first branch on it */
        {WD_OP_I32_EQ, WD_OP_BR_I32_EQ},
        {WD_OP_I32_EQ_I, WD_OP_BR_I32_EQ_I},
        {WD_OP_I64_EQ, WD_OP_BR_I64_EQ},
        {WD_OP_I64_EQ_I, WD_OP_BR_I64_EQ_I},
    };
    for (size_t g = 0; g < WD_ARRAY_COUNT(group); g++) {
        if (op >= group[g][0] && op < group[g][0] + 10) {
            uint32_t k = op - group[g][0];
            return group[g][1] + (negate ? negation[k] : k);
        }
    }
    return 0;
}

/* Operations whose result may be written straight into a local (they cannot trap, so
 * charging the `local.set` with them is exact). */
static bool pure_producer(uint32_t op)
{
    if (op == WD_OP_MOV || op == WD_OP_MOV2 || op == WD_OP_CONST32 || op == WD_OP_CONST64 ||
        op == WD_OP_GLOBAL_GET || (op >= WD_OP_I32_ADD_I && op <= WD_OP_I64_GE_U_I) ||
        (op >= WD_OP_I32_XOR_SHL && op <= WD_OP_I64_MUL_ADD) ||
        (wd_op_has_data(op) && !wd_op_is_copy(op)))
        return true;
    uint8_t kind = wd_op_info[op].kind;
    return (kind == WD_KIND_UN || kind == WD_KIND_BIN) && !wd_op_traps_with_result(op);
}

static void init_forms(opform *forms)
{
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        opform *f = &forms[op];
        f->imm = (uint16_t)imm_form(op);
        f->mirror = (uint16_t)mirrored(op);
        f->mirror_imm = f->mirror != 0 ? (uint16_t)imm_form(f->mirror) : 0;
        f->wide = (uint16_t)wide_form(op);
        memset(f->mem, 0, sizeof f->mem);
        f->br[0] = (uint16_t)branch_form(op, false);
        f->br[1] = (uint16_t)branch_form(op, true);
        f->shift = (uint16_t)shift_form(op);
        bool pure = pure_producer(op);
        f->flags = (uint8_t)((pure ? F_PURE : 0) | (wd_op_traps_with_result(op) ? F_TRAPS : 0) |
                             (pure && !wd_op_has_data(op) ? F_COPY : 0));
    }
    for (size_t i = 0; i < WD_ARRAY_COUNT(mem_forms); i++) { /* one pass, not a search per op */
        memcpy(forms[mem_forms[i][0]].mem, &mem_forms[i][1], sizeof forms->mem);
        if (wd_op_info[mem_forms[i][0]].kind == WD_KIND_LOAD) /* a load and its fused forms */
            for (size_t k = 0; k < 3; k++)
                if (mem_forms[i][k] != 0)
                    forms[mem_forms[i][k]].flags |= F_COPY;
    }
}

/* The lazy operand at height h, or NULL. */
WD_INLINE lazy *find_lazy(xlate *x, uint32_t h)
{
    if (h >= x->lz_end)
        return NULL;
    if (h == x->lz_end - 1)
        return &x->lz[x->nlz - 1];
    for (uint32_t i = x->nlz - 1; i-- > 0;) {
        if (x->lz[i].h == h)
            return &x->lz[i];
        if (x->lz[i].h < h)
            break;
    }
    return NULL;
}

static void forget_lazy(xlate *x, lazy *l)
{
    for (uint32_t i = (uint32_t)(l - x->lz); i + 1 < x->nlz; i++)
        x->lz[i] = x->lz[i + 1]; /* usually none: the last one goes */
    x->nlz--;
    x->lz_end = x->nlz > 0 ? x->lz[x->nlz - 1].h + 1 : 0;
}

/* Adds lazy operand l (the highest). */
WD_INLINE void add_lazy(xlate *x, const lazy *l)
{
    x->lz[x->nlz++] = *l;
    x->lz_end = l->h + 1;
}

/* Makes the value at height h (a lazy operand) a lazy `kind` one, if there is room. */
WD_INLINE bool make_lazy(xlate *x, uint32_t h, uint32_t kind, uint32_t local, uint64_t k)
{
    if (x->no_fuse || !x->live || x->nlz == MAX_LAZY)
        return false;
    if (x->lz_end > h)
        forget_above(x, h);
    lazy *l = &x->lz[x->nlz++];
    l->h = h;
    l->kind = kind;
    l->local = local;
    l->k = k;
    x->lz_end = h + 1;
    return true;
}

/* Emits the move into slot `dst` of the value at height h, lazy operand l or NULL (nothing
 * if it is there). */
static wd_status move_lazy(xlate *x, uint32_t dst, uint32_t h, const lazy *l)
{
    if (l == NULL || l->kind == LZ_LOCAL) {
        uint32_t src = l != NULL ? l->local : slot(x, h);
        return src != dst ? emit_mov(x, dst, src) : WD_OK;
    }
    if (l->kind == LZ_CONST32)
        return emit(x, WD_OP_CONST32, dst, (uint32_t)l->k, 0, NULL);
    if (l->kind == LZ_ADDK)
        return emit(x, WD_OP_I32_ADD_I, dst, l->local, (uint32_t)l->k, NULL);
    return emit_const64(x, dst, l->k);
}

/* Emits the move of the value at height h into slot `dst` (nothing if it is there). */
static wd_status move_value(xlate *x, uint32_t dst, uint32_t h)
{
    return move_lazy(x, dst, h, find_lazy(x, h));
}

/* Emits the move of lazy operand l (at height h) into its slot, for a consumer that reads it
 * there: the move carries the pending costs (its operand's), not the current instruction's,
 * which stay for the consumer's own instruction (a dynamic cost that does not fit stops in
 * front of it, refunding its own cost only: memory.fill of constants stopped 6 ticks later
 * fused than unfused). */
static wd_status move_operand(xlate *x, lazy *l, uint32_t h)
{
    uint64_t cur = x->cur;
    x->cur = 0;
    wd_status st = move_lazy(x, slot(x, h), h, l);
    x->cur += cur;
    return st;
}

/* Moves lazy operand l (at height h) into its slot. */
static WD_NOINLINE wd_status materialize_lazy(xlate *x, lazy *l, uint32_t h)
{
    WD_TRY(move_operand(x, l, h));
    forget_lazy(x, l);
    return WD_OK;
}

/* Moves the lazy operand at height h, if it is one, into its slot. Nothing in dead code: an
 * operand popped there may be none (the spec's Unknown), and a lazy operand recorded at that
 * height is then an earlier one, dropped (as in materialize_range). */
WD_INLINE wd_status materialize(xlate *x, uint32_t h)
{
    if (!x->live)
        return WD_OK;
    lazy *l = find_lazy(x, h);
    return l == NULL ? WD_OK : materialize_lazy(x, l, h);
}

/* Materializes the lazy operands at heights [lo, hi). */
static wd_status materialize_range(xlate *x, uint32_t lo, uint32_t hi)
{
    if (!x->live || lo >= x->lz_end)
        return WD_OK;
    uint32_t i = 0;
    while (i < x->nlz && x->lz[i].h < lo) /* by increasing height: the range is contiguous */
        i++;
    while (i < x->nlz && x->lz[i].h < hi) {
        lazy *l = &x->lz[i];
        WD_TRY(move_operand(x, l, l->h));
        forget_lazy(x, l); /* lz[i] is the next one then */
    }
    return WD_OK;
}

/* Materializes the top n operands (those a consumer reads from consecutive slots). */
static wd_status materialize_top(xlate *x, uint32_t n)
{
    uint32_t v = x->val_count;
    return materialize_range(x, v > n ? v - n : 0, v);
}

/* Moves the n (popped) values at heights h... into slots dst...: a branch's values. */
static wd_status move_values(xlate *x, uint32_t dst, uint32_t h, uint32_t n)
{
    if (n == 1)
        return move_value(x, dst, h);
    WD_TRY(materialize_range(x, h, h + n));
    return emit_moves(x, dst, slot(x, h), n);
}

/* Materializes the operands on the stack that read local `idx`, before it is written. */
static wd_status materialize_local(xlate *x, uint32_t idx)
{
    for (uint32_t i = 0; i < x->nlz;) {
        lazy *l = &x->lz[i];
        if ((l->kind == LZ_LOCAL || l->kind == LZ_ADDK) && l->local == idx &&
            l->h < x->val_count) {
            WD_TRY(move_lazy(x, slot(x, l->h), l->h, l));
            forget_lazy(x, l);
        } else {
            i++;
        }
    }
    return WD_OK;
}

/* The slot to read the (popped) operand at height h from, its lazy entry (find_lazy) being
 * l: its own, or a lazy local's; a lazy constant is materialized first. Call before the
 * next push reuses the height. */
WD_INLINE wd_status operand_of(xlate *x, uint32_t h, lazy *l, uint32_t *at)
{
    if (l != NULL && l->kind == LZ_LOCAL) {
        *at = l->local;
        return WD_OK;
    }
    *at = slot(x, h);
    return l == NULL ? WD_OK : materialize_lazy(x, l, h);
}

/* operand_of the operand at height h, looked up. */
WD_INLINE wd_status operand(xlate *x, uint32_t h, uint32_t *at)
{
    return operand_of(x, h, find_lazy(x, h), at);
}

/* Lazy operand l (or NULL) as an immediate of an operation on `type`, if it is a constant
 * that fits (i64: a sign-extended 32-bit value). */
WD_INLINE bool lazy_imm(const lazy *l, uint8_t type, uint32_t *imm)
{
    if (l == NULL || l->kind == LZ_LOCAL)
        return false;
    if (l->kind == LZ_CONST32 && type == WD_I32) {
        *imm = (uint32_t)l->k;
        return true;
    }
    if (l->kind == LZ_CONST64 && type == WD_I64 && (int64_t)(int32_t)(uint32_t)l->k == (int64_t)l->k) {
        *imm = (uint32_t)l->k;
        return true;
    }
    return false;
}

/* The popped operand at height h as an immediate of an operation on `type` (lazy_imm). */
WD_INLINE bool operand_imm(xlate *x, uint32_t h, uint8_t type, uint32_t *imm)
{
    return lazy_imm(find_lazy(x, h), type, imm);
}

/* The DATA carrying 64-bit k after the instruction just emitted (wd_op_has_data). */
static void put_data(xlate *x, uint64_t k)
{
    uint32_t idx = put(x, WD_OP_DATA, NONE, 0, 0, 0, x->op_off);
    x->insns[idx].bc = k;
}

/* Emits wide operation wop into slot(h) of the popped operand at height `from` and the
 * constant k, which goes into the DATA that follows. */
static wd_status emit_wide(xlate *x, uint32_t wop, uint32_t h, uint32_t from, uint64_t k)
{
    uint32_t src = 0;
    WD_TRY(operand(x, from, &src));
    WD_TRY(emit(x, wop, slot(x, h), src, 0, NULL));
    put_data(x, k);
    return WD_OK;
}

/* The lazy operands at heights h (*lo) and h + 1 (*hi), NULL where there is none: two
 * find_lazy in one pass (heights in lz increase strictly). */
WD_INLINE void find_lazy2(xlate *x, uint32_t h, lazy **lo, lazy **hi)
{
    *lo = *hi = NULL;
    if (h >= x->lz_end)
        return;
    if (x->lz_end <= h + 2) { /* the last one is at h + 1 or h: nothing above */
        lazy *l = &x->lz[x->nlz - 1];
        if (l->h == h) {
            *lo = l;
        } else {
            *hi = l;
            if (x->nlz >= 2 && l[-1].h == h)
                *lo = l - 1;
        }
        return;
    }
    for (uint32_t i = x->nlz; i-- > 0;) {
        lazy *l = &x->lz[i];
        if (l->h > h + 1)
            continue;
        if (l->h == h + 1) {
            *hi = l;
            continue;
        }
        if (l->h == h)
            *lo = l;
        break;
    }
}

static bool is_signed_div(uint32_t op)
{
    return op == WD_OP_I32_DIV_S || op == WD_OP_I32_REM_S;
}

/* Whether i32 division or remainder op by the constant d cannot trap and is worth a
 * *_K form (ops.def), or a shift or mask: d is not 0, 1 or (signed) -1. */
static bool div_by_const(uint32_t op, uint32_t d)
{
    return is_signed_div(op) ? d != 0 && d != 1 && d != UINT32_MAX : d >= 2;
}

/* Emits i32 division or remainder op of the popped lhs at height h (lazy entry l) by d
 * (div_by_const): an unsigned one by a power of two as a shift or a mask, else its *_K
 * form with ceil(2^64 / |d|) in a DATA. */
static wd_status emit_div_const(xlate *x, uint32_t op, uint32_t h, lazy *l, uint32_t d)
{
    uint32_t lhs = 0;
    WD_TRY(operand_of(x, h, l, &lhs));
    bool is_signed = is_signed_div(op), is_rem = op == WD_OP_I32_REM_S || op == WD_OP_I32_REM_U;
    if (!is_signed && (d & (d - 1)) == 0) {
        uint32_t shift = 0;
        while ((d >> shift) != 1)
            shift++;
        return is_rem ? emit(x, WD_OP_I32_AND_I, slot(x, h), lhs, d - 1, NULL)
                      : emit(x, WD_OP_I32_SHR_U_I, slot(x, h), lhs, shift, NULL);
    }
    uint32_t ad = is_signed && (int32_t)d < 0 ? 0u - d : d;
    WD_TRY(emit(x, WD_OP_I32_DIV_S_K + (op - WD_OP_I32_DIV_S), slot(x, h), lhs, d, NULL));
    put_data(x, UINT64_MAX / ad + 1);
    return WD_OK;
}

/* Emits xor, or or add `op` of slots lhs and rhs (the popped operands at heights h, h + 1)
 * into slot(h): fused (`shift`, its shift_form) with the shift or rotation by an immediate
 * that the block's last instruction computed into the slot of one of them. */
static wd_status emit_shift_fused(xlate *x, uint32_t op, uint32_t shift, uint8_t type,
                                  uint32_t h, uint32_t lhs, uint32_t rhs)
{
    wd_insn *l1 = tail(x, 1);
    uint32_t count = 0;
    int kind = -1;
    bool in_slot = l1 != NULL && ((l1->a == lhs && lhs == slot(x, h)) ||
                                  (l1->a == rhs && rhs == slot(x, h + 1)));
    if (in_slot)
        kind = shift_kind(l1, type, &count);
    if (kind < 0)
        return emit(x, op, slot(x, h), lhs, rhs, NULL);
    uint32_t src = l1->b, other = l1->a == lhs ? rhs : lhs;
    drop_last(x);
    return emit_k(x, shift + (uint32_t)kind, slot(x, h), src, other, (uint16_t)count);
}

/* Emits rotation `rot` (I32_ROTL_I.. I64_ROTR_I) by `imm` of slot(h), the popped operand at
 * height h: fused with the xor that the block's last instruction computed into that slot. */
static wd_status emit_rotl_xor(xlate *x, uint32_t rot, uint8_t type, uint32_t h, uint32_t imm)
{
    bool wide = type == WD_I64;
    wd_insn *l1 = tail(x, 1);
    if (l1 == NULL || l1->a != slot(x, h) || l1->op != (wide ? WD_OP_I64_XOR : WD_OP_I32_XOR))
        return emit(x, rot, slot(x, h), slot(x, h), imm, NULL);
    uint32_t mask = wide ? 63 : 31, b = l1->b, c = l1->c;
    bool right = rot == WD_OP_I32_ROTR_I || rot == WD_OP_I64_ROTR_I;
    drop_last(x);
    return emit_k(x, wide ? WD_OP_I64_ROTL_XOR : WD_OP_I32_ROTL_XOR, slot(x, h), b, c,
                  (uint16_t)((right ? 0u - imm : imm) & mask));
}

/* Emits add `op` (i32 or i64) of slots lhs and rhs (the popped operands at heights h, h + 1)
 * into slot(h) fused with the multiplication that the block's last instruction computed into
 * the slot of one of them, when it did (true, *st the outcome): acc + x * y in one
 * instruction, the addend's slot in `k` (it must fit). */
static bool emit_mul_add(xlate *x, uint32_t op, uint32_t h, uint32_t lhs, uint32_t rhs,
                         wd_status *st)
{
    bool wide = op == WD_OP_I64_ADD;
    wd_insn *l1 = tail(x, 1);
    if (l1 == NULL || l1->op != (wide ? WD_OP_I64_MUL : WD_OP_I32_MUL))
        return false;
    uint32_t addend;
    if (l1->a == lhs && lhs == slot(x, h))
        addend = rhs;
    else if (l1->a == rhs && rhs == slot(x, h + 1))
        addend = lhs;
    else
        return false;
    if (addend > UINT16_MAX)
        return false;
    uint32_t b = l1->b, c = l1->c;
    drop_last(x);
    *st = emit_k(x, wide ? WD_OP_I64_MUL_ADD : WD_OP_I32_MUL_ADD, slot(x, h), b, c,
                 (uint16_t)addend);
    return true;
}

/* Emits binary operation `op` on the popped operands at heights h, h+1 into slot(h),
 * taking a constant operand as an immediate where there is an immediate form. */
WD_INLINE wd_status emit_binary(xlate *x, uint32_t op, uint8_t type, uint32_t h)
{
    const opform *f = &x->forms[op];
    uint32_t lhs = 0, rhs = 0, imm = 0;
    lazy *l = NULL, *k = NULL;
    find_lazy2(x, h, &l, &k);
    if (WD_UNLIKELY(op == WD_OP_I64_AND) && k != NULL && k->kind == LZ_CONST64 &&
        k->k == UINT32_MAX) {
        /* x & 0xFFFFFFFF (no immediate form: it does not sign-extend from 32 bits) */
        WD_TRY(operand_of(x, h, l, &lhs));
        return emit(x, WD_OP_I64_EXTEND_I32_U, slot(x, h), lhs, 0, NULL);
    }
    if (f->imm != 0 && lazy_imm(k, type, &imm)) {
        WD_TRY(operand_of(x, h, l, &lhs));
        if (WD_UNLIKELY(op == WD_OP_I32_ROTL || op == WD_OP_I32_ROTR || op == WD_OP_I64_ROTL ||
                        op == WD_OP_I64_ROTR) &&
            lhs == slot(x, h))
            return emit_rotl_xor(x, f->imm, type, h, imm);
        return emit(x, f->imm, slot(x, h), lhs, imm, NULL);
    }
    if (WD_UNLIKELY(op >= WD_OP_I32_DIV_S && op <= WD_OP_I32_REM_U) && k != NULL &&
        k->kind == LZ_CONST32 && div_by_const(op, (uint32_t)k->k))
        return emit_div_const(x, op, h, l, (uint32_t)k->k);
    if (f->mirror_imm != 0 && lazy_imm(l, type, &imm)) {
        WD_TRY(operand_of(x, h + 1, k, &rhs));
        return emit(x, f->mirror_imm, slot(x, h), rhs, imm, NULL);
    }
    if (WD_UNLIKELY(f->wide != 0)) {
        if (k != NULL && k->kind == LZ_CONST64)
            return emit_wide(x, f->wide, h, h, k->k);
        if (f->mirror == op && l != NULL && l->kind == LZ_CONST64)
            return emit_wide(x, f->wide, h, h + 1, l->k);
    }
    bool moved = l != NULL && l->kind != LZ_LOCAL; /* materialized: entries above shift */
    WD_TRY(operand_of(x, h, l, &lhs));
    if (moved)
        k = find_lazy(x, h + 1);
    WD_TRY(operand_of(x, h + 1, k, &rhs));
    wd_status st = WD_OK;
    if ((op == WD_OP_I32_ADD || op == WD_OP_I64_ADD) && emit_mul_add(x, op, h, lhs, rhs, &st))
        return st;
    if (f->shift != 0)
        return emit_shift_fused(x, op, f->shift, type, h, lhs, rhs);
    return emit(x, op, slot(x, h), lhs, rhs, NULL);
}

/* Charges the pending and current costs to instruction i, the open block's last one or a
 * wide operation before its DATA (it must not trap: it then stands for what follows it
 * too). False if the sums would overflow. */
static bool charge_to(xlate *x, uint32_t i)
{
    uint64_t cost = x->pending + x->cur;
    if ((uint64_t)x->charge + cost > UINT32_MAX || x->icosts[i] + cost > UINT32_MAX)
        return false;
    x->icosts[i] += (uint32_t)cost;
    x->charge += (uint32_t)cost;
    x->pending = x->cur = 0;
    x->pending_off = NONE;
    return true;
}

/* `local.set idx` (tee: local.tee) of operand slot `src`: retargets the instruction that
 * produced it. One that can trap takes a local.set alone (code.h, "Peephole fusion"). */
static bool fold_local_set(xlate *x, uint32_t idx, uint32_t src, bool tee)
{
    wd_insn *l1 = tail(x, 1);
    uint32_t at = x->insn_count - 1;
    if (l1 != NULL && l1->op == WD_OP_DATA && tail(x, 2) != NULL && wd_op_has_data(tail(x, 2)->op))
        l1 = tail(x, 2), at--; /* a wide operation: its constant follows it */
    if (l1 != NULL && l1->op == WD_OP_MOV2) {
        /* its second move may go into the local instead, being the last write; not its
         * first, which would then come before the second's read of that local */
        if (l1->c != src || !charge_to(x, at))
            return false;
        l1->c = idx;
        return true;
    }
    if (l1 == NULL || l1->a != src)
        return false;
    uint8_t flags = x->forms[l1->op].flags;
    bool traps = (flags & F_TRAPS) != 0;
    const uint32_t *op_cost = x->costs->op;
    if (traps && (x->pending != 0 || (tee && op_cost[0x22] != op_cost[0x21])))
        return false; /* only the set's cost may be refunded (0x21 local.set, 0x22 tee) */
    if (!traps && !(flags & F_PURE))
        return false;
    if (!charge_to(x, at))
        return false;
    l1->a = idx;
    return true;
}

/* Emits a branch on the popped condition at height h (when_true: jump if non-zero), fused
 * with the comparison, eqz or i32.and of an immediate that computed it. */
static wd_status emit_cond_branch(xlate *x, bool when_true, uint32_t h, uint32_t *idx)
{
    uint32_t cond = slot(x, h);
    wd_insn *l1 = find_lazy(x, h) == NULL ? tail(x, 1) : NULL;
    if (l1 != NULL && l1->a == cond) {
        uint32_t b = l1->b, c = l1->c, op = l1->op;
        if (op == WD_OP_I32_EQZ || op == WD_OP_I64_EQZ) {
            bool wide = op == WD_OP_I64_EQZ;
            drop_last(x);
            return emit(x, when_true ? (wide ? WD_OP_BR_I64_Z : WD_OP_BR_IF_Z)
                                     : (wide ? WD_OP_BR_I64_NZ : WD_OP_BR_IF_NZ),
                        NONE, b, 0, idx);
        }
        if (op == WD_OP_I32_AND_I) {
            drop_last(x);
            return emit(x, when_true ? WD_OP_BR_I32_AND_NZ_I : WD_OP_BR_I32_AND_Z_I, NONE, b, c,
                        idx);
        }
        uint32_t br = x->forms[op].br[!when_true];
        if (br != 0) {
            drop_last(x);
            return emit(x, br, NONE, b, c, idx);
        }
    }
    WD_TRY(operand(x, h, &cond));
    return emit(x, when_true ? WD_OP_BR_IF_NZ : WD_OP_BR_IF_Z, NONE, cond, 0, idx);
}

static const uint32_t no_cost[WD_OP_COUNT]; /* dead code's */

/* Whether the code from here on is live; dead code costs nothing (xlate.cost). */
WD_INLINE void set_live(xlate *x, bool live)
{
    x->live = live;
    x->cost = live ? x->t->op_cost : no_cost;
}

/* After an unconditional branch, return or trap: the spec's unreachable(). */
static void terminate(xlate *x)
{
    frame *f = top_frame(x);
    x->val_count = f->height;
    f->unreachable = true;
    set_live(x, false);
    x->cur = 0;
    close_block(x);
}

/* ---- the PVM's structural costs --------------------------------------------------------
 * base/costs.h names them; vm/tickmodel.c gives the Octez rule of each. Octez keeps a value
 * stack per label (only the values pushed since the label began), so what a join or a
 * return costs depends on static heights: the values carried, and the values the receiving
 * label already holds (H). */

#define EDGE_MAX UINT16_MAX /* the most a branch's `edge` holds */

/* H of frame f: the values its enclosing label held when f began, below f's params. For the
 * function's frame that is the caller's label: charged after the call (post_call). */
static uint32_t outer_height(const xlate *x, const frame *f)
{
    return f == x->ctrls ? 0 : f->height - f[-1].height;
}

/* f's label joins its enclosing label carrying n values (LS_Consolidate_top, Breaking 0). */
static uint64_t join_cost(const xlate *x, const frame *f, uint32_t n)
{
    const wd_costs *c = x->costs;
    return c->concat + (uint64_t)c->per_value * n + (uint64_t)c->per_outer * outer_height(x, f);
}

/* The fall-through end of block, loop or if arm f: From_block at the list's end, the join. */
static uint64_t end_cost(const xlate *x, const frame *f)
{
    return x->costs->label_step + join_cost(x, f, f->result_count);
}

/* A taken branch to frame t, `depth` labels out, after the br itself: a Breaking step per
 * label left, then the join (a loop's `loop` runs again: one more step), or at the
 * function's label its Label_result (the frame's return is charged after the call). */
static uint64_t branch_cost(const xlate *x, const frame *t, uint32_t depth)
{
    const wd_costs *c = x->costs;
    uint64_t n = (uint64_t)c->label_step * depth;
    if (t->kind == K_FUNC)
        return n + c->label_step;
    return n + join_cost(x, t, label_arity(t)) + (t->kind == K_LOOP ? c->label_step : 0);
}

/* The branch a br_if or br_table takes: it queues a br (one step), which then runs. */
static uint64_t queued_branch_cost(const xlate *x, const frame *t, uint32_t depth)
{
    return x->costs->label_step + branch_cost(x, t, depth);
}

/* A cost for the next instruction emitted (the first of the block after a call). */
static void charge_next(xlate *x, uint64_t cost)
{
    if (cost == 0)
        return;
    if (x->pending_off == NONE)
        x->pending_off = x->op_off;
    x->pending += cost;
}

/* ---- control instructions ------------------------------------------------------------- */

static const uint8_t value_types[] = {WD_I32,  WD_I64,     WD_F32,      WD_F64,
                                      WD_V128, WD_FUNCREF, WD_EXTERNREF};

static wd_status block_type(xlate *x, const wd_body_imm *im, frame *f)
{
    if (im->bt_kind == WD_BT_EMPTY)
        return WD_OK;
    if (im->bt_kind == WD_BT_VALUE) {
        WD_TRY(check_valtype(x, im->vt));
        f->result_count = 1;
        f->results = memchr(value_types, im->vt, sizeof value_types);
        WD_ASSERT(f->results != NULL);
        return WD_OK;
    }
    if (im->x >= x->m->type_count)
        return invalid(x, "unknown type %" PRIu32, im->x);
    const wd_functype *ft = &x->m->types[im->x];
    WD_TRY(check_functype(x, ft));
    f->param_count = ft->param_count;
    f->params = ft->params;
    f->result_count = ft->result_count;
    f->results = ft->results;
    return WD_OK;
}

/* block, loop or if (im: op and block type). */
static wd_status do_block(xlate *x, const wd_body_imm *im)
{
    frame f;
    memset(&f, 0, sizeof f);
    WD_TRY(block_type(x, im, &f));
    f.kind = im->op == WD_OP_LOOP ? K_LOOP : im->op == WD_OP_IF ? K_IF : K_BLOCK;
    x->shape.blocks += f.kind == K_BLOCK;
    x->shape.loops += f.kind == K_LOOP;
    x->shape.ifs += f.kind == K_IF;
    f.live_in = x->live;
    f.label = f.fixups = f.else_fixup = NONE;
    uint32_t cond = 0;
    /* every path into the block finds the values below it in their slots; an if's
     * condition may stay lazy */
    WD_TRY(materialize_range(x, 0, x->val_count - (f.kind == K_IF && x->val_count > 0)));
    if (f.kind == K_IF) {
        WD_TRY(pop(x, WD_I32));
        cond = x->val_count;
    }
    WD_TRY(pop_n(x, f.params, f.param_count));
    if (x->live && f.kind == K_LOOP) {
        WD_TRY(flush(x)); /* `loop` runs once: its cost stays outside the loop */
        f.label = x->insn_count;
    } else if (x->live && f.kind == K_IF) {
        WD_TRY(emit_cond_branch(x, false, cond, &f.else_fixup));
        close_block(x);
    }
    return push_ctrl(x, &f);
}

static wd_status do_else(xlate *x)
{
    x->shape.ends++;
    if (top_frame(x)->kind != K_IF)
        return wd_fail(x->err, WD_ERR_MALFORMED, x->op_off, "END opcode expected");
    frame f;
    uint64_t end = end_cost(x, top_frame(x));
    WD_TRY(materialize_top(x, top_frame(x)->result_count));
    WD_TRY(pop_ctrl(x, &f));
    if (x->live) {
        x->cur += end;
        WD_TRY(emit_branch(x, WD_OP_JMP, 0, &f, 0));
    }
    close_block(x);
    set_live(x, f.live_in);
    if (f.live_in)
        patch(x, f.else_fixup, x->insn_count);
    f.kind = K_ELSE;
    f.else_fixup = NONE;
    return push_ctrl(x, &f);
}

static bool same_types(uint32_t n1, const uint8_t *t1, uint32_t n2, const uint8_t *t2)
{
    return n1 == n2 && (n1 == 0 || memcmp(t1, t2, n1) == 0);
}

/* `end` of a block, loop, if or else (the function's end is do_end_func). */
static wd_status do_end(xlate *x)
{
    frame f;
    x->shape.ends++;
    uint64_t carry = end_cost(x, top_frame(x));
    WD_TRY(materialize_top(x, top_frame(x)->result_count));
    WD_TRY(pop_ctrl(x, &f));
    if (f.kind == K_IF && !same_types(f.param_count, f.params, f.result_count, f.results))
        return invalid(x, "type mismatch in if: no else branch, but the results differ "
                          "from the params");
    bool fall = x->live;
    if (fall)
        x->cur += carry;
    if (f.kind == K_IF && f.else_fixup != NONE && carry != 0 && carry <= EDGE_MAX) {
        /* The false edge of an if without else runs its empty else arm: the branch to the
         * end charges that arm's end when taken. */
        x->insns[f.else_fixup].edge = (uint16_t)carry;
    } else if (f.kind == K_IF && f.else_fixup != NONE && carry != 0) {
        /* too much for an edge: the false edge gets a block of its own that charges it,
         * and the then branch jumps over it */
        if (fall)
            WD_TRY(emit_branch(x, WD_OP_JMP, 0, &f, 0));
        close_block(x);
        set_live(x, fall = true);
        patch(x, f.else_fixup, x->insn_count);
        f.else_fixup = NONE;
        x->cur = carry;
        WD_TRY(emit_nop_cost(x));
    }
    if (f.fixups != NONE || f.else_fixup != NONE) {
        WD_TRY(flush(x));
        patch(x, f.fixups, x->insn_count);
        patch(x, f.else_fixup, x->insn_count);
        set_live(x, true);
    } else {
        set_live(x, fall);
    }
    return push_n(x, f.results, f.result_count);
}

/* The slot of the first of the n popped results at height h for a RETURN: a single
 * result may be returned from the local it is lazily in; others are materialized. */
static wd_status return_src(xlate *x, uint32_t h, uint32_t n, uint32_t *src)
{
    const lazy *l = n == 1 ? find_lazy(x, h) : NULL;
    *src = slot(x, h);
    if (l != NULL && l->kind == LZ_LOCAL) {
        *src = l->local;
        return WD_OK;
    }
    return materialize_range(x, h, h + n);
}

static wd_status do_end_func(xlate *x)
{
    frame f;
    x->shape.ends++;
    uint32_t n = top_frame(x)->result_count, src = x->local_slots;
    WD_TRY(pop_ctrl(x, &f));
    if (x->live && f.fixups == NONE)
        WD_TRY(return_src(x, 0, n, &src));
    else
        WD_TRY(materialize_range(x, 0, n)); /* where the branches to the end left theirs */
    /* the natural end: From_block at the body's end, Label_result; branches to the end
     * paid their own way (branch_cost); the caller pays the frame's return (post_call) */
    uint64_t fin = 2 * (uint64_t)x->costs->label_step;
    if (f.fixups != NONE) {
        if (x->live)
            x->cur += fin;
        WD_TRY(flush(x));
        patch(x, f.fixups, x->insn_count);
        set_live(x, true);
        x->cur = 0;
        WD_TRY(emit(x, WD_OP_RETURN, x->local_slots, f.result_count, 0, NULL));
    } else if (x->live) {
        x->cur += fin;
        WD_TRY(emit(x, WD_OP_RETURN, src, f.result_count, 0, NULL));
    }
    set_live(x, false);
    x->cur = 0;
    close_block(x);
    return WD_OK;
}

/* ---- a loop's dispatch copied to its back edges ----
 * A `br` back to a loop whose head is a few simple instructions and a br_table (an
 * interpreter's switch loop: the opcode loaded, then dispatched), or up to that many and a
 * conditional branch (a `continue` to a loop that tests first), takes a copy of that head
 * instead of a JMP to it: one dispatch less per iteration (a conditional branch's copy is
 * followed by an empty block and a JMP to where the head falls through, as many dispatches
 * as before when not taken). The copies go into the branching block, which pays for them
 * (their costs as the head's, the branch's own with the first copy); a copied load traps at
 * the head's code offset, paying what the branch and the head pay up to it; a copied branch
 * or entry still waiting for its label's end joins that label's chain. */
enum { HEAD_MAX = 8, HEAD_ENTRIES_MAX = 64 };

/* The open frame whose fixup chain holds branch i, or NULL (its target is known). */
static frame *chain_of(xlate *x, uint32_t i)
{
    for (uint32_t d = 0; d < x->ctrl_count; d++) {
        frame *g = &x->ctrls[d];
        if (g->kind == K_LOOP)
            continue;
        for (uint32_t c = g->fixups; c != NONE; c = x->insns[c].a)
            if (c == i)
                return g;
    }
    return NULL;
}

/* The branch to loop f as a copy of its head, when it is worth one (*done). */
static wd_status copy_loop_head(xlate *x, const frame *f, bool *done)
{
    *done = false;
    uint32_t h = f->label, e = h + 1;
    if (x->no_fuse || h >= x->insn_count || x->insns[h].op != WD_OP_METER)
        return WD_OK;
    /* copyable (F_COPY): no branch, no DATA, slots only (a load may trap) */
    while (e < x->insn_count && e - h <= HEAD_MAX && (x->forms[x->insns[e].op].flags & F_COPY))
        e++;
    if (e >= x->insn_count)
        return WD_OK;
    bool cond = wd_op_is_cond_branch(x->insns[e].op);
    uint32_t last = e;
    if (cond) { /* its fall-through, a block's METER, follows it */
        if (e + 1 >= x->insn_count || x->insns[e + 1].op != WD_OP_METER)
            return WD_OK;
    } else {
        if (e == h + 1 || x->insns[e].op != WD_OP_BR_TABLE)
            return WD_OK;
        uint32_t entries = x->insns[e].b;
        last = e + entries;
        if (entries > HEAD_ENTRIES_MAX || last >= x->insn_count)
            return WD_OK;
    }
    /* the branch's own cost goes with the first copy (a trap there keeps it: a trapping
     * instruction's cost is paid, what follows it refunded) */
    uint64_t own = x->pending + x->cur, head = 0;
    for (uint32_t i = h + 1; i <= last; i++)
        head += x->icosts[i];
    if ((uint64_t)x->charge + head + own > UINT32_MAX)
        return WD_OK;
    WD_TRY(reserve(x, last - h + 2));
    if (!x->open)
        open_block(x);
    for (uint32_t i = h + 1; i <= last; i++) {
        uint64_t cost = x->icosts[i] + (i == h + 1 ? own : 0);
        uint32_t j = put(x, x->insns[i].op, 0, 0, 0, (uint32_t)cost, x->offs[i]);
        x->insns[j] = x->insns[i];
        x->charge += (uint32_t)cost;
        frame *g = i == e ? (cond ? chain_of(x, i) : NULL)
                   : x->insns[i].op == WD_OP_DATA ? chain_of(x, i)
                                                  : NULL;
        if (g != NULL)
            link_branch(x, g, j);
    }
    x->pending = x->cur = 0;
    x->pending_off = NONE;
    close_block(x);
    if (cond) { /* not taken: on to the head's fall-through */
        open_block(x);
        put(x, WD_OP_JMP, e + 1, 0, 0, 0, x->offs[e]);
        close_block(x);
    }
    *done = true;
    return WD_OK;
}

static wd_status do_br(xlate *x, uint32_t depth)
{
    frame *f = NULL;
    WD_TRY(get_label(x, depth, &f));
    uint32_t n = label_arity(f);
    WD_TRY(pop_n(x, label_types(f), n));
    if (x->live) {
        uint32_t h = x->val_count, src = slot(x, h);
        x->cur += branch_cost(x, f, depth);
        if (f->kind == K_FUNC) {
            /* to the function's end, whose return follows at once */
            WD_TRY(return_src(x, h, n, &src));
            WD_TRY(emit(x, WD_OP_RETURN, src, n, 0, NULL));
        } else {
            WD_TRY(move_values(x, slot(x, f->height), h, n));
            bool copied = false;
            if (f->kind == K_LOOP)
                WD_TRY(copy_loop_head(x, f, &copied));
            if (!copied)
                WD_TRY(emit_branch(x, WD_OP_JMP, 0, f, 0));
        }
    }
    terminate(x);
    return WD_OK;
}

/* br_if to f's label carrying the n popped values below the popped condition at height
 * `cond` (emitted before they are pushed back, which would forget lazy ones). */
static wd_status emit_br_if(xlate *x, frame *f, uint32_t cond, uint32_t n, uint64_t taken)
{
    uint32_t h = cond - n, src = slot(x, h), dst = slot(x, f->height);
    WD_TRY(materialize_range(x, h, cond)); /* the fall-through edge keeps them in place */
    if ((n == 0 || src == dst) && taken <= EDGE_MAX)
        return emit_branch(x, WD_OP_BR_IF_NZ, cond, f, (uint32_t)taken);
    /* the taken edge moves (and pays for) the values in a block of its own */
    uint32_t skip = 0;
    WD_TRY(emit_cond_branch(x, false, cond, &skip));
    close_block(x);
    x->cur = taken;
    WD_TRY(emit_moves(x, dst, src, n));
    WD_TRY(emit_branch(x, WD_OP_JMP, 0, f, 0));
    x->insns[skip].a = x->insn_count;
    return WD_OK;
}

static wd_status do_br_if(xlate *x, uint32_t depth)
{
    frame *f = NULL;
    WD_TRY(get_label(x, depth, &f));
    WD_TRY(pop(x, WD_I32));
    uint32_t cond = x->val_count, n = label_arity(f);
    WD_TRY(pop_n(x, label_types(f), n));
    if (x->live)
        WD_TRY(emit_br_if(x, f, cond, n, queued_branch_cost(x, f, depth)));
    return push_n(x, label_types(f), n);
}

/* Pops the label's types and pushes back what was popped (Unknown included), as in 2.0. */
static wd_status repush(xlate *x, const uint8_t *types, uint32_t n)
{
    uint8_t got[MAX_ARITY];
    WD_ASSERT(n <= MAX_ARITY);
    for (uint32_t i = n; i-- > 0;)
        WD_TRY(pop_got(x, types[i], &got[i]));
    return push_n(x, got, n);
}

static wd_status do_br_table(xlate *x, const wd_body_imm *im)
{
    const uint32_t *labels = x->d->labels;
    frame *f = NULL;
    WD_TRY(pop(x, WD_I32));
    uint32_t h = x->val_count, index = 0;
    WD_TRY(get_label(x, im->y, &f));
    uint32_t arity = label_arity(f);
    if (x->live) { /* before the checks below pop and push the values */
        WD_TRY(materialize_range(x, h > arity ? h - arity : 0, h));
        WD_TRY(operand(x, h, &index));
    }
    for (uint32_t i = 0; i < im->count; i++) {
        frame *g = NULL;
        WD_TRY(get_label(x, labels[i], &g));
        if (label_arity(g) != arity)
            return invalid(x,
                           "type mismatch in br_table: label %" PRIu32 " carries %" PRIu32
                           " values, the default %" PRIu32,
                           labels[i], label_arity(g), arity);
        WD_TRY(repush(x, label_types(g), arity));
    }
    WD_TRY(pop_n(x, label_types(f), arity));
    if (x->live) {
        uint32_t src = slot(x, x->val_count);
        WD_TRY(reserve(x, im->count + 1));
        WD_TRY(emit(x, WD_OP_BR_TABLE, index, im->count + 1, arity, NULL));
        for (uint32_t i = 0; i <= im->count; i++) {
            uint32_t depth = i < im->count ? labels[i] : im->y;
            frame *g = &x->ctrls[x->ctrl_count - 1 - depth];
            uint64_t taken = queued_branch_cost(x, g, depth);
            if (taken > EDGE_MAX)
                return invalid(x, "br_table target %" PRIu32 " costs %" PRIu64 " ticks to reach, "
                                  "more than this implementation's limit of %u",
                               depth, taken, EDGE_MAX);
            uint32_t idx = put(x, WD_OP_DATA, NONE, slot(x, g->height), src, 0, x->op_off);
            x->insns[idx].edge = (uint16_t)taken;
            link_branch(x, g, idx);
        }
    }
    terminate(x);
    return WD_OK;
}

static wd_status do_return(xlate *x)
{
    uint32_t n = x->type->result_count, src = 0;
    /* Returning hands the innermost label's whole stack to the caller, untrimmed: values
     * below the results stay in the caller's label (RULES.md 6.4, item 5). Their first
     * cost is charged here; what they cost the caller's later joins is not modelled, so
     * such a return is recorded (wd_code.garbage_at). */
    uint32_t v = x->val_count - top_frame(x)->height;
    WD_TRY(pop_n(x, x->type->results, n));
    if (x->live) {
        x->cur += x->costs->label_step;
        if (v > n) {
            x->cur += (uint64_t)x->costs->per_value * (v - n);
            if (x->garbage_at == 0)
                x->garbage_at = x->op_off + 1;
        }
        WD_TRY(return_src(x, x->val_count, n, &src));
        WD_TRY(emit(x, WD_OP_RETURN, src, n, 0, NULL));
    }
    terminate(x);
    return WD_OK;
}

/* After a call: the callee's frame returns its values into this label, which holds h values
 * (SK_Consolidate_label_result). A host function returns without a frame: only
 * frame_return (its invoke's last two steps). A callee that may be either (an import, or
 * call_indirect's) gets a METER of its own right after the call, charging what only a wasm
 * frame's return costs; the interpreter's host calls step over it. */
static void post_call(xlate *x, bool wasm, uint32_t results, uint32_t h)
{
    const wd_costs *c = x->costs;
    uint64_t back = (uint64_t)c->per_value * results + (uint64_t)c->per_outer * h;
    if (!wasm) {
        open_block(x);
        x->charge = (uint32_t)WD_MIN(back, UINT32_MAX);
        x->icosts[x->meter] = x->charge;
        close_block(x);
        back = 0;
    }
    charge_next(x, c->frame_return + back);
}

/* call (op CALL: idx a function) or call_indirect (idx a type, of table `table`). */
static wd_status do_call(xlate *x, uint32_t op, uint32_t idx, uint32_t table)
{
    const wd_module *m = x->m;
    const wd_functype *ft;
    if (op == WD_OP_CALL) {
        if (idx >= m->func_count)
            return invalid(x, "unknown function %" PRIu32, idx);
        ft = &m->types[m->funcs[idx].type_idx];
    } else {
        if (table >= m->table_count)
            return invalid(x, "unknown table %" PRIu32, table);
        if (idx >= m->type_count)
            return invalid(x, "unknown type %" PRIu32, idx);
        if (m->tables[table].elem != WD_FUNCREF)
            return invalid(
                x, "type mismatch in call_indirect: table %" PRIu32 " is not a funcref table",
                table);
        ft = &m->types[idx];
    }
    /* the arguments (and the element index) are read from consecutive slots; lazy
     * operands below them stay lazy: a call cannot change this frame's locals */
    WD_TRY(materialize_top(x, ft->param_count + (op == WD_OP_CALL ? 0 : 1)));
    if (op != WD_OP_CALL)
        WD_TRY(pop(x, WD_I32));
    WD_TRY(check_functype(x, ft));
    WD_TRY(pop_n(x, ft->params, ft->param_count));
    uint32_t base = slot(x, x->val_count), h = x->val_count - top_frame(x)->height;
    WD_TRY(push_n(x, ft->results, ft->result_count));
    if (x->live) {
        uint32_t at = 0;
        WD_TRY(emit(x, op, idx, base, table, &at));
        x->insns[at].k = (uint16_t)(op == WD_OP_CALL ? 0 : ft->param_count); /* code.h */
        close_block(x);
        post_call(x, op == WD_OP_CALL && idx >= m->import_func_count, ft->result_count, h);
    }
    return WD_OK;
}

/* ---- other instructions --------------------------------------------------------------- */

static bool is_num(uint8_t t)
{
    return t == WD_I32 || t == WD_I64 || t == WD_F32 || t == WD_F64 || t == T_ANY;
}

static bool is_ref(uint8_t t)
{
    return t == WD_FUNCREF || t == WD_EXTERNREF || t == T_ANY;
}

/* select, or (im->op SELECT_T) select t* with im->count types, the last im->vt. */
static wd_status do_select(xlate *x, const wd_body_imm *im)
{
    uint8_t t1 = T_ANY, t2 = T_ANY, t = T_ANY;
    WD_TRY(pop(x, WD_I32));
    if (im->op == WD_OP_SELECT_T) {
        if (im->count != 1)
            return invalid(x, "invalid result arity: select takes 1 type, got %" PRIu32, im->count);
        WD_TRY(check_valtype(x, im->vt));
        WD_TRY(pop(x, im->vt));
        WD_TRY(pop(x, im->vt));
        t = im->vt;
    } else {
        WD_TRY(pop_got(x, T_ANY, &t1));
        WD_TRY(pop_got(x, T_ANY, &t2));
        /* v128 never reaches the stack, so is_vec is left out */
        if (!is_num(t1) || !is_num(t2))
            return invalid(x,
                           "type mismatch in select: operands must be numeric, got %s "
                           "and %s",
                           type_name(t2), type_name(t1));
        if (t1 != t2 && t1 != T_ANY && t2 != T_ANY)
            return invalid(x, "type mismatch in select: %s and %s", type_name(t2), type_name(t1));
        t = t1 == T_ANY ? t2 : t1;
    }
    uint32_t h = x->val_count, second = 0, cond = 0;
    if (x->live) { /* before the push forgets lazy operands: the first operand is the
                    * result's slot, the others are read where they are */
        WD_TRY(materialize(x, h));
        WD_TRY(operand(x, h + 1, &second));
        WD_TRY(operand(x, h + 2, &cond));
        WD_TRY(emit(x, WD_OP_SELECT, slot(x, h), second, cond, NULL));
    }
    return push(x, t);
}

/* local.set or (tee) local.tee of local idx to the popped value at height h. A tee leaves
 * the value on the stack, lazily where it was lazy. The instruction that writes the local
 * carries the cost of the set. */
static wd_status set_local(xlate *x, uint32_t idx, uint32_t h, bool tee)
{
    WD_TRY(materialize_local(x, idx)); /* operands below that still read the old value */
    lazy *l = find_lazy(x, h);
    if (l == NULL) {
        /* in its slot: retarget its producer, the value then lazily in the local */
        if ((!tee || x->nlz < MAX_LAZY) && fold_local_set(x, idx, slot(x, h), tee)) {
            bool lazied = !tee || make_lazy(x, h, LZ_LOCAL, idx, 0);
            WD_ASSERT(lazied); /* room was checked, and folding implies fusion is on */
            (void)lazied;
            return WD_OK;
        }
        return emit_mov(x, idx, slot(x, h));
    }
    WD_TRY(move_value(x, idx, h)); /* nothing for local.get n; local.set n */
    if (!tee) {
        forget_lazy(x, l);
    } else if (l->kind == LZ_ADDK) { /* the sum is in the local now: read it there */
        l->kind = LZ_LOCAL;
        l->local = idx;
    }
    return WD_OK;
}

static WD_NOINLINE wd_status unknown_local(xlate *x, uint32_t idx)
{
    return invalid(x, "unknown local %" PRIu32, idx);
}

/* The type of local idx. */
WD_INLINE wd_status local_type(xlate *x, uint32_t idx, uint8_t *t)
{
    if (WD_UNLIKELY(idx >= x->local_slots))
        return unknown_local(x, idx);
    *t = x->ltypes[idx];
    return WD_OK;
}

WD_INLINE wd_status do_local_get(xlate *x, uint32_t idx)
{
    uint8_t t = 0;
    WD_TRY(local_type(x, idx, &t));
    WD_TRY(push(x, t));
    if (!x->live || make_lazy(x, x->val_count - 1, LZ_LOCAL, idx, 0))
        return WD_OK;
    return emit_mov(x, top_slot(x), idx);
}

/* local.set, or (tee) local.tee. */
WD_INLINE wd_status do_local_set(xlate *x, uint32_t idx, bool tee)
{
    uint8_t t = 0;
    WD_TRY(local_type(x, idx, &t));
    WD_TRY(pop(x, t));
    uint32_t h = x->val_count;
    if (x->live)
        WD_TRY(set_local(x, idx, h, tee));
    if (!tee)
        return WD_OK;
    /* the value goes back where it was: keep it lazy if it is */
    const lazy *l = find_lazy(x, h);
    lazy keep = l != NULL ? *l : (lazy){.h = NONE};
    WD_TRY(push(x, t));
    if (keep.h != NONE)
        add_lazy(x, &keep);
    return WD_OK;
}

/* The type of global idx, checked (and whether it may be set). */
WD_INLINE wd_status global_type(xlate *x, uint32_t idx, const wd_globaltype **out)
{
    if (WD_UNLIKELY(idx >= x->m->global_count))
        return invalid(x, "unknown global %" PRIu32, idx);
    const wd_globaltype *g = &x->m->globals[idx].type;
    WD_TRY(check_valtype(x, g->type));
    *out = g;
    return WD_OK;
}

WD_INLINE wd_status do_global_get(xlate *x, uint32_t idx)
{
    const wd_globaltype *g = NULL;
    WD_TRY(global_type(x, idx, &g));
    WD_TRY(push(x, g->type));
    return x->live ? emit(x, WD_OP_GLOBAL_GET, top_slot(x), idx, 0, NULL) : WD_OK;
}

static wd_status do_global_set(xlate *x, uint32_t idx)
{
    const wd_globaltype *g = NULL;
    WD_TRY(global_type(x, idx, &g));
    if (!g->mut)
        return invalid(x, "global is immutable: global.set %" PRIu32, idx);
    WD_TRY(pop(x, g->type));
    uint32_t src = 0;
    if (!x->live)
        return WD_OK;
    WD_TRY(operand(x, x->val_count, &src));
    return emit(x, WD_OP_GLOBAL_SET, src, idx, 0, NULL);
}

static wd_status need_table(xlate *x, uint32_t idx, uint8_t *elem)
{
    if (idx >= x->m->table_count)
        return invalid(x, "unknown table %" PRIu32, idx);
    *elem = x->m->tables[idx].elem;
    return WD_OK;
}

static wd_status need_elem(xlate *x, uint32_t idx)
{
    if (idx >= x->m->elem_count)
        return invalid(x, "unknown elem segment %" PRIu32, idx);
    return WD_OK;
}

static wd_status pop_i32s(xlate *x, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        WD_TRY(pop(x, WD_I32));
    return WD_OK;
}

static wd_status do_table(xlate *x, const wd_body_imm *im)
{
    uint8_t t = 0, t2 = 0;
    uint32_t a, b = 0;
    WD_TRY(materialize_top(x, 3)); /* table operands are read from consecutive slots */
    if (im->op != WD_OP_ELEM_DROP)
        WD_TRY(need_table(x, im->x, &t));
    switch (im->op) {
    case WD_OP_TABLE_GET:
        WD_TRY(pop(x, WD_I32));
        WD_TRY(push(x, t));
        a = b = top_slot(x);
        break;
    case WD_OP_TABLE_SET:
        WD_TRY(pop(x, t));
        WD_TRY(pop(x, WD_I32));
        a = slot(x, x->val_count);
        break;
    case WD_OP_TABLE_SIZE:
        WD_TRY(push(x, WD_I32));
        a = top_slot(x);
        break;
    case WD_OP_TABLE_GROW:
        WD_TRY(pop(x, WD_I32));
        WD_TRY(pop(x, t));
        WD_TRY(push(x, WD_I32));
        a = top_slot(x);
        break;
    case WD_OP_TABLE_FILL:
        WD_TRY(pop(x, WD_I32));
        WD_TRY(pop(x, t));
        WD_TRY(pop(x, WD_I32));
        a = slot(x, x->val_count);
        break;
    case WD_OP_TABLE_COPY:
        WD_TRY(need_table(x, im->y, &t2));
        if (t != t2)
            return invalid(x, "type mismatch in table.copy: %s table into %s table", type_name(t2),
                           type_name(t));
        WD_TRY(pop_i32s(x, 3));
        a = slot(x, x->val_count);
        return x->live ? emit(x, WD_OP_TABLE_COPY, a, im->x, im->y, NULL) : WD_OK;
    case WD_OP_TABLE_INIT:
        WD_TRY(need_elem(x, im->y));
        if (x->m->elems[im->y].type != t)
            return invalid(x, "type mismatch in table.init: %s segment into %s table",
                           type_name(x->m->elems[im->y].type), type_name(t));
        WD_TRY(pop_i32s(x, 3));
        a = slot(x, x->val_count);
        return x->live ? emit(x, WD_OP_TABLE_INIT, a, im->y, im->x, NULL) : WD_OK;
    default: /* elem.drop */
        WD_TRY(need_elem(x, im->y));
        return x->live ? emit(x, WD_OP_ELEM_DROP, im->y, 0, 0, NULL) : WD_OK;
    }
    return x->live ? emit(x, im->op, a, b, im->x, NULL) : WD_OK;
}

static wd_status need_memory(xlate *x)
{
    if (WD_UNLIKELY(x->m->memory_count == 0))
        return invalid(x, "unknown memory 0");
    return WD_OK;
}

static wd_status do_memory(xlate *x, const wd_body_imm *im)
{
    uint32_t a, b = 0;
    bool bulk = im->op == WD_OP_MEMORY_FILL || im->op == WD_OP_MEMORY_COPY ||
                im->op == WD_OP_MEMORY_INIT;
    WD_TRY(materialize_top(x, bulk ? 3 : im->op == WD_OP_MEMORY_GROW ? 1 : 0));
    if (im->op != WD_OP_DATA_DROP)
        WD_TRY(need_memory(x));
    if (im->op == WD_OP_MEMORY_INIT || im->op == WD_OP_DATA_DROP) {
        x->shape.data_op = true;
        if (im->x >= x->m->data_count)
            return invalid(x, "unknown data segment %" PRIu32, im->x);
    }
    switch (im->op) {
    case WD_OP_MEMORY_SIZE:
        WD_TRY(push(x, WD_I32));
        a = top_slot(x);
        break;
    case WD_OP_MEMORY_GROW:
        WD_TRY(pop(x, WD_I32));
        WD_TRY(push(x, WD_I32));
        a = b = top_slot(x);
        break;
    case WD_OP_DATA_DROP:
        a = im->x;
        break;
    default: /* memory.fill, memory.copy, memory.init */
        WD_TRY(pop_i32s(x, 3));
        a = slot(x, x->val_count);
        b = im->op == WD_OP_MEMORY_INIT ? im->x : 0;
        break;
    }
    return x->live ? emit(x, im->op, a, b, 0, NULL) : WD_OK;
}

/* A memory instruction with offset 0 whose address (the popped operand at height h, in
 * its slot) the open block's last instruction computed with an i32.add (rr, its fused form
 * then) or an i32.add of an immediate (ri): the add goes into it (*op the fused form, *b
 * and *c the add's operands); else nothing changes. A form 0: none. */
WD_INLINE void fuse_address(xlate *x, uint32_t h, uint32_t offset, uint32_t rr, uint32_t ri,
                            uint32_t *op, uint32_t *b, uint32_t *c)
{
    if (offset != 0)
        return;
    wd_insn *l1 = find_lazy(x, h) == NULL ? tail(x, 1) : NULL;
    if (l1 == NULL || l1->a != slot(x, h))
        return;
    uint32_t f = l1->op == WD_OP_I32_ADD ? rr : l1->op == WD_OP_I32_ADD_I ? ri : 0;
    if (f == 0)
        return;
    *op = f;
    *b = l1->b;
    *c = l1->c;
    drop_last(x);
}

static WD_NOINLINE wd_status misaligned(xlate *x)
{
    return invalid(x, "alignment must not be larger than natural");
}

/* A load's or store's memory argument: a memory to access, an alignment it allows. */
WD_INLINE wd_status check_memarg(xlate *x, const wd_opinfo *info, uint32_t align)
{
    WD_TRY(need_memory(x));
    return WD_UNLIKELY(align > info->t2) ? misaligned(x) : WD_OK;
}

WD_INLINE wd_status do_load(xlate *x, uint32_t op, uint32_t align, uint32_t offset)
{
    const wd_opinfo *info = &wd_op_info[op];
    const opform *f = &x->forms[op];
    WD_TRY(check_memarg(x, info, align));
    uint32_t addr = 0;
    WD_TRY(pop(x, WD_I32));
    uint32_t h = x->val_count, c = offset;
    if (x->live) {
        WD_TRY(operand(x, h, &addr));
        fuse_address(x, h, offset, f->mem[0], f->mem[1], &op, &addr, &c);
        WD_TRY(emit(x, op, slot(x, h), addr, c, NULL));
    }
    return push(x, info->t1);
}

/* How memory instruction op addresses (0: neither way; 1: a slot plus its offset, as the
 * plain ones; 2: the _RI forms' sum modulo 2^32) and the log2 of its width. */
static int access_form(uint32_t op, uint32_t *log2w)
{
    static const uint16_t ri[][2] = {
        {WD_OP_I32_LOAD8_S_RI, 0},  {WD_OP_I32_LOAD8_U_RI, 0}, {WD_OP_I32_LOAD16_S_RI, 1},
        {WD_OP_I32_LOAD16_U_RI, 1}, {WD_OP_I32_LOAD_RI, 2},    {WD_OP_I64_LOAD32_U_RI, 2},
        {WD_OP_I64_LOAD_RI, 3},     {WD_OP_I32_STORE8_RI, 0},  {WD_OP_I32_STORE16_RI, 1},
        {WD_OP_I32_STORE_RI, 2},    {WD_OP_I64_STORE32_RI, 2}, {WD_OP_I64_STORE_RI, 3},
    };
    uint8_t kind = wd_op_info[op].kind;
    if (kind == WD_KIND_LOAD || kind == WD_KIND_STORE) {
        *log2w = wd_op_info[op].t2;
        return 1;
    }
    if (!(op >= WD_OP_I32_LOAD_RI && op <= WD_OP_I64_LOAD32_U_RI) &&
        !(op >= WD_OP_I32_STORE_RI && op <= WD_OP_I64_STORE32_RI))
        return 0; /* most: not searched */
    for (size_t i = 0; i < WD_ARRAY_COUNT(ri); i++) {
        if (ri[i][0] == op) {
            *log2w = ri[i][1];
            return 2;
        }
    }
    return 0;
}

/* Store op of a value at slot addr plus offset off (its form's way), fused with l1, the
 * load just emitted that wrote the value's stack slot, when the widths agree: a COPY and
 * its DATA (ops.def). The COPY is at the load's code offset, the DATA at the store's.
 * False (nothing done) otherwise. */
static bool emit_copy(xlate *x, const wd_insn *l1, uint32_t op, uint32_t addr, uint32_t off,
                      wd_status *st)
{
    uint32_t lw = 0, sw = 0;
    int lf = access_form(l1->op, &lw), sf = access_form(op, &sw);
    if (lf == 0 || sf == 0 || lw != sw || wd_op_info[l1->op].kind == WD_KIND_STORE)
        return false;
    uint32_t copy = WD_OP_COPY8 + lw, src = l1->b, src_off = l1->c;
    if (lf != sf) {
        if ((lf == 1 && src_off != 0) || (sf == 1 && off != 0))
            return false;
        copy += 4; /* a plain access at offset 0 is also one modulo 2^32 */
    } else if (lf == 2) {
        copy += 4;
    }
    uint64_t store_cost = x->pending + x->cur; /* all of it after the load */
    if (store_cost > UINT32_MAX)
        return false;
    uint32_t load_off = x->offs[x->insn_count - 1];
    drop_last(x);
    *st = emit_at(x, copy, addr, src, src_off, NULL, load_off);
    if (*st == WD_OK)
        put(x, WD_OP_DATA, (uint32_t)store_cost, off, 0, 0, x->op_off);
    return true;
}

/* Store op of a value at slot addr plus off (its form's way), fused with l1, the i32.add
 * of an immediate just emitted that wrote the value's stack slot, when the immediate fits
 * 16 bits (ops.def, I32_STORE_ADDK..). False (nothing done) for other stores. */
static bool emit_store_addk(xlate *x, const wd_insn *l1, uint32_t op, uint32_t addr,
                            uint32_t off, wd_status *st)
{
    if ((int32_t)l1->c != (int16_t)l1->c)
        return false;
    uint32_t f = op == WD_OP_I32_STORE      ? WD_OP_I32_STORE_ADDK
                 : op == WD_OP_I32_STORE8    ? WD_OP_I32_STORE8_ADDK
                 : op == WD_OP_I32_STORE_RI  ? WD_OP_I32_STORE_RI_ADDK
                 : op == WD_OP_I32_STORE8_RI ? WD_OP_I32_STORE8_RI_ADDK
                                             : 0;
    if (f == 0)
        return false;
    uint32_t src = l1->b, k = l1->c;
    drop_last(x);
    *st = emit_k(x, f, addr, src, off, (uint16_t)k);
    return true;
}

/* Store op of slot val at slot addr plus off fused with what computed the value just
 * before it, a load (emit_copy) or an i32.add of an immediate (emit_store_addk), when val is
 * the stack slot it wrote (*st the emission's status). False (nothing done) otherwise. */
WD_INLINE bool fuse_store(xlate *x, uint32_t op, uint32_t addr, uint32_t val, uint32_t off,
                          uint32_t h, wd_status *st)
{
    const wd_insn *l1 = tail(x, 1);
    if (l1 == NULL || l1->a != val || val != slot(x, h + 1))
        return false;
    if (l1->op == WD_OP_I32_ADD_I)
        return emit_store_addk(x, l1, op, addr, off, st);
    return emit_copy(x, l1, op, addr, off, st);
}

static wd_status do_store(xlate *x, uint32_t op, uint32_t align, uint32_t offset)
{
    const wd_opinfo *info = &wd_op_info[op];
    const opform *f = &x->forms[op];
    WD_TRY(check_memarg(x, info, align));
    uint32_t addr = 0, val = 0, imm = 0;
    WD_TRY(pop(x, info->t1));
    WD_TRY(pop(x, WD_I32));
    if (!x->live)
        return WD_OK;
    uint32_t h = x->val_count, c = offset;
    bool imm_value = f->mem[2] != 0 && operand_imm(x, h + 1, info->t1, &imm);
    lazy *l = !imm_value && offset == 0 && f->mem[1] != 0 ? find_lazy(x, h) : NULL;
    if (l != NULL && l->kind == LZ_ADDK) {
        /* the address a lazy local + k: the _RI form reads it where it is, whatever the
         * value's operand emits first (fuse_address would find that last, not an add) */
        uint32_t local = l->local, k = (uint32_t)l->k;
        WD_TRY(operand(x, h + 1, &val));
        wd_status st = WD_OK;
        if (fuse_store(x, f->mem[1], local, val, k, h, &st))
            return st;
        return emit(x, f->mem[1], local, val, k, NULL);
    }
    WD_TRY(operand(x, h, &addr));
    if (imm_value) {
        uint32_t rri = op == WD_OP_I32_STORE ? WD_OP_I32_STORE_RRI
                       : op == WD_OP_I32_STORE8 ? WD_OP_I32_STORE8_RRI
                                                : 0;
        op = f->mem[2];
        fuse_address(x, h, offset, rri, 0, &op, &addr, &c);
        return emit(x, op, addr, imm, c, NULL);
    }
    WD_TRY(operand(x, h + 1, &val));
    fuse_address(x, h, offset, f->mem[0], f->mem[1], &op, &addr, &c);
    wd_status st = WD_OK;
    if (fuse_store(x, op, addr, val, c, h, &st))
        return st;
    return emit(x, op, addr, val, c, NULL);
}

WD_INLINE wd_status do_unary(xlate *x, uint32_t op)
{
    const wd_opinfo *info = &wd_op_info[op];
    uint32_t src = 0;
    WD_TRY(pop(x, info->t1));
    uint32_t h = x->val_count;
    if (x->live) {
        WD_TRY(operand(x, h, &src));
        WD_TRY(emit(x, op, slot(x, h), src, 0, NULL));
    }
    return push(x, info->t2); /* after the operands are read: it forgets lazy ones */
}

/* An i32.add of the popped operands at heights h, h + 1 when they are a lazy local and a
 * lazy constant (either order), or a lazy sum and a constant: pushes their sum as an
 * LZ_ADDK operand, emitting nothing. False (nothing done) for other operands. */
WD_INLINE bool add_lazily(xlate *x, uint32_t h)
{
    if (x->lz_end != h + 2 || x->nlz < 2 || x->lz[x->nlz - 2].h != h)
        return false; /* both lazy: the last two entries */
    lazy *l = &x->lz[x->nlz - 2], *k = &x->lz[x->nlz - 1];
    if (l->kind == LZ_CONST32) { /* i32.add is commutative */
        lazy *t = l;
        l = k;
        k = t;
    }
    if ((l->kind != LZ_LOCAL && l->kind != LZ_ADDK) || k->kind != LZ_CONST32)
        return false;
    uint32_t local = l->local, sum = (uint32_t)(l->kind == LZ_ADDK ? l->k : 0) + (uint32_t)k->k;
    wd_status st = push(x, WD_I32); /* forgets both: room for one more */
    WD_ASSERT(st == WD_OK);         /* the height existed: no allocation */
    (void)st;
    bool lazied = make_lazy(x, h, LZ_ADDK, local, sum);
    WD_ASSERT(lazied);
    (void)lazied;
    return true;
}

WD_INLINE wd_status do_binary(xlate *x, uint32_t op)
{
    const wd_opinfo *info = &wd_op_info[op];
    uint32_t v = x->val_count;
    if (WD_LIKELY(v >= x->top->height + 2) && x->vals[v - 1] == info->t1 &&
        x->vals[v - 2] == info->t1) {
        x->val_count = v - 2; /* the two pops below when they succeed */
    } else {
        WD_TRY(pop(x, info->t1));
        WD_TRY(pop(x, info->t1));
    }
    uint32_t h = x->val_count;
    if (op == WD_OP_I32_ADD && x->live && add_lazily(x, h))
        return WD_OK;
    if (x->live)
        WD_TRY(emit_binary(x, op, info->t1, h));
    return push(x, info->t2); /* after the operands are read: it forgets lazy ones */
}

/* A constant of instruction op (its bits in `value`). */
WD_INLINE wd_status do_const(xlate *x, uint32_t op, uint64_t value)
{
    uint8_t t = wd_op_info[op].t1;
    WD_TRY(push(x, t));
    bool narrow = t == WD_I32 || t == WD_F32;
    if (!x->live || make_lazy(x, x->val_count - 1, narrow ? LZ_CONST32 : LZ_CONST64, 0,
                              narrow ? (uint32_t)value : value))
        return WD_OK;
    if (narrow)
        return emit(x, WD_OP_CONST32, top_slot(x), (uint32_t)value, 0, NULL);
    return emit_const64(x, top_slot(x), value);
}

static wd_status do_ref(xlate *x, const wd_body_imm *im)
{
    uint8_t t = T_ANY;
    switch (im->op) {
    case WD_OP_REF_NULL:
        WD_TRY(push(x, im->vt));
        return x->live ? emit(x, WD_OP_REF_NULL, top_slot(x), 0, 0, NULL) : WD_OK;
    case WD_OP_REF_IS_NULL:
        WD_TRY(pop_got(x, T_ANY, &t));
        if (!is_ref(t))
            return invalid(x, "type mismatch in ref.is_null: expected a reference, got %s",
                           type_name(t));
        WD_TRY(materialize(x, x->val_count));
        WD_TRY(push(x, WD_I32));
        return x->live ? emit(x, WD_OP_REF_IS_NULL, top_slot(x), top_slot(x), 0, NULL) : WD_OK;
    default: /* ref.func */
        if (im->x >= x->m->func_count)
            return invalid(x, "unknown function %" PRIu32, im->x);
        if (x->m->declared_funcs == NULL || !x->m->declared_funcs[im->x])
            return invalid(x, "undeclared function reference %" PRIu32, im->x);
        WD_TRY(push(x, WD_FUNCREF));
        return x->live ? emit(x, WD_OP_REF_FUNC, top_slot(x), im->x, 0, NULL) : WD_OK;
    }
}

static wd_status do_unreachable(xlate *x)
{
    if (x->live)
        WD_TRY(emit(x, WD_OP_UNREACHABLE, 0, 0, 0, NULL));
    terminate(x);
    return WD_OK;
}

/* The handler of any instruction, decoded in `im`: the slow path of translate_body. */
static wd_status dispatch(xlate *x, const wd_body_imm *im)
{
    switch (wd_op_info[im->op].kind) {
    case WD_KIND_UN:
        return do_unary(x, im->op);
    case WD_KIND_BIN:
        return do_binary(x, im->op);
    case WD_KIND_LOAD:
        return do_load(x, im->op, im->align, (uint32_t)im->value);
    case WD_KIND_STORE:
        return do_store(x, im->op, im->align, (uint32_t)im->value);
    default:
        break;
    }
    switch (im->op) {
    case WD_OP_UNREACHABLE:
        return do_unreachable(x);
    case WD_OP_NOP:
        return WD_OK;
    case WD_OP_BLOCK:
    case WD_OP_LOOP:
    case WD_OP_IF:
        return do_block(x, im);
    case WD_OP_ELSE:
        return do_else(x);
    case WD_OP_END:
        return x->ctrl_count == 1 ? do_end_func(x) : do_end(x);
    case WD_OP_BR:
        return do_br(x, im->x);
    case WD_OP_BR_IF:
        return do_br_if(x, im->x);
    case WD_OP_BR_TABLE:
        return do_br_table(x, im);
    case WD_OP_RETURN:
        return do_return(x);
    case WD_OP_CALL:
    case WD_OP_CALL_INDIRECT:
        return do_call(x, im->op, im->x, im->op == WD_OP_CALL ? 0 : im->y);
    case WD_OP_DROP:
        return pop(x, T_ANY);
    case WD_OP_SELECT:
    case WD_OP_SELECT_T:
        return do_select(x, im);
    case WD_OP_LOCAL_GET:
        return do_local_get(x, im->x);
    case WD_OP_LOCAL_SET:
    case WD_OP_LOCAL_TEE:
        return do_local_set(x, im->x, im->op == WD_OP_LOCAL_TEE);
    case WD_OP_GLOBAL_GET:
        return do_global_get(x, im->x);
    case WD_OP_GLOBAL_SET:
        return do_global_set(x, im->x);
    case WD_OP_TABLE_GET:
    case WD_OP_TABLE_SET:
    case WD_OP_TABLE_SIZE:
    case WD_OP_TABLE_GROW:
    case WD_OP_TABLE_FILL:
    case WD_OP_TABLE_COPY:
    case WD_OP_TABLE_INIT:
    case WD_OP_ELEM_DROP:
        return do_table(x, im);
    case WD_OP_MEMORY_SIZE:
    case WD_OP_MEMORY_GROW:
    case WD_OP_MEMORY_INIT:
    case WD_OP_MEMORY_COPY:
    case WD_OP_MEMORY_FILL:
    case WD_OP_DATA_DROP:
        return do_memory(x, im);
    case WD_OP_I32_CONST:
    case WD_OP_I64_CONST:
    case WD_OP_F32_CONST:
    case WD_OP_F64_CONST:
        return do_const(x, im->op, im->value);
    case WD_OP_REF_NULL:
    case WD_OP_REF_IS_NULL:
    case WD_OP_REF_FUNC:
        return do_ref(x, im);
    default:
        WD_ASSERT(false); /* every opcode of ops.def is handled above */
        return invalid(x, "unhandled instruction %s", op_name(x));
    }
}

/* ---- the function --------------------------------------------------------------------- */

static wd_status check_locals(xlate *x, const wd_funcdef *fd)
{
    uint64_t total = (uint64_t)x->type->param_count + fd->local_count;
    if (total > MAX_SLOTS)
        return wd_fail(x->err, WD_ERR_MALFORMED, fd->body_offset, "too many locals");
    x->local_slots = (uint32_t)total;
    /* one array of all the locals' types: local.get and local.set, a third of the
     * instructions, read it without a branch on params or declared locals (mispredicted) */
    if (total > x->ltype_cap && !wd_grow(x->ctx, (void **)&x->ltypes, &x->ltype_cap, 1, total))
        return nomem(x);
    uint32_t params = x->type->param_count;
    uint8_t *lt = x->ltypes; /* NULL while no function had a local: no arithmetic on it */
    if (params != 0) {
        memcpy(lt, x->type->params, params);
        lt += params;
    }
    for (uint32_t g = 0; g < fd->local_groups; g++) {
        const wd_localdecl *ld = &fd->local_decls[g];
        if (ld->count == 0)
            continue;
        if (ld->type == WD_V128)
            return unsupported_simd(x);
        if (x->pvm && is_float(ld->type))
            return forbidden_float(x, ld->type == WD_F32 ? "f32 local" : "f64 local");
        memset(lt, ld->type, ld->count);
        lt += ld->count;
    }
    return WD_OK;
}

/* The entry METER at index 0 carries the function-entry cost; the body's frame. */
static wd_status enter(xlate *x, const wd_funcdef *fd)
{
    const wd_costs *c = x->costs;
    uint64_t entry = c->call_entry + (uint64_t)c->call_per_param * x->type->param_count +
                     (uint64_t)c->call_per_local * fd->local_count;
    if (entry > UINT32_MAX)
        return invalid(x, "function entry too costly: its charge exceeds 2^32-1 ticks");
    WD_TRY(reserve(x, 0));
    x->meter = put(x, WD_OP_METER, (uint32_t)entry, 0, 0, (uint32_t)entry, x->op_off);
    x->charge = (uint32_t)entry;
    x->open = true;
    set_live(x, true);
    frame f;
    memset(&f, 0, sizeof f);
    f.kind = K_FUNC;
    f.live_in = true;
    f.result_count = x->type->result_count;
    f.results = x->type->results;
    f.label = f.fixups = f.else_fixup = NONE;
    return push_ctrl(x, &f);
}

/* The start of instruction op at x->op_off: its cost is the current one (nothing in dead
 * code), and it is the next block's first when none is open. */
WD_INLINE void begin(xlate *x, uint32_t op)
{
    x->cur = x->cost[op];
    if (WD_UNLIKELY(!x->open) && x->live && x->bb_off == NONE)
        x->bb_off = x->op_off;
}

/* An instruction of class C_SLOW at x->op_off: decoded by validate.c. */
static WD_NOINLINE wd_status step_slow(xlate *x)
{
    wd_body_imm im;
    x->d->r.pos = x->op_off;
    WD_TRY(wd_validate_decode_insn(x->d, &im));
    if (x->pvm && wd_op_is_float(im.op))
        return forbidden_float(x, wd_op_names[im.op]);
    begin(x, im.op);
    return dispatch(x, &im);
}

/* A u32 immediate (an index): one or two bytes inline (no error is possible then),
 * longer or near the end through reader.c. */
WD_INLINE wd_status read_u32(wd_reader *r, uint32_t *out)
{
    const uint8_t *p = r->base + r->pos;
    size_t left = r->end - r->pos;
    if (WD_LIKELY(left >= 1) && p[0] < 0x80) {
        *out = p[0];
        r->pos++;
        return WD_OK;
    }
    if (WD_LIKELY(left >= 2) && p[1] < 0x80) {
        *out = (p[0] & 0x7Fu) | (uint32_t)p[1] << 7;
        r->pos += 2;
        return WD_OK;
    }
    return wd_read_u32(r, out);
}

/* memarg immediates: an alignment of one byte (at most 32) and an offset of one or two
 * inline, else validate.c. */
WD_INLINE wd_status read_memarg(wd_reader *r, uint32_t *align, uint32_t *offset)
{
    if (WD_LIKELY(r->pos < r->end) && r->base[r->pos] <= 32) {
        *align = r->base[r->pos++];
        return read_u32(r, offset);
    }
    return wd_validate_read_memarg(r, align, offset);
}

static WD_NOINLINE wd_status read_i32_long(wd_reader *r, uint32_t *out)
{
    int64_t v = 0;
    WD_TRY(wd_read_sleb_long(r, 32, &v));
    *out = (uint32_t)v;
    return WD_OK;
}

/* An i32.const's immediate: up to 4 bytes inline (no error is possible then: 28 bits fit),
 * longer or near the end through reader.c. */
WD_INLINE wd_status read_i32(wd_reader *r, uint32_t *out)
{
    const uint8_t *p = r->base + r->pos;
    if (WD_LIKELY(r->end - r->pos >= 4)) {
        uint32_t v = p[0] & 0x7Fu;
        unsigned n = 1;
        if (p[0] & 0x80) {
            v |= (p[1] & 0x7Fu) << 7;
            n = 2;
            if (p[1] & 0x80) {
                v |= (p[2] & 0x7Fu) << 14;
                n = 3;
                if (p[2] & 0x80) {
                    if (p[3] & 0x80)
                        return read_i32_long(r, out);
                    v |= (p[3] & 0x7Fu) << 21;
                    n = 4;
                }
            }
        }
        unsigned unused = 32 - 7 * n; /* sign-extends bit 7n-1 */
        *out = (uint32_t)((int32_t)(v << unused) >> unused);
        r->pos += n;
        return WD_OK;
    }
    return read_i32_long(r, out);
}

/* A block type: the empty one or a value type inline, else validate.c. */
WD_INLINE wd_status read_blocktype(wd_reader *r, wd_body_imm *im)
{
    if (WD_LIKELY(r->pos < r->end)) {
        uint8_t b = r->base[r->pos];
        if (b == 0x40 || b == WD_I32 || b == WD_I64) {
            im->bt_kind = b == 0x40 ? WD_BT_EMPTY : WD_BT_VALUE;
            im->vt = b;
            r->pos++;
            return WD_OK;
        }
    }
    return wd_validate_read_blocktype(r, im);
}

/* The instructions of the body, up to the end of the function's block.
 *
 * Each instruction's opcode byte gives its class (C_*) and internal opcode; its immediates
 * are read and it is handled inline, by class. With computed gotos (WD_USE_GOTO) every
 * handler ends with the next instruction's fetch and its own jump to the next handler, so
 * the processor predicts each jump from the instruction before it (local.get then local.get
 * then a binary operation); without them, one switch. */
static wd_status translate_body(xlate *x)
{
    wd_reader *r = &x->d->r;
    const wd_translator *t = x->t;
    uint32_t count = 0, op = 0, idx = 0;
    unsigned cls = C_SLOW;
    wd_status st = WD_OK;
    wd_body_imm im;
/* Reads the next instruction's opcode byte: op, cls; its cost is the current one. */
#define FETCH()                                                                                    \
    do {                                                                                           \
        size_t at_ = r->pos;                                                                       \
        if (WD_UNLIKELY(at_ >= r->end)) {                                                          \
            st = wd_validate_missing_end(x->d);                                                    \
            goto out;                                                                              \
        }                                                                                          \
        x->op_off = (uint32_t)at_;                                                                 \
        st = reserve(x, 0);                                                                        \
        if (WD_UNLIKELY(st != WD_OK))                                                              \
            goto out;                                                                              \
        uint8_t b_ = r->base[at_];                                                                 \
        op = t->op_of_byte[b_];                                                                    \
        cls = t->cls[b_];                                                                          \
        count++;                                                                                   \
        begin(x, op);                                                                              \
        r->pos = at_ + 1;                                                                          \
    } while (0)
/* After an instruction: a cost it did not emit goes to the next one emitted (`cur` is set
 * again before it is read); only an `end` closes the function. */
#define FINISH()                                                                                   \
    do {                                                                                           \
        if (WD_UNLIKELY(st != WD_OK))                                                              \
            goto out;                                                                              \
        WD_ASSERT(x->live || x->cur == 0);                                                         \
        if (x->cur != 0) {                                                                         \
            if (x->pending_off == NONE)                                                            \
                x->pending_off = x->op_off;                                                        \
            x->pending += x->cur;                                                                  \
        }                                                                                          \
        if (WD_UNLIKELY(cls == C_END) && x->ctrl_count == 0)                                       \
            goto out;                                                                              \
    } while (0)
/* Reads an immediate with `call`; its failure ends the body. DONE(expr): the instruction
 * handled by expr, then the next one. */
#define TRY_READ(call)                                                                             \
    do {                                                                                           \
        st = (call);                                                                               \
        if (WD_UNLIKELY(st != WD_OK))                                                              \
            goto out;                                                                              \
    } while (0)
#if WD_USE_GOTO
    static const void *const handler[] = {
        [C_SLOW] = &&L_C_SLOW,         [C_UN] = &&L_C_UN,
        [C_BIN] = &&L_C_BIN,           [C_LOAD] = &&L_C_LOAD,
        [C_STORE] = &&L_C_STORE,       [C_LOCAL_GET] = &&L_C_LOCAL_GET,
        [C_LOCAL_SET] = &&L_C_LOCAL_SET, [C_LOCAL_TEE] = &&L_C_LOCAL_TEE,
        [C_GLOBAL_GET] = &&L_C_GLOBAL_GET, [C_GLOBAL_SET] = &&L_C_GLOBAL_SET,
        [C_I32_CONST] = &&L_C_I32_CONST, [C_I64_CONST] = &&L_C_I64_CONST,
        [C_CALL] = &&L_C_CALL,         [C_BR] = &&L_C_BR,
        [C_BR_IF] = &&L_C_BR_IF,       [C_BLOCK] = &&L_C_BLOCK,
        [C_ELSE] = &&L_C_ELSE,         [C_END] = &&L_C_END,
        [C_DROP] = &&L_C_DROP,         [C_NOP] = &&L_C_NOP,
        [C_SELECT] = &&L_C_SELECT,     [C_RETURN] = &&L_C_RETURN,
    };
#define HANDLER(c) L_##c
#define DONE(expr)                                                                                 \
    do {                                                                                           \
        st = (expr);                                                                               \
        FINISH();                                                                                  \
        FETCH();                                                                                   \
        goto *handler[cls];                                                                        \
    } while (0)
    FETCH();
    goto *handler[cls];
#else
#define HANDLER(c) case c
#define DONE(expr)                                                                                 \
    do {                                                                                           \
        st = (expr);                                                                               \
        goto next;                                                                                 \
    } while (0)
    for (;;) {
        FETCH();
        switch (cls) {
#endif
    HANDLER(C_UN):
        DONE(do_unary(x, op));
    HANDLER(C_BIN):
        DONE(do_binary(x, op));
    HANDLER(C_LOAD): {
        uint32_t align = 0, offset = 0;
        TRY_READ(read_memarg(r, &align, &offset));
        DONE(do_load(x, op, align, offset));
    }
    HANDLER(C_STORE): {
        uint32_t align = 0, offset = 0;
        TRY_READ(read_memarg(r, &align, &offset));
        DONE(do_store(x, op, align, offset));
    }
    HANDLER(C_LOCAL_GET):
        TRY_READ(read_u32(r, &idx));
        DONE(do_local_get(x, idx));
    HANDLER(C_LOCAL_SET):
        TRY_READ(read_u32(r, &idx));
        DONE(do_local_set(x, idx, false));
    HANDLER(C_LOCAL_TEE):
        TRY_READ(read_u32(r, &idx));
        DONE(do_local_set(x, idx, true));
    HANDLER(C_GLOBAL_GET):
        TRY_READ(read_u32(r, &idx));
        DONE(do_global_get(x, idx));
    HANDLER(C_GLOBAL_SET):
        TRY_READ(read_u32(r, &idx));
        DONE(do_global_set(x, idx));
    HANDLER(C_I32_CONST): {
        uint32_t k = 0;
        TRY_READ(read_i32(r, &k));
        DONE(do_const(x, op, k));
    }
    HANDLER(C_I64_CONST): {
        int64_t k = 0;
        TRY_READ(wd_read_sleb(r, 64, &k));
        DONE(do_const(x, op, (uint64_t)k));
    }
    HANDLER(C_CALL):
        TRY_READ(read_u32(r, &idx));
        DONE(do_call(x, op, idx, 0));
    HANDLER(C_BR):
        TRY_READ(read_u32(r, &idx));
        DONE(do_br(x, idx));
    HANDLER(C_BR_IF):
        TRY_READ(read_u32(r, &idx));
        DONE(do_br_if(x, idx));
    HANDLER(C_BLOCK):
        im.op = op;
        TRY_READ(read_blocktype(r, &im));
        DONE(do_block(x, &im));
    HANDLER(C_ELSE):
        DONE(do_else(x));
    HANDLER(C_END):
        DONE(x->ctrl_count == 1 ? do_end_func(x) : do_end(x));
    HANDLER(C_DROP):
        DONE(pop(x, T_ANY));
    HANDLER(C_NOP):
        DONE(WD_OK);
    HANDLER(C_SELECT):
        im.op = op;
        DONE(do_select(x, &im));
    HANDLER(C_RETURN):
        DONE(do_return(x));
    HANDLER(C_SLOW):
        DONE(step_slow(x));
#if !WD_USE_GOTO
        default:
            UNREACHABLE(); /* cls is a C_*: the jump table needs no range check */
            DONE(step_slow(x));
        }
    next:
        FINISH();
    }
#endif
#undef FETCH
#undef FINISH
#undef TRY_READ
#undef HANDLER
#undef DONE
out:
    x->wasm_insn_count = count;
    if (st == WD_OK && r->pos != r->end)
        st = wd_fail(x->err, WD_ERR_MALFORMED, r->pos, "section size mismatch");
    return st;
}

static wd_status translate(xlate *x)
{
    const wd_funcdef *fd = &x->m->funcs[x->func_idx];
    wd_reader *r = &x->d->r;
    x->type = &x->m->types[fd->type_idx];
    WD_TRY(wd_validate_skip_locals(r));
    x->op_off = (uint32_t)r->pos;
    x->what = "function type";
    WD_TRY(check_functype(x, x->type));
    x->what = "local";
    WD_TRY(check_locals(x, fd));
    WD_TRY(enter(x, fd));
    x->what = NULL;
    return translate_body(x);
}

/* The code, in the module's arena: the insns where they are (in_arena) or copied, then
 * the costs and the offsets in one block. */
static wd_status store_code(xlate *x)
{
    wd_arena *a = x->arena;
    uint32_t n = x->insn_count;
    size_t isize = (size_t)n * sizeof *x->insns, csize = (size_t)n * sizeof *x->icosts;
    wd_insn *insns = x->insns;
    if (x->in_arena)
        wd_arena_commit(a, isize); /* before anything else is allocated */
    wd_code *c = wd_arena_alloc(a, sizeof *c);
    if (c == NULL)
        return nomem(x);
    unsigned char *mem = wd_arena_alloc_raw(a, (x->in_arena ? 0 : isize) + 2 * csize);
    if (mem == NULL)
        return nomem(x);
    if (!x->in_arena) {
        insns = memcpy(mem, x->insns, isize);
        mem += isize;
    }
    c->insns = insns;
    c->costs = memcpy(mem, x->icosts, csize);
    c->offsets = memcpy(mem + csize, x->offs, csize);
    c->insn_count = n;
    c->func_idx = x->func_idx;
    c->param_slots = x->type->param_count;
    c->local_slots = x->local_slots;
    c->result_slots = x->type->result_count;
    c->max_slots = WD_MAX(x->local_slots + x->max_height, c->result_slots);
    c->wasm_insn_count = x->wasm_insn_count;
    c->shape = x->shape;
    c->garbage_at = x->garbage_at;
    c->set_cost = x->costs->op[wd_cost_index(0, 0x21)]; /* local.set */
    x->m->funcs[x->func_idx].code = c;
    return WD_OK;
}

wd_status wd_translate_func(wd_translator *t, wd_module *m, uint32_t func_idx, wd_body_dec *d,
                            wd_error *err)
{
    xlate x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.d = d;
    x.m = m;
    x.ctx = t->ctx;
    x.arena = t->arena != NULL ? t->arena : &m->arena;
    x.costs = t->costs;
    x.forms = t->forms;
    x.pvm = t->pvm;
    x.no_fuse = t->no_fuse;
    x.err = err;
    x.func_idx = func_idx;
    x.meter = x.pending_off = x.bb_off = NONE;
    /* the buffers are the translator's, lent for this body */
    x.vals = t->vals;
    x.val_cap = t->val_cap;
    x.ctrls = t->ctrls;
    x.ctrl_cap = t->ctrl_cap;
    x.ltypes = t->ltypes;
    x.ltype_cap = t->ltype_cap;
    x.scratch = t->insns;
    x.icosts = t->icosts;
    x.offs = t->offs;
    x.scratch_cap = t->insn_cap;
    start_code(&x);
    wd_status st = WD_OK;
    if (t->type_ok_for != m) { /* a translator serves one module (but be safe) */
        wd_free(t->ctx, t->type_ok);
        t->type_ok_for = NULL;
        t->type_ok = wd_calloc(t->ctx, m->type_count, sizeof *t->type_ok);
        if (t->type_ok == NULL)
            st = nomem(&x);
        else
            t->type_ok_for = m;
    }
    x.type_ok = t->type_ok;
    if (st == WD_OK)
        st = translate(&x);
    if (st == WD_OK)
        st = store_code(&x);
    t->vals = x.vals;
    t->val_cap = x.val_cap;
    t->ctrls = x.ctrls;
    t->ctrl_cap = x.ctrl_cap;
    t->ltypes = x.ltypes;
    t->ltype_cap = x.ltype_cap;
    t->insns = x.scratch;
    t->icosts = x.icosts;
    t->offs = x.offs;
    t->insn_cap = x.scratch_cap;
    return st;
}

/* ---- the translator ------------------------------------------------------------------- */

/* The class of single-byte instruction op in translate_body. */
static unsigned class_of(uint32_t op, bool pvm)
{
    if (pvm && wd_op_is_float(op))
        return C_SLOW; /* for the error, after its immediates are decoded */
    // clang-format off
    switch (wd_op_info[op].kind) {
    case WD_KIND_UN: return C_UN;
    case WD_KIND_BIN: return C_BIN;
    case WD_KIND_LOAD: return C_LOAD;
    case WD_KIND_STORE: return C_STORE;
    default: break;
    }
    switch (op) {
    case WD_OP_LOCAL_GET: return C_LOCAL_GET;
    case WD_OP_LOCAL_SET: return C_LOCAL_SET;
    case WD_OP_LOCAL_TEE: return C_LOCAL_TEE;
    case WD_OP_GLOBAL_GET: return C_GLOBAL_GET;
    case WD_OP_GLOBAL_SET: return C_GLOBAL_SET;
    case WD_OP_I32_CONST: return C_I32_CONST;
    case WD_OP_I64_CONST: return C_I64_CONST;
    case WD_OP_CALL: return C_CALL;
    case WD_OP_BR: return C_BR;
    case WD_OP_BR_IF: return C_BR_IF;
    case WD_OP_BLOCK: case WD_OP_LOOP: case WD_OP_IF: return C_BLOCK;
    case WD_OP_ELSE: return C_ELSE;
    case WD_OP_END: return C_END;
    case WD_OP_DROP: return C_DROP;
    case WD_OP_NOP: return C_NOP;
    case WD_OP_SELECT: return C_SELECT;
    case WD_OP_RETURN: return C_RETURN;
    default: return C_SLOW;
    }
    // clang-format on
}

wd_translator *wd_translator_new(wd_ctx *ctx, const wd_decode_opts *opts)
{
    wd_translator *t = wd_alloc(ctx, sizeof *t);
    if (t == NULL)
        return NULL;
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->costs = opts->costs;
    t->pvm = opts->pvm;
    t->no_fuse = opts->no_fuse;
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        const wd_opinfo *info = &wd_op_info[op];
        if (info->kind == WD_KIND_INTERNAL)
            continue;
        uint32_t ci = wd_cost_index(info->prefix, info->code); /* < WD_COST_OPS for ops.def's */
        t->op_cost[op] = ci < WD_COST_OPS ? opts->costs->op[ci] : 0;
        if (info->prefix == 0) {
            t->op_of_byte[info->code] = (uint16_t)op;
            t->cls[info->code] = (uint8_t)class_of(op, opts->pvm);
        }
    }
    init_forms(t->forms);
    return t;
}

void wd_translator_set_arena(wd_translator *t, wd_arena *a)
{
    t->arena = a;
}

wd_ctx *wd_translator_ctx(const wd_translator *t)
{
    return t->ctx;
}

void wd_translator_free(wd_translator *t)
{
    if (t == NULL)
        return;
    wd_free(t->ctx, t->vals);
    wd_free(t->ctx, t->type_ok);
    wd_free(t->ctx, t->ctrls);
    wd_free(t->ctx, t->ltypes);
    wd_free(t->ctx, t->insns);
    wd_free(t->ctx, t->icosts);
    wd_free(t->ctx, t->offs);
    wd_free(t->ctx, t);
}
