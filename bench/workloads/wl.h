/* wl.h: the little a benchmark workload needs without libc. Workloads are built with
 * clang --target=wasm32 -O2 -nostdlib (see ../Makefile); each defines `bench(n)` (the
 * work at size n, returning a checksum) and `run()` (bench at the size timed by
 * `make bench`). `make bench-callgrind` calls bench with a smaller n. */
#ifndef WD_BENCH_WL_H
#define WD_BENCH_WL_H

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned long size_t;

#define EXPORT(name) __attribute__((export_name(name)))
#define NOINLINE     __attribute__((noinline))

/* The workload's two entry points: `run` is bench(FULL), with bench kept out of line so
 * both run the same code. */
#define WORKLOAD(type, full)                                                                       \
    EXPORT("bench") NOINLINE type bench(i32 n);                                                    \
    EXPORT("run") type run(void);                                                                  \
    type run(void)                                                                                 \
    {                                                                                              \
        return bench(full);                                                                        \
    }

/* A deterministic pseudo-random sequence (xorshift32): the same on every runtime. */
static inline u32 rnd_next(u32 *s)
{
    u32 x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* Defined once in wl_mem.h (clang may call them for struct copies and zeroing). */
void *memcpy(void *dst, const void *src, size_t size);
void *memset(void *dst, int c, size_t size);

#endif
