#include "vm/inputs.h"

#include "base/file.h"

#include "vm/base58.h"
#include "vm/michelson.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NONE SIZE_MAX

/* ---- how a file is read ---------------------------------------------------------------
 * One pass over the text. The loader scans the two outer levels itself (the array of inboxes,
 * each an array of messages), so it knows where every inbox and message starts as it meets
 * them; jansson parses one message object at a time, at its position, and the object is
 * freed once its bytes are made. Time is linear in the file and memory is that of the
 * messages made, plus one message's tree.
 *
 * Errors read as if the file had been parsed whole first: when anything is wrong, jansson
 * parses the whole text once, and a JSON syntax error anywhere in it is reported (with
 * jansson's line, column and text) before what the loader found. Only a file that is valid
 * JSON gets the loader's own errors, the first in the file's order. */
typedef struct loader {
    wd_ctx *ctx;
    const char *name, *text;
    size_t size;
    const uint8_t *rollup;
    wd_inputs *in;
    size_t pos;        /* the scan's position in the text */
    size_t obj;        /* the current message's opening brace */
    size_t inbox, msg; /* where we are, for messages (NONE: not inside one) */
    WD_VEC(wd_inbox) boxes;
    WD_VEC(wd_input_msg) msgs; /* the current inbox's, until it ends */
    wd_error *err;
} loader;

/* ---- positions in the raw text --------------------------------------------------------
 * jansson gives positions for syntax errors only. For a field of a message that parses but
 * means nothing sensible, we walk the message's raw text (valid JSON, jansson parsed it) to
 * the field. Every walk stops at the end of the text. */

static size_t skip_ws(const loader *l, size_t pos)
{
    while (pos < l->size && strchr(" \t\r\n", l->text[pos]) != NULL && l->text[pos] != '\0')
        pos++;
    return pos;
}

/* pos at an opening quote: the position after the closing one. */
static size_t skip_string(const loader *l, size_t pos)
{
    for (pos++; pos < l->size; pos++) {
        if (l->text[pos] == '\\')
            pos++;
        else if (l->text[pos] == '"')
            return pos + 1;
    }
    return l->size;
}

static size_t skip_value(const loader *l, size_t pos)
{
    size_t depth = 0;
    while (pos < l->size) {
        char c = l->text[pos];
        if (c == '"') {
            pos = skip_string(l, pos);
            if (depth == 0)
                return pos;
        } else if (c == '[' || c == '{') {
            depth++;
            pos++;
        } else if (c == ']' || c == '}') {
            if (depth == 0)
                return pos;
            pos++;
            if (--depth == 0)
                return pos;
        } else if (depth == 0 && strchr(", \t\r\n", c) != NULL) {
            return pos;
        } else {
            pos++;
        }
    }
    return pos;
}

/* pos at '{': the position of member `key` (its value when `value`), or pos when not found
 * (a key written with escapes is not recognised: the object is then the best we can say). */
static size_t member(const loader *l, size_t pos, const char *key, bool value)
{
    if (pos >= l->size || l->text[pos] != '{')
        return pos;
    size_t p = skip_ws(l, pos + 1), klen = strlen(key);
    while (p < l->size && l->text[p] == '"') {
        size_t kpos = p, kend = skip_string(l, p);
        size_t v = skip_ws(l, kend);
        if (v < l->size && l->text[v] == ':')
            v = skip_ws(l, v + 1);
        if (kend - kpos == klen + 2 && memcmp(l->text + kpos + 1, key, klen) == 0)
            return value ? v : kpos;
        p = skip_ws(l, skip_value(l, v));
        if (p >= l->size || l->text[p] != ',')
            break;
        p = skip_ws(l, p + 1);
    }
    return pos;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        v = v << 4 | (unsigned)wd_hex_digit(s[i]);
    }
    return v;
}

/* quote at the opening '"' of a string value: the raw position of byte `off` of the decoded
 * string (jansson decodes \uXXXX to UTF-8, surrogate pairs to 4 bytes). */
static size_t string_offset(const loader *l, size_t quote, size_t off)
{
    size_t i = quote + 1, d = 0;
    while (i < l->size && l->text[i] != '"' && d < off) {
        if (l->text[i] == '\\' && i + 1 < l->size && l->text[i + 1] == 'u' && i + 5 < l->size) {
            unsigned cp = hex4(l->text + i + 2);
            size_t adv = 6;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 11 < l->size && l->text[i + 6] == '\\') {
                cp = 0x10000;
                adv = 12;
            }
            d += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            i += adv;
        } else {
            d++;
            i += l->text[i] == '\\' ? 2 : 1;
        }
    }
    return WD_MIN(i, l->size);
}

/* The whole text parsed by jansson: WD_OK when it is valid JSON, else its syntax error
 * ("name:LINE:COL: what", err->offset the byte offset), as jansson reports it. */
static wd_status check_syntax(loader *l)
{
    json_error_t jerr;
    json_t *root = json_loadb(l->text, l->size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (root != NULL) {
        json_decref(root);
        return WD_OK;
    }
    size_t pos = jerr.position > 0 ? (size_t)jerr.position : 0;
    return wd_fail(l->err, WD_ERR_USAGE, pos, "%s:%d:%d: %s", l->name, jerr.line, jerr.column,
                   jerr.text);
}

/* Records "name:LINE:COL: inbox I, message J: <what>" for raw offset pos, unless the file
 * has a JSON syntax error: that one is recorded instead. */
static WD_PRINTF(3, 4) wd_status fail_at(loader *l, size_t pos, const char *fmt, ...)
{
    WD_TRY(check_syntax(l));
    unsigned long line = 1, column = 1;
    for (size_t i = 0; i < pos && i < l->size; i++) {
        unsigned char c = (unsigned char)l->text[i];
        if (c == '\n') {
            line++;
            column = 1;
        } else if ((c & 0xC0) != 0x80) { /* characters, as jansson counts them */
            column++;
        }
    }
    char where[48] = "";
    if (l->msg != NONE)
        snprintf(where, sizeof where, "inbox %zu, message %zu: ", l->inbox, l->msg);
    else if (l->inbox != NONE)
        snprintf(where, sizeof where, "inbox %zu: ", l->inbox);
    char what[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wd_fail(l->err, WD_ERR_USAGE, pos, "%s:%lu:%lu: %s%s", l->name, line, column, where,
                   what);
}

static wd_status nomem(loader *l)
{
    return wd_fail(l->err, WD_ERR_NOMEM, 0, "out of memory");
}

/* ---- messages ------------------------------------------------------------------------- */

static const char *const fields[] = {"payload",     "sender",   "source",
                                     "destination", "external", "serialized"};
enum { F_PAYLOAD, F_SENDER, F_SOURCE, F_DESTINATION, F_EXTERNAL, F_SERIALIZED, F_COUNT };

/* The message's string field f: *out and its raw position (at the opening quote). */
static wd_status string_field(loader *l, size_t obj, json_t *v, int f, const char **out,
                              size_t *len, size_t *pos)
{
    *pos = member(l, obj, fields[f], true);
    if (!json_is_string(v))
        return fail_at(l, *pos, "\"%s\" must be a string", fields[f]);
    *out = json_string_value(v);
    *len = json_string_length(v);
    return WD_OK;
}

/* Checks that hex[0..len) (the string at raw position pos) is an even number of hex digits. */
static wd_status check_hex(loader *l, int f, const char *hex, size_t len, size_t pos)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)hex[i];
        if (wd_hex_digit(c) >= 0)
            continue;
        if (i == 1 && c == 'x' && hex[0] == '0')
            return fail_at(l, string_offset(l, pos, i),
                           "\"%s\" is hex without a 0x prefix, got \"0x...\"", fields[f]);
        if (c >= 0x20 && c < 0x7f)
            return fail_at(l, string_offset(l, pos, i),
                           "bad hex digit '%c' in \"%s\" (character %zu)", c, fields[f], i + 1);
        return fail_at(l, string_offset(l, pos, i),
                       "bad hex digit (byte 0x%02x) in \"%s\" (character %zu)", c, fields[f],
                       i + 1);
    }
    if (len % 2 != 0)
        return fail_at(l, pos, "odd number of hex digits (%zu) in \"%s\"", len, fields[f]);
    return WD_OK;
}

static wd_status check_size(loader *l, size_t size)
{
    if (size > WD_INPUT_MAX_MESSAGE)
        return fail_at(l, l->obj,
                       "message of %zu bytes is larger than an inbox message may be (%u bytes)",
                       size, WD_INPUT_MAX_MESSAGE);
    return WD_OK;
}

/* {"external": hex} -> 01 ‖ bytes; {"serialized": hex} -> bytes. */
static wd_status hex_message(loader *l, size_t obj, json_t *v, int f, wd_input_msg *out)
{
    const char *hex;
    size_t len, pos;
    WD_TRY(string_field(l, obj, v, f, &hex, &len, &pos));
    WD_TRY(check_hex(l, f, hex, len, pos));
    size_t tag = f == F_EXTERNAL ? 1 : 0, size = tag + len / 2;
    if (f == F_EXTERNAL)
        WD_TRY(check_size(l, size));
    else if (size > UINT32_MAX)
        return fail_at(l, pos, "\"serialized\" message too large");
    uint8_t *data = wd_arena_alloc(&l->in->arena, size + 1);
    if (data == NULL)
        return nomem(l);
    data[0] = 0x01;
    (void)wd_hex_decode(hex, len / 2, data + tag); /* check_hex passed */
    out->data = data;
    out->size = (uint32_t)size;
    return WD_OK;
}

/* An address field of a transfer, or its default when absent. */
static wd_status address_field(loader *l, size_t obj, json_t *v, int f, unsigned allowed,
                               wd_address_kind *kind, uint8_t hash[WD_ADDRESS_HASH_SIZE])
{
    if (v == NULL)
        return WD_OK;
    const char *s;
    size_t len, pos;
    WD_TRY(string_field(l, obj, v, f, &s, &len, &pos));
    wd_error e = {0};
    if (wd_base58_decode_address(s, len, allowed, kind, hash, &e) != WD_OK)
        return fail_at(l, e.offset != 0 ? string_offset(l, pos, e.offset) : pos, "\"%s\": %s",
                       fields[f], e.msg);
    return WD_OK;
}

/* {"payload": Michelson, "sender"?, "source"?, "destination"?} -> 00 00 ‖ Micheline(payload)
 * ‖ sender ‖ source tag and hash ‖ destination. */
static wd_status transfer_message(loader *l, size_t obj, json_t *const vals[F_COUNT],
                                  wd_input_msg *out)
{
    uint8_t sender[WD_ADDRESS_HASH_SIZE] = {0}, source[WD_ADDRESS_HASH_SIZE] = {0};
    uint8_t dest[WD_ADDRESS_HASH_SIZE] = {0};
    if (l->rollup != NULL)
        memcpy(dest, l->rollup, sizeof dest);
    wd_address_kind sender_kind, source_kind = WD_ADDR_TZ1, dest_kind;
    WD_TRY(address_field(l, obj, vals[F_SENDER], F_SENDER, WD_ADDR_BIT(WD_ADDR_KT1), &sender_kind,
                         sender));
    WD_TRY(address_field(l, obj, vals[F_SOURCE], F_SOURCE, WD_ADDR_ANY_IMPLICIT, &source_kind,
                         source));
    WD_TRY(address_field(l, obj, vals[F_DESTINATION], F_DESTINATION, WD_ADDR_BIT(WD_ADDR_SR1),
                         &dest_kind, dest));
    const char *text;
    size_t len, pos;
    WD_TRY(string_field(l, obj, vals[F_PAYLOAD], F_PAYLOAD, &text, &len, &pos));
    uint8_t *expr;
    size_t expr_size;
    wd_error e = {0};
    wd_status st = wd_michelson_encode(l->ctx, text, len, &expr, &expr_size, &e);
    if (st == WD_ERR_NOMEM)
        return nomem(l);
    if (st != WD_OK)
        return fail_at(l, string_offset(l, pos, e.offset), "\"payload\": %s", e.msg);
    size_t size = 2 + expr_size + 20 + 21 + 20;
    st = check_size(l, size);
    uint8_t *data = st == WD_OK ? wd_arena_alloc(&l->in->arena, size) : NULL;
    if (st == WD_OK && data == NULL)
        st = nomem(l);
    if (st == WD_OK) {
        uint8_t *w = data + 2; /* 00 00: internal, transfer */
        memcpy(w, expr, expr_size);
        w += expr_size;
        memcpy(w, sender, 20);
        w[20] = (uint8_t)source_kind; /* tz1..tz4 are kinds 0..3, the encoding's tags */
        memcpy(w + 21, source, 20);
        memcpy(w + 41, dest, 20);
        out->data = data;
        out->size = (uint32_t)size;
    }
    wd_free(l->ctx, expr);
    return st;
}

/* The fields of the message object m (at raw position obj) -> its bytes. */
static wd_status message_fields(loader *l, size_t obj, json_t *m, wd_input_msg *out)
{
    json_t *vals[F_COUNT] = {0};
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        int f = 0;
        while (f < F_COUNT && strcmp(key, fields[f]) != 0)
            f++;
        if (f == F_COUNT)
            return fail_at(l, member(l, obj, key, false),
                           "unknown field \"%.40s\" (expected payload, sender, source, "
                           "destination, external or serialized)",
                           key);
        vals[f] = v;
    }
    int kinds =
        (vals[F_PAYLOAD] != NULL) + (vals[F_EXTERNAL] != NULL) + (vals[F_SERIALIZED] != NULL);
    if (kinds == 0)
        return fail_at(l, obj, "a message needs \"external\", \"serialized\" or \"payload\"");
    if (kinds > 1)
        return fail_at(l, obj,
                       "a message has only one of \"external\", \"serialized\" and "
                       "\"payload\"");
    if (vals[F_PAYLOAD] != NULL)
        return transfer_message(l, obj, vals, out);
    for (int f = F_SENDER; f <= F_DESTINATION; f++)
        if (vals[f] != NULL)
            return fail_at(l, member(l, obj, fields[f], false),
                           "\"%s\" belongs to a transfer (a message with \"payload\")", fields[f]);
    return hex_message(l, obj, vals[F_EXTERNAL] ? vals[F_EXTERNAL] : vals[F_SERIALIZED],
                       vals[F_EXTERNAL] ? F_EXTERNAL : F_SERIALIZED, out);
}

/* The scan's next character that is not blank (l->pos moved to it), or -1 at the end. */
static int next_char(loader *l)
{
    l->pos = skip_ws(l, l->pos);
    return l->pos < l->size ? (unsigned char)l->text[l->pos] : -1;
}

/* After an element of an array: true at its ',' (moved past), false at its ']' (moved past);
 * anything else is a syntax error. */
static wd_status array_next(loader *l, bool *more)
{
    int c = next_char(l);
    if (c != ',' && c != ']')
        return fail_at(l, l->pos, "expected ',' or ']'"); /* check_syntax reports it */
    l->pos++;
    *more = c == ',';
    return WD_OK;
}

/* One message of the current inbox, at l->pos: parsed by jansson alone, its bytes made, its
 * tree freed; l->pos moves past it. */
static wd_status message(loader *l, wd_input_msg *out)
{
    int c = next_char(l);
    l->obj = l->pos;
    if (c != '{')
        return fail_at(l, l->obj,
                       "expected a message object: {\"external\": HEX}, "
                       "{\"serialized\": HEX} or {\"payload\": MICHELSON, ...}");
    json_error_t jerr;
    json_t *m = json_loadb(l->text + l->obj, l->size - l->obj,
                           JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
    if (m == NULL && json_error_code(&jerr) == json_error_out_of_memory)
        return nomem(l);
    if (m == NULL) /* check_syntax reports it as in the whole file */
        return fail_at(l, l->obj + (size_t)WD_MAX(jerr.position, 0), "%s", jerr.text);
    l->pos = l->obj + (size_t)jerr.position; /* past the closing brace */
    wd_status st = message_fields(l, l->obj, m, out);
    json_decref(m);
    return st;
}

/* A finished vector's elements, copied into the arena (NULL: out of memory). */
static void *copy_out(loader *l, const void *data, size_t size)
{
    return size > 0 ? wd_arena_dup(&l->in->arena, data, size) : wd_arena_alloc(&l->in->arena, 16);
}

/* The inbox at l->pos, an array of messages: into *out (its messages in the arena). */
static wd_status inbox(loader *l, wd_inbox *out)
{
    int c = next_char(l);
    size_t start = l->pos;
    if (c != '[')
        return fail_at(l, start, "expected an inbox (an array of messages)");
    l->pos++;
    l->msgs.count = 0;
    bool more = next_char(l) != ']';
    if (!more)
        l->pos++;
    for (l->msg = 0; more; l->msg++) {
        if (l->msg == UINT32_MAX - 3)
            return fail_at(l, start, "too many messages");
        wd_input_msg m;
        WD_TRY(message(l, &m));
        if (!WD_VEC_PUSH(l->ctx, &l->msgs, m))
            return nomem(l);
        WD_TRY(array_next(l, &more));
    }
    l->msg = NONE;
    out->count = l->msgs.count;
    out->msgs = copy_out(l, l->msgs.data, l->msgs.count * sizeof *l->msgs.data);
    return out->msgs != NULL ? WD_OK : nomem(l);
}

/* The whole text: an array of inboxes, then nothing but blanks. */
static wd_status inboxes(loader *l)
{
    if (next_char(l) != '[')
        return fail_at(l, l->pos, "expected an array of inboxes (arrays of messages)");
    l->pos++;
    bool more = next_char(l) != ']';
    if (!more)
        l->pos++;
    for (l->inbox = 0; more; l->inbox++) {
        if (l->inbox == UINT32_MAX)
            return fail_at(l, 0, "too many inboxes");
        wd_inbox ib;
        WD_TRY(inbox(l, &ib));
        if (!WD_VEC_PUSH(l->ctx, &l->boxes, ib))
            return nomem(l);
        WD_TRY(array_next(l, &more));
    }
    l->inbox = NONE;
    if (next_char(l) != -1)
        return fail_at(l, l->pos, "expected the end of the file"); /* check_syntax reports it */
    wd_inputs *in = l->in;
    in->count = l->boxes.count;
    in->inboxes = copy_out(l, l->boxes.data, l->boxes.count * sizeof *l->boxes.data);
    return in->inboxes != NULL ? WD_OK : nomem(l);
}

wd_status wd_inputs_parse(wd_ctx *ctx, const char *name, const char *text, size_t size,
                          const uint8_t rollup[20], wd_inputs **out, wd_error *err)
{
    *out = NULL;
    loader l = {.ctx = ctx,
                .name = name,
                .text = text,
                .size = size,
                .rollup = rollup,
                .inbox = NONE,
                .msg = NONE,
                .err = err};
    wd_inputs *in = wd_alloc(ctx, sizeof *in);
    if (in == NULL)
        return nomem(&l);
    memset(in, 0, sizeof *in);
    in->ctx = ctx;
    wd_arena_init(&in->arena, ctx);
    l.in = in;
    wd_status st = inboxes(&l);
    WD_VEC_FREE(ctx, &l.boxes);
    WD_VEC_FREE(ctx, &l.msgs);
    if (st != WD_OK)
        wd_inputs_free(in);
    else
        *out = in;
    return st;
}

/* Reads the whole file into *text (allocated). */
static wd_status read_file(wd_ctx *ctx, const char *path, char **text, size_t *size, wd_error *err)
{
    uint8_t *bytes;
    WD_TRY(wd_read_file(ctx, path, NULL, (size_t)1 << 31, &bytes, size, err));
    *text = (char *)bytes;
    return WD_OK;
}

wd_status wd_inputs_load(wd_ctx *ctx, const char *path, const uint8_t rollup[20], wd_inputs **out,
                         wd_error *err)
{
    *out = NULL;
    char *text;
    size_t size;
    WD_TRY(read_file(ctx, path, &text, &size, err));
    wd_status st = wd_inputs_parse(ctx, path, text, size, rollup, out, err);
    wd_free(ctx, text);
    return st;
}

void wd_inputs_free(wd_inputs *inputs)
{
    if (inputs == NULL)
        return;
    wd_arena_fini(&inputs->arena);
    wd_free(inputs->ctx, inputs);
}

/* ---- framing (reference/pvm.md section 9) --------------------------------------------- */

static const uint8_t start_of_level[2] = {0x00, 0x01};
static const uint8_t end_of_level[2] = {0x00, 0x02};
/* 00 03 ‖ predecessor timestamp (int64 BE, the epoch) ‖ predecessor block hash (32 zeros) */
static const uint8_t info_per_level[2 + 8 + 32] = {0x00, 0x03};

wd_status wd_inputs_frame_level(wd_ctx *ctx, const wd_inbox *inbox, wd_inbox *out, wd_error *err)
{
    out->count = 0;
    out->msgs = NULL;
    uint32_t n = inbox != NULL ? inbox->count : 0;
    if (n > UINT32_MAX - 3)
        return wd_fail(err, WD_ERR_USAGE, 0, "too many messages in an inbox");
    wd_input_msg *msgs = wd_calloc(ctx, (size_t)n + 3, sizeof *msgs);
    if (msgs == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    msgs[0] = (wd_input_msg){start_of_level, sizeof start_of_level};
    msgs[1] = (wd_input_msg){info_per_level, sizeof info_per_level};
    for (uint32_t i = 0; i < n; i++)
        msgs[2 + i] = inbox->msgs[i];
    msgs[n + 2] = (wd_input_msg){end_of_level, sizeof end_of_level};
    out->count = n + 3;
    out->msgs = msgs;
    return WD_OK;
}

void wd_inputs_frame_free(wd_ctx *ctx, wd_inbox *framed)
{
    wd_free(ctx, framed->msgs);
    framed->msgs = NULL;
    framed->count = 0;
}
