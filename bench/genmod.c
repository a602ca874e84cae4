/* genmod.c: writes the generated modules of `make bench` (never committed).
 *
 *   genmod big FILE [FUNCS]   a large module: FUNCS (default 6000) functions of generated
 *                             straight-line code, blocks, ifs, bounded loops, loads, stores,
 *                             direct calls and call_indirect, i32 and i64, a name section;
 *                             about 1 KB of code per function. `run` calls every function
 *                             once and returns a checksum.
 *   genmod data FILE          a module whose 16 active data segments fill 1 MiB of memory;
 *                             `run` returns a checksum of sampled bytes.
 *
 * The output is the same on every machine: the generator uses its own xorshift sequence.
 * Nothing here can trap at run time: addresses are masked into the first page, divisors
 * are or-ed with 1, loops count down from at most 3. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *data;
    size_t size, cap;
} buf;

static void put(buf *b, const void *bytes, size_t size)
{
    if (b->size + size > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->size + size)
            cap *= 2;
        uint8_t *data = realloc(b->data, cap);
        if (data == NULL) {
            fprintf(stderr, "genmod: out of memory\n");
            exit(2);
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->size, bytes, size);
    b->size += size;
}

static void byte(buf *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    put(b, &x, 1);
}

static void u32leb(buf *b, uint32_t v)
{
    do {
        uint8_t x = v & 0x7f;
        v >>= 7;
        byte(b, v ? x | 0x80u : x);
    } while (v);
}

static void s64leb(buf *b, int64_t v)
{
    for (;;) {
        uint8_t x = (uint8_t)(v & 0x7f);
        v >>= 7; /* arithmetic shift on every compiler we build with */
        bool done = (v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40));
        byte(b, done ? x : x | 0x80u);
        if (done)
            return;
    }
}

static void name(buf *b, const char *s)
{
    u32leb(b, (uint32_t)strlen(s));
    put(b, s, strlen(s));
}

/* Appends section `id` holding `content`, and empties `content`. */
static void section(buf *out, unsigned id, buf *content)
{
    byte(out, id);
    u32leb(out, (uint32_t)content->size);
    put(out, content->data, content->size);
    content->size = 0;
}

static uint32_t rng = 0x2545f491u;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng % n;
}

/* Opcodes used below. */
enum {
    BLOCK = 0x02,
    LOOP = 0x03,
    IF = 0x04,
    ELSE = 0x05,
    END = 0x0b,
    BR = 0x0c,
    BR_IF = 0x0d,
    CALL = 0x10,
    CALL_INDIRECT = 0x11,
    SELECT = 0x1b,
    LOCAL_GET = 0x20,
    LOCAL_SET = 0x21,
    LOCAL_TEE = 0x22,
    GLOBAL_GET = 0x23,
    GLOBAL_SET = 0x24,
    I32_LOAD = 0x28,
    I64_LOAD = 0x29,
    I32_LOAD8_U = 0x2d,
    I32_STORE = 0x36,
    I64_STORE = 0x37,
    I32_CONST = 0x41,
    I64_CONST = 0x42,
    I32_EQZ = 0x45,
    I32_AND = 0x71,
    I32_ADD = 0x6a,
    I32_SUB = 0x6b,
    I32_WRAP_I64 = 0xa7,
    I64_EXTEND_I32_U = 0xad,
    VOID = 0x40,
    T_I32 = 0x7f,
    T_I64 = 0x7e
};

/* Locals of every generated function: params 0-1 (i32), general i32 2-5, i64 6-8, loop
 * counters 9-10 (one per loop nesting level). */
enum { N_I32 = 6, FIRST_I64 = 6, N_I64 = 3, FIRST_COUNTER = 9, MAX_LOOPS = 2 };
enum { LEAVES = 64 }; /* functions 0..63 call nothing; the table holds them */

typedef struct gen {
    buf *b;
    uint32_t func; /* the function being generated */
    int loops;     /* loops open around the current statement */
} gen;

static void expr_i32(gen *g, int depth);

static void address(gen *g, int depth)
{
    expr_i32(g, depth);
    byte(g->b, I32_CONST);
    s64leb(g->b, 0x7ff8); /* 8-aligned, below 32 KiB: with offsets < 64, inside page 0 */
    byte(g->b, I32_AND);
}

static void expr_i64(gen *g, int depth)
{
    static const uint8_t binops[] = {0x7c, 0x7d, 0x7e, 0x83, 0x84, 0x85, 0x86, 0x88, 0x89};
    buf *b = g->b;
    if (depth == 0 || rnd(4) == 0) {
        switch (rnd(4)) {
        case 0:
            byte(b, LOCAL_GET);
            u32leb(b, FIRST_I64 + rnd(N_I64));
            return;
        case 1: {
            /* one rnd() per statement: the order of the calls is fixed */
            uint64_t high = rnd(1u << 30);
            uint32_t shift = rnd(34);
            int64_t low = rnd(1000);
            byte(b, I64_CONST);
            s64leb(b, (int64_t)(high << shift) - low);
            return;
        }
        case 2:
            byte(b, LOCAL_GET);
            u32leb(b, rnd(N_I32));
            byte(b, I64_EXTEND_I32_U);
            return;
        default:
            address(g, 0);
            byte(b, I64_LOAD);
            byte(b, 3);
            u32leb(b, rnd(8) * 8);
            return;
        }
    }
    expr_i64(g, depth - 1);
    expr_i64(g, depth - 1);
    byte(b, binops[rnd(sizeof binops)]);
}

static void expr_i32(gen *g, int depth)
{
    /* add sub mul and or xor shl shr_s shr_u rotl eq ne lt_u gt_s le_u */
    static const uint8_t binops[] = {0x6a, 0x6b, 0x6c, 0x71, 0x72, 0x73, 0x74, 0x75,
                                     0x76, 0x77, 0x46, 0x47, 0x49, 0x4a, 0x4d};
    static const uint8_t unops[] = {0x45, 0x67, 0x68, 0x69}; /* eqz clz ctz popcnt */
    buf *b = g->b;
    if (depth == 0 || rnd(4) == 0) {
        switch (rnd(6)) {
        case 0:
        case 1:
            byte(b, LOCAL_GET);
            u32leb(b, rnd(N_I32));
            return;
        case 2:
            byte(b, I32_CONST);
            s64leb(b, (int32_t)(rnd(1u << 20) - (1u << 19)));
            return;
        case 3:
            byte(b, GLOBAL_GET);
            u32leb(b, 0);
            return;
        case 4:
            address(g, 0);
            byte(b, rnd(2) ? I32_LOAD : I32_LOAD8_U);
            byte(b, 0);
            u32leb(b, rnd(16) * 4);
            return;
        default:
            byte(b, LOCAL_GET);
            u32leb(b, FIRST_I64 + rnd(N_I64));
            byte(b, I32_WRAP_I64);
            return;
        }
    }
    uint32_t kind = rnd(12);
    if (kind == 0) {
        expr_i32(g, depth - 1);
        byte(b, unops[rnd(sizeof unops)]);
    } else if (kind == 1) { /* unsigned division by an odd number never traps */
        expr_i32(g, depth - 1);
        expr_i32(g, depth - 1);
        byte(b, I32_CONST);
        s64leb(b, 1);
        byte(b, 0x72);                 /* or */
        byte(b, rnd(2) ? 0x6e : 0x70); /* div_u rem_u */
    } else if (kind == 2) {
        expr_i32(g, depth - 1);
        expr_i32(g, depth - 1);
        expr_i32(g, depth - 1);
        byte(b, SELECT);
    } else {
        expr_i32(g, depth - 1);
        expr_i32(g, depth - 1);
        byte(b, binops[rnd(sizeof binops)]);
    }
}

static void stmts(gen *g, int depth, uint32_t count);

static void stmt_call(gen *g)
{
    buf *b = g->b;
    expr_i32(g, 2);
    expr_i32(g, 2);
    if (rnd(3) == 0) {
        expr_i32(g, 1);
        byte(b, I32_CONST);
        s64leb(b, LEAVES - 1);
        byte(b, I32_AND);
        byte(b, CALL_INDIRECT);
        u32leb(b, 0); /* type 0 */
        u32leb(b, 0); /* table 0 */
    } else {
        byte(b, CALL);
        u32leb(b, rnd(LEAVES));
    }
    byte(b, LOCAL_SET);
    u32leb(b, 2 + rnd(N_I32 - 2));
}

static void stmt_loop(gen *g, int depth)
{
    buf *b = g->b;
    uint32_t counter = FIRST_COUNTER + (uint32_t)g->loops;
    byte(b, I32_CONST);
    s64leb(b, 1 + rnd(3));
    byte(b, LOCAL_SET);
    u32leb(b, counter);
    byte(b, BLOCK);
    byte(b, VOID);
    byte(b, LOOP);
    byte(b, VOID);
    byte(b, LOCAL_GET);
    u32leb(b, counter);
    byte(b, I32_EQZ);
    byte(b, BR_IF);
    u32leb(b, 1);
    g->loops++;
    stmts(g, depth - 1, 1 + rnd(4));
    g->loops--;
    byte(b, LOCAL_GET);
    u32leb(b, counter);
    byte(b, I32_CONST);
    s64leb(b, 1);
    byte(b, I32_SUB);
    byte(b, LOCAL_SET);
    u32leb(b, counter);
    byte(b, BR);
    u32leb(b, 0);
    byte(b, END);
    byte(b, END);
}

static void stmt(gen *g, int depth)
{
    buf *b = g->b;
    uint32_t kind = rnd(16);
    if (depth == 0 && kind >= 10)
        kind = rnd(10);
    if (kind < 4) {
        bool tee = rnd(2);
        expr_i32(g, 3);
        byte(b, tee ? LOCAL_TEE : LOCAL_SET);
        u32leb(b, 2 + rnd(N_I32 - 2));
        if (tee) { /* and into the global */
            byte(b, GLOBAL_SET);
            u32leb(b, 0);
        }
    } else if (kind < 6) {
        expr_i64(g, 3);
        byte(b, LOCAL_SET);
        u32leb(b, FIRST_I64 + rnd(N_I64));
    } else if (kind < 8) {
        address(g, 1);
        if (rnd(2)) {
            expr_i32(g, 2);
            byte(b, I32_STORE);
            byte(b, 2);
        } else {
            expr_i64(g, 2);
            byte(b, I64_STORE);
            byte(b, 3);
        }
        u32leb(b, rnd(8) * 8);
    } else if (kind < 10) {
        if (g->func >= LEAVES)
            stmt_call(g);
        else
            stmt(g, 0);
    } else if (kind < 12) {
        expr_i32(g, 2);
        byte(b, IF);
        byte(b, VOID);
        stmts(g, depth - 1, 1 + rnd(4));
        if (rnd(2)) {
            byte(b, ELSE);
            stmts(g, depth - 1, 1 + rnd(4));
        }
        byte(b, END);
    } else if (kind < 14 && g->loops < MAX_LOOPS) {
        stmt_loop(g, depth);
    } else { /* a block left early by br_if */
        byte(b, BLOCK);
        byte(b, VOID);
        stmts(g, depth - 1, 1 + rnd(3));
        expr_i32(g, 2);
        byte(b, BR_IF);
        u32leb(b, 0);
        stmts(g, depth - 1, 1 + rnd(3));
        byte(b, END);
    }
}

static void stmts(gen *g, int depth, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        stmt(g, depth);
}

static void body(buf *code, uint32_t func)
{
    buf b = {0};
    gen g = {&b, func, 0};
    byte(&b, 3); /* local declarations */
    u32leb(&b, N_I32 - 2);
    byte(&b, T_I32);
    u32leb(&b, N_I64);
    byte(&b, T_I64);
    u32leb(&b, MAX_LOOPS);
    byte(&b, T_I32);
    stmts(&g, 2, 5 + rnd(10));
    expr_i32(&g, 2); /* the result */
    byte(&b, LOCAL_GET);
    u32leb(&b, 2 + rnd(N_I32 - 2));
    byte(&b, I32_ADD);
    byte(&b, END);
    u32leb(code, (uint32_t)b.size);
    put(code, b.data, b.size);
    free(b.data);
}

/* run: acc = sum over i of f_i(i, acc) rotated; returns acc. */
static void body_run(buf *code, uint32_t funcs)
{
    buf b = {0};
    byte(&b, 1);
    u32leb(&b, 1);
    byte(&b, T_I32);
    for (uint32_t i = 0; i < funcs; i++) {
        byte(&b, I32_CONST);
        s64leb(&b, i);
        byte(&b, LOCAL_GET);
        u32leb(&b, 0);
        byte(&b, CALL);
        u32leb(&b, i);
        byte(&b, LOCAL_GET);
        u32leb(&b, 0);
        byte(&b, I32_CONST);
        s64leb(&b, 5);
        byte(&b, 0x77); /* rotl */
        byte(&b, 0x73); /* xor */
        byte(&b, LOCAL_SET);
        u32leb(&b, 0);
    }
    byte(&b, LOCAL_GET);
    u32leb(&b, 0);
    byte(&b, END);
    u32leb(code, (uint32_t)b.size);
    put(code, b.data, b.size);
    free(b.data);
}

static void header(buf *out)
{
    static const uint8_t magic[] = {0, 'a', 's', 'm', 1, 0, 0, 0};
    put(out, magic, sizeof magic);
}

static void types(buf *out, buf *s)
{
    u32leb(s, 2);
    byte(s, 0x60); /* 0: (i32 i32) -> i32 */
    u32leb(s, 2);
    byte(s, T_I32);
    byte(s, T_I32);
    u32leb(s, 1);
    byte(s, T_I32);
    byte(s, 0x60); /* 1: () -> i32 */
    u32leb(s, 0);
    u32leb(s, 1);
    byte(s, T_I32);
    section(out, 1, s);
}

static void exports(buf *out, buf *s, uint32_t run_idx)
{
    u32leb(s, 2);
    name(s, "run");
    byte(s, 0);
    u32leb(s, run_idx);
    name(s, "memory");
    byte(s, 2);
    u32leb(s, 0);
    section(out, 7, s);
}

static void make_big(buf *out, uint32_t funcs)
{
    buf s = {0};
    header(out);
    types(out, &s);
    u32leb(&s, funcs + 1); /* function section */
    for (uint32_t i = 0; i < funcs; i++)
        u32leb(&s, 0);
    u32leb(&s, 1);
    section(out, 3, &s);
    u32leb(&s, 1); /* table: the leaves */
    byte(&s, 0x70);
    byte(&s, 0);
    u32leb(&s, LEAVES);
    section(out, 4, &s);
    u32leb(&s, 1); /* memory: one page */
    byte(&s, 1);
    u32leb(&s, 1);
    u32leb(&s, 1);
    section(out, 5, &s);
    u32leb(&s, 1); /* global 0: mut i32 */
    byte(&s, T_I32);
    byte(&s, 1);
    byte(&s, I32_CONST);
    s64leb(&s, 7);
    byte(&s, END);
    section(out, 6, &s);
    exports(out, &s, funcs);
    u32leb(&s, 1); /* element segment: table[0..64) = functions 0..63 */
    u32leb(&s, 0);
    byte(&s, I32_CONST);
    s64leb(&s, 0);
    byte(&s, END);
    u32leb(&s, LEAVES);
    for (uint32_t i = 0; i < LEAVES; i++)
        u32leb(&s, i);
    section(out, 9, &s);
    u32leb(&s, funcs + 1); /* code */
    for (uint32_t i = 0; i < funcs; i++)
        body(&s, i);
    body_run(&s, funcs);
    section(out, 10, &s);
    u32leb(&s, 1); /* data: 1 KiB of pattern at 1024 */
    u32leb(&s, 0);
    byte(&s, I32_CONST);
    s64leb(&s, 1024);
    byte(&s, END);
    u32leb(&s, 1024);
    for (uint32_t i = 0; i < 1024; i++)
        byte(&s, rnd(256));
    section(out, 11, &s);
    buf names = {0}; /* name section, function names subsection */
    u32leb(&names, funcs + 1);
    char fname[32];
    for (uint32_t i = 0; i < funcs; i++) {
        u32leb(&names, i);
        snprintf(fname, sizeof fname, "%s_%u", i < LEAVES ? "leaf" : "func", i);
        name(&names, fname);
    }
    u32leb(&names, funcs);
    name(&names, "run");
    name(&s, "name");
    byte(&s, 1);
    u32leb(&s, (uint32_t)names.size);
    put(&s, names.data, names.size);
    section(out, 0, &s);
    free(names.data);
    free(s.data);
}

enum { DATA_SEGMENTS = 16, SEGMENT_SIZE = 65536 };

static void make_data(buf *out)
{
    buf s = {0};
    header(out);
    types(out, &s);
    u32leb(&s, 1);
    u32leb(&s, 1); /* run: type 1 */
    section(out, 3, &s);
    u32leb(&s, 1); /* memory: 17 pages */
    byte(&s, 0);
    u32leb(&s, DATA_SEGMENTS + 1);
    section(out, 5, &s);
    exports(out, &s, 0);
    /* run: local 0 = address, local 1 = sum; for addr < 1 MiB step 4093: sum = sum*31+byte */
    static const uint8_t run[] = {
        1,         2,     T_I32,                                    /* locals: 2 x i32 */
        BLOCK,     VOID,  LOOP,        VOID,                        /* */
        LOCAL_GET, 0,     I32_CONST,   0x80, 0x80,      0xc0,    0, /* i32.const 1048576 */
        0x4f,      BR_IF, 1,                                        /* i32.ge_u; br_if 1 */
        LOCAL_GET, 1,     I32_CONST,   31,   0x6c,                  /* sum * 31 */
        LOCAL_GET, 0,     I32_LOAD8_U, 0,    0,         I32_ADD, LOCAL_SET, 1, /* + mem[addr] */
        LOCAL_GET, 0,     I32_CONST,   0xfd, 0x1f,      I32_ADD, LOCAL_SET, 0, /* addr += 4093 */
        BR,        0,     END,         END,  LOCAL_GET, 1,       END};
    u32leb(&s, 1);
    u32leb(&s, sizeof run);
    put(&s, run, sizeof run);
    section(out, 10, &s);
    u32leb(&s, DATA_SEGMENTS);
    for (uint32_t seg = 0; seg < DATA_SEGMENTS; seg++) {
        u32leb(&s, 0);
        byte(&s, I32_CONST);
        s64leb(&s, (int64_t)seg * SEGMENT_SIZE);
        byte(&s, END);
        u32leb(&s, SEGMENT_SIZE);
        for (uint32_t i = 0; i < SEGMENT_SIZE; i++)
            byte(&s, rnd(256));
    }
    section(out, 11, &s);
    free(s.data);
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "big") != 0 && strcmp(argv[1], "data") != 0)) {
        fprintf(stderr, "usage: genmod big FILE [FUNCS] | genmod data FILE\n");
        return 2;
    }
    buf out = {0};
    if (strcmp(argv[1], "big") == 0) {
        long funcs = argc > 3 ? strtol(argv[3], NULL, 10) : 6000;
        if (funcs <= LEAVES || funcs > 1000000) {
            fprintf(stderr, "genmod: FUNCS must be in %d..1000000\n", LEAVES + 1);
            return 2;
        }
        make_big(&out, (uint32_t)funcs);
    } else {
        make_data(&out);
    }
    FILE *f = fopen(argv[2], "wb");
    if (f == NULL || fwrite(out.data, 1, out.size, f) != out.size || fclose(f) != 0) {
        fprintf(stderr, "genmod: cannot write %s\n", argv[2]);
        return 2;
    }
    free(out.data);
    return 0;
}
