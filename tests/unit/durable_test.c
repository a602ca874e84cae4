#include "vm/durable.h"

#include "tests/unit/test.h"

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

static int count_nodes(void *ud, const char *path, const uint8_t *value, size_t size)
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
