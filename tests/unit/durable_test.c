#include "vm/durable.h"

#include "tests/unit/test.h"
#include "tests/unit/util.h"

#define K(s) s, sizeof(s) - 1

TEST(durable_key_syntax)
{
    CHECK_EQ(wd_durable_check_key(K("/a/b.c-d_E9"), false), 0);
    CHECK_EQ(wd_durable_check_key(K("/"), false), WD_DURABLE_EINVALID_KEY);
    CHECK_EQ(wd_durable_check_key(K("/"), true), 0);
    CHECK_EQ(wd_durable_check_key(K("a"), false), WD_DURABLE_EINVALID_KEY);
    CHECK_EQ(wd_durable_check_key(K("/a/"), false), WD_DURABLE_EINVALID_KEY);
    CHECK_EQ(wd_durable_check_key(K("/a//b"), false), WD_DURABLE_EINVALID_KEY);
    CHECK_EQ(wd_durable_check_key(K("/a@"), false), WD_DURABLE_EINVALID_KEY);
    char key[242];
    key[0] = '/';
    memset(key + 1, 'x', sizeof key - 1);
    CHECK_EQ(wd_durable_check_key(key, 240, false), 0);
    CHECK_EQ(wd_durable_check_key(key, 241, false), WD_DURABLE_EKEY_TOO_LARGE);
}

TEST(durable_values_and_children)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_durable *d = wd_durable_new(&ctx);
    CHECK(d != NULL);
    CHECK_EQ(wd_durable_has(d, K("/a")), 0);
    CHECK_EQ(wd_durable_write(d, K("/a"), 0, (const uint8_t *)"hello", 5), 0);
    CHECK_EQ(wd_durable_write(d, K("/a/b"), 0, (const uint8_t *)"x", 1), 0);
    CHECK_EQ(wd_durable_write(d, K("/a/c"), 0, (const uint8_t *)"y", 1), 0);
    CHECK_EQ(wd_durable_has(d, K("/a")), 3);
    CHECK_EQ(wd_durable_has(d, K("/a/b")), 1);
    CHECK_EQ(wd_durable_list_size(d, K("/a")), 3);
    CHECK_EQ(wd_durable_write(d, K("/a"), 6, (const uint8_t *)"!", 1), WD_DURABLE_EINVALID_ACCESS);
    CHECK_EQ(wd_durable_write(d, K("/a"), 5, (const uint8_t *)"!", 1), 0);
    uint8_t buf[16];
    CHECK_EQ(wd_durable_read(d, K("/a"), 1, buf, sizeof buf), 5);
    CHECK(memcmp(buf, "ello!", 5) == 0);
    CHECK_EQ(wd_durable_read(d, K("/a"), 6, buf, sizeof buf), WD_DURABLE_EINVALID_ACCESS);
    CHECK_EQ(wd_durable_read(d, K("/nope"), 0, buf, sizeof buf), WD_DURABLE_ENOT_A_VALUE);
    const char *name;
    size_t len;
    /* children in byte order with the value slot ("@") between digits and letters */
    CHECK_EQ(wd_durable_write(d, K("/a/0"), 0, (const uint8_t *)"z", 1), 0);
    CHECK_EQ(wd_durable_nth_key(d, K("/a"), 0, &name, &len), 0);
    CHECK(len == 1 && name[0] == '0');
    CHECK_EQ(wd_durable_nth_key(d, K("/a"), 1, &name, &len), 0);
    CHECK_EQ(len, 0);
    CHECK_EQ(wd_durable_nth_key(d, K("/a"), 2, &name, &len), 0);
    CHECK(len == 1 && name[0] == 'b');
    CHECK_EQ(wd_durable_nth_key(d, K("/a"), 4, &name, &len), WD_DURABLE_ESUBKEY_INDEX);
    CHECK_EQ(wd_durable_delete(d, K("/a"), true), 0);
    CHECK_EQ(wd_durable_has(d, K("/a")), 2);
    CHECK_EQ(wd_durable_delete(d, K("/a"), false), 0);
    CHECK_EQ(wd_durable_has(d, K("/a")), 0);
    CHECK_EQ(wd_durable_create(d, K("/big"), 100000), 0);
    CHECK_EQ(wd_durable_create(d, K("/big"), 1), WD_DURABLE_EVALUE_EXISTS);
    CHECK_EQ(wd_durable_value_size(d, K("/big")), 100000);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
}

/* A kept value stays as it was when the key is written in place, set again or deleted. */
TEST(durable_kept_value_survives_changes)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_durable *d = wd_durable_new(&ctx);
    const uint8_t *data;
    size_t size;
    CHECK(wd_durable_keep(d, K("/k"), &data, &size) == NULL && size == 0);
    CHECK_EQ(wd_durable_set(d, K("/k"), (const uint8_t *)"kernel", 6), 0);
    const wd_durable_kept *a = wd_durable_keep(d, K("/k"), &data, &size);
    CHECK(a != NULL && size == 6 && memcmp(data, "kernel", 6) == 0);
    CHECK_EQ(wd_durable_write(d, K("/k"), 0, (const uint8_t *)"KER", 3), 0);
    size_t n;
    const uint8_t *now = wd_durable_value(d, K("/k"), &n);
    CHECK(n == 6 && memcmp(now, "KERnel", 6) == 0 && now != data);
    CHECK(memcmp(data, "kernel", 6) == 0);
    const uint8_t *data2;
    const wd_durable_kept *b = wd_durable_keep(d, K("/k"), &data2, &size);
    CHECK(b != NULL && b != a && data2 == now);
    CHECK_EQ(wd_durable_set(d, K("/k"), (const uint8_t *)"upgrade", 7), 0);
    CHECK(memcmp(data, "kernel", 6) == 0 && memcmp(data2, "KERnel", 6) == 0);
    CHECK_EQ(wd_durable_delete(d, K("/k"), false), 0);
    CHECK(memcmp(data2, "KERnel", 6) == 0);
    wd_durable_release(d, a);
    wd_durable_release(d, b);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
}

TEST(durable_copy_is_independent)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_durable *d = wd_durable_new(&ctx);
    CHECK_EQ(wd_durable_write(d, K("/s/x"), 0, (const uint8_t *)"1", 1), 0);
    CHECK_EQ(wd_durable_write(d, K("/s/y/z"), 0, (const uint8_t *)"2", 1), 0);
    CHECK_EQ(wd_durable_copy(d, K("/s"), K("/t/u"), false), 0);
    CHECK_EQ(wd_durable_write(d, K("/t/u/x"), 0, (const uint8_t *)"9", 1), 0);
    uint8_t b = 0;
    CHECK_EQ(wd_durable_read(d, K("/s/x"), 0, &b, 1), 1);
    CHECK_EQ(b, '1');
    CHECK_EQ(wd_durable_read(d, K("/t/u/x"), 0, &b, 1), 1);
    CHECK_EQ(b, '9');
    CHECK_EQ(wd_durable_read(d, K("/t/u/y/z"), 0, &b, 1), 1);
    CHECK_EQ(b, '2');
    /* copy into its own subtree, then move */
    CHECK_EQ(wd_durable_copy(d, K("/s"), K("/s/y/w"), false), 0);
    CHECK_EQ(wd_durable_has(d, K("/s/y/w/y/z")), 1);
    CHECK_EQ(wd_durable_has(d, K("/s/y/w/y/w")), 0);
    CHECK_EQ(wd_durable_copy(d, K("/s"), K("/m"), true), 0);
    CHECK_EQ(wd_durable_has(d, K("/s")), 0);
    CHECK_EQ(wd_durable_has(d, K("/m/x")), 1);
    CHECK_EQ(wd_durable_copy(d, K("/none"), K("/m"), false), WD_DURABLE_ENOT_A_NODE);
    wd_durable *snap = wd_durable_clone(d);
    CHECK_EQ(wd_durable_delete(d, K("/m"), false), 0);
    CHECK_EQ(wd_durable_has(snap, K("/m/x")), 1);
    wd_durable_free(snap);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
}

static int count_nodes(void *ud, const char *path, const wd_durable_blob *value, size_t size)
{
    (void)path, (void)value, (void)size;
    (*(int *)ud)++;
    return 0;
}

TEST(durable_many_keys)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_durable *d = wd_durable_new(&ctx);
    char key[64];
    for (int i = 0; i < 200000; i++) {
        int n = snprintf(key, sizeof key, "/evm/acct/%08x/balance", (unsigned)i * 2654435761u);
        CHECK_EQ(wd_durable_write(d, key, (size_t)n, 0, (const uint8_t *)&i, sizeof i), 0);
    }
    CHECK_EQ(wd_durable_list_size(d, K("/evm/acct")), 200000);
    CHECK_EQ(wd_durable_copy(d, K("/evm"), K("/backup"), false), 0);
    int n = snprintf(key, sizeof key, "/backup/acct/%08x/balance", 7u * 2654435761u);
    int v = 0;
    CHECK_EQ(wd_durable_read(d, key, (size_t)n, 0, (uint8_t *)&v, sizeof v), 4);
    CHECK_EQ(v, 7);
    int nodes = 0;
    CHECK_EQ(wd_durable_walk(d, K("/evm"), count_nodes, &nodes), 0);
    CHECK_EQ(nodes, 2 + 2 * 200000);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
}

TEST(durable_out_of_memory_keeps_state)
{
    for (size_t fail = 1; fail < 40; fail++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_durable *d = wd_durable_new(&ctx);
        CHECK(d != NULL);
        CHECK_EQ(wd_durable_write(d, K("/a/b"), 0, (const uint8_t *)"v", 1), 0);
        ctx.fail_after = ctx.count + fail;
        int rc = wd_durable_copy(d, K("/a"), K("/c/d/e"), false);
        CHECK(rc == 0 || rc == WD_DURABLE_EGENERIC);
        ctx.fail_after = 0;
        CHECK_EQ(wd_durable_has(d, K("/a/b")), 1);
        wd_durable_free(d);
        CHECK_EQ(ctx.live, 0);
    }
}

/* Whether the value at key reads as `want` (n bytes) from offset 0, through wd_durable_read
 * (2,048 bytes at a time, as store_read) and through wd_durable_piece. */
static bool reads_as(wd_durable *d, const char *key, const uint8_t *want, size_t n)
{
    size_t len = strlen(key), size;
    const wd_durable_blob *v = wd_durable_get(d, key, len, &size);
    if (v == NULL || size != n || wd_durable_value_size(d, key, len) != (int64_t)n)
        return false;
    uint8_t buf[2048];
    for (size_t off = 0; off < n; off += sizeof buf) {
        int64_t got = wd_durable_read(d, key, len, off, buf, sizeof buf);
        if (got != (int64_t)WD_MIN(sizeof buf, n - off) || memcmp(buf, want + off, (size_t)got))
            return false;
    }
    for (size_t off = 0, got; off < n; off += got) {
        const uint8_t *p = wd_durable_piece(v, off, &got);
        if (got == 0 || got > n - off || memcmp(p, want + off, got) != 0)
            return false;
    }
    return true;
}

/* store_create of 2^31 - 1 bytes, twice: the store takes memory for what is written only,
 * unwritten bytes read as zeros, writes land anywhere below the size (across pages too),
 * and the sizes are right. */
TEST(durable_large_created_values_are_sparse)
{
    wd_ctx ctx;
    wd_meter m;
    wd_ctx_metered(&ctx, &m, 0);
    wd_durable *d = wd_durable_new(&ctx);
    CHECK_EQ(wd_durable_create(d, K("/a"), WD_DURABLE_MAX_VALUE), 0);
    CHECK_EQ(wd_durable_create(d, K("/b"), WD_DURABLE_MAX_VALUE), 0);
    CHECK_EQ(wd_durable_create(d, K("/b"), 1), WD_DURABLE_EVALUE_EXISTS);
    CHECK_EQ(wd_durable_value_size(d, K("/a")), WD_DURABLE_MAX_VALUE);
    CHECK_EQ(wd_durable_value_size(d, K("/b")), WD_DURABLE_MAX_VALUE);
    uint8_t buf[2048], zeros[2048] = {0};
    memset(buf, 0xee, sizeof buf);
    CHECK_EQ(wd_durable_read(d, K("/a"), 1000000000, buf, sizeof buf), 2048);
    CHECK(memcmp(buf, zeros, sizeof buf) == 0);
    CHECK_EQ(wd_durable_read(d, K("/b"), WD_DURABLE_MAX_VALUE - 3, buf, sizeof buf), 3);
    CHECK(memcmp(buf, zeros, 3) == 0);
    CHECK_EQ(wd_durable_read(d, K("/b"), WD_DURABLE_MAX_VALUE, buf, 1), WD_DURABLE_EINVALID_ACCESS);
    /* writes: across a page boundary, at the last byte, of 2,048 bytes in the middle */
    static const uint8_t hello[] = "hello, sparse world";
    uint64_t across = 4096 * 1000 - 7;
    CHECK_EQ(wd_durable_write(d, K("/a"), across, hello, sizeof hello), 0);
    CHECK_EQ(wd_durable_write(d, K("/a"), WD_DURABLE_MAX_VALUE - 1, hello, 1), 0);
    CHECK_EQ(wd_durable_write(d, K("/a"), WD_DURABLE_MAX_VALUE - 1, hello, 2),
             WD_DURABLE_EVALUE_SIZE);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    CHECK_EQ(wd_durable_write(d, K("/b"), 1234567890, buf, sizeof buf), 0);
    CHECK_EQ(wd_durable_value_size(d, K("/a")), WD_DURABLE_MAX_VALUE);
    uint8_t got[2048 + 2];
    CHECK_EQ(wd_durable_read(d, K("/a"), across - 1, got, sizeof hello + 2), sizeof hello + 2);
    CHECK(got[0] == 0 && memcmp(got + 1, hello, sizeof hello) == 0 && got[sizeof hello + 1] == 0);
    CHECK_EQ(wd_durable_read(d, K("/a"), WD_DURABLE_MAX_VALUE - 2, got, 10), 2);
    CHECK(got[0] == 0 && got[1] == 'h');
    CHECK_EQ(wd_durable_read(d, K("/b"), 1234567889, got, sizeof got), sizeof got);
    CHECK(got[0] == 0 && memcmp(got + 1, buf, sizeof buf) == 0 && got[sizeof buf + 1] == 0);
    CHECK_EQ(wd_durable_read(d, K("/a"), 1234567890, got, 16), 16); /* only /b was written */
    CHECK(memcmp(got, zeros, 16) == 0);
    /* 4 GiB of values, four pages written: their page tables (4 MiB each) and those pages */
    CHECK(m.peak < 50u << 20);
    CHECK(m.now < 9u << 20);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
    CHECK_EQ(m.now, 0);
}

/* A sparse value grows by appends like any other, is copied copy-on-write page by page,
 * stays as it was in a clone and when kept, and reads whole as the bytes written and zeros. */
TEST(durable_sparse_values_copy_on_write)
{
    wd_ctx ctx;
    wd_meter m;
    wd_ctx_metered(&ctx, &m, 0);
    wd_durable *d = wd_durable_new(&ctx);
    enum { SIZE = 100000, GROWN = SIZE + 5000 };
    static uint8_t want[GROWN], other[GROWN];
    CHECK_EQ(wd_durable_create(d, K("/v"), SIZE), 0);
    CHECK(reads_as(d, "/v", want, SIZE));
    CHECK_EQ(wd_durable_write(d, K("/v"), SIZE + 1, want, 1), WD_DURABLE_EINVALID_ACCESS);
    /* writes here and there (the last one past the end), then appends */
    size_t size = SIZE;
    for (size_t off = 5000; off < SIZE; off += 4999) {
        for (size_t i = 0; i < 1500; i++)
            want[off + i] = (uint8_t)(off + i);
        CHECK_EQ(wd_durable_write(d, K("/v"), off, want + off, 1500), 0);
        size = WD_MAX(size, off + 1500);
    }
    CHECK(size > SIZE);
    while (size < GROWN) {
        size_t n = WD_MIN((size_t)2048, GROWN - size);
        memset(want + size, (int)n, n);
        CHECK_EQ(wd_durable_write(d, K("/v"), size + 1, want + size, n),
                 WD_DURABLE_EINVALID_ACCESS);
        CHECK_EQ(wd_durable_write(d, K("/v"), size, want + size, n), 0);
        size += n;
    }
    CHECK_EQ(size, GROWN);
    CHECK(reads_as(d, "/v", want, size));
    /* a copy and a clone share the pages until one is written */
    size_t before = m.now;
    CHECK_EQ(wd_durable_copy(d, K("/v"), K("/w"), false), 0);
    wd_durable *snap = wd_durable_clone(d);
    CHECK(m.now - before < 1000);
    memcpy(other, want, size);
    memset(other + 70000, 0x5a, 100);
    CHECK_EQ(wd_durable_write(d, K("/w"), 70000, other + 70000, 100), 0);
    CHECK(m.now - before < 40000); /* a page table and a page, not the value */
    CHECK(reads_as(d, "/w", other, size));
    CHECK(reads_as(d, "/v", want, size));
    CHECK(reads_as(snap, "/w", want, size));
    /* read whole and kept: unchanged by a later write */
    size_t n;
    const uint8_t *whole = wd_durable_value(d, K("/v"), &n);
    CHECK(whole != NULL && n == size && memcmp(whole, want, size) == 0);
    const uint8_t *kept;
    const wd_durable_kept *k = wd_durable_keep(d, K("/v"), &kept, &n);
    CHECK(k != NULL && kept == whole);
    CHECK_EQ(wd_durable_write(d, K("/v"), 10, other + 70000, 50), 0);
    CHECK(memcmp(kept, want, size) == 0);
    memcpy(want + 10, other + 70000, 50);
    CHECK(reads_as(d, "/v", want, size));
    whole = wd_durable_value(d, K("/v"), &n);
    CHECK(whole != NULL && whole != kept && memcmp(whole, want, size) == 0);
    wd_durable_release(d, k);
    wd_durable_free(snap);
    CHECK_EQ(wd_durable_delete(d, K("/v"), false), 0);
    CHECK_EQ(wd_durable_delete(d, K("/w"), false), 0);
    wd_durable_free(d);
    CHECK_EQ(ctx.live, 0);
    CHECK_EQ(m.now, 0);
}

/* Out of memory in a write to a sparse value (shared or not, growing or not) leaves it as
 * it was. */
TEST(durable_sparse_write_out_of_memory)
{
    static uint8_t want[70000 + 3000], bytes[2048];
    memset(bytes, 0x33, sizeof bytes);
    for (size_t fail = 1; fail < 8; fail++) {
        for (int shared = 0; shared < 2; shared++) {
            wd_ctx ctx;
            wd_ctx_init(&ctx);
            wd_durable *d = wd_durable_new(&ctx);
            CHECK_EQ(wd_durable_create(d, K("/v"), 70000), 0);
            CHECK_EQ(wd_durable_write(d, K("/v"), 4090, bytes, 10), 0);
            memset(want, 0, sizeof want);
            memset(want + 4090, 0x33, 10);
            wd_durable *snap = shared ? wd_durable_clone(d) : NULL;
            ctx.fail_after = ctx.count + fail;
            int rc = wd_durable_write(d, K("/v"), 69000, bytes, sizeof bytes); /* grows */
            ctx.fail_after = 0;
            CHECK(rc == 0 || rc == WD_DURABLE_EGENERIC);
            if (rc == 0)
                memset(want + 69000, 0x33, sizeof bytes);
            CHECK(reads_as(d, "/v", want, rc == 0 ? 69000 + sizeof bytes : 70000));
            if (snap != NULL) {
                memset(want + 69000, 0, sizeof bytes);
                CHECK(reads_as(snap, "/v", want, 70000));
            }
            wd_durable_free(snap);
            wd_durable_free(d);
            CHECK_EQ(ctx.live, 0);
        }
    }
}
