#include "tests/unit/test.h"
#include "vm/base58.h"
#include "vm/michelson.h"

/* An empty error message, or a failure printing it. */
#define CHECK_NO_ERROR(msg) CHECK_STR_CONTAINS("", (msg))

/* ---- base58 and addresses ------------------------------------------------------------- */

static const uint8_t zero20[20];

/* Decodes `text` as an address of a kind in `allowed`; returns the status. */
static wd_status decode_addr(const char *text, unsigned allowed, wd_address_kind *kind,
                             uint8_t hash[20], wd_error *err)
{
    return wd_base58_decode_address(text, strlen(text), allowed, kind, hash, err);
}

TEST(base58_default_addresses_round_trip)
{
    /* The reference debugger's defaults (reference/pvm.md sections 1 and 3): zero hashes. */
    static const struct {
        const char *text;
        wd_address_kind kind;
    } cases[] = {
        {"KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHT", WD_ADDR_KT1},
        {"tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", WD_ADDR_TZ1},
        {"sr163Lv22CdE8QagCwf48PWDTquk6isQwv57", WD_ADDR_SR1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wd_error err = {0};
        wd_address_kind kind;
        uint8_t hash[20];
        CHECK_EQ(decode_addr(cases[i].text, 0x3f, &kind, hash, &err), WD_OK);
        CHECK_EQ(kind, cases[i].kind);
        CHECK(memcmp(hash, zero20, 20) == 0);
        char text[WD_ADDRESS_TEXT_SIZE];
        CHECK_EQ(wd_base58_encode_address(kind, hash, text), 36);
        CHECK(strcmp(text, cases[i].text) == 0);
    }
}

TEST(base58_nonzero_addresses_round_trip)
{
    /* tx-kernel's deposit: destination rollup and the tz4 inside its payload. */
    static const uint8_t rollup[20] = {0x4d, 0xa5, 0x1c, 0x5d, 0xe7, 0xa1, 0xcd, 0xd4, 0x94, 0xc1,
                                       0x5b, 0x53, 0x81, 0x5e, 0x1f, 0xaa, 0x4c, 0x1a, 0x96, 0xca};
    wd_error err = {0};
    wd_address_kind kind;
    uint8_t hash[20];
    CHECK_EQ(decode_addr("sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg", WD_ADDR_BIT(WD_ADDR_SR1), &kind,
                         hash, &err),
             WD_OK);
    CHECK(kind == WD_ADDR_SR1 && memcmp(hash, rollup, 20) == 0);
    CHECK_EQ(decode_addr("tz4KgLG5kuN3xjp9EjZLsQv8TFtjXeZvE4X4", WD_ADDR_ANY_IMPLICIT, &kind, hash,
                         &err),
             WD_OK);
    CHECK_EQ(kind, WD_ADDR_TZ4);
    char text[WD_ADDRESS_TEXT_SIZE];
    wd_base58_encode_address(WD_ADDR_TZ4, hash, text);
    CHECK(strcmp(text, "tz4KgLG5kuN3xjp9EjZLsQv8TFtjXeZvE4X4") == 0);
    /* every kind's prefix gives its name as the first three characters */
    for (unsigned k = 0; k < WD_ADDR_KIND_COUNT; k++) {
        CHECK_EQ(wd_base58_encode_address((wd_address_kind)k, rollup, text), 36);
        CHECK(strncmp(text, wd_base58_address_kind_name((wd_address_kind)k), 3) == 0);
        wd_address_kind back;
        CHECK_EQ(decode_addr(text, 0x3f, &back, hash, &err), WD_OK);
        CHECK(back == k && memcmp(hash, rollup, 20) == 0);
    }
}

TEST(base58_plain_and_check)
{
    static const uint8_t data[] = {0, 0, 1, 2, 0xff};
    char text[64];
    size_t len = wd_base58_encode(data, sizeof data, text, sizeof text);
    CHECK(len > 2 && text[0] == '1' && text[1] == '1' && text[2] != '1');
    uint8_t back[16];
    size_t size;
    wd_error err = {0};
    CHECK_EQ(wd_base58_decode(text, len, back, sizeof back, &size, &err), WD_OK);
    CHECK(size == sizeof data && memcmp(back, data, size) == 0);
    CHECK_EQ(wd_base58_encode(data, 0, text, sizeof text), 0);
    CHECK_EQ(text[0], '\0');
    CHECK_EQ(wd_base58_decode("", 0, back, sizeof back, &size, &err), WD_OK);
    CHECK_EQ(size, 0);
    /* "Hello World" in the Bitcoin alphabet */
    CHECK_EQ(wd_base58_decode("JxF12TrwUP45BMd", 15, back, sizeof back, &size, &err), WD_OK);
    CHECK(size == 11 && memcmp(back, "Hello World", 11) == 0);
    len = wd_base58_encode_check(data, sizeof data, text, sizeof text);
    CHECK(len > 0);
    CHECK_EQ(wd_base58_decode_check(text, len, back, sizeof back, &size, &err), WD_OK);
    CHECK(size == sizeof data && memcmp(back, data, size) == 0);
    /* a buffer too small for the text */
    CHECK_EQ(wd_base58_encode(data, sizeof data, text, 3), 0);
    CHECK_EQ(wd_base58_decode(text, len, back, 2, &size, &err), WD_ERR_USAGE);
}

TEST(base58_errors)
{
    wd_error err = {0};
    wd_address_kind kind;
    uint8_t hash[20];
    /* 0, O, I, l are not in the alphabet */
    CHECK_EQ(decode_addr("KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLr0T", 0x3f, &kind, &hash[0], &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "invalid base58 character '0' at position 35");
    CHECK_EQ(err.offset, 34);
    /* one character changed: the checksum no longer matches */
    wd_error_clear(&err);
    CHECK_EQ(decode_addr("KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHU", 0x3f, &kind, hash, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "bad base58check checksum");
    CHECK_EQ(kind, WD_ADDR_KIND_COUNT);
    /* a valid tz1 where a KT1 is expected */
    wd_error_clear(&err);
    CHECK_EQ(decode_addr("tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", WD_ADDR_BIT(WD_ADDR_KT1), &kind,
                         hash, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "a tz1 address where a KT1 address is expected");
    wd_error_clear(&err);
    CHECK_EQ(decode_addr("KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHT", WD_ADDR_ANY_IMPLICIT, &kind, hash,
                         &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "a KT1 address where a tz1, tz2, tz3 or tz4 address is expected");
    /* valid base58check of the wrong length or prefix */
    char text[64];
    static const uint8_t odd[] = {0x06, 0xa1, 0x9f, 1, 2, 3};
    size_t len = wd_base58_encode_check(odd, sizeof odd, text, sizeof text);
    wd_error_clear(&err);
    CHECK_EQ(wd_base58_decode_address(text, len, 0x3f, &kind, hash, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown prefix or length");
    wd_error_clear(&err);
    CHECK_EQ(decode_addr("", 0x3f, &kind, hash, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "too short");
    /* over-long text is refused before any work */
    char longtext[400];
    memset(longtext, 'z', sizeof longtext);
    wd_error_clear(&err);
    CHECK_EQ(wd_base58_decode_address(longtext, sizeof longtext, 0x3f, &kind, hash, &err),
             WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "too long");
}

/* ---- Michelson ------------------------------------------------------------------------ */

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; hex[0] != '\0' && hex[1] != '\0' && n < cap; hex += 2) {
        unsigned v;
        if (sscanf(hex, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
    }
    return n;
}

/* 1 when src encodes to the bytes spelt by hex (spaces ignored), else prints both. */
static int encodes_to(const char *src, const char *hex)
{
    char compact[512];
    size_t c = 0;
    for (; *hex != '\0' && c + 1 < sizeof compact; hex++)
        if (*hex != ' ')
            compact[c++] = *hex;
    compact[c] = '\0';
    uint8_t want[256];
    size_t want_size = unhex(compact, want, sizeof want);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err = {0};
    uint8_t *out;
    size_t size;
    if (wd_michelson_encode(&ctx, src, strlen(src), &out, &size, &err) != WD_OK) {
        printf("  %s: %s\n", src, err.msg);
        return 0;
    }
    int ok = size == want_size && memcmp(out, want, size) == 0;
    if (!ok) {
        printf("  %s: got ", src);
        for (size_t i = 0; i < size; i++)
            printf("%02x", out[i]);
        printf(", want %s\n", compact);
    }
    wd_free(&ctx, out);
    return ok && ctx.live == 0;
}

/* The error message for src ("" when it parses). */
static const char *error_of(const char *src, size_t len, wd_error *err)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error_clear(err);
    uint8_t *out;
    size_t size;
    if (wd_michelson_encode(&ctx, src, len, &out, &size, err) == WD_OK)
        wd_free(&ctx, out);
    return ctx.live == 0 ? err->msg : "leak";
}

#define ERROR_OF(src) error_of((src), strlen(src), &err)

TEST(michelson_ints)
{
    CHECK(encodes_to("0", "00 00"));
    CHECK(encodes_to("-0", "00 00"));
    CHECK(encodes_to("1", "00 01"));
    CHECK(encodes_to("-1", "00 41"));
    CHECK(encodes_to("63", "00 3f"));    /* 6 bits fit the first byte */
    CHECK(encodes_to("64", "00 80 01")); /* 7th bit goes to the next byte */
    CHECK(encodes_to("-64", "00 c0 01"));
    CHECK(encodes_to("500", "00 b4 07")); /* 500 = 0x1f4: 110100 | 0111 */
    CHECK(encodes_to("007", "00 07"));
    /* beyond 64 bits: 2^64 is bit 64 = 6 + 8*7 + 2 -> 9th continuation byte holds 1<<2 */
    CHECK(encodes_to("18446744073709551616", "00 80 80 80 80 80 80 80 80 80 04"));
    CHECK(encodes_to("9223372036854775807", "00 bf ff ff ff ff ff ff ff ff 01"));
    /* -10^30, cross-checked with an independent (Python) zarith encoder */
    CHECK(encodes_to("-1000000000000000000000000000000", "00 c0808080c8faf6f48cc1e6c9e5a706"));
}

TEST(michelson_strings_and_bytes)
{
    CHECK(encodes_to("\"hello\"", "01 00000005 68656c6c6f"));
    CHECK(encodes_to("\"\"", "01 00000000"));
    CHECK(encodes_to("\"a\\\"b\\\\c\\nd\\te\\bf\\rg\"", "01 0000000d 61 22 62 5c 63 0a 64 09 65 "
                                                        "08 66 0d 67"));
    CHECK(encodes_to("\"\xc3\xa9\"", "01 00000002 c3a9"));
    CHECK(encodes_to("0x0102", "0a 00000002 0102"));
    CHECK(encodes_to("0xABcd", "0a 00000002 abcd"));
    CHECK(encodes_to("0x", "0a 00000000"));
}

TEST(michelson_constructors)
{
    CHECK(encodes_to("Unit", "03 0b"));
    CHECK(encodes_to("True", "03 0a"));
    CHECK(encodes_to("False", "03 03"));
    CHECK(encodes_to("None", "03 06"));
    CHECK(encodes_to("Some 1", "05 09 00 01"));
    CHECK(encodes_to("Left Unit", "05 05 03 0b"));
    CHECK(encodes_to("Right 0x", "05 08 0a 00000000"));
    CHECK(encodes_to("Pair Unit False", "07 07 03 0b 03 03"));
    CHECK(encodes_to("Elt \"a\" 1", "07 04 01 00000001 61 00 01"));
    /* n-ary Pair stays as written, like the reference (no comb rewriting): tag 09 */
    CHECK(encodes_to("Pair 1 2 3", "09 07 00000006 0001 0002 0003 00000000"));
    CHECK(encodes_to("(Pair (Some (Left 1)) {})", "07 07 05 09 05 05 00 01 02 00000000"));
    CHECK(encodes_to("( ( Unit ) )", "03 0b"));
    /* instructions and types too (a lambda): DROP 0x20, PUSH 0x43, nat 0x62 */
    CHECK(encodes_to("{ DROP ; PUSH nat 1 }", "02 00000008 0320 0743 0362 0001"));
    CHECK(encodes_to("Ticket", "03 9d"));
    CHECK_EQ(wd_michelson_prim_id("Pair", 4), 7);
    CHECK_EQ(wd_michelson_prim_id("Paire", 5), -1);
    CHECK(strcmp(wd_michelson_prim_name(0x0b), "Unit") == 0);
    CHECK(wd_michelson_prim_name(1000) == NULL);
}

TEST(michelson_sequences_comments_annotations)
{
    CHECK(encodes_to("{}", "02 00000000"));
    CHECK(encodes_to("{ 1 ; 2 ; }", "02 00000004 0001 0002"));
    CHECK(encodes_to("{ Elt 1 True ; Elt 2 False }", "02 0000000c 0704 0001 030a 0704 0002 0303"));
    CHECK(encodes_to("{ {} ; { 1 } }", "02 0000000c 02 00000000 02 00000002 0001"));
    CHECK(encodes_to("# a comment\n Unit /* another\n one */ ", "03 0b"));
    CHECK(encodes_to("Unit @x", "04 0b 00000002 4078"));
    CHECK(encodes_to("Some %f 1", "06 09 0001 00000002 2566"));
    CHECK(encodes_to("Pair %a :b 1 2", "08 07 0001 0002 00000005 2561 20 3a62"));
    CHECK(encodes_to("Pair %a 1 2 3", "09 07 00000006 0001 0002 0003 00000002 2561"));
    /* the deposit message of tx-kernel: its Micheline payload */
    CHECK(encodes_to("Pair \"tz4KgLG5kuN3xjp9EjZLsQv8TFtjXeZvE4X4\"\n"
                     "     (Pair 0x01d1a37c088a1221b636bb5fccb35e05181038ba7c00\n"
                     "           (Pair \"Hello, Ticket!\" 500))",
                     "0707 01 00000024 747a344b674c47356b754e33786a7039456a5a4c735176385446746a58"
                     "655a7645345834 0707 0a 00000016 01d1a37c088a1221b636bb5fccb35e05181038ba7c00"
                     " 0707 01 0000000e 48656c6c6f2c205469636b657421 00 b407"));
}

TEST(michelson_errors_name_line_and_column)
{
    wd_error err;
    CHECK_STR_CONTAINS(ERROR_OF("Foo"), "line 1, column 1: unknown primitive 'Foo'");
    CHECK_STR_CONTAINS(ERROR_OF("Pair 1 Bar"), "line 1, column 8: unknown primitive 'Bar'");
    CHECK_EQ(err.offset, 7);
    CHECK_STR_CONTAINS(ERROR_OF("PAir 1 2"), "did you mean 'Pair'?");
    CHECK_STR_CONTAINS(ERROR_OF("Pair 1\n  (Some"),
                       "line 2, column 8: expected ')' closing the '(' at line 2, column 3, "
                       "got end of input");
    CHECK_STR_CONTAINS(ERROR_OF(""), "line 1, column 1: expected an expression, got end of input");
    CHECK_STR_CONTAINS(ERROR_OF("  # only a comment"), "expected an expression");
    CHECK_STR_CONTAINS(ERROR_OF("1 2"), "line 1, column 3: expected the end of the expression, "
                                        "got '2'");
    CHECK_STR_CONTAINS(ERROR_OF("{ 1 2 }"), "line 1, column 5: expected ';' or '}'");
    CHECK_STR_CONTAINS(ERROR_OF("{ 1 ;"), "line 1, column 6: expected an expression, got end");
    CHECK_STR_CONTAINS(ERROR_OF("{ ; }"), "line 1, column 3: expected an expression, got ';'");
    CHECK_STR_CONTAINS(ERROR_OF("()"), "line 1, column 2: expected an expression, got ')'");
    CHECK_STR_CONTAINS(ERROR_OF("Some )"), "line 1, column 6: expected the end");
    CHECK_STR_CONTAINS(ERROR_OF("\"abc"), "line 1, column 1: unterminated string");
    CHECK_STR_CONTAINS(ERROR_OF("\"ab\ncd\""), "line 1, column 1: unterminated string");
    CHECK_STR_CONTAINS(ERROR_OF("\"a\\qb\""), "line 1, column 3: undefined escape sequence '\\q'");
    CHECK_STR_CONTAINS(ERROR_OF("\"a\tb\""), "line 1, column 3: control character 0x09");
    CHECK_STR_CONTAINS(ERROR_OF("\"\xff\""), "line 1, column 2: invalid UTF-8");
    CHECK_STR_CONTAINS(ERROR_OF("0x123"), "line 1, column 1: bytes literal with an odd number");
    CHECK_STR_CONTAINS(ERROR_OF("0x12g4"), "line 1, column 5: expected a hexadecimal digit in "
                                           "bytes, got 'g'");
    CHECK_STR_CONTAINS(ERROR_OF("12ab"), "line 1, column 3: expected a space or a delimiter "
                                         "after a number, got 'a'");
    CHECK_STR_CONTAINS(ERROR_OF("0x12\"a\""), "line 1, column 5: expected a space or a "
                                              "delimiter after bytes");
    CHECK_STR_CONTAINS(ERROR_OF("-"), "line 1, column 2: expected a digit after '-'");
    CHECK_STR_CONTAINS(ERROR_OF("Pair 1 $"), "line 1, column 8: unexpected character '$'");
    CHECK_STR_CONTAINS(ERROR_OF("/* open"), "line 1, column 1: unterminated comment");
    CHECK_STR_CONTAINS(ERROR_OF("Pair 1 2 %a"), "line 1, column 10: annotation after an argument");
    /* columns count characters, not bytes */
    CHECK_STR_CONTAINS(ERROR_OF("(\"\xc3\xa9\" Foo)"), "line 1, column 6:");
    CHECK_STR_CONTAINS(error_of("Unit\0", 5, &err), "line 1, column 5: unexpected character 0x00");
}

TEST(michelson_limits)
{
    wd_error err;
    static char buf[20000];
    /* nesting is bounded */
    memset(buf, '(', 3000);
    buf[3000] = '\0';
    CHECK_STR_CONTAINS(ERROR_OF(buf), "nested deeper than 2048 levels");
    memset(buf, '{', 3000);
    CHECK_STR_CONTAINS(ERROR_OF(buf), "nested deeper than 2048 levels");
    /* 2,000 levels are fine */
    size_t n = 0;
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "(Some ");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "Unit");
    for (int i = 0; i < 2000; i++)
        buf[n++] = ')';
    buf[n] = '\0';
    CHECK_NO_ERROR(ERROR_OF(buf));
    CHECK_EQ(err.status, WD_OK);
    /* integers are bounded */
    memset(buf, '9', 10001);
    buf[10001] = '\0';
    CHECK_STR_CONTAINS(ERROR_OF(buf), "integer of 10001 digits is too large");
    buf[10000] = '\0';
    CHECK_EQ(ERROR_OF(buf)[0], '\0');
    /* annotations are bounded */
    buf[0] = 'U', buf[1] = 'n', buf[2] = 'i', buf[3] = 't', buf[4] = ' ', buf[5] = '%';
    memset(buf + 6, 'a', 300);
    buf[306] = '\0';
    CHECK_STR_CONTAINS(ERROR_OF(buf), "annotation longer than 255");
}

TEST(michelson_out_of_memory)
{
    static const char src[] = "{ Pair %a 1 \"x\" ; Some 0x01 ; 123456789012345678901234567890 }";
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    uint8_t *out;
    size_t size;
    wd_error err = {0};
    CHECK_EQ(wd_michelson_encode(&ctx, src, strlen(src), &out, &size, &err), WD_OK);
    wd_free(&ctx, out);
    size_t allocs = ctx.count;
    for (size_t fail = 1; fail <= allocs; fail++) {
        wd_ctx_init(&ctx);
        ctx.fail_after = fail;
        wd_error_clear(&err);
        CHECK_EQ(wd_michelson_encode(&ctx, src, strlen(src), &out, &size, &err), WD_ERR_NOMEM);
        CHECK(out == NULL && size == 0);
        CHECK_EQ(ctx.live, 0);
    }
}
