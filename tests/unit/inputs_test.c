#include "tests/unit/test.h"
#include "vm/base58.h"
#include "vm/inputs.h"

/* An empty error message, or a failure printing it. */
#define CHECK_NO_ERROR(msg) CHECK_STR_CONTAINS("", (msg))

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The shared test data (../shared/kernels relative to the repository, or $WD_SHARED_DIR). */
static const char *shared_path(const char *file, char *buf, size_t size)
{
    const char *dir = getenv("WD_SHARED_DIR");
    snprintf(buf, size, "%s/kernels/%s", dir != NULL ? dir : "../shared", file);
    return buf;
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static int msg_is(const wd_input_msg *m, const uint8_t *bytes, size_t size)
{
    if (m->size == size && memcmp(m->data, bytes, size) == 0)
        return 1;
    printf("  message of %u bytes:", (unsigned)m->size);
    for (uint32_t i = 0; i < m->size && i < 80; i++)
        printf(" %02x", m->data[i]);
    printf("\n");
    return 0;
}

#define MSG_IS(m, ...)                                                                             \
    do {                                                                                           \
        static const uint8_t want_[] = {__VA_ARGS__};                                              \
        CHECK(msg_is((m), want_, sizeof want_));                                                   \
    } while (0)

/* Parses text; returns the error message ("" on success) and keeps the inputs in *out. */
static const char *parse(wd_ctx *ctx, const char *text, const uint8_t *rollup, wd_inputs **out,
                         wd_error *err)
{
    wd_error_clear(err);
    wd_ctx_init(ctx);
    if (wd_inputs_parse(ctx, "in.json", text, strlen(text), rollup, out, err) != WD_OK)
        return err->msg;
    return "";
}

/* The error message for text, checking nothing leaks. */
static const char *error_of(const char *text, wd_error *err)
{
    wd_ctx ctx;
    wd_inputs *in;
    const char *msg = parse(&ctx, text, NULL, &in, err);
    wd_inputs_free(in);
    return ctx.live == 0 ? msg : "leak";
}

TEST(inputs_worked_example)
{
    /* reference/pvm.md section 3, "Small worked example" */
    static const char text[] = "[\n"
                               "  [ { \"external\": \"48656c6c6f\" },\n"
                               "    { \"payload\": \"0x0102\" } ],\n"
                               "  [ ]\n"
                               "]\n";
    wd_ctx ctx;
    wd_inputs *in;
    wd_error err;
    CHECK_NO_ERROR(parse(&ctx, text, NULL, &in, &err));
    CHECK_EQ(err.status, WD_OK);
    CHECK_EQ(in->count, 2);
    CHECK_EQ(in->inboxes[0].count, 2);
    CHECK_EQ(in->inboxes[1].count, 0);

    wd_inbox level;
    CHECK_EQ(wd_inputs_frame_level(&ctx, &in->inboxes[0], &level, &err), WD_OK);
    CHECK_EQ(level.count, 5);
    MSG_IS(&level.msgs[0], 0x00, 0x01);
    uint8_t ipl[42] = {0x00, 0x03}; /* timestamp 0, zero block hash */
    CHECK(msg_is(&level.msgs[1], ipl, sizeof ipl));
    MSG_IS(&level.msgs[2], 0x01, 0x48, 0x65, 0x6c, 0x6c, 0x6f);
    uint8_t transfer[70] = {0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x02, 0x01, 0x02};
    CHECK(msg_is(&level.msgs[3], transfer, sizeof transfer)); /* then 61 zero bytes */
    MSG_IS(&level.msgs[4], 0x00, 0x02);
    wd_inputs_frame_free(&ctx, &level);

    CHECK_EQ(wd_inputs_frame_level(&ctx, &in->inboxes[1], &level, &err), WD_OK);
    CHECK_EQ(level.count, 3);
    MSG_IS(&level.msgs[0], 0x00, 0x01);
    CHECK(msg_is(&level.msgs[1], ipl, sizeof ipl));
    MSG_IS(&level.msgs[2], 0x00, 0x02);
    wd_inputs_frame_free(&ctx, &level);
    CHECK_EQ(wd_inputs_frame_level(&ctx, NULL, &level, &err), WD_OK);
    CHECK_EQ(level.count, 3);
    wd_inputs_frame_free(&ctx, &level);

    wd_inputs_free(in);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_transfer_addresses)
{
    /* A rollup given by the caller is the default destination; explicit fields win. */
    uint8_t rollup[20];
    memset(rollup, 0xab, sizeof rollup);
    static const char text[] =
        "[[{\"payload\": \"Unit\"},\n"
        "  {\"payload\": \"Unit\", \"source\": \"tz4KgLG5kuN3xjp9EjZLsQv8TFtjXeZvE4X4\",\n"
        "   \"destination\": \"sr163Lv22CdE8QagCwf48PWDTquk6isQwv57\"}]]";
    wd_ctx ctx;
    wd_inputs *in;
    wd_error err;
    CHECK_NO_ERROR(parse(&ctx, text, rollup, &in, &err));
    CHECK_EQ(err.status, WD_OK);
    const wd_input_msg *m = in->inboxes[0].msgs;
    CHECK_EQ(m[0].size, 65);
    CHECK(memcmp(m[0].data, "\x00\x00\x03\x0b", 4) == 0);
    CHECK(memcmp(m[0].data + 45, rollup, 20) == 0);
    CHECK_EQ(m[0].data[24], 0); /* source tag tz1 */
    CHECK_EQ(m[1].size, 65);
    CHECK_EQ(m[1].data[24], 3); /* tz4 */
    static const uint8_t tz4[] = {0x75, 0x15, 0x62, 0x34, 0x5b, 0xbd, 0xe0, 0xc5, 0xbf, 0xe3,
                                  0x0e, 0x05, 0x91, 0xfd, 0xdb, 0x08, 0x52, 0xaf, 0x35, 0xd6};
    CHECK(memcmp(m[1].data + 25, tz4, 20) == 0);
    for (int i = 45; i < 65; i++)
        CHECK_EQ(m[1].data[i], 0);
    wd_inputs_free(in);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_echo_file)
{
    char path[512];
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_inputs *in;
    wd_error err = {0};
    CHECK_EQ(
        wd_inputs_load(&ctx, shared_path("echo.inputs.json", path, sizeof path), NULL, &in, &err),
        WD_OK);
    CHECK_EQ(in->count, 2);
    CHECK_EQ(in->inboxes[0].count, 2);
    CHECK_EQ(in->inboxes[1].count, 2);
    MSG_IS(&in->inboxes[0].msgs[0], 0x01, 'H', 'e', 'l', 'l', 'o');
    uint8_t t[70] = {0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x02, 0x01, 0x02};
    CHECK(msg_is(&in->inboxes[0].msgs[1], t, 70));
    MSG_IS(&in->inboxes[1].msgs[0], 0x01, 'w', 'o', 'r', 'l', 'd');
    uint8_t unit[65] = {0x00, 0x00, 0x03, 0x0b}; /* the 65-byte Unit transfer of the README */
    CHECK(msg_is(&in->inboxes[1].msgs[1], unit, 65));
    wd_inputs_free(in);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_tx_kernel_file_and_deposit_as_transfer)
{
    char path[512];
    static uint8_t deposit[8192], withdrawal[8192];
    size_t dsize = read_all(shared_path("tx-kernel.deposit.msg.bin", path, sizeof path), deposit,
                            sizeof deposit);
    size_t wsize = read_all(shared_path("tx-kernel.withdrawal.msg.bin", path, sizeof path),
                            withdrawal, sizeof withdrawal);
    CHECK(dsize > 61 && wsize > 0);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_inputs *in;
    wd_error err = {0};
    CHECK_EQ(wd_inputs_load(&ctx, shared_path("tx-kernel.inputs.json", path, sizeof path), NULL,
                            &in, &err),
             WD_OK);
    CHECK_EQ(in->count, 2);
    CHECK(in->inboxes[0].count == 1 && in->inboxes[1].count == 1);
    CHECK(msg_is(&in->inboxes[0].msgs[0], deposit, dsize));
    CHECK(msg_is(&in->inboxes[1].msgs[0], withdrawal, wsize));
    wd_inputs_free(in);

    /* The deposit written as a transfer gives the same bytes: Micheline payload, sender (the
     * ticketer contract), default source, destination sr1D7tjt... */
    char sender[WD_ADDRESS_TEXT_SIZE];
    wd_base58_encode_address(WD_ADDR_KT1, deposit + dsize - 61, sender);
    char text[1024];
    snprintf(text, sizeof text,
             "[[{\"payload\": \"Pair \\\"tz4KgLG5kuN3xjp9EjZLsQv8TFtjXeZvE4X4\\\" (Pair "
             "0x01d1a37c088a1221b636bb5fccb35e05181038ba7c00 (Pair \\\"Hello, Ticket!\\\" 500))\","
             " \"sender\": \"%s\", \"destination\": \"sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg\"}]]",
             sender);
    CHECK_NO_ERROR(parse(&ctx, text, NULL, &in, &err));
    CHECK(msg_is(&in->inboxes[0].msgs[0], deposit, dsize));
    wd_inputs_free(in);
    /* and with the destination from the caller's rollup address */
    char *dest = strstr(text, ", \"destination\"");
    strcpy(dest, "}]]");
    CHECK_NO_ERROR(parse(&ctx, text, deposit + dsize - 20, &in, &err));
    CHECK(msg_is(&in->inboxes[0].msgs[0], deposit, dsize));
    wd_inputs_free(in);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_json_syntax_errors_give_line_and_column)
{
    wd_error err;
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\"}]", &err), "in.json:1:");
    CHECK_EQ(err.status, WD_ERR_USAGE);
    CHECK_STR_CONTAINS(error_of("[\n  [ {\"external\": \"00\" ]\n]", &err), "in.json:2:");
    CHECK_STR_CONTAINS(error_of("", &err), "in.json:");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\", \"external\": \"01\"}]]", &err),
                       "duplicate");
}

TEST(inputs_shape_errors)
{
    wd_error err;
    CHECK_STR_CONTAINS(error_of("  {}", &err), "in.json:1:3: expected an array of inboxes");
    CHECK_STR_CONTAINS(error_of("[[], 3]", &err), "in.json:1:6: inbox 1: expected an inbox");
    CHECK_STR_CONTAINS(error_of("[[],\n [\"x\"]]", &err),
                       "in.json:2:3: inbox 1, message 0: expected a message object");
    CHECK_STR_CONTAINS(error_of("[[{}]]", &err), "in.json:1:3: inbox 0, message 0: a message "
                                                 "needs \"external\"");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\", \"foo\": 1}]]", &err),
                       "in.json:1:22: inbox 0, message 0: unknown field \"foo\"");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\", \"serialized\": \"01\"}]]", &err),
                       "only one of");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\", \"sender\": \"x\"}]]", &err),
                       "in.json:1:22: inbox 0, message 0: \"sender\" belongs to a transfer");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": 12}]]", &err),
                       "in.json:1:16: inbox 0, message 0: \"external\" must be a string");
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"Unit\", \"sender\": null}]]", &err),
                       "in.json:1:33: inbox 0, message 0: \"sender\" must be a string");
}

TEST(inputs_hex_errors)
{
    wd_error err;
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"0g\"}]]", &err),
                       "in.json:1:18: inbox 0, message 0: bad hex digit 'g' in \"external\" "
                       "(character 2)");
    CHECK_STR_CONTAINS(error_of("[[],[{\"serialized\":\n   \"abc\"}]]", &err),
                       "in.json:2:4: inbox 1, message 0: odd number of hex digits (3) in "
                       "\"serialized\"");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"0x00\"}]]", &err),
                       "in.json:1:18: inbox 0, message 0: \"external\" is hex without a 0x "
                       "prefix");
    /* escapes before the bad digit are counted in the column */
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"\\u0030\\u0030z0\"}]]", &err), "in.json:1:29:");
}

TEST(inputs_address_errors)
{
    wd_error err;
    CHECK_STR_CONTAINS(
        error_of(
            "[[{\"payload\": \"Unit\",\n  \"sender\": \"KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHU\"}]]",
            &err),
        "in.json:2:13: inbox 0, message 0: \"sender\": bad base58check checksum");
    CHECK_STR_CONTAINS(
        error_of(
            "[[{\"payload\": \"Unit\", \"sender\": \"tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU\"}]]",
            &err),
        "\"sender\": a tz1 address where a KT1 address is expected");
    CHECK_STR_CONTAINS(
        error_of(
            "[[{\"payload\": \"Unit\", \"source\": \"KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHT\"}]]",
            &err),
        "\"source\": a KT1 address where a tz1, tz2, tz3 or tz4 address is expected");
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"Unit\", \"destination\": "
                                "\"tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU\"}]]",
                                &err),
                       "where a sr1 address is expected");
    /* a bad character is pointed at */
    CHECK_STR_CONTAINS(
        error_of(
            "[[{\"payload\": \"Unit\", \"sender\": \"KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLr0T\"}]]",
            &err),
        "in.json:1:68: inbox 0, message 0: \"sender\": invalid base58 character '0'");
}

TEST(inputs_michelson_errors_point_into_the_payload)
{
    wd_error err;
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"Pair 1 Foo\"}]]", &err),
                       "in.json:1:23: inbox 0, message 0: \"payload\": line 1, column 8: unknown "
                       "primitive 'Foo'");
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"\\\"a\\\" Foo\"}]]", &err),
                       "in.json:1:22: inbox 0, message 0: \"payload\": line 1, column 5: expected "
                       "the end of the expression");
    CHECK_STR_CONTAINS(error_of("[\n [],\n [{\"payload\": \"{ 1 ;\\n 2 3 }\"}]]", &err),
                       "in.json:3:26: inbox 1, message 0: \"payload\": line 2, column 4:");
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"\"}]]", &err), "expected an expression");
}

TEST(inputs_message_size_limit)
{
    static char text[20000];
    wd_error err;
    /* an external of 4,095 payload bytes is 4,096 with its tag: fine; one more is not */
    size_t n = (size_t)snprintf(text, sizeof text, "[[{\"external\": \"");
    memset(text + n, 'a', 2 * 4095);
    n += 2 * 4095;
    snprintf(text + n, sizeof text - n, "\"}]]");
    CHECK_NO_ERROR(error_of(text, &err));
    CHECK_EQ(err.status, WD_OK);
    n = (size_t)snprintf(text, sizeof text, "[[{\"external\": \"");
    memset(text + n, 'a', 2 * 4096);
    n += 2 * 4096;
    snprintf(text + n, sizeof text - n, "\"}]]");
    CHECK_STR_CONTAINS(error_of(text, &err), "in.json:1:3: inbox 0, message 0: message of 4097 "
                                             "bytes is larger than an inbox message may be");
    /* a transfer of bytes: 2 + 5 + N + 61 bytes */
    n = (size_t)snprintf(text, sizeof text, "[[{\"payload\": \"0x");
    memset(text + n, 'b', 2 * 4028);
    n += 2 * 4028;
    snprintf(text + n, sizeof text - n, "\"}]]");
    CHECK_NO_ERROR(error_of(text, &err));
    CHECK_EQ(err.status, WD_OK);
    n = (size_t)snprintf(text, sizeof text, "[[{\"payload\": \"0x");
    memset(text + n, 'b', 2 * 4029);
    n += 2 * 4029;
    snprintf(text + n, sizeof text - n, "\"}]]");
    CHECK_STR_CONTAINS(error_of(text, &err), "message of 4097 bytes");
    /* serialized messages are not re-checked, as in the reference */
    n = (size_t)snprintf(text, sizeof text, "[[{\"serialized\": \"");
    memset(text + n, 'c', 2 * 5000);
    n += 2 * 5000;
    snprintf(text + n, sizeof text - n, "\"}]]");
    wd_ctx ctx;
    wd_inputs *in;
    CHECK_NO_ERROR(parse(&ctx, text, NULL, &in, &err));
    CHECK_EQ(in->inboxes[0].msgs[0].size, 5000);
    wd_inputs_free(in);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_load_file_errors)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_inputs *in;
    wd_error err = {0};
    CHECK_EQ(wd_inputs_load(&ctx, "/nonexistent/inputs.json", NULL, &in, &err), WD_ERR_IO);
    CHECK(in == NULL);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/inputs.json: cannot open");
    char path[] = "/tmp/wd_inputs_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    static const char text[] =
        "[\n  [ {\"external\": \"01\"} ],\n  [ {\"payload\": \"Sme 1\"} ]\n]\n";
    CHECK_EQ(write(fd, text, sizeof text - 1), (long long)(sizeof text - 1));
    close(fd);
    wd_error_clear(&err);
    CHECK_EQ(wd_inputs_load(&ctx, path, NULL, &in, &err), WD_ERR_USAGE);
    char want[128];
    snprintf(want, sizeof want,
             "%s:3:18: inbox 1, message 0: \"payload\": line 1, column 1: "
             "unknown primitive 'Sme'",
             path);
    CHECK_STR_CONTAINS(err.msg, want);
    CHECK_EQ(err.offset, 45);
    unlink(path);
    CHECK_EQ(ctx.live, 0);
}

TEST(inputs_out_of_memory)
{
    static const char text[] = "[[{\"external\": \"0102\"}, {\"payload\": \"Pair 1 (Some 0x01)\"}],"
                               " [], [{\"serialized\": \"0000\"}]]";
    wd_ctx ctx;
    wd_inputs *in;
    wd_error err;
    CHECK_NO_ERROR(parse(&ctx, text, NULL, &in, &err));
    wd_inputs_free(in);
    size_t allocs = ctx.count;
    for (size_t fail = 1; fail <= allocs; fail++) {
        wd_ctx_init(&ctx);
        ctx.fail_after = fail;
        wd_error_clear(&err);
        CHECK_EQ(wd_inputs_parse(&ctx, "in.json", text, strlen(text), NULL, &in, &err),
                 WD_ERR_NOMEM);
        CHECK(in == NULL);
        CHECK_EQ(ctx.live, 0);
    }
}

/* Errors read as when the file was parsed whole first: a JSON syntax error anywhere comes
 * before what is wrong with an earlier message, and errors in the outer arrays are
 * jansson's, with its line and column. */
TEST(inputs_syntax_errors_come_first)
{
    wd_error err;
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"0g\"}],\n [}", &err),
                       "in.json:2:3: unexpected token near '}'");
    CHECK_EQ(err.status, WD_ERR_USAGE);
    CHECK_EQ(err.offset, 26);
    CHECK_STR_CONTAINS(error_of("[[{\"payload\": \"Foo\"}], [{\"external\": \"00\"} 1]]", &err),
                       "in.json:1:44: ']' expected near '1'");
    CHECK_STR_CONTAINS(error_of("[[]] x", &err), "in.json:1:6: end of file expected near 'x'");
    CHECK_STR_CONTAINS(error_of("[[{\"external\":\"00\"} {\"external\":\"01\"}]]", &err),
                       "in.json:1:21: ']' expected near '{'");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\"}", &err),
                       "in.json:1:20: ']' expected near end of file");
    CHECK_STR_CONTAINS(error_of("[[],]", &err), "in.json:1:5: unexpected token near ']'");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\"},]]", &err),
                       "in.json:1:22: unexpected token near ']'");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\"}]]]", &err),
                       "in.json:1:23: end of file expected near ']'");
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\" \"x\": 1}]]", &err),
                       "in.json:1:23: '}' expected near '\"x\"'");
    /* a valid file: the loader's own errors, the first in the file */
    CHECK_STR_CONTAINS(error_of("[[{\"external\": \"00\"}], [[\"x\"]], 3]", &err),
                       "in.json:1:25: inbox 1, message 0: expected a message object");
    CHECK_STR_CONTAINS(error_of("[[]]", &err), "");
    CHECK_EQ(err.status, WD_OK);
}

/* The text of n messages, one inbox of them (many = false) or n inboxes of one, one per
 * line: message i is {"external": "<i as 8 hex digits>"}. Allocated. */
static char *many_messages(size_t n, bool many)
{
    char *text = malloc(n * 40 + 16), *w = text;
    if (text == NULL)
        return NULL;
    w += sprintf(w, many ? "[" : "[[");
    for (size_t i = 0; i < n; i++)
        w += sprintf(w, many ? "%s[{\"external\": \"%08zx\"}]" : "%s{\"external\": \"%08zx\"}",
                     i == 0 ? "" : ",\n ", i);
    sprintf(w, many ? "]" : "]]");
    return text;
}

/* The thread's CPU time: what other processes on a busy machine take is not counted. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The fastest of three parses of text (which must succeed), in seconds; < 0 on a failure. */
static double parse_seconds(const char *text, size_t want_inboxes)
{
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        wd_ctx ctx;
        wd_inputs *in;
        wd_error err;
        double t0 = now_seconds();
        const char *msg = parse(&ctx, text, NULL, &in, &err);
        double t = now_seconds() - t0;
        if (*msg != '\0' || in->count != want_inboxes) {
            printf("  %s\n", msg);
            wd_inputs_free(in);
            return -1;
        }
        wd_inputs_free(in);
        best = t < best ? t : best;
    }
    return best;
}

/* Parsing takes time linear in the messages, in one inbox or in many: eight times the
 * messages take less than 24 times as long (it was quadratic: every message's position was
 * found again from the start of the text; 16,000 messages took 8 s, 100,000 316 s; here
 * the ratio was 70). CPU time, the fastest of three parses, so that a busy machine does
 * not decide. */
TEST(inputs_parse_time_is_linear)
{
    enum { N = 4000 };
    for (int many = 0; many < 2; many++) {
        char *small = many_messages(N, many), *large = many_messages(8 * N, many);
        CHECK(small != NULL && large != NULL);
        double t1 = parse_seconds(small, many ? N : 1);
        double t8 = parse_seconds(large, many ? 8 * N : 1);
        free(small);
        free(large);
        CHECK(t1 >= 0 && t8 >= 0);
        if (t8 >= 24 * t1 + 0.002)
            printf("  %s: %d messages %.4f s, %d messages %.4f s\n", many ? "inboxes" : "inbox", N,
                   t1, 8 * N, t8);
        CHECK(t8 < 24 * t1 + 0.002);
    }
}

/* 100,000 messages, in one inbox and in 100,000 inboxes: every message is there, and an
 * error in the last one names its line, column, inbox and message. */
TEST(inputs_hundred_thousand_messages)
{
    enum { N = 100000 };
    for (int many = 0; many < 2; many++) {
        char *text = many_messages(N, many);
        CHECK(text != NULL);
        wd_ctx ctx;
        wd_inputs *in;
        wd_error err;
        CHECK_NO_ERROR(parse(&ctx, text, NULL, &in, &err));
        CHECK_EQ(in->count, many ? N : 1);
        const wd_inbox *last = &in->inboxes[in->count - 1];
        CHECK_EQ(last->count, many ? 1 : N);
        MSG_IS(&last->msgs[last->count - 1], 0x01, 0x00, 0x01, 0x86, 0x9f); /* 99,999 */
        wd_inputs_free(in);
        CHECK_EQ(ctx.live, 0);
        char *bad = strstr(text, "0001869f");
        bad[7] = 'g';
        /* line N is ` [{"external": "0001869g"}]` (many) or ` {"external": "0001869g"}` */
        char want[128];
        if (many)
            snprintf(want, sizeof want,
                     "in.json:%d:24: inbox %d, message 0: bad hex digit 'g' in \"external\" "
                     "(character 8)",
                     N, N - 1);
        else
            snprintf(want, sizeof want,
                     "in.json:%d:23: inbox 0, message %d: bad hex digit 'g' in \"external\" "
                     "(character 8)",
                     N, N - 1);
        CHECK_STR_CONTAINS(error_of(text, &err), want);
        free(text);
    }
}
