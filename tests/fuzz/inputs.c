/* inputs.c: the inputs file (vm/inputs.c), with its Michelson payloads (vm/michelson.c) and
 * addresses (vm/base58.c), and the framing of every inbox it holds. The same bytes also go
 * straight to the Michelson parser, to the address decoder and to base58 decoding, whose
 * text must encode back to itself. */
#include "vm/inputs.h"

#include "tests/fuzz/fuzz.h"
#include "vm/base58.h"
#include "vm/michelson.h"

static void parse_inputs(wd_ctx *ctx, const char *text, size_t size)
{
    wd_error err;
    wd_error_clear(&err);
    wd_inputs *in = (wd_inputs *)&err; /* any non-NULL pointer: a failed parse clears it */
    wd_status st = wd_inputs_parse(ctx, "fuzz.json", text, size, NULL, &in, &err);
    if (st != WD_OK) {
        if (in != NULL || err.msg[0] == '\0' || (st != WD_ERR_USAGE && st != WD_ERR_NOMEM))
            wd_fuzz_fail("inputs: %s, \"%s\"", wd_status_name(st), err.msg);
        return;
    }
    for (uint32_t i = 0; i < in->count; i++) {
        const wd_inbox *box = &in->inboxes[i];
        for (uint32_t j = 0; j < box->count; j++)
            if (box->msgs[j].size > WD_INPUT_MAX_MESSAGE)
                wd_fuzz_fail("inbox %u, message %u: %u bytes", i, j, box->msgs[j].size);
        wd_inbox framed;
        wd_error_clear(&err);
        if (wd_inputs_frame_level(ctx, box, &framed, &err) != WD_OK)
            continue;
        if (framed.count != box->count + 3)
            wd_fuzz_fail("inbox %u: %u messages framed as %u", i, box->count, framed.count);
        wd_inputs_frame_free(ctx, &framed);
    }
    wd_inputs_free(in);
}

static void parse_michelson(wd_ctx *ctx, const char *text, size_t size)
{
    wd_error err;
    wd_error_clear(&err);
    uint8_t *out;
    size_t out_size;
    if (wd_michelson_encode(ctx, text, size, &out, &out_size, &err) == WD_OK)
        wd_free(ctx, out);
}

static void parse_base58(const char *text, size_t size)
{
    wd_error err;
    wd_error_clear(&err);
    wd_address_kind kind;
    uint8_t hash[WD_ADDRESS_HASH_SIZE];
    if (wd_base58_decode_address(text, size, (1u << WD_ADDR_KIND_COUNT) - 1, &kind, hash, &err) ==
        WD_OK) {
        char again[WD_ADDRESS_TEXT_SIZE];
        size_t n = wd_base58_encode_address(kind, hash, again);
        if (n != size || memcmp(again, text, n) != 0)
            wd_fuzz_fail("address %.*s encodes back as %s", (int)size, text, again);
    }
    uint8_t bytes[WD_BASE58_MAX_BYTES];
    size_t n;
    wd_error_clear(&err);
    if (wd_base58_decode(text, size, bytes, sizeof bytes, &n, &err) == WD_OK) {
        char again[2 * WD_BASE58_MAX_BYTES + 2];
        size_t len = wd_base58_encode(bytes, n, again, sizeof again);
        if (len != size || memcmp(again, text, len) != 0)
            wd_fuzz_fail("base58 %.*s encodes back as %s", (int)size, text, again);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    const char *text = (const char *)data;
    parse_inputs(&ctx, text, size);
    parse_michelson(&ctx, text, size);
    parse_base58(text, size);
    wd_fuzz_check_freed(&ctx, "inputs");
    return 0;
}
