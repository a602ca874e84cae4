/* code.h: the internal code a function body is translated into, once, at decode.
 *
 * The machine. Each call has a frame of 64-bit slots on the thread's value stack; `fp`
 * points at slot 0. Slots [0, param_count) hold the parameters, [param_count,
 * local_slots) the declared locals (zeroed on entry), and above them the operand stack.
 * Because WebAssembly validation fixes the operand stack height at every instruction,
 * the translator knows the slot of every operand statically: instructions name their
 * operands as fp-relative slot indices and the interpreter keeps no stack pointer.
 * (A v128 takes two consecutive slots, low half first.)
 *
 * Instructions are fixed-width (16 bytes): an opcode and three 32-bit operands; `bc`
 * aliases b and c as one 64-bit operand. A DATA instruction carries extra operands of
 * the instruction before it and is never executed.
 *
 * Metering. Every basic block starts with a METER whose `a` is the block's charge: the
 * sum of costs[] of the instructions from the METER up to (not including) the next
 * METER. A basic block ends after every branch, conditional branch, call, return and
 * trap-only instruction, and starts at every branch target and after every call, so the
 * tick counter at a call, return, branch or trap can be made exact: on a trap at
 * instruction i the interpreter refunds costs[j] for i < j < next METER. costs[i] is
 * what instruction i costs when executed alone (single-step mode); for a METER it is 0,
 * except for the METER at index 0 of a function, whose cost is the function-entry cost
 * (call_entry + call_per_param * params + call_per_local * declared locals). No branch
 * ever targets index 0. Costs of instructions the translator elides (nop, block, end,
 * drop, local.get folded into MOV, ...) are added to the next instruction emitted in the
 * same basic block; where a basic block would end with such a pending cost, a NOP_COST
 * carrying it is emitted.
 *
 * Operands of MISC and internal instructions (numeric ones: see ops.def):
 *   UNREACHABLE                  trap "unreachable"
 *   BR_TABLE  a=index slot b=entry count n (targets + default, >= 1) c=arity;
 *             followed by n DATA: a=target insn, b=dst slot, c=src slot.
 *             i = min(fp[a].u32, n-1); move `arity` slots from src to dst (memmove);
 *             jump to entry i's target.
 *   RETURN    a=slot of the first result b=result slot count: copy them to fp[0..b),
 *             pop the frame, continue in the caller after its CALL.
 *   CALL      a=function index (module index space) b=slot of the first argument:
 *             the callee's fp is fp+b; its results are left at fp[b...].
 *   CALL_INDIRECT a=type index b=slot of the first argument c=table index; the element
 *             index is in slot b + k, k the param count of type a (v128 is refused in
 *             bodies, so a param is a slot). Traps: "undefined element"
 *             (index >= table size), "uninitialized element" (null), "indirect call
 *             type mismatch".
 *   SELECT    a=slot of the first operand and of the result, b=slot of the second, c=slot
 *             of the condition: fp[a] = fp[c].u32 ? fp[a] : fp[b] (one-slot values)
 *   GLOBAL_GET a=dst b=global index      GLOBAL_SET a=src b=global index
 *   TABLE_GET  a=dst b=index slot c=table          TABLE_SET a=index slot (ref at a+1) c=table
 *   TABLE_SIZE a=dst c=table                       TABLE_GROW a=init ref slot (n at a+1),
 *                                                  result (old size or -1) at a; c=table
 *   TABLE_FILL a=i slot (ref a+1, n a+2) c=table
 *   TABLE_COPY a=d slot (s a+1, n a+2) b=dst table c=src table
 *   TABLE_INIT a=d slot (s a+1, n a+2) b=elem segment c=table
 *   ELEM_DROP  a=elem segment
 *   MEMORY_SIZE a=dst                              MEMORY_GROW a=dst b=delta slot
 *   MEMORY_FILL a=d slot (val a+1, n a+2)          MEMORY_COPY a=d slot (s a+1, n a+2)
 *   MEMORY_INIT a=d slot (s a+1, n a+2) b=data segment     DATA_DROP a=data segment
 *   REF_NULL  a=dst (null is 0)   REF_IS_NULL a=dst b=src   REF_FUNC a=dst b=function index
 *   METER     a=charge of the block (see above)
 *   (edge)    a conditional branch, or a br_table entry's DATA, charges `edge` ticks more
 *             when it is taken (the PVM's steps from the branch to its target label: the
 *             labels it leaves, the values it carries, the height it joins), when the
 *             charge fits 16 bits; else its taken edge is a block of its own. The charge
 *             is dynamic: it does not enter the block's METER.
 *   NOP_COST  nothing; carries a cost
 *   JMP       a=target insn index
 *   BR_IF_NZ  a=target b=condition slot: jump when fp[b].u32 != 0
 *   BR_IF_Z   a=target b=condition slot: jump when fp[b].u32 == 0
 *   MOV       a=dst b=src: fp[a] = fp[b] (one slot)
 *   MOVE_N    a=dst b=src c=count: memmove of c slots
 *   CONST32   a=dst b=value: fp[a].u64 = b (zero-extended; i32 and f32 bit patterns)
 *   CONST64   a=dst bc=value (i64 and f64 bit patterns)
 *   DATA      operands of the previous instruction (a BR_TABLE, or one for which
 *             wd_op_has_data holds); never executed, costs 0
 *   BREAK     a breakpoint patched in by eval (the original kept aside)
 *   fused instructions (the *_I and BR_I32_* entries at the end of ops.def): see there.
 *
 * Peephole fusion. The translator reads an operand straight from the local a `local.get`
 * named, or takes a constant as an immediate, until the local is written or control
 * joins (lazy operands, translate.c); writes a result straight into the local of a
 * following `local.set` or `local.tee`; fuses a comparison, eqz or mask test with the
 * conditional branch that consumes it, and an address's i32.add with its load or store;
 * keeps a 64-bit constant operand in a DATA after its instruction; fuses a shift or rotation
 * by an immediate with the xor, or or add that consumes it, and a xor with the rotation of
 * its result (the count in the instruction's `k`); a multiplication with the add of its
 * product (the addend's slot in `k`); two moves in a row (MOV2); a load and the store of the
 * value it loaded (COPY8..COPY64_RI, memcpy's loops: a DATA after it holds the store's cost,
 * refunded when the load traps, and its code offset, where a trap in the store is reported);
 * a store of the i32.add of an immediate before it (I32_STORE_ADDK.., the constant in `k`);
 * copies a loop's head that is a few simple instructions and a br_table to each `br` back
 * to it (translate.c, copy_loop_head: an interpreter's dispatch without the JMP to it); and
 * makes an i32 division or remainder by a constant a multiplication by its reciprocal
 * (ops.def, *_K), or a shift or mask for an unsigned power of two. A fused instruction
 * costs the sum of what it replaces; executed alone it is one step. An instruction that can
 * trap (wd_op_traps_with_result) writes a local only when a `local.set` (or a `local.tee`
 * that costs the same) was folded into it, with nothing else: when it traps, the set's cost
 * (wd_code.set_cost) is refunded with those of the instructions after it.
 *
 * References in slots: 0 is null; a funcref is the address of the runtime function
 * (link/runtime.h wd_func *); an externref is its host value + 1.
 */
#ifndef WD_DECODE_CODE_H
#define WD_DECODE_CODE_H

#include "base/base.h"

typedef enum wd_opcode {
#define OP(name, prefix, code, text, kind, t1, t2) WD_OP_##name,
#define IOP(name, text)                            WD_OP_##name,
#include "decode/ops.def"
#undef OP
#undef IOP
    WD_OP_COUNT
} wd_opcode;
_Static_assert(WD_OP_COUNT <= 65536, "wd_insn.op is 16 bits");

typedef struct wd_insn {
    uint16_t op;
    union {
        uint16_t edge; /* a conditional branch's (or a br_table entry's) taken edge: its charge */
        uint16_t k;    /* a fused shift's or rotation's count (ops.def, I32_XOR_SHL...); a
                        * fused add's addend slot (I32_MUL_ADD); a MOV2's second source; a
                        * CALL_INDIRECT's param count */
    };
    uint32_t a;
    union {
        struct {
            uint32_t b, c;
        };
        uint64_t bc;
    };
} wd_insn;

typedef union wd_val {
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    int64_t i64;
    float f32;
    double f64;
} wd_val;

/* The shape of a body as the Octez decoder walks it, dead code included: counts of
 * `end` and `else` opcodes (the final `end` included), of blocks, loops and ifs, and whether
 * a memory.init or data.drop occurs (the elaboration walk stops at the first one). */
typedef struct wd_body_shape {
    uint32_t ends, blocks, loops, ifs;
    bool data_op;
} wd_body_shape;

typedef struct wd_code {
    wd_insn *insns;
    uint32_t insn_count;
    uint32_t *costs;      /* insn_count static costs (see above) */
    uint32_t *offsets;    /* insn_count byte offsets in the module of the source instruction */
    uint32_t func_idx;
    uint32_t param_slots; /* slots taken by the parameters */
    uint32_t local_slots; /* parameters + declared locals */
    uint32_t result_slots;
    uint32_t max_slots;   /* frame size: locals plus the deepest operand stack */
    uint32_t wasm_insn_count; /* WebAssembly instructions in the body (for decode costs) */
    wd_body_shape shape;      /* what the PVM's decoder steps over (vm/pvmticks.c) */
    uint32_t garbage_at;      /* 1 + the offset of the first `return` that leaves values
                               * below its results (translate.c do_return), or 0 */
    uint32_t set_cost;    /* the cost of a local.set (see "Peephole fusion") */
} wd_code;

/* Kinds and operand types of ops.def entries. */
enum { WD_KIND_CTRL, WD_KIND_UN, WD_KIND_BIN, WD_KIND_LOAD, WD_KIND_STORE, WD_KIND_MISC,
       WD_KIND_INTERNAL };
enum { WD_T_X = 0, WD_T_I32 = 0x7F, WD_T_I64 = 0x7E, WD_T_F32 = 0x7D, WD_T_F64 = 0x7C,
       WD_T_V128 = 0x7B };

typedef struct wd_opinfo {
    uint8_t kind;   /* WD_KIND_* */
    uint8_t t1, t2; /* value types (WD_T_*), or for LOAD/STORE t2 = log2 natural alignment */
    uint8_t prefix; /* 0 or 0xFC */
    uint16_t code;  /* the opcode byte or sub-opcode */
} wd_opinfo;

/* Generated from ops.def. */
extern const char *const wd_op_names[WD_OP_COUNT];
extern const wd_opinfo wd_op_info[WD_OP_COUNT];

/* The opcode of instruction `code` (prefix 0, or 0xFC with its sub-opcode); WD_OP_COUNT
 * when there is none (an illegal opcode). */
uint32_t wd_op_decode(uint32_t prefix, uint32_t code);

/* A conditional branch (a = target; falls through otherwise). */
static inline bool wd_op_is_cond_branch(uint32_t op)
{
    return op == WD_OP_BR_IF_NZ || op == WD_OP_BR_IF_Z || op == WD_OP_BR_I32_AND_NZ_I ||
           op == WD_OP_BR_I32_AND_Z_I || (op >= WD_OP_BR_I32_EQ && op <= WD_OP_BR_I64_NZ);
}

/* An instruction followed by a DATA carrying more of its operands (not a BR_TABLE). */
static inline bool wd_op_has_data(uint32_t op)
{
    return (op >= WD_OP_I64_ADD_W && op <= WD_OP_I32_REM_U_K) ||
           (op >= WD_OP_COPY8 && op <= WD_OP_COPY64_RI);
}

/* A load fused with the store of what it loaded (ops.def, COPY8...). */
static inline bool wd_op_is_copy(uint32_t op)
{
    return op >= WD_OP_COPY8 && op <= WD_OP_COPY64_RI;
}

/* The quotient of n by d (2 <= d < 2^32) given m = ceil(2^64 / d) = UINT64_MAX / d + 1:
 * the high word of the product n * m, exact for every 32-bit n (Lemire, Kaser and Kurz,
 * "Faster remainder by direct computation", 2019). Two 32x32-bit halves: hi is at most
 * (2^32 - 1)^2, so adding the low product's carry cannot overflow. */
static inline uint32_t wd_divk32(uint32_t n, uint64_t m)
{
    uint64_t lo = (m & 0xFFFFFFFFu) * n, hi = (m >> 32) * n;
    return (uint32_t)((hi + (lo >> 32)) >> 32);
}

/* Signed n / d truncated (d not 0 or -1), m = ceil(2^64 / |d|): wd_divk32 of |n|, negated
 * when the signs differ. */
static inline uint32_t wd_sdivk32(uint32_t n, uint32_t d, uint64_t m)
{
    bool neg_n = (int32_t)n < 0, neg_d = (int32_t)d < 0;
    uint32_t q = wd_divk32(neg_n ? 0u - n : n, m);
    return neg_n != neg_d ? 0u - q : q;
}

/* An instruction with a result that can trap: a load, an integer division or remainder,
 * a float-to-integer truncation. */
static inline bool wd_op_traps_with_result(uint32_t op)
{
    switch (op) {
    case WD_OP_I32_DIV_S: case WD_OP_I32_DIV_U: case WD_OP_I32_REM_S: case WD_OP_I32_REM_U:
    case WD_OP_I64_DIV_S: case WD_OP_I64_DIV_U: case WD_OP_I64_REM_S: case WD_OP_I64_REM_U:
    case WD_OP_I32_TRUNC_F32_S: case WD_OP_I32_TRUNC_F32_U: case WD_OP_I32_TRUNC_F64_S:
    case WD_OP_I32_TRUNC_F64_U: case WD_OP_I64_TRUNC_F32_S: case WD_OP_I64_TRUNC_F32_U:
    case WD_OP_I64_TRUNC_F64_S: case WD_OP_I64_TRUNC_F64_U:
        return true;
    default:
        return wd_op_info[op].kind == WD_KIND_LOAD ||
               (op >= WD_OP_I32_LOAD_RR && op <= WD_OP_I64_LOAD32_U_RI);
    }
}

/* True when the instruction involves f32/f64 (rejected in PVM mode). */
static inline bool wd_op_is_float(uint32_t op)
{
    const wd_opinfo *i = &wd_op_info[op];
    return i->t1 == WD_T_F32 || i->t1 == WD_T_F64 ||
           (i->kind != WD_KIND_LOAD && i->kind != WD_KIND_STORE &&
            (i->t2 == WD_T_F32 || i->t2 == WD_T_F64));
}

#endif
