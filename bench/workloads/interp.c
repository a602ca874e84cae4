/* interp: a bytecode interpreter's switch loop (br_table dispatch, a value stack in
 * memory). The bytecode counts the Collatz steps of every start value below n. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 4000)

enum {
    PUSH,  /* imm: push it */
    LOAD,  /* imm: push reg[imm] */
    STORE, /* imm: pop into reg[imm] */
    ADD,
    MUL,
    AND,
    SHR,
    LT,
    NE,
    JZ,  /* imm: pop; jump there when zero */
    JMP, /* imm: jump there */
    HALT /* pop the result */
};

/* r0 = i, r1 = x, r2 = steps, r3 = limit */
// clang-format off
static const u8 program[] = {
    PUSH, 1, STORE, 0,                                   /* 0: i = 1 */
    LOAD, 0, LOAD, 3, LT, JZ, 66,                        /* 4: while (i < limit) */
    LOAD, 0, STORE, 1,                                   /* 11: x = i */
    LOAD, 1, PUSH, 1, NE, JZ, 57,                        /* 15: while (x != 1) */
    LOAD, 1, PUSH, 1, AND, JZ, 41,                       /* 22: if (x & 1) */
    LOAD, 1, PUSH, 3, MUL, PUSH, 1, ADD, STORE, 1, JMP, 48, /* 29: x = 3x + 1 */
    LOAD, 1, PUSH, 1, SHR, STORE, 1,                     /* 41: else x >>= 1 */
    LOAD, 2, PUSH, 1, ADD, STORE, 2, JMP, 15,            /* 48: steps++ */
    LOAD, 0, PUSH, 1, ADD, STORE, 0, JMP, 4,             /* 57: i++ */
    LOAD, 2, HALT                                        /* 66: result */
};
// clang-format on

static NOINLINE u32 execute(const u8 *code, u32 *reg)
{
    u32 stack[64];
    u32 sp = 0, pc = 0;
    for (;;) {
        u8 op = code[pc++];
        switch (op) {
        case PUSH:
            stack[sp++] = code[pc++];
            break;
        case LOAD:
            stack[sp++] = reg[code[pc++]];
            break;
        case STORE:
            reg[code[pc++]] = stack[--sp];
            break;
        case ADD:
            sp--;
            stack[sp - 1] += stack[sp];
            break;
        case MUL:
            sp--;
            stack[sp - 1] *= stack[sp];
            break;
        case AND:
            sp--;
            stack[sp - 1] &= stack[sp];
            break;
        case SHR:
            sp--;
            stack[sp - 1] >>= stack[sp] & 31;
            break;
        case LT:
            sp--;
            stack[sp - 1] = stack[sp - 1] < stack[sp];
            break;
        case NE:
            sp--;
            stack[sp - 1] = stack[sp - 1] != stack[sp];
            break;
        case JZ:
            if (stack[--sp] == 0)
                pc = code[pc];
            else
                pc++;
            break;
        case JMP:
            pc = code[pc];
            break;
        case HALT:
            return stack[--sp];
        default:
            return 0xdeadu;
        }
        sp &= 63;
    }
}

i32 bench(i32 n)
{
    u32 reg[4] = {0, 0, 0, (u32)n};
    return (i32)execute(program, reg);
}
