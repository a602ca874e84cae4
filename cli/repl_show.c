/* repl_show.c: what the REPL prints about the PVM (status, inbox and outbox messages
 * decoded as the reference debugger decodes them, durable storage, linear memory, the
 * kernel's symbols) and about a paused kernel_run (backtrace, frames, locals, operand
 * slots, globals). Nothing here changes the PVM's state. */
#include "cli/repl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "vm/base58.h"
#include "vm/michelson.h"

static void print_hex(const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        putchar(digits[b[i] >> 4]);
        putchar(digits[b[i] & 15]);
    }
}

/* The decimal text of the unsigned big-endian number be[0..n) (destroyed) into out, which
 * has room for 3n + 2 characters. */
static void big_to_dec(uint8_t *be, size_t n, char *out)
{
    size_t len = 0, start = 0;
    while (start < n && be[start] == 0)
        start++;
    while (start < n) {
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = rem * 256 + be[i];
            be[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        out[len++] = (char)('0' + rem);
        while (start < n && be[start] == 0)
            start++;
    }
    if (len == 0)
        out[len++] = '0';
    for (size_t i = 0; i < len / 2; i++) {
        char c = out[i];
        out[i] = out[len - 1 - i];
        out[len - 1 - i] = c;
    }
    out[len] = '\0';
}

/* ---- status ------------------------------------------------------------------------------- */

void wd_repl_show_status(wd_repl *r)
{
    char buf[320];
    const char *internal = wd_pvm_internal_status(r->s.pvm, buf, sizeof buf);
    /* The reference asks the PVM for its input request: only Collect requires input; reveals
     * never wait here (wasmdbg answers them), and a stuck PVM requires nothing. */
    printf("Status: %s\nInternal_status: %s\n",
           wd_pvm_get_state(r->s.pvm) == WD_PVM_COLLECT ? "Waiting for input" : "Evaluating",
           internal);
}

/* ---- Micheline, inbox and outbox messages ------------------------------------------------- */

typedef struct reader {
    const uint8_t *b;
    size_t n, pos;
    bool emit; /* print JSON while reading (done once the whole message is known good) */
} reader;

static bool take(reader *rd, size_t k, const uint8_t **out)
{
    if (rd->n - rd->pos < k)
        return false;
    *out = rd->b + rd->pos;
    rd->pos += k;
    return true;
}

static bool be32(reader *rd, uint32_t *v)
{
    const uint8_t *p;
    if (!take(rd, 4, &p))
        return false;
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return true;
}

static void json_string(const uint8_t *s, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            printf("\\n");
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* A zarith integer: 6 bits and the sign in the first byte, then 7 bits a byte. */
static bool zarith(reader *rd)
{
    size_t start = rd->pos, count = 0;
    const uint8_t *p;
    do {
        if (!take(rd, 1, &p))
            return false;
        count++;
    } while (*p & 0x80);
    if (count > 1 && *p == 0)
        return false; /* not the shortest encoding */
    if (!rd->emit)
        return true;
    size_t bytes = (6 + 7 * (count - 1)) / 8 + 1;
    uint8_t *be = calloc(bytes, 1);
    char *dec = malloc(3 * bytes + 3);
    if (be == NULL || dec == NULL) {
        free(be);
        free(dec);
        printf("{ \"int\": \"?\" }");
        return true;
    }
    size_t bit = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned v = rd->b[start + i] & (i == 0 ? 0x3f : 0x7f);
        for (unsigned k = 0; k < (i == 0 ? 6u : 7u); k++, bit++)
            if (v >> k & 1)
                be[bytes - 1 - bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
    big_to_dec(be, bytes, dec);
    printf("{ \"int\": \"%s%s\" }", rd->b[start] & 0x40 ? "-" : "", dec);
    free(be);
    free(dec);
    return true;
}

static bool expr(reader *rd, unsigned depth);

/* A primitive: its id, `nargs` arguments (or, nargs < 0, a length-prefixed sequence of
 * them), annotations when `annots`. */
static bool prim(reader *rd, int nargs, bool annots, unsigned depth)
{
    const uint8_t *p;
    if (!take(rd, 1, &p))
        return false;
    const char *name = wd_michelson_prim_name(*p);
    if (name == NULL)
        return false;
    if (rd->emit)
        printf("{ \"prim\": \"%s\"", name);
    uint32_t len = 0;
    size_t end = 0;
    if (nargs < 0) {
        if (!be32(rd, &len) || rd->n - rd->pos < len)
            return false;
        end = rd->pos + len;
    }
    for (int i = 0; nargs < 0 ? rd->pos < end : i < nargs; i++) {
        if (rd->emit)
            printf(i == 0 ? ", \"args\": [ " : ", ");
        if (!expr(rd, depth + 1) || (nargs < 0 && rd->pos > end))
            return false;
        if (rd->emit && (nargs < 0 ? rd->pos == end : i == nargs - 1))
            printf(" ]");
    }
    if (annots || nargs < 0) {
        if (!be32(rd, &len) || !take(rd, len, &p))
            return false;
        if (rd->emit && len != 0) {
            printf(", \"annots\": [ ");
            for (size_t i = 0, k = 0; i <= len; i++) {
                if (i < len && p[i] != ' ')
                    continue;
                if (i > k) {
                    printf(k == 0 ? "" : ", ");
                    json_string(p + k, i - k);
                }
                k = i + 1;
            }
            printf(" ]");
        }
    }
    if (rd->emit)
        printf(" }");
    return true;
}

/* One Micheline expression (binary: Octez' Script_repr.expr_encoding), as JSON. */
static bool expr(reader *rd, unsigned depth)
{
    const uint8_t *p;
    uint32_t len;
    if (depth > WD_MICHELSON_MAX_DEPTH || !take(rd, 1, &p))
        return false;
    switch (*p) {
    case 0x00:
        return zarith(rd);
    case 0x01:
    case 0x0a:
        if (!be32(rd, &len) || !take(rd, len, &p))
            return false;
        if (rd->emit && rd->b[rd->pos - len - 5] == 0x01) {
            printf("{ \"string\": ");
            json_string(p, len);
            printf(" }");
        } else if (rd->emit) {
            printf("{ \"bytes\": \"");
            print_hex(p, len);
            printf("\" }");
        }
        return true;
    case 0x02: {
        if (!be32(rd, &len) || rd->n - rd->pos < len)
            return false;
        size_t end = rd->pos + len;
        if (rd->emit)
            printf("[");
        for (bool first = true; rd->pos < end; first = false) {
            if (rd->emit)
                printf(first ? " " : ", ");
            if (!expr(rd, depth + 1) || rd->pos > end)
                return false;
        }
        if (rd->emit)
            printf(len != 0 ? " ]" : "]");
        return true;
    }
    case 0x03: case 0x04: case 0x05: case 0x06: case 0x07: case 0x08:
        return prim(rd, (*p - 3) / 2, (*p - 3) % 2 == 1, depth);
    case 0x09:
        return prim(rd, -1, true, depth);
    default:
        return false;
    }
}

/* An address in base58, as a JSON string when `quoted`. */
static void print_address(wd_address_kind kind, const uint8_t *hash, bool quoted)
{
    char text[WD_ADDRESS_TEXT_SIZE];
    wd_base58_encode_address(kind, hash, text);
    printf(quoted ? "\"%s\"" : "%s", text);
}

/* An internal transfer: Micheline payload, sender (KT1), source (tz1..tz4), destination. */
static bool transfer(reader *rd)
{
    const uint8_t *sender, *source, *dest;
    size_t start = rd->pos;
    bool emit = rd->emit;
    rd->emit = false;
    bool ok = expr(rd, 0) && take(rd, 20, &sender) && take(rd, 21, &source) &&
              source[0] <= 3 && take(rd, 20, &dest) && rd->pos == rd->n;
    if (!ok || !emit)
        return ok;
    rd->pos = start;
    rd->emit = true;
    printf("{ \"internal_inbox_message_kind\": \"transfer\", \"payload\": ");
    (void)expr(rd, 0);
    printf(", \"sender\": ");
    print_address(WD_ADDR_KT1, sender, true);
    printf(", \"source\": ");
    print_address((wd_address_kind)source[0], source + 1, true);
    printf(", \"destination\": ");
    print_address(WD_ADDR_SR1, dest, true);
    printf(" }");
    return true;
}

/* "1970-01-01T00:00:00Z" */
static void print_timestamp(int64_t secs)
{
    char buf[20];
    if (wd_utc_format(secs, buf))
        printf("%sZ", buf);
    else
        printf("%lld", (long long)secs);
}

/* An inbox message as the reference's `show inbox` decodes it (pvm.md sections 3, 9). */
static void print_inbox_message(const uint8_t *b, size_t n)
{
    reader rd = {b, n, 2, false};
    if (n <= 4096 && n >= 1 && b[0] == 0x01) {
        print_hex(b + 1, n - 1);
        return;
    }
    if (n <= 4096 && n >= 2 && b[0] == 0x00) {
        const uint8_t *p;
        uint32_t len;
        switch (b[1]) {
        case 0x00:
            if (transfer(&rd)) {
                rd.pos = 2;
                rd.emit = true;
                (void)transfer(&rd);
                return;
            }
            break;
        case 0x01:
        case 0x02:
            if (n == 2) {
                printf(b[1] == 1 ? "Start_of_level" : "End_of_level");
                return;
            }
            break;
        case 0x03:
            if (n == 2 + 8 + 32) {
                int64_t secs = 0;
                for (int i = 0; i < 8; i++)
                    secs = (int64_t)((uint64_t)secs << 8 | b[2 + i]);
                uint8_t payload[34] = {0x01, 0x34}; /* the block hash prefix: "B" */
                memcpy(payload + 2, b + 10, 32);
                char hash[WD_BASE58_MAX_BYTES * 2];
                wd_base58_encode_check(payload, sizeof payload, hash, sizeof hash);
                printf("Info_per_level {predecessor_timestamp = ");
                print_timestamp(secs);
                printf("; predecessor = %s}", hash);
                return;
            }
            break;
        case 0x04:
            if (be32(&rd, &len) && take(&rd, len, &p) && rd.pos == n) {
                printf("Protocol_migration %.*s", (int)len, (const char *)p);
                return;
            }
            break;
        default:
            break;
        }
    }
    printf("Unknown encoding: ");
    print_hex(b, n);
}

void wd_repl_show_inbox(wd_repl *r)
{
    uint32_t count, next;
    const wd_msg *msgs = wd_pvm_inbox(r->s.pvm, &count, &next);
    if (msgs == NULL)
        count = next = 0;
    printf("Inbox has %u messages:\n", count - next);
    for (uint32_t i = next; i < count; i++) {
        printf("{ raw_level: %u;\n  counter: %u\n  payload: ", msgs[i].level, msgs[i].counter);
        print_inbox_message(msgs[i].bytes, msgs[i].size);
        printf(" }%s", i + 1 < count ? "\n" : "");
    }
    printf("\n");
}

/* One transaction of an outbox batch: parameters, destination (22 bytes: 01, the KT1 hash,
 * 00), entrypoint; a typed batch has the parameters' type after the parameters. */
static bool transaction(reader *rd, bool typed)
{
    size_t params = rd->pos, ty = 0;
    const uint8_t *dest, *ep;
    uint32_t len;
    bool emit = rd->emit;
    rd->emit = false;
    if (!expr(rd, 0))
        return false;
    ty = rd->pos;
    if ((typed && !expr(rd, 0)) || !take(rd, 22, &dest) || dest[0] != 0x01 || dest[21] != 0 ||
        !be32(rd, &len) || !take(rd, len, &ep))
        return false;
    if (!emit)
        return true;
    size_t end = rd->pos;
    rd->emit = true;
    print_address(WD_ADDR_KT1, dest + 1, false);
    printf(" %.*s ", (int)len, (const char *)ep);
    rd->pos = params;
    (void)expr(rd, 0);
    if (typed) {
        printf(" : ");
        rd->pos = ty;
        (void)expr(rd, 0);
    }
    rd->pos = end;
    return true;
}

/* An outbox message as the reference decodes it: a batch of transactions (tag 0, typed 1),
 * a whitelist update (2), else `Unknown encoding`. */
static bool outbox_message(reader *rd)
{
    const uint8_t *p;
    uint32_t len;
    if (rd->n > 4096 || !take(rd, 1, &p))
        return false;
    if (*p == 0 || *p == 1) {
        bool typed = *p == 1;
        if (!be32(rd, &len) || rd->n - rd->pos != len)
            return false;
        for (bool first = true; rd->pos < rd->n; first = false) {
            if (rd->emit && !first)
                printf("\n");
            if (!transaction(rd, typed))
                return false;
        }
        return true;
    }
    if (*p == 2) {
        if (!take(rd, 1, &p))
            return false;
        if (*p == 0) {
            if (rd->emit)
                printf("Whitelist_update none");
            return rd->pos == rd->n;
        }
        if (*p != 1 || !be32(rd, &len) || rd->n - rd->pos != len || len % 21 != 0)
            return false;
        if (rd->emit)
            printf("Whitelist_update [");
        for (uint32_t i = 0; i < len / 21; i++) {
            if (!take(rd, 21, &p) || p[0] > 3)
                return false;
            if (rd->emit) {
                printf(i == 0 ? " " : ", ");
                print_address((wd_address_kind)p[0], p + 1, false);
            }
        }
        if (rd->emit)
            printf(" ]");
        return true;
    }
    return false;
}

void wd_repl_show_outbox(wd_repl *r, int argc, char **argv)
{
    (void)argc;
    uint64_t level;
    bool neg = argv[4][0] == '-';
    if (!wd_repl_parse_u64(argv[4] + neg, (uint64_t)INT32_MAX + neg, &level)) {
        wd_repl_error("Error: expected a level (a 32-bit integer), got `%.80s`", argv[4]);
        return;
    }
    uint32_t count;
    const wd_msg *msgs = NULL;
    if (!neg && level < wd_pvm_level(r->s.pvm))
        msgs = wd_pvm_outbox(r->s.pvm, (uint32_t)level, &count);
    if (neg || level >= wd_pvm_level(r->s.pvm)) {
        printf("No outbox found at level %s%llu\n", neg ? "-" : "", (unsigned long long)level);
        return;
    }
    if (msgs == NULL)
        count = 0;
    printf("Outbox has %u messages:\n", count);
    for (uint32_t i = 0; i < count; i++) {
        reader rd = {msgs[i].bytes, msgs[i].size, 0, false};
        if (outbox_message(&rd)) {
            rd = (reader){msgs[i].bytes, msgs[i].size, 0, true};
            (void)outbox_message(&rd);
        } else {
            printf("Unknown encoding: ");
            print_hex(msgs[i].bytes, msgs[i].size);
        }
        printf("%s", i + 1 < count ? "\n" : "");
    }
    printf("\n");
}

/* ---- durable storage ---------------------------------------------------------------------- */

/* `path` without empty steps ("/a//b/" is /a/b, as the reference reads it) into out. */
static bool normalize(const char *path, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = path; *p != '\0';) {
        while (*p == '/')
            p++;
        size_t k = strcspn(p, "/");
        if (k == 0)
            break;
        if (n + 1 + k + 1 > size)
            return false;
        out[n++] = '/';
        memcpy(out + n, p, k);
        n += k;
        p += k;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    return true;
}

/* Values longer than this print cut, unless --full: the EVM kernel's storage holds two
 * copies of its boot.wasm, megabytes of hex. */
#define DURABLE_CUT 64

/* The first n bytes of a durable value in hex. */
static void print_blob_hex(const wd_durable_blob *v, size_t n)
{
    for (size_t off = 0, got; off < n; off += got) {
        const uint8_t *b = wd_durable_piece(v, off, &got);
        got = WD_MIN(got, n - off);
        print_hex(b, got);
    }
}

static int print_node(void *ud, const char *path, const wd_durable_blob *value, size_t size)
{
    bool full = *(const bool *)ud;
    printf("%s\n  ", path);
    if (value != NULL && (full || size <= DURABLE_CUT)) {
        print_blob_hex(value, size);
    } else if (value != NULL) {
        print_blob_hex(value, DURABLE_CUT);
        printf("... (%zu bytes)", size);
    }
    printf("\n");
    return 0;
}

/* show durable storage [<prefix>] [--full]: argv[3..argc) in either order. */
void wd_repl_show_durable(wd_repl *r, int argc, char **argv)
{
    const char *prefix = NULL;
    bool full = false;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--full") == 0 && !full) {
            full = true;
        } else if (argv[i][0] != '-' && argv[i][0] != '/') {
            printf("Invalid path, it must start with '/'\n"); /* as show subkeys */
            return;
        } else if (argv[i][0] == '/' && prefix == NULL) {
            prefix = argv[i];
        } else {
            wd_repl_error("Error: usage: show durable storage [<prefix>] [--full], got `%.80s`",
                          argv[i]);
            return;
        }
    }
    char key[1024] = "/";
    wd_durable *d = wd_pvm_durable(r->s.pvm);
    if (prefix != NULL &&
        (!normalize(prefix, key, sizeof key) || wd_durable_has(d, key, strlen(key)) == 0)) {
        printf("The path %.1000s is not available in the durable storage\n",
               normalize(prefix, key, sizeof key) ? key : prefix);
        return;
    }
    if (wd_durable_walk(d, key, strlen(key), print_node, &full) != 0)
        wd_repl_error("Error: out of memory");
}

void wd_repl_show_subkeys(wd_repl *r, const char *path)
{
    if (path[0] != '/') {
        printf("Invalid path, it must start with '/'\n");
        return;
    }
    char key[1024];
    wd_durable *d = wd_pvm_durable(r->s.pvm);
    if (!normalize(path, key, sizeof key) || wd_durable_has(d, key, strlen(key)) == 0) {
        printf("The path %s is not available in the durable storage\n",
               normalize(path, key, sizeof key) ? key : path);
        return;
    }
    size_t len = strlen(key);
    int64_t total = wd_durable_list_size(d, key, len);
    for (int64_t i = 0; i < total; i++) {
        const char *name;
        size_t name_len;
        if (wd_durable_nth_key(d, key, len, (uint64_t)i, &name, &name_len) != 0)
            break;
        if (name_len != 0)
            printf("/%.*s\n", (int)name_len, name);
    }
}

/* Integer kinds of `show key ... as` and `show memory ... as`: their byte count, or 0;
 * *is_signed for the signed ones (i32, i64). */
static size_t int_kind(const char *kind, const char **name, bool *is_signed)
{
    static const struct {
        const char *a, *b;
        size_t n;
        bool is_signed;
    } kinds[] = {{"u16", "uint16", 2, false},
                 {"i32", "int32", 4, true},
                 {"i64", "int64", 8, true},
                 {"u128", "uint128", 16, false},
                 {"u256", "uint256", 32, false}};
    for (size_t i = 0; i < WD_ARRAY_COUNT(kinds); i++) {
        if (strcmp(kind, kinds[i].a) == 0 || strcmp(kind, kinds[i].b) == 0) {
            *name = kinds[i].a;
            *is_signed = kinds[i].is_signed;
            return kinds[i].n;
        }
    }
    return 0;
}

/* A little-endian integer of n <= 32 bytes in decimal, signed (two's complement) when
 * is_signed (then n <= 8). */
static void print_int(const uint8_t *b, size_t n, bool is_signed)
{
    if (is_signed) {
        uint64_t v = 0;
        for (size_t i = n; i-- > 0;)
            v = v << 8 | b[i];
        uint64_t sign = (uint64_t)1 << (8 * n - 1);
        if (v & sign) /* the magnitude, without converting an out-of-range value */
            printf("-%llu", (unsigned long long)(((~v) & (sign | (sign - 1))) + 1));
        else
            printf("%llu", (unsigned long long)v);
    } else {
        uint8_t be[32];
        char dec[100];
        for (size_t i = 0; i < n; i++)
            be[i] = b[n - 1 - i];
        big_to_dec(be, n, dec);
        printf("%s", dec);
    }
}

static void print_size_error(const char *name, size_t want)
{
    printf("Error: %s values must be %zu bytes long. Defaulting to hexadecimal value\n", name,
           want);
}

/* A value as `kind`: hex, string, or a little-endian integer, signed for i32 and i64 (the
 * reference reads every kind unsigned: its i64 -1 shows as 18446744073709551615), with the
 * reference's message, then hex, when the size is wrong. */
static void print_value(const uint8_t *b, size_t n, const char *kind)
{
    const char *name;
    bool is_signed = false;
    size_t want = int_kind(kind, &name, &is_signed);
    if (strcmp(kind, "string") == 0) {
        fwrite(b, 1, n, stdout);
    } else if (want == 0) {
        print_hex(b, n);
    } else if (n != want) {
        print_size_error(name, want);
        print_hex(b, n);
    } else {
        print_int(b, n, is_signed);
    }
    printf("\n");
}

/* A durable value as print_value shows it, read in pieces (a large value may be sparse). */
static void print_durable_value(const wd_durable_blob *v, size_t n, const char *kind)
{
    uint8_t b[32]; /* the largest integer kind */
    if (n <= sizeof b) {
        for (size_t off = 0, got; off < n; off += got) {
            const uint8_t *piece = wd_durable_piece(v, off, &got);
            memcpy(b + off, piece, got);
        }
        print_value(b, n, kind);
        return;
    }
    const char *name;
    bool is_signed;
    size_t want = int_kind(kind, &name, &is_signed);
    if (strcmp(kind, "string") == 0) {
        for (size_t off = 0, got; off < n; off += got) {
            const uint8_t *piece = wd_durable_piece(v, off, &got);
            fwrite(piece, 1, got, stdout);
        }
    } else {
        if (want != 0)
            print_size_error(name, want);
        print_blob_hex(v, n);
    }
    printf("\n");
}

static bool kind_ok(const char *kind)
{
    const char *name;
    bool is_signed;
    if (strcmp(kind, "hex") == 0 || strcmp(kind, "string") == 0 ||
        int_kind(kind, &name, &is_signed) != 0)
        return true;
    wd_repl_error("Error: unknown kind `%.80s` (hex, string, u16, i32, i64, u128, u256)", kind);
    return false;
}

void wd_repl_show_key(wd_repl *r, int argc, char **argv)
{
    const char *key = argv[2], *kind = argc == 5 ? argv[4] : "hex";
    if (!kind_ok(kind))
        return;
    size_t len = strlen(key);
    if (wd_durable_check_key(key, len, false) != 0) {
        printf("Invalid key\n");
        return;
    }
    size_t size;
    const wd_durable_blob *v = wd_durable_get(wd_pvm_durable(r->s.pvm), key, len, &size);
    if (v == NULL) {
        printf("Key not found\n");
        return;
    }
    print_durable_value(v, size, kind);
}

/* ---- memory ------------------------------------------------------------------------------- */

#define MAX_SHOW (1u << 20)

static void hexdump(const uint8_t *mem, uint64_t addr, uint64_t n)
{
    for (uint64_t line = 0; line < n; line += 16) {
        printf("%08llx: ", (unsigned long long)(addr + line));
        for (uint64_t i = line; i < line + 16; i++) {
            if (i < n)
                printf("%02x", mem[addr + i]);
            else
                printf("  ");
            if (i % 2 == 1)
                putchar(' ');
        }
        putchar(' ');
        for (uint64_t i = line; i < line + 16 && i < n; i++) {
            uint8_t c = mem[addr + i];
            putchar(c >= 0x20 && c < 0x7f ? c : '.');
        }
        putchar('\n');
    }
}

static bool parse_addr(const char *s, uint64_t *addr)
{
    if (wd_repl_parse_u64(s, UINT32_MAX, addr))
        return true;
    wd_repl_error("Error: bad address `%.80s` (expected a 32-bit number: 1024, 0x400)", s);
    return false;
}

static bool parse_len(const char *s, uint64_t *n)
{
    if (wd_repl_parse_u64(s, UINT32_MAX, n))
        return true;
    wd_repl_error("Error: bad length `%.80s` (expected a number of bytes)", s);
    return false;
}

/* Reads the address and length words of the forms of `show memory` and `x`; *kind is
 * hexdump, hex, string or an integer kind. False when the words are wrong (reported). */
static bool memory_args(int argc, char **argv, uint64_t *addr, uint64_t *n, const char **kind)
{
    const char *name;
    *kind = "hexdump";
    *n = 64;
    if (strcmp(argv[0], "x") == 0 || strcmp(argv[2], "at") != 0) {
        int a = strcmp(argv[0], "x") == 0 ? 1 : 2; /* x ADDR [N] | show memory ADDR [N] */
        if (argc > a + 2) {
            wd_repl_error("Error: expected `%s <addr> [<bytes>]`", a == 1 ? "x" : "show memory");
            return false;
        }
        return parse_addr(argv[a], addr) && (argc == a + 1 || parse_len(argv[a + 1], n));
    }
    if ((argc == 7 || argc == 9) && strcmp(argv[4], "for") == 0 && strcmp(argv[6], "bytes") == 0 &&
        (argc == 7 || strcmp(argv[7], "as") == 0)) {
        *kind = argc == 9 ? argv[8] : "hex";
        if (strcmp(*kind, "string") != 0 && strcmp(*kind, "hexdump") != 0 &&
            strcmp(*kind, "hex") != 0) {
            wd_repl_error("Error: expected `as string` or `as hexdump`, got `as %.80s`", *kind);
            return false;
        }
        return parse_addr(argv[3], addr) && parse_len(argv[5], n);
    }
    if (argc == 6 && strcmp(argv[4], "as") == 0) {
        *kind = argv[5];
        bool is_signed;
        *n = int_kind(*kind, &name, &is_signed);
        if (*n == 0) {
            wd_repl_error("Error: unknown kind `%.80s` (u16, i32, i64, u128, u256)", *kind);
            return false;
        }
        return parse_addr(argv[3], addr);
    }
    wd_repl_error("Error: expected `show memory at <addr> for <n> bytes [as string|hexdump]` "
                  "or `show memory at <addr> as <kind>`");
    return false;
}

void wd_repl_show_memory(wd_repl *r, int argc, char **argv)
{
    uint64_t addr = 0, n = 0;
    const char *kind = "hexdump";
    bool info = argc == 2 && strcmp(argv[0], "show") == 0;
    if (!info && !memory_args(argc, argv, &addr, &n, &kind))
        return;
    wd_memory *mem = wd_pvm_memory(r->s.pvm);
    if (mem == NULL) {
        char buf[320];
        printf("Error: Cannot inspect memory during internal state %s\n",
               wd_pvm_internal_status(r->s.pvm, buf, sizeof buf));
        return;
    }
    if (info) {
        printf("Memory: %llu pages (%llu bytes)\n", (unsigned long long)mem->pages,
               (unsigned long long)mem->size);
        return;
    }
    if (n > MAX_SHOW) {
        wd_repl_error("Error: at most %u bytes at a time", MAX_SHOW);
        return;
    }
    if (addr + n > mem->size) {
        wd_repl_error("Error: out of bounds memory access: %llu bytes at 0x%llx (the memory has "
                      "%llu bytes)",
                      (unsigned long long)n, (unsigned long long)addr,
                      (unsigned long long)mem->size);
        return;
    }
    if (strcmp(kind, "hexdump") == 0)
        hexdump(mem->data, addr, n);
    else
        print_value(mem->data + addr, n, kind);
}

/* ---- symbols ------------------------------------------------------------------------------ */

void wd_repl_dump_symbols(wd_repl *r)
{
    const wd_module *m = wd_pvm_module(r->s.pvm);
    printf("Functions:\n");
    bool first = true;
    for (uint32_t i = 0; m != NULL && m->names.funcs != NULL && i < m->func_count; i++) {
        if (m->names.funcs[i] == NULL)
            continue;
        printf("%s - func[%u] <%s>", first ? "" : "\n", i, m->names.funcs[i]);
        first = false;
    }
    printf("\n");
}
