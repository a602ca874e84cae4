/* alloc_test.c: base/alloc.c's arena: alignment, zeroing, chunks of their own, the free
 * tail, adoption, and large chunks starting on a 2 MiB boundary (for huge pages). */
#include "base/alloc.h"
#include "tests/unit/test.h"

#define MIB ((size_t)1 << 20)

TEST(arena_small_allocations_are_aligned_zeroed_and_freed)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_arena a;
    wd_arena_init(&a, &ctx);
    unsigned char *prev = NULL;
    for (size_t n = 0; n < 200; n++) {
        unsigned char *p = wd_arena_alloc(&a, n);
        CHECK(p != NULL);
        CHECK_EQ((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(p[i], 0);
        memset(p, 0xAB, n);
        CHECK(p != prev);
        prev = p;
    }
    const char text[] = "kernel_run";
    char *d = wd_arena_dup(&a, text, sizeof text);
    CHECK(d != NULL && strcmp(d, text) == 0);
    wd_arena_fini(&a);
    CHECK_EQ(ctx.live, 0);
}

/* A chunk of 4 MiB or more has its memory on a 2 MiB boundary and a size rounded up to
 * 2 MiB pages: all of it is writable (ASan checks the bounds of the block behind it). */
TEST(arena_large_chunks_start_on_huge_pages)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_arena a;
    wd_arena_init(&a, &ctx);
    wd_arena_expect(&a, 8 * MIB);
    unsigned char *first = wd_arena_alloc_raw(&a, 16);
    CHECK(first != NULL);
    CHECK_EQ((uintptr_t)first % (2 * MIB), 0);
    size_t room = 0;
    unsigned char *tail = wd_arena_tail(&a, 16, &room);
    CHECK(tail == first + 16);
    CHECK_EQ(room, 8 * MIB - 16);
    memset(tail, 0x5A, room);
    wd_arena_commit(&a, room);
    /* A request over a quarter of the next chunk gets one of its own, rounded and aligned;
     * the head keeps its place (none left). */
    unsigned char *own = wd_arena_alloc(&a, 5 * MIB + 1);
    CHECK(own != NULL);
    CHECK_EQ((uintptr_t)own % (2 * MIB), 0);
    CHECK_EQ(own[5 * MIB], 0);
    memset(own, 1, 5 * MIB + 1);
    CHECK(wd_arena_tail(&a, 16, &room) == NULL);
    /* Small chunks stay where malloc puts them. */
    wd_arena b;
    wd_arena_init(&b, &ctx);
    unsigned char *small = wd_arena_alloc(&b, 100);
    CHECK(small != NULL);
    wd_arena_adopt(&a, &b);
    CHECK(wd_arena_alloc(&b, 1) != NULL); /* b starts again, empty */
    wd_arena_fini(&b);
    wd_arena_fini(&a);
    CHECK_EQ(ctx.live, 0);
}

TEST(arena_fails_cleanly_when_memory_runs_out)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_arena a;
    wd_arena_init(&a, &ctx);
    CHECK(wd_arena_alloc(&a, 64) != NULL);
    ctx.fail_after = ctx.count + 1; /* the next allocation fails */
    CHECK(wd_arena_alloc(&a, 6 * MIB) == NULL);
    CHECK(wd_arena_alloc(&a, SIZE_MAX - 8) == NULL);
    ctx.fail_after = 0;
    CHECK(wd_arena_alloc(&a, 6 * MIB) != NULL);
    wd_arena_fini(&a);
    CHECK_EQ(ctx.live, 0);
}

TEST(concat_joins_and_cuts_like_snprintf)
{
    char b[8];
    CHECK_EQ(wd_concat(b, sizeof b, (const char *const[]){"ab", "", "cd", NULL}), (size_t)4);
    CHECK(strcmp(b, "abcd") == 0);
    /* exactly full, then cut: the length of the whole, as snprintf returns it */
    CHECK_EQ(wd_concat(b, sizeof b, (const char *const[]){"abc", "defg", NULL}), (size_t)7);
    CHECK(strcmp(b, "abcdefg") == 0);
    CHECK_EQ(wd_concat(b, sizeof b, (const char *const[]){"abcdef", "/", "xyz", NULL}),
             (size_t)10);
    CHECK(strcmp(b, "abcdef/") == 0);
    CHECK_EQ(wd_concat(b, 1, (const char *const[]){"abc", NULL}), (size_t)3);
    CHECK(b[0] == '\0');
    CHECK_EQ(wd_concat(b, sizeof b, (const char *const[]){NULL}), (size_t)0);
    CHECK(b[0] == '\0');
}
