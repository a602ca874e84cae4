#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static void *libc_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

void wd_ctx_init(wd_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->realloc_fn = libc_realloc;
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

struct wd_arena_chunk {
    wd_arena_chunk *next;
    size_t size;
    _Alignas(16) unsigned char mem[];
};

void wd_arena_init(wd_arena *a, wd_ctx *ctx)
{
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
}

void *wd_arena_alloc(wd_arena *a, size_t size)
{
    if (size > SIZE_MAX - 16)
        return NULL;
    size = size == 0 ? 16 : (size + 15) & ~(size_t)15;
    if (size > a->avail) {
        size_t csize = size > 32768 ? size : 32768;
        if (csize > SIZE_MAX - sizeof(wd_arena_chunk))
            return NULL;
        wd_arena_chunk *c = wd_alloc(a->ctx, sizeof *c + csize);
        if (c == NULL)
            return NULL;
        c->next = a->head;
        c->size = csize;
        a->head = c;
        a->used = 0;
        a->avail = csize;
    }
    void *p = a->head->mem + a->used;
    a->used += size;
    a->avail -= size;
    memset(p, 0, size);
    return p;
}

void *wd_arena_dup(wd_arena *a, const void *src, size_t size)
{
    void *p = wd_arena_alloc(a, size);
    if (p != NULL && size != 0)
        memcpy(p, src, size);
    return p;
}

void wd_arena_fini(wd_arena *a)
{
    wd_arena_chunk *c = a->head;
    while (c != NULL) {
        wd_arena_chunk *next = c->next;
        wd_free(a->ctx, c);
        c = next;
    }
    a->head = NULL;
    a->used = a->avail = 0;
}
