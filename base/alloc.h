/* alloc.h: the context allocator. All memory goes through a wd_ctx, so tests can count
 * allocations, find leaks and fail the Nth allocation on purpose. */
#ifndef WD_BASE_ALLOC_H
#define WD_BASE_ALLOC_H

#include "base/base.h"

typedef struct wd_ctx {
    /* realloc-like: (ud, NULL, n) allocates, (ud, p, 0) frees and returns NULL. */
    void *(*realloc_fn)(void *ud, void *ptr, size_t size);
    void *ud;
    size_t live;       /* allocations not yet freed (counted by the wd_ functions) */
    size_t count;      /* allocations made so far */
    size_t fail_after; /* 0: never fail; N: the Nth allocation and later ones fail */
} wd_ctx;

/* A context on libc's realloc/free. */
void wd_ctx_init(wd_ctx *ctx);

/* Other threads may allocate at the same time as `ctx` through contexts of their own made
 * by wd_ctx_fork: true when `ctx` is on libc (thread-safe) and fails no allocation on
 * purpose. A fork starts with nothing counted; wd_ctx_join adds its counts back, after
 * which memory from either context may be freed through the other. */
bool wd_ctx_forkable(const wd_ctx *ctx);
void wd_ctx_fork(const wd_ctx *ctx, wd_ctx *fork);
void wd_ctx_join(wd_ctx *ctx, const wd_ctx *fork);

/* A context on libc that counts its allocations' bytes (tests and benchmarks): `asked`,
 * every size asked for (each allocation and reallocation; frees aside), `now` live and
 * `peak`. It refuses a request that would take `asked` past `limit` (0: none): an input that
 * once made a huge allocation then fails a test on the count, without allocating it. `m`
 * must outlive the context. wd_meter_realloc is its realloc_fn (ud: the meter), for
 * allocations made outside a context (jansson's). */
typedef struct wd_meter {
    size_t asked, limit, now, peak;
} wd_meter;
void wd_ctx_metered(wd_ctx *ctx, wd_meter *m, size_t limit);
void *wd_meter_realloc(void *ud, void *ptr, size_t size);

/* NULL on failure (or on injected failure). Sizes of 0 return a unique non-NULL pointer. */
void *wd_alloc(wd_ctx *ctx, size_t size);
void *wd_calloc(wd_ctx *ctx, size_t count, size_t size);
/* Like realloc; on failure returns NULL and leaves `ptr` valid. */
void *wd_realloc(wd_ctx *ctx, void *ptr, size_t size);
void wd_free(wd_ctx *ctx, void *ptr);
char *wd_strndup(wd_ctx *ctx, const char *s, size_t len);

/* Grows `*data` (holding `*cap` elements of `elem` bytes) to hold at least `need`.
 * Returns false on overflow or out of memory, leaving the buffer as it was. */
WD_NODISCARD bool wd_grow(wd_ctx *ctx, void **data, uint32_t *cap, size_t elem, uint64_t need);

/* A vector of T: `WD_VEC(T) v = {0};` then WD_VEC_PUSH(ctx, &v, x) (false on OOM). */
#define WD_VEC(T)                                                                                  \
    struct {                                                                                       \
        T *data;                                                                                   \
        uint32_t count, cap;                                                                       \
    }
#define WD_VEC_PUSH(ctx, v, x)                                                                     \
    ((v)->count < (v)->cap ||                                                                      \
             wd_grow((ctx), (void **)&(v)->data, &(v)->cap, sizeof *(v)->data,                    \
                     (uint64_t)(v)->count + 1)                                                     \
         ? ((v)->data[(v)->count++] = (x), true)                                                   \
         : false)
#define WD_VEC_FREE(ctx, v)                                                                        \
    do {                                                                                           \
        wd_free((ctx), (v)->data);                                                                 \
        (v)->data = NULL;                                                                          \
        (v)->count = (v)->cap = 0;                                                                 \
    } while (0)

/* An arena: many small allocations freed at once (a module's names, types, segments). */
typedef struct wd_arena_chunk wd_arena_chunk;
typedef struct wd_arena {
    wd_ctx *ctx;
    wd_arena_chunk *head;
    size_t used, avail;
    size_t expect; /* wd_arena_expect's hint, until the first chunk */
} wd_arena;

void wd_arena_init(wd_arena *a, wd_ctx *ctx);
/* A hint: the arena will take about `size` bytes. Its first chunk is made that size (up
 * to the largest chunk) instead of growing there step by step. */
void wd_arena_expect(wd_arena *a, size_t size);
/* 16-byte aligned, zeroed; NULL on out of memory. */
void *wd_arena_alloc(wd_arena *a, size_t size);
void *wd_arena_dup(wd_arena *a, const void *src, size_t size);
/* Like wd_arena_alloc, but not zeroed (for memory the caller fills at once). */
void *wd_arena_alloc_raw(wd_arena *a, size_t size);
/* For a caller that fills memory before it knows how much it needs: the free space at the
 * end of the current chunk, 16-byte aligned, *avail bytes (a multiple of 16), or NULL when
 * less than `min` bytes are free. Nothing is allocated: wd_arena_commit(a, size), before
 * any other allocation from the arena, then takes its first `size` (<= *avail) bytes as
 * wd_arena_alloc_raw would. */
void *wd_arena_tail(wd_arena *a, size_t min, size_t *avail);
void wd_arena_commit(wd_arena *a, size_t size);
/* Moves every chunk of `from` (on a context joined or equal to a's) into `a`, keeping a's
 * current chunk current; `from` is left empty. */
void wd_arena_adopt(wd_arena *a, wd_arena *from);
void wd_arena_fini(wd_arena *a);

#endif
