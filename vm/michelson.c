#include "vm/michelson.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Michelson's primitives; the index is the id the binary encoding uses (Octez'
 * michelson_v1_primitives.ml, prim_encoding: new primitives are only ever appended). */
// clang-format off
static const char *const prim_names[] = {
    "parameter", "storage", "code", "False", "Elt", "Left", "None", "Pair", "Right", "Some",
    "True", "Unit", "PACK", "UNPACK", "BLAKE2B", "SHA256", "SHA512", "ABS", "ADD", "AMOUNT",
    "AND", "BALANCE", "CAR", "CDR", "CHECK_SIGNATURE", "COMPARE", "CONCAT", "CONS",
    "CREATE_ACCOUNT", "CREATE_CONTRACT",
    "IMPLICIT_ACCOUNT", "DIP", "DROP", "DUP", "EDIV", "EMPTY_MAP", "EMPTY_SET", "EQ", "EXEC",
    "FAILWITH",
    "GE", "GET", "GT", "HASH_KEY", "IF", "IF_CONS", "IF_LEFT", "IF_NONE", "INT", "LAMBDA",
    "LE", "LEFT", "LOOP", "LSL", "LSR", "LT", "MAP", "MEM", "MUL", "NEG",
    "NEQ", "NIL", "NONE", "NOT", "NOW", "OR", "PAIR", "PUSH", "RIGHT", "SIZE",
    "SOME", "SOURCE", "SENDER", "SELF", "STEPS_TO_QUOTA", "SUB", "SWAP", "TRANSFER_TOKENS",
    "SET_DELEGATE", "UNIT",
    "UPDATE", "XOR", "ITER", "LOOP_LEFT", "ADDRESS", "CONTRACT", "ISNAT", "CAST", "RENAME",
    "bool",
    "contract", "int", "key", "key_hash", "lambda", "list", "map", "big_map", "nat", "option",
    "or", "pair", "set", "signature", "string", "bytes", "mutez", "timestamp", "unit",
    "operation",
    "address", "SLICE", "DIG", "DUG", "EMPTY_BIG_MAP", "APPLY", "chain_id", "CHAIN_ID",
    "LEVEL", "SELF_ADDRESS", "never", "NEVER", "UNPAIR", "VOTING_POWER", "TOTAL_VOTING_POWER",
    "KECCAK", "SHA3",
    "PAIRING_CHECK", "bls12_381_g1", "bls12_381_g2", "bls12_381_fr", "sapling_state",
    "sapling_transaction_deprecated", "SAPLING_EMPTY_STATE", "SAPLING_VERIFY_UPDATE", "ticket",
    "TICKET_DEPRECATED", "READ_TICKET", "SPLIT_TICKET", "JOIN_TICKETS", "GET_AND_UPDATE",
    "chest", "chest_key", "OPEN_CHEST",
    "VIEW", "view", "constant", "SUB_MUTEZ", "tx_rollup_l2_address", "MIN_BLOCK_TIME",
    "sapling_transaction",
    "EMIT", "Lambda_rec", "LAMBDA_REC", "TICKET", "BYTES", "NAT", "Ticket",
};
// clang-format on

/* Limits that keep every input-driven cost bounded. An inbox message holds 4,096 bytes, so a
 * longer integer or annotation could never be sent anyway. */
#define MAX_INT_DIGITS   10000u
#define MAX_ANNOT_SIZE   255u
#define MAX_ENCODED_SIZE 0xFFFFFFFFu

int wd_michelson_prim_id(const char *name, size_t len)
{
    for (size_t i = 0; i < WD_ARRAY_COUNT(prim_names); i++)
        if (strlen(prim_names[i]) == len && memcmp(prim_names[i], name, len) == 0)
            return (int)i;
    return -1;
}

const char *wd_michelson_prim_name(unsigned id)
{
    return id < WD_ARRAY_COUNT(prim_names) ? prim_names[id] : NULL;
}

/* ---- syntax tree ---------------------------------------------------------------------- */

enum { N_INT, N_STRING, N_BYTES, N_PRIM, N_SEQ };

typedef struct node node;
struct node {
    uint8_t kind;
    uint8_t prim;
    uint32_t argc;       /* N_PRIM: arguments; N_SEQ: elements */
    const uint8_t *data; /* N_INT: zarith bytes; N_STRING, N_BYTES: contents; N_PRIM: annots */
    size_t size;
    node *first, *last, *next;
    uint64_t enc_size; /* bytes of this node's encoding */
};

/* ---- lexer ---------------------------------------------------------------------------- */

enum {
    T_EOF,
    T_INT,
    T_STRING,
    T_BYTES,
    T_IDENT,
    T_ANNOT,
    T_LPAREN,
    T_RPAREN,
    T_LBRACE,
    T_RBRACE,
    T_SEMI
};

typedef struct token {
    int kind;
    size_t start, end; /* bytes of src */
} token;

typedef struct parser {
    wd_ctx *ctx;
    wd_arena arena;
    const char *src;
    size_t len, pos;
    token tok; /* the current token */
    unsigned depth;
    WD_VEC(char) annots; /* scratch: the annotations of the primitive being parsed */
    wd_error *err;
} parser;

static void line_col(const parser *p, size_t at, unsigned long *line, unsigned long *column)
{
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < at && i < p->len; i++) {
        unsigned char c = (unsigned char)p->src[i];
        if (c == '\n') {
            ++*line;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) { /* characters, not UTF-8 continuation bytes */
            ++*column;
        }
    }
}

/* Records "line L, column C: <what>" for byte offset `at`. */
static WD_PRINTF(3, 4) wd_status fail_at(parser *p, size_t at, const char *fmt, ...)
{
    unsigned long line, column;
    line_col(p, at, &line, &column);
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wd_fail(p->err, WD_ERR_USAGE, at, "line %lu, column %lu: %s", line, column, what);
}

/* How the current token reads in a message: "'Unit'", "end of input". */
static const char *describe(const parser *p, const token *t, char *buf, size_t size)
{
    if (t->kind == T_EOF)
        return "end of input";
    size_t n = t->end - t->start, shown = WD_MIN(n, 24);
    snprintf(buf, size, "'%.*s%s'", (int)shown, p->src + t->start, shown < n ? "..." : "");
    return buf;
}

static bool is_ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A character for messages: 'x' when printable ASCII, else its byte value. */
static const char *show_char(unsigned char c, char buf[8])
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 8, "'%c'", c);
    else
        snprintf(buf, 8, "0x%02x", c);
    return buf;
}

/* Skips blanks, '#' line comments and block comments. */
static wd_status skip_blanks(parser *p)
{
    while (p->pos < p->len) {
        char c = p->src[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            p->pos++;
        } else if (c == '#') {
            while (p->pos < p->len && p->src[p->pos] != '\n')
                p->pos++;
        } else if (c == '/' && p->pos + 1 < p->len && p->src[p->pos + 1] == '*') {
            size_t open = p->pos;
            p->pos += 2;
            while (p->pos + 1 < p->len && !(p->src[p->pos] == '*' && p->src[p->pos + 1] == '/'))
                p->pos++;
            if (p->pos + 1 >= p->len)
                return fail_at(p, open, "unterminated comment");
            p->pos += 2;
        } else {
            break;
        }
    }
    return WD_OK;
}

/* After a number or bytes literal: the next character must not glue onto it. */
static wd_status check_break(parser *p, const char *what)
{
    if (p->pos >= p->len)
        return WD_OK;
    unsigned char c = (unsigned char)p->src[p->pos];
    if (strchr(" \t\r\n;(){}#", c) != NULL && c != '\0')
        return WD_OK;
    char b[8];
    return fail_at(p, p->pos, "expected a space or a delimiter after %s, got %s", what,
                   show_char(c, b));
}

static wd_status lex_number(parser *p)
{
    const char *s = p->src;
    if (s[p->pos] == '0' && p->pos + 1 < p->len && s[p->pos + 1] == 'x') {
        p->tok.kind = T_BYTES;
        p->pos += 2;
        while (p->pos < p->len && wd_hex_digit(s[p->pos]) >= 0)
            p->pos++;
        if (p->pos < p->len && is_ident_char((unsigned char)s[p->pos])) {
            char b[8];
            return fail_at(p, p->pos, "expected a hexadecimal digit in bytes, got %s",
                           show_char((unsigned char)s[p->pos], b));
        }
        if ((p->pos - p->tok.start) % 2 != 0)
            return fail_at(p, p->tok.start, "bytes literal with an odd number of hex digits");
        return check_break(p, "bytes");
    }
    p->tok.kind = T_INT;
    if (s[p->pos] == '-')
        p->pos++;
    size_t digits = p->pos;
    while (p->pos < p->len && s[p->pos] >= '0' && s[p->pos] <= '9')
        p->pos++;
    if (p->pos == digits)
        return fail_at(p, p->pos, "expected a digit after '-'");
    return check_break(p, "a number");
}

static wd_status lex_string(parser *p)
{
    p->tok.kind = T_STRING;
    p->pos++; /* the opening quote */
    while (p->pos < p->len) {
        char c = p->src[p->pos];
        if (c == '"') {
            p->pos++;
            return WD_OK;
        }
        if (c == '\n')
            break;
        p->pos += (c == '\\' && p->pos + 1 < p->len && p->src[p->pos + 1] != '\n') ? 2 : 1;
    }
    return fail_at(p, p->tok.start, "unterminated string (expected a closing '\"' on this line)");
}

/* Reads the next token into p->tok. */
static wd_status lex(parser *p)
{
    WD_TRY(skip_blanks(p));
    p->tok.start = p->pos;
    p->tok.kind = T_EOF;
    wd_status st = WD_OK;
    if (p->pos < p->len) {
        unsigned char c = (unsigned char)p->src[p->pos];
        const char *punct = "(){};";
        const char *at = c != '\0' ? strchr(punct, c) : NULL;
        if (at != NULL) {
            static const int kinds[] = {T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_SEMI};
            p->tok.kind = kinds[at - punct];
            p->pos++;
        } else if (c == '"') {
            st = lex_string(p);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            st = lex_number(p);
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            p->tok.kind = T_IDENT;
            while (p->pos < p->len && is_ident_char((unsigned char)p->src[p->pos]))
                p->pos++;
        } else if (c == '@' || c == ':' || c == '%') {
            p->tok.kind = T_ANNOT;
            p->pos++;
            while (p->pos < p->len && (is_ident_char((unsigned char)p->src[p->pos]) ||
                                       strchr(".%@", p->src[p->pos]) != NULL))
                p->pos++;
        } else {
            char b[8];
            return fail_at(p, p->pos, "unexpected character %s", show_char(c, b));
        }
    }
    p->tok.end = p->pos;
    return st;
}

/* ---- leaves --------------------------------------------------------------------------- */

/* Arena memory for `size` bytes (never asked for 0: the arena needs a chunk to point in). */
static void *arena_get(parser *p, size_t size)
{
    return wd_arena_alloc(&p->arena, size != 0 ? size : 1);
}

static node *new_node(parser *p, int kind)
{
    node *n = arena_get(p, sizeof *n);
    if (n != NULL)
        n->kind = (uint8_t)kind;
    return n;
}

static wd_status nomem(parser *p)
{
    return wd_fail(p->err, WD_ERR_NOMEM, p->tok.start, "out of memory");
}

/* bits [off, off + count) of the little-endian limbs, count <= 7. */
static unsigned bits_at(const uint32_t *limbs, size_t n, size_t off, unsigned count)
{
    unsigned v = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t b = off + i;
        if (b / 32 < n && (limbs[b / 32] >> (b % 32)) & 1u)
            v |= 1u << i;
    }
    return v;
}

/* The zarith encoding of the decimal integer token: the magnitude in 6 then 7-bit groups,
 * least significant first, bit 7 = more bytes follow, bit 6 of the first byte = negative. */
static wd_status encode_int(parser *p, node *n)
{
    const char *s = p->src + p->tok.start;
    size_t len = p->tok.end - p->tok.start, i = 0;
    bool neg = s[0] == '-';
    i += neg;
    while (i < len && s[i] == '0')
        i++;
    size_t digits = len - i;
    if (digits > MAX_INT_DIGITS)
        return fail_at(p, p->tok.start, "integer of %zu digits is too large (at most %u)", digits,
                       MAX_INT_DIGITS);
    /* 9 decimal digits fit in 30 bits, so digits / 9 + 2 limbs of 32 bits always suffice. */
    uint32_t *limbs = arena_get(p, (digits / 9 + 2) * sizeof *limbs);
    if (limbs == NULL)
        return nomem(p);
    size_t count = 0;
    while (i < len) {
        size_t chunk = (digits % 9 != 0 && count == 0 && i == len - digits) ? digits % 9 : 9;
        uint64_t mul = 1, carry = 0;
        for (size_t k = 0; k < chunk; k++, i++) {
            mul *= 10;
            carry = carry * 10 + (uint64_t)(s[i] - '0');
        }
        for (size_t k = 0; k < count; k++) {
            uint64_t t = (uint64_t)limbs[k] * mul + carry;
            limbs[k] = (uint32_t)t;
            carry = t >> 32;
        }
        if (carry != 0)
            limbs[count++] = (uint32_t)carry;
    }
    size_t bits = 0;
    if (count > 0) {
        bits = 32 * (count - 1);
        for (uint32_t top = limbs[count - 1]; top != 0; top >>= 1)
            bits++;
    }
    size_t size = bits <= 6 ? 1 : 1 + (bits - 6 + 6) / 7;
    uint8_t *z = arena_get(p, size);
    if (z == NULL)
        return nomem(p);
    z[0] = (uint8_t)(bits_at(limbs, count, 0, 6) | (neg && count > 0 ? 0x40u : 0u) |
                     (size > 1 ? 0x80u : 0u));
    for (size_t k = 1; k < size; k++)
        z[k] = (uint8_t)(bits_at(limbs, count, 6 + 7 * (k - 1), 7) | (k + 1 < size ? 0x80u : 0u));
    n->data = z;
    n->size = size;
    n->enc_size = 1 + size;
    return WD_OK;
}

static wd_status decode_bytes(parser *p, node *n)
{
    const char *hex = p->src + p->tok.start + 2;
    size_t size = (p->tok.end - p->tok.start - 2) / 2;
    uint8_t *b = arena_get(p, size);
    if (b == NULL)
        return nomem(p);
    (void)wd_hex_decode(hex, size, b); /* the lexer took hex digits only */
    n->data = b;
    n->size = size;
    n->enc_size = 5 + (uint64_t)size;
    return WD_OK;
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80                    ? 1
                 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
                 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
                 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                                : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0; /* overlong, surrogate or beyond U+10FFFF */
    return len;
}

/* The character escape `\c` stands for, or -1. */
static int unescape(unsigned char c)
{
    switch (c) {
    case 'n':
        return '\n';
    case 't':
        return '\t';
    case 'b':
        return '\b';
    case 'r':
        return '\r';
    case '"':
        return '"';
    case '\\':
        return '\\';
    default:
        return -1;
    }
}

/* The contents of the string token with its escapes resolved. */
static wd_status decode_string(parser *p, node *n)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t i = p->tok.start + 1, end = p->tok.end - 1, size = 0;
    uint8_t *out = arena_get(p, end - i);
    if (out == NULL)
        return nomem(p);
    while (i < end) {
        unsigned char c = s[i];
        char b[8];
        if (c == '\\') {
            int u = unescape(s[i + 1]);
            if (u < 0)
                return fail_at(p, i,
                               "undefined escape sequence '\\%c' (expected \\\", \\\\, "
                               "\\n, \\t, \\b or \\r)",
                               s[i + 1] >= 0x20 && s[i + 1] < 0x7f ? s[i + 1] : '?');
            out[size++] = (uint8_t)u;
            i += 2;
        } else if (c < 0x20 || c == 0x7f) {
            return fail_at(p, i,
                           "control character %s in a string (expected \\n, \\t, \\b "
                           "or \\r)",
                           show_char(c, b));
        } else {
            size_t k = utf8_sequence(s + i, end - i);
            if (k == 0)
                return fail_at(p, i, "invalid UTF-8 in a string");
            memcpy(out + size, s + i, k);
            size += k;
            i += k;
        }
    }
    n->data = out;
    n->size = size;
    n->enc_size = 5 + (uint64_t)size;
    return WD_OK;
}

/* ---- parser --------------------------------------------------------------------------- */

static wd_status parse_expr(parser *p, node **out);

static void append(node *parent, node *child)
{
    if (parent->last != NULL)
        parent->last->next = child;
    else
        parent->first = child;
    parent->last = child;
    parent->argc++;
    parent->enc_size += child->enc_size;
}

static wd_status check_size(parser *p, const node *n, size_t at)
{
    if (n->enc_size > MAX_ENCODED_SIZE)
        return fail_at(p, at, "expression too large to encode (more than 4 GiB)");
    return WD_OK;
}

static wd_status expected_expr(parser *p)
{
    char b[40];
    return fail_at(p, p->tok.start, "expected an expression, got %s",
                   describe(p, &p->tok, b, sizeof b));
}

/* A primitive named by the current identifier token. */
static wd_status prim_node(parser *p, node **out)
{
    const char *name = p->src + p->tok.start;
    size_t len = p->tok.end - p->tok.start;
    int id = wd_michelson_prim_id(name, len);
    if (id < 0) {
        const char *hint = NULL;
        for (size_t i = 0; i < WD_ARRAY_COUNT(prim_names) && hint == NULL; i++)
            if (strlen(prim_names[i]) == len && strncasecmp(prim_names[i], name, len) == 0)
                hint = prim_names[i];
        if (len > 40)
            len = 40;
        if (hint != NULL)
            return fail_at(p, p->tok.start, "unknown primitive '%.*s' (did you mean '%s'?)",
                           (int)len, name, hint);
        return fail_at(p, p->tok.start, "unknown primitive '%.*s'", (int)len, name);
    }
    node *n = new_node(p, N_PRIM);
    if (n == NULL)
        return nomem(p);
    n->prim = (uint8_t)id;
    *out = n;
    return lex(p);
}

/* An argument: a literal, a primitive without arguments, ( expr ) or { ... }. */
static wd_status parse_atom(parser *p, node **out);

static wd_status parse_seq(parser *p, node **out)
{
    size_t open = p->tok.start;
    node *n = new_node(p, N_SEQ);
    if (n == NULL)
        return nomem(p);
    WD_TRY(lex(p));
    while (p->tok.kind != T_RBRACE) {
        node *elem;
        WD_TRY(parse_expr(p, &elem));
        append(n, elem);
        WD_TRY(check_size(p, n, open));
        if (p->tok.kind == T_SEMI) {
            WD_TRY(lex(p));
        } else if (p->tok.kind != T_RBRACE) {
            unsigned long line, column;
            line_col(p, open, &line, &column);
            char b[40];
            return fail_at(p, p->tok.start,
                           "expected ';' or '}' (closing the '{' at line %lu, column %lu), "
                           "got %s",
                           line, column, describe(p, &p->tok, b, sizeof b));
        }
    }
    n->enc_size += 5;
    WD_TRY(check_size(p, n, open));
    *out = n;
    return lex(p);
}

static wd_status parse_parens(parser *p, node **out)
{
    size_t open = p->tok.start;
    WD_TRY(lex(p));
    WD_TRY(parse_expr(p, out));
    if (p->tok.kind != T_RPAREN) {
        unsigned long line, column;
        line_col(p, open, &line, &column);
        char b[40];
        return fail_at(p, p->tok.start,
                       "expected ')' closing the '(' at line %lu, column %lu, got %s", line, column,
                       describe(p, &p->tok, b, sizeof b));
    }
    return lex(p);
}

static wd_status parse_atom(parser *p, node **out)
{
    node *n;
    switch (p->tok.kind) {
    case T_INT:
    case T_STRING:
    case T_BYTES:
        n = new_node(p, p->tok.kind == T_INT      ? N_INT
                        : p->tok.kind == T_STRING ? N_STRING
                                                  : N_BYTES);
        if (n == NULL)
            return nomem(p);
        WD_TRY(p->tok.kind == T_INT      ? encode_int(p, n)
               : p->tok.kind == T_STRING ? decode_string(p, n)
                                         : decode_bytes(p, n));
        WD_TRY(check_size(p, n, p->tok.start));
        *out = n;
        return lex(p);
    case T_IDENT:
        WD_TRY(prim_node(p, &n));
        n->enc_size = 2;
        *out = n;
        return WD_OK;
    case T_LPAREN:
    case T_LBRACE:
        if (p->depth >= WD_MICHELSON_MAX_DEPTH)
            return fail_at(p, p->tok.start, "expression nested deeper than %u levels",
                           WD_MICHELSON_MAX_DEPTH);
        p->depth++;
        wd_status st = p->tok.kind == T_LPAREN ? parse_parens(p, out) : parse_seq(p, out);
        p->depth--;
        return st;
    default:
        return expected_expr(p);
    }
}

/* Annotations right after a primitive's name, joined by spaces as the encoding wants. */
static wd_status parse_annots(parser *p, node *n)
{
    p->annots.count = 0;
    while (p->tok.kind == T_ANNOT) {
        size_t len = p->tok.end - p->tok.start;
        if (len > MAX_ANNOT_SIZE)
            return fail_at(p, p->tok.start, "annotation longer than %u characters", MAX_ANNOT_SIZE);
        if (p->annots.count > 0 && !WD_VEC_PUSH(p->ctx, &p->annots, ' '))
            return nomem(p);
        for (size_t i = 0; i < len; i++)
            if (!WD_VEC_PUSH(p->ctx, &p->annots, p->src[p->tok.start + i]))
                return nomem(p);
        WD_TRY(lex(p));
    }
    if (p->annots.count > 0) {
        uint8_t *a = arena_get(p, p->annots.count);
        if (a == NULL)
            return nomem(p);
        memcpy(a, p->annots.data, p->annots.count);
        n->data = a;
        n->size = p->annots.count;
    }
    return WD_OK;
}

/* An expression: `Prim annots args...` or an argument-like expression. */
static wd_status parse_expr(parser *p, node **out)
{
    if (p->tok.kind != T_IDENT)
        return parse_atom(p, out);
    size_t start = p->tok.start;
    node *n;
    WD_TRY(prim_node(p, &n));
    WD_TRY(parse_annots(p, n));
    for (;;) {
        int k = p->tok.kind;
        if (k == T_ANNOT)
            return fail_at(p, p->tok.start,
                           "annotation after an argument (annotations go right after the "
                           "primitive's name)");
        if (k != T_INT && k != T_STRING && k != T_BYTES && k != T_IDENT && k != T_LPAREN &&
            k != T_LBRACE)
            break;
        node *arg;
        WD_TRY(parse_atom(p, &arg));
        append(n, arg);
        WD_TRY(check_size(p, n, start));
    }
    /* tag + id, the argument list's length when there are more than 2, the annotations */
    n->enc_size += 2;
    if (n->argc > 2)
        n->enc_size += 4 + 4 + n->size;
    else if (n->size > 0)
        n->enc_size += 4 + n->size;
    WD_TRY(check_size(p, n, start));
    *out = n;
    return WD_OK;
}

/* ---- encoder -------------------------------------------------------------------------- */

static uint8_t *put_u32(uint8_t *w, uint64_t v)
{
    w[0] = (uint8_t)(v >> 24);
    w[1] = (uint8_t)(v >> 16);
    w[2] = (uint8_t)(v >> 8);
    w[3] = (uint8_t)v;
    return w + 4;
}

static uint8_t *put_bytes(uint8_t *w, const uint8_t *data, size_t size)
{
    if (size > 0)
        memcpy(w, data, size);
    return w + size;
}

/* Writes n's encoding (exactly n->enc_size bytes) at w; returns the end. The recursion is as
 * deep as the tree, which the parser bounds by WD_MICHELSON_MAX_DEPTH. */
static uint8_t *encode(const node *n, uint8_t *w)
{
    switch (n->kind) {
    case N_INT:
        *w++ = 0x00;
        return put_bytes(w, n->data, n->size);
    case N_STRING:
    case N_BYTES:
        *w++ = n->kind == N_STRING ? 0x01 : 0x0a;
        w = put_u32(w, n->size);
        return put_bytes(w, n->data, n->size);
    case N_SEQ:
        *w++ = 0x02;
        w = put_u32(w, n->enc_size - 5);
        for (const node *c = n->first; c != NULL; c = c->next)
            w = encode(c, w);
        return w;
    default: /* N_PRIM */
        if (n->argc <= 2) {
            *w++ = (uint8_t)(0x03 + 2 * n->argc + (n->size > 0));
            *w++ = n->prim;
            for (const node *c = n->first; c != NULL; c = c->next)
                w = encode(c, w);
            if (n->size > 0) {
                w = put_u32(w, n->size);
                w = put_bytes(w, n->data, n->size);
            }
            return w;
        }
        *w++ = 0x09;
        *w++ = n->prim;
        w = put_u32(w, n->enc_size - 2 - 4 - 4 - n->size);
        for (const node *c = n->first; c != NULL; c = c->next)
            w = encode(c, w);
        w = put_u32(w, n->size);
        return put_bytes(w, n->data, n->size);
    }
}

wd_status wd_michelson_encode(wd_ctx *ctx, const char *src, size_t len, uint8_t **out,
                              size_t *out_size, wd_error *err)
{
    *out = NULL;
    *out_size = 0;
    parser p = {.ctx = ctx, .src = src, .len = len, .err = err};
    wd_arena_init(&p.arena, ctx);
    node *root = NULL;
    wd_status st = lex(&p);
    if (st == WD_OK)
        st = parse_expr(&p, &root);
    if (st == WD_OK && p.tok.kind != T_EOF) {
        char b[40];
        st = fail_at(&p, p.tok.start, "expected the end of the expression, got %s",
                     describe(&p, &p.tok, b, sizeof b));
    }
    if (st == WD_OK) {
        uint8_t *buf = wd_alloc(ctx, (size_t)root->enc_size);
        if (buf == NULL) {
            st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        } else {
            uint8_t *end = encode(root, buf);
            WD_ASSERT((size_t)(end - buf) == root->enc_size);
            (void)end;
            *out = buf;
            *out_size = (size_t)root->enc_size;
        }
    }
    WD_VEC_FREE(ctx, &p.annots);
    wd_arena_fini(&p.arena);
    return st;
}
