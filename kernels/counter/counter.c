/* counter.c: the example kernel. Every kernel_run reads the whole inbox; external messages
 * are text commands on a small ledger kept in durable storage:
 *
 *   mint <account> <amount>        credit an account
 *   send <from> <to> <amount>      move funds (fails when the balance is short)
 *   burn <account> <amount>        debit an account
 *   hash <text>                    spend some compute: an FNV-1a hash of the text, 1000 rounds
 *
 * /counter holds the number of commands processed (u32 LE), /ledger/<account> each balance
 * (u64 LE). Each accepted command writes a receipt to the outbox; rejected ones a debug
 * line. Commands are dispatched through a table of function pointers (call_indirect).
 * Build: make -C kernels (clang --target=wasm32). */
#include "../wasmdbg.h"

typedef unsigned long size_t;

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

#define MAX_ARGS 4
#define MAX_MSG  4096

typedef struct str {
    const char *p;
    uint32_t n;
} str;

typedef struct cmd {
    str args[MAX_ARGS];
    uint32_t argc;
} cmd;

static uint32_t cstr_len(const char *s)
{
    uint32_t n = 0;
    while (s[n])
        n++;
    return n;
}

static void debug(const char *s)
{
    write_debug(s, cstr_len(s));
}

static int str_eq(str a, const char *b)
{
    uint32_t n = cstr_len(b);
    if (a.n != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (a.p[i] != b[i])
            return 0;
    return 1;
}

static int parse_u64(str s, uint64_t *out)
{
    uint64_t v = 0;
    if (s.n == 0 || s.n > 19)
        return 0;
    for (uint32_t i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9')
            return 0;
        v = v * 10 + (uint64_t)(s.p[i] - '0');
    }
    *out = v;
    return 1;
}

static cmd split(const char *p, uint32_t n)
{
    cmd c = {0};
    uint32_t i = 0;
    while (i < n && c.argc < MAX_ARGS) {
        while (i < n && p[i] == ' ')
            i++;
        uint32_t start = i;
        while (i < n && p[i] != ' ')
            i++;
        if (i > start)
            c.args[c.argc++] = (str){p + start, i - start};
    }
    return c;
}

/* /ledger/<account>; accounts are 1-32 letters or digits. */
static int account_key(str acct, char *key, uint32_t *key_n)
{
    static const char prefix[] = "/ledger/";
    if (acct.n == 0 || acct.n > 32)
        return 0;
    for (uint32_t i = 0; i < acct.n; i++) {
        char ch = acct.p[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            return 0;
    }
    memcpy(key, prefix, sizeof prefix - 1);
    memcpy(key + sizeof prefix - 1, acct.p, acct.n);
    *key_n = (uint32_t)(sizeof prefix - 1) + acct.n;
    return 1;
}

static uint64_t balance(const char *key, uint32_t key_n)
{
    uint64_t v = 0;
    if (store_read(key, key_n, 0, &v, sizeof v) != (int32_t)sizeof v)
        return 0;
    return v;
}

static void set_balance(const char *key, uint32_t key_n, uint64_t v)
{
    store_write(key, key_n, 0, &v, sizeof v);
}

static void receipt(const char *what, str a, uint64_t amount)
{
    char out[64];
    uint32_t n = 0;
    for (const char *w = what; *w; w++)
        out[n++] = *w;
    out[n++] = ' ';
    for (uint32_t i = 0; i < a.n; i++)
        out[n++] = a.p[i];
    out[n++] = ' ';
    char digits[20];
    uint32_t d = 0;
    do {
        digits[d++] = (char)('0' + amount % 10);
        amount /= 10;
    } while (amount);
    while (d)
        out[n++] = digits[--d];
    write_output(out, n);
}

static int do_mint(const cmd *c)
{
    char key[48];
    uint32_t kn;
    uint64_t amount;
    if (c->argc != 3 || !account_key(c->args[1], key, &kn) || !parse_u64(c->args[2], &amount))
        return 0;
    set_balance(key, kn, balance(key, kn) + amount);
    receipt("minted", c->args[1], amount);
    return 1;
}

static int do_burn(const cmd *c)
{
    char key[48];
    uint32_t kn;
    uint64_t amount;
    if (c->argc != 3 || !account_key(c->args[1], key, &kn) || !parse_u64(c->args[2], &amount))
        return 0;
    uint64_t b = balance(key, kn);
    if (b < amount)
        return 0;
    set_balance(key, kn, b - amount);
    receipt("burnt", c->args[1], amount);
    return 1;
}

static int do_send(const cmd *c)
{
    char from[48], to[48];
    uint32_t fn, tn;
    uint64_t amount;
    if (c->argc != 4 || !account_key(c->args[1], from, &fn) ||
        !account_key(c->args[2], to, &tn) || !parse_u64(c->args[3], &amount))
        return 0;
    uint64_t b = balance(from, fn);
    if (b < amount)
        return 0;
    set_balance(from, fn, b - amount);
    set_balance(to, tn, balance(to, tn) + amount);
    receipt("sent", c->args[2], amount);
    return 1;
}

static uint32_t fnv1a(const char *p, uint32_t n, uint32_t h)
{
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 16777619u;
    return h;
}

static int do_hash(const cmd *c)
{
    if (c->argc < 2)
        return 0;
    WASMDBG_SECTION_START("hash rounds");
    uint32_t h = 2166136261u;
    for (int round = 0; round < 1000; round++)
        h = fnv1a(c->args[1].p, c->args[1].n, h);
    WASMDBG_SECTION_END("hash rounds");
    receipt("hashed", c->args[1], h);
    return 1;
}

typedef int (*handler)(const cmd *c);

static const struct {
    const char *name;
    handler fn;
} handlers[] = {
    {"mint", do_mint},
    {"send", do_send},
    {"burn", do_burn},
    {"hash", do_hash},
};

static void count_command(void)
{
    static const char key[] = "/counter";
    uint32_t n = 0;
    store_read(key, sizeof key - 1, 0, &n, sizeof n);
    n++;
    store_write(key, sizeof key - 1, 0, &n, sizeof n);
}

static void handle(const char *p, uint32_t n)
{
    WASMDBG_SECTION_START("parse");
    cmd c = split(p, n);
    WASMDBG_SECTION_END("parse");
    if (c.argc == 0)
        return;
    for (uint32_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
        if (str_eq(c.args[0], handlers[i].name)) {
            if (handlers[i].fn(&c))
                count_command();
            else
                debug("counter: rejected command\n");
            return;
        }
    }
    debug("counter: unknown command\n");
}

static char buf[MAX_MSG];

void kernel_run(void)
{
    wasmdbg_input_info info;
    for (;;) {
        int32_t n = read_input(&info, buf, sizeof buf);
        if (n <= 0)
            break;
        if (buf[0] == 0x01) /* external message: the command follows the tag */
            handle(buf + 1, (uint32_t)n - 1);
    }
}
