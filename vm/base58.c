#include "vm/base58.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* Longest text decoded: enough for WD_BASE58_MAX_BYTES (each byte takes log(256)/log(58) ~
 * 1.37 characters), so the quadratic base conversion stays small. */
#define MAX_TEXT 200u

static const char alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/* The value of base58 digit c, or -1. */
static int digit_value(unsigned char c)
{
    const char *p = c != 0 ? strchr(alphabet, c) : NULL;
    return p != NULL ? (int)(p - alphabet) : -1;
}

size_t wd_base58_encode(const uint8_t *data, size_t size, char *out, size_t out_size)
{
    if (out_size > 0)
        out[0] = '\0';
    if (size > WD_BASE58_MAX_BYTES)
        return 0;
    size_t zeros = 0;
    while (zeros < size && data[zeros] == 0)
        zeros++;
    /* digits[] holds the base-58 number, least significant digit first. */
    uint8_t digits[MAX_TEXT];
    size_t count = 0;
    for (size_t i = zeros; i < size; i++) {
        unsigned carry = data[i];
        for (size_t j = 0; j < count; j++) {
            carry += (unsigned)digits[j] << 8;
            digits[j] = (uint8_t)(carry % 58);
            carry /= 58;
        }
        while (carry > 0) {
            digits[count++] = (uint8_t)(carry % 58);
            carry /= 58;
        }
    }
    size_t len = zeros + count;
    if (len + 1 > out_size)
        return 0;
    memset(out, '1', zeros);
    for (size_t j = 0; j < count; j++)
        out[zeros + j] = alphabet[digits[count - 1 - j]];
    out[len] = '\0';
    return len;
}

wd_status wd_base58_decode(const char *text, size_t len, uint8_t *out, size_t cap, size_t *out_size,
                           wd_error *err)
{
    *out_size = 0;
    if (len > MAX_TEXT)
        return wd_fail(err, WD_ERR_USAGE, 0, "base58 text of %zu characters is too long", len);
    size_t zeros = 0;
    while (zeros < len && text[zeros] == '1')
        zeros++;
    /* bytes[] holds the number, least significant byte first. */
    uint8_t bytes[MAX_TEXT];
    size_t count = 0;
    for (size_t i = zeros; i < len; i++) {
        int v = digit_value((unsigned char)text[i]);
        if (v < 0) {
            unsigned char c = (unsigned char)text[i];
            if (c >= 0x20 && c < 0x7f)
                return wd_fail(err, WD_ERR_USAGE, i,
                               "invalid base58 character '%c' at position %zu", c, i + 1);
            return wd_fail(err, WD_ERR_USAGE, i, "invalid base58 character 0x%02x at position %zu",
                           c, i + 1);
        }
        unsigned carry = (unsigned)v;
        for (size_t j = 0; j < count; j++) {
            carry += (unsigned)bytes[j] * 58;
            bytes[j] = (uint8_t)carry;
            carry >>= 8;
        }
        while (carry > 0) {
            bytes[count++] = (uint8_t)carry;
            carry >>= 8;
        }
    }
    if (zeros + count > cap)
        return wd_fail(err, WD_ERR_USAGE, 0, "base58 text decodes to more than %zu bytes", cap);
    memset(out, 0, zeros);
    for (size_t j = 0; j < count; j++)
        out[zeros + j] = bytes[count - 1 - j];
    *out_size = zeros + count;
    return WD_OK;
}

static void checksum(const uint8_t *data, size_t size, uint8_t sum[4])
{
    uint8_t h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, data, size);
    crypto_hash_sha256(h, h, sizeof h);
    memcpy(sum, h, 4);
}

size_t wd_base58_encode_check(const uint8_t *data, size_t size, char *out, size_t out_size)
{
    if (out_size > 0)
        out[0] = '\0';
    if (size + 4 > WD_BASE58_MAX_BYTES)
        return 0;
    uint8_t buf[WD_BASE58_MAX_BYTES];
    memcpy(buf, data, size);
    checksum(data, size, buf + size);
    return wd_base58_encode(buf, size + 4, out, out_size);
}

wd_status wd_base58_decode_check(const char *text, size_t len, uint8_t *out, size_t cap,
                                 size_t *out_size, wd_error *err)
{
    *out_size = 0;
    uint8_t buf[WD_BASE58_MAX_BYTES];
    size_t size;
    WD_TRY(wd_base58_decode(text, len, buf, sizeof buf, &size, err));
    if (size < 4)
        return wd_fail(err, WD_ERR_USAGE, 0, "base58check text too short for its checksum");
    uint8_t sum[4];
    checksum(buf, size - 4, sum);
    if (memcmp(sum, buf + size - 4, 4) != 0)
        return wd_fail(err, WD_ERR_USAGE, 0, "bad base58check checksum");
    if (size - 4 > cap)
        return wd_fail(err, WD_ERR_USAGE, 0, "base58 text decodes to more than %zu bytes", cap);
    memcpy(out, buf, size - 4);
    *out_size = size - 4;
    return WD_OK;
}

/* The prefixes of Tezos' base58.ml: each makes the text of a 20-byte hash start with the
 * kind's name. Checked by round-tripping the reference debugger's default addresses. */
static const struct {
    const char *name;
    uint8_t prefix[3];
    uint8_t prefix_size;
} kinds[WD_ADDR_KIND_COUNT] = {
    [WD_ADDR_TZ1] = {"tz1", {0x06, 0xa1, 0x9f}, 3}, [WD_ADDR_TZ2] = {"tz2", {0x06, 0xa1, 0xa1}, 3},
    [WD_ADDR_TZ3] = {"tz3", {0x06, 0xa1, 0xa4}, 3}, [WD_ADDR_TZ4] = {"tz4", {0x06, 0xa1, 0xa6}, 3},
    [WD_ADDR_KT1] = {"KT1", {0x02, 0x5a, 0x79}, 3}, [WD_ADDR_SR1] = {"sr1", {0x06, 0x7c, 0x75}, 3},
};

const char *wd_base58_address_kind_name(wd_address_kind kind)
{
    return (unsigned)kind < WD_ADDR_KIND_COUNT ? kinds[kind].name : "?";
}

/* "KT1", "tz1, tz2, tz3 or tz4", ... : the kinds in `allowed`, for messages. */
static void describe_kinds(unsigned allowed, char *out, size_t out_size)
{
    size_t n = 0, total = 0;
    for (unsigned k = 0; k < WD_ADDR_KIND_COUNT; k++)
        total += (allowed & WD_ADDR_BIT(k)) != 0;
    out[0] = '\0';
    for (unsigned k = 0; k < WD_ADDR_KIND_COUNT; k++) {
        if ((allowed & WD_ADDR_BIT(k)) == 0)
            continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
        size_t used = strlen(out);
        snprintf(out + used, out_size - used, "%s%s", sep, kinds[k].name);
        n++;
    }
}

wd_status wd_base58_decode_address(const char *text, size_t len, unsigned allowed,
                                   wd_address_kind *kind, uint8_t hash[WD_ADDRESS_HASH_SIZE],
                                   wd_error *err)
{
    *kind = WD_ADDR_KIND_COUNT;
    uint8_t buf[WD_BASE58_MAX_BYTES];
    size_t size;
    char expected[48];
    describe_kinds(allowed, expected, sizeof expected);
    wd_error local = {0};
    if (wd_base58_decode_check(text, len, buf, sizeof buf, &size, &local) != WD_OK)
        return wd_fail(err, local.status, local.offset, "%s (expected a %s address)", local.msg,
                       expected);
    for (unsigned k = 0; k < WD_ADDR_KIND_COUNT; k++) {
        size_t p = kinds[k].prefix_size;
        if (size != p + WD_ADDRESS_HASH_SIZE || memcmp(buf, kinds[k].prefix, p) != 0)
            continue;
        if ((allowed & WD_ADDR_BIT(k)) == 0)
            return wd_fail(err, WD_ERR_USAGE, 0, "a %s address where a %s address is expected",
                           kinds[k].name, expected);
        *kind = (wd_address_kind)k;
        memcpy(hash, buf + p, WD_ADDRESS_HASH_SIZE);
        return WD_OK;
    }
    return wd_fail(err, WD_ERR_USAGE, 0,
                   "not a Tezos address (unknown prefix or length; expected a %s address)",
                   expected);
}

size_t wd_base58_encode_address(wd_address_kind kind, const uint8_t hash[WD_ADDRESS_HASH_SIZE],
                                char out[WD_ADDRESS_TEXT_SIZE])
{
    if ((unsigned)kind >= WD_ADDR_KIND_COUNT) {
        out[0] = '\0';
        return 0;
    }
    uint8_t buf[3 + WD_ADDRESS_HASH_SIZE];
    size_t p = kinds[kind].prefix_size;
    memcpy(buf, kinds[kind].prefix, p);
    memcpy(buf + p, hash, WD_ADDRESS_HASH_SIZE);
    return wd_base58_encode_check(buf, p + WD_ADDRESS_HASH_SIZE, out, WD_ADDRESS_TEXT_SIZE);
}
