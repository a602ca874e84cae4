#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "base/alloc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *libc_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    /* glibc's realloc of NULL takes a longer way to malloc (about 180 instructions a call
     * against 100: callgrind, a profile's few hundred small allocations) */
    return ptr == NULL ? malloc(size) : realloc(ptr, size);
}

void wd_ctx_init(wd_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->realloc_fn = libc_realloc;
}

bool wd_ctx_forkable(const wd_ctx *ctx)
{
    return ctx->realloc_fn == libc_realloc && ctx->fail_after == 0;
}

void wd_ctx_fork(const wd_ctx *ctx, wd_ctx *fork)
{
    WD_ASSERT(wd_ctx_forkable(ctx));
    *fork = (wd_ctx){.realloc_fn = ctx->realloc_fn, .ud = ctx->ud};
}

void wd_ctx_join(wd_ctx *ctx, const wd_ctx *fork)
{
    ctx->live += fork->live;
    ctx->count += fork->count;
}

static bool injected_failure(wd_ctx *ctx)
{
    ctx->count++;
    return ctx->fail_after != 0 && ctx->count >= ctx->fail_after;
}

void *wd_alloc(wd_ctx *ctx, size_t size)
{
    if (injected_failure(ctx))
        return NULL;
    void *p = ctx->realloc_fn(ctx->ud, NULL, size ? size : 1);
    if (p != NULL)
        ctx->live++;
    return p;
}

void *wd_calloc(wd_ctx *ctx, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *p = wd_alloc(ctx, count * size);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

void *wd_realloc(wd_ctx *ctx, void *ptr, size_t size)
{
    if (ptr == NULL)
        return wd_alloc(ctx, size);
    if (injected_failure(ctx))
        return NULL;
    return ctx->realloc_fn(ctx->ud, ptr, size ? size : 1);
}

void wd_free(wd_ctx *ctx, void *ptr)
{
    if (ptr == NULL)
        return;
    ctx->realloc_fn(ctx->ud, ptr, 0);
    ctx->live--;
}

char *wd_strndup(wd_ctx *ctx, const char *s, size_t len)
{
    char *p = wd_alloc(ctx, len + 1);
    if (p != NULL) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

bool wd_grow(wd_ctx *ctx, void **data, uint32_t *cap, size_t elem, uint64_t need)
{
    if (need <= *cap)
        return true;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 8;
    if (ncap < need)
        ncap = need;
    if (ncap > UINT32_MAX || ncap > SIZE_MAX / elem)
        return false;
    void *p = wd_realloc(ctx, *data, (size_t)ncap * elem);
    if (p == NULL)
        return false;
    *data = p;
    *cap = (uint32_t)ncap;
    return true;
}

/* Arena chunks. The first is small (most modules are small), each next one twice the
 * last up to CHUNK_MAX. A request over a quarter of the next chunk's size gets a chunk of
 * its own, linked behind the current one so that the space left there stays in use; a
 * chunk is left behind only for a request under a quarter of a chunk, so little is lost
 * (big.wasm of `make bench`: the decoded module takes 58.6 MB instead of 63.7).
 * wd_arena_dup copies into memory it does not zero first. Chunks of 4 MiB or more ask
 * for 2 MiB pages where the kernel has them (new_chunk): a large module's code is written
 * once, all of it, and big.wasm took 14,000 page faults on 4 KiB pages, a quarter of its
 * decode; then 3,200 with chunks where malloc put them (two threads), 420 now (325 on one). */
#define CHUNK_MIN ((size_t)32768)
#define CHUNK_MAX ((size_t)8 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

struct wd_arena_chunk {
    wd_arena_chunk *next;
    size_t size;
    void *block; /* what wd_alloc returned: the chunk, or memory before it (new_chunk) */
    _Alignas(16) unsigned char mem[];
};

void wd_arena_init(wd_arena *a, wd_ctx *ctx)
{
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
}

void wd_arena_expect(wd_arena *a, size_t size)
{
    a->expect = size;
}

/* A chunk of HUGE_PAGE pages or more is placed so that its memory starts on a huge page and,
 * its size rounded up, ends on one: all of it can then be on huge pages (where malloc put
 * it, its first and last partial huge pages, a quarter of an 8 MiB chunk, stayed on 4 KiB
 * pages). It costs a huge page of address space, never touched. */
static wd_arena_chunk *new_chunk(wd_arena *a, size_t size)
{
    size_t head = offsetof(wd_arena_chunk, mem);
    bool huge = size >= 2 * HUGE_PAGE && size <= SIZE_MAX / 2;
    if (huge)
        size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    size_t pad = huge ? HUGE_PAGE : 0;
    if (size > SIZE_MAX - head - pad)
        return NULL;
    unsigned char *block = wd_alloc(a->ctx, head + size + pad);
    if (block == NULL)
        return NULL;
    wd_arena_chunk *c = (wd_arena_chunk *)block;
    if (huge) {
        uintptr_t mem = ((uintptr_t)block + head + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        c = (wd_arena_chunk *)(block + (mem - head - (uintptr_t)block));
#ifdef MADV_HUGEPAGE
        (void)madvise((void *)mem, size, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    }
    c->size = size;
    c->block = block;
    return c;
}

/* The size an allocation takes: rounded up to 16 bytes, at least 16. */
static size_t rounded(size_t size)
{
    return size == 0 ? 16 : (size + 15) & ~(size_t)15;
}

/* `size` bytes, 16-byte aligned, not zeroed. */
static void *arena_take(wd_arena *a, size_t size)
{
    if (size > SIZE_MAX - 16)
        return NULL;
    size = rounded(size);
    if (WD_LIKELY(size <= a->avail)) {
        void *p = a->head->mem + a->used;
        a->used += size;
        a->avail -= size;
        return p;
    }
    /* twice the head (at least CHUNK_MIN already), up to CHUNK_MAX */
    size_t standard = a->head == NULL ? WD_MAX(CHUNK_MIN, WD_MIN(a->expect, CHUNK_MAX))
                                      : WD_MIN(a->head->size, CHUNK_MAX / 2) * 2;
    if (a->head != NULL && size > standard / 4) {
        /* a chunk of its own, behind the head */
        wd_arena_chunk *c = new_chunk(a, size);
        if (c == NULL)
            return NULL;
        c->next = a->head->next;
        a->head->next = c;
        return c->mem;
    }
    wd_arena_chunk *c = new_chunk(a, WD_MAX(size, standard));
    if (c == NULL)
        return NULL;
    c->next = a->head;
    a->head = c;
    a->used = size;
    a->avail = c->size - size;
    return c->mem;
}

void *wd_arena_alloc(wd_arena *a, size_t size)
{
    void *p = arena_take(a, size);
    if (p != NULL)
        memset(p, 0, rounded(size));
    return p;
}

void *wd_arena_dup(wd_arena *a, const void *src, size_t size)
{
    void *p = arena_take(a, size);
    if (p != NULL && size != 0)
        memcpy(p, src, size);
    return p;
}

void *wd_arena_alloc_raw(wd_arena *a, size_t size)
{
    return arena_take(a, size);
}

void *wd_arena_tail(wd_arena *a, size_t min, size_t *avail)
{
    size_t room = a->avail & ~(size_t)15; /* a->used is a multiple of 16 */
    if (a->head == NULL || room < min) {
        *avail = 0;
        return NULL;
    }
    *avail = room;
    return a->head->mem + a->used;
}

void wd_arena_commit(wd_arena *a, size_t size)
{
    size = rounded(size);
    WD_ASSERT(size <= a->avail);
    a->used += size;
    a->avail -= size;
}

void wd_arena_adopt(wd_arena *a, wd_arena *from)
{
    wd_arena_chunk *first = from->head;
    if (first == NULL)
        return;
    wd_arena_chunk *last = first;
    while (last->next != NULL)
        last = last->next;
    if (a->head == NULL) { /* from's current chunk becomes a's */
        *a = (wd_arena){.ctx = a->ctx, .head = first, .used = from->used, .avail = from->avail};
    } else {
        last->next = a->head->next;
        a->head->next = first;
    }
    from->head = NULL;
    from->used = from->avail = 0;
}

void wd_arena_fini(wd_arena *a)
{
    wd_arena_chunk *c = a->head;
    while (c != NULL) {
        wd_arena_chunk *next = c->next;
        wd_free(a->ctx, c->block);
        c = next;
    }
    a->head = NULL;
    a->used = a->avail = 0;
}

#define METER_HEADER 16 /* each block carries its size; keeps malloc's alignment */

void *wd_meter_realloc(void *ud, void *ptr, size_t size)
{
    wd_meter *m = ud;
    unsigned char *block = ptr != NULL ? (unsigned char *)ptr - METER_HEADER : NULL;
    size_t old = 0;
    if (block != NULL)
        memcpy(&old, block, sizeof old);
    if (size == 0) {
        free(block);
        m->now -= old;
        return NULL;
    }
    if (size > SIZE_MAX - METER_HEADER ||
        (m->limit != 0 && size > m->limit - WD_MIN(m->asked, m->limit)))
        return NULL;
    m->asked += size;
    unsigned char *grown = realloc(block, size + METER_HEADER);
    if (grown == NULL)
        return NULL;
    memcpy(grown, &size, sizeof size);
    m->now = m->now - old + size;
    m->peak = m->now > m->peak ? m->now : m->peak;
    return grown + METER_HEADER;
}

void wd_ctx_metered(wd_ctx *ctx, wd_meter *m, size_t limit)
{
    wd_ctx_init(ctx);
    *m = (wd_meter){.limit = limit};
    ctx->realloc_fn = wd_meter_realloc;
    ctx->ud = m;
}
