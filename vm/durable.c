/* durable.c: durable storage as a persistent tree. Nodes and values are reference counted
 * and shared: a copy takes a reference, and anything about to change is first made unique
 * (copied) along the path from the root, so a shared subtree is never modified in place.
 * Children live in an open-addressing hash table per node (EVM states put hundreds of
 * thousands of keys under one node); a sorted index is built on demand for listings and
 * dropped at the next change. */
#include "vm/durable.h"

#include <stdlib.h>
#include <string.h>

/* A value is flat, its bytes in one allocation, or sparse: PAGE-byte pages, each allocated
 * when it is first written (a page never written reads as zeros) and shared copy-on-write
 * between copies of the value. store_create makes a value of more than SPARSE_MIN bytes
 * sparse, so that it costs memory for the bytes written only (two store_create(2^31 - 1)
 * took 4.5 GB when they were zero-filled; now their page tables, 4 MiB each). Values
 * written or set, small as a rule, stay flat. A sparse value read whole (wd_durable_value,
 * wd_durable_keep: a kernel, for decoding) is copied in one piece once, until it changes. */
#define PAGE       4096u
#define SPARSE_MIN (64u * 1024)

typedef struct page {
    uint32_t refs;
    uint8_t data[PAGE];
} page;

typedef struct wd_durable_blob {
    uint32_t refs;
    uint32_t size; /* bytes */
    uint32_t cap;  /* flat: bytes in data; sparse: entries in pages */
    page **pages;  /* sparse: page i holds bytes [i * PAGE, (i + 1) * PAGE), NULL when never
                      written; NULL for a flat value */
    uint8_t *whole; /* sparse: the bytes in one piece, made on demand, dropped at a change */
    uint8_t data[]; /* flat: the bytes */
} blob;

static const uint8_t zero_page[PAGE];

typedef struct node node;

typedef struct entry {
    char *name; /* NULL: free slot */
    uint32_t len, hash;
    node *child;
} entry;

struct node {
    uint32_t refs;
    blob *value;
    entry *slots;
    uint32_t cap, count; /* cap is 0 or a power of two */
    uint32_t *sorted;    /* count slot indices in byte order, or NULL */
};

struct wd_durable {
    wd_ctx *ctx;
    node *root;
};

/* ---- keys ---------------------------------------------------------------------------- */

static bool key_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_';
}

int wd_durable_check_key(const char *key, size_t len, bool allow_root)
{
    if (len > WD_DURABLE_MAX_KEY)
        return WD_DURABLE_EKEY_TOO_LARGE;
    if (len == 0 || key[0] != '/')
        return WD_DURABLE_EINVALID_KEY;
    if (len == 1)
        return allow_root ? 0 : WD_DURABLE_EINVALID_KEY;
    size_t step = 0;
    for (size_t i = 1; i < len; i++) {
        if (key[i] == '/') {
            if (step == 0)
                return WD_DURABLE_EINVALID_KEY;
            step = 0;
        } else if (!key_char_ok(key[i])) {
            return WD_DURABLE_EINVALID_KEY;
        } else {
            step++;
        }
    }
    return step == 0 ? WD_DURABLE_EINVALID_KEY : 0;
}

/* Splits the next step off `*key` (which starts with '/'). */
static bool next_step(const char **key, size_t *len, const char **step, size_t *step_len)
{
    if (*len <= 1)
        return false;
    const char *s = *key + 1;
    size_t n = 0;
    while (n < *len - 1 && s[n] != '/')
        n++;
    *step = s;
    *step_len = n;
    *key = s + n;
    *len -= n + 1;
    return true;
}

/* ---- values and nodes ---------------------------------------------------------------- */

static void page_unref(wd_ctx *ctx, page *pg)
{
    if (pg != NULL && --pg->refs == 0)
        wd_free(ctx, pg);
}

static void blob_unref(wd_ctx *ctx, blob *b)
{
    if (b == NULL || --b->refs > 0)
        return;
    if (b->pages != NULL) {
        for (uint32_t i = 0; i < b->cap; i++)
            page_unref(ctx, b->pages[i]);
        wd_free(ctx, b->pages);
        wd_free(ctx, b->whole);
    }
    wd_free(ctx, b);
}

static blob *blob_new(wd_ctx *ctx, uint32_t size)
{
    blob *b = wd_alloc(ctx, sizeof *b + size);
    if (b == NULL)
        return NULL;
    *b = (blob){.refs = 1, .size = size, .cap = size};
    return b;
}

static uint32_t pages_for(uint64_t size)
{
    return (uint32_t)((size + PAGE - 1) / PAGE);
}

/* A sparse value of `size` zero bytes, no page allocated. */
static blob *sparse_new(wd_ctx *ctx, uint32_t size)
{
    blob *b = wd_alloc(ctx, sizeof *b);
    page **pages = wd_calloc(ctx, pages_for(size), sizeof *pages);
    if (b == NULL || pages == NULL) {
        wd_free(ctx, b);
        wd_free(ctx, pages);
        return NULL;
    }
    *b = (blob){.refs = 1, .size = size, .cap = pages_for(size), .pages = pages};
    return b;
}

/* The bytes of b from `offset` (< b->size) in one piece: *n of them, to the end of their page
 * or of the value. */
static const uint8_t *piece(const blob *b, uint64_t offset, size_t *n)
{
    if (b->pages == NULL) {
        *n = b->size - offset;
        return b->data + offset;
    }
    size_t in = offset % PAGE;
    *n = WD_MIN(PAGE - in, (size_t)(b->size - offset));
    const page *pg = b->pages[offset / PAGE];
    return (pg != NULL ? pg->data : zero_page) + in;
}

/* Copies b's bytes [offset, offset + n) into dst. */
static void copy_out(const blob *b, uint64_t offset, uint8_t *dst, size_t n)
{
    while (n > 0) {
        size_t got;
        const uint8_t *src = piece(b, offset, &got);
        got = WD_MIN(got, n);
        memcpy(dst, src, got);
        dst += got;
        offset += got;
        n -= got;
    }
}

/* b's bytes in one piece (a sparse value's copied once, until it changes); NULL on out of
 * memory. The copy is a cache, not state: b may be shared. */
static const uint8_t *blob_whole(wd_ctx *ctx, blob *b)
{
    if (b->pages == NULL)
        return b->data;
    if (b->whole == NULL) {
        b->whole = wd_alloc(ctx, b->size);
        if (b->whole != NULL)
            copy_out(b, 0, b->whole, b->size);
    }
    return b->whole;
}

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static node *node_new(wd_ctx *ctx)
{
    node *n = wd_calloc(ctx, 1, sizeof *n);
    if (n != NULL)
        n->refs = 1;
    return n;
}

static void node_unref(wd_ctx *ctx, node *n)
{
    if (n == NULL || --n->refs > 0)
        return;
    for (uint32_t i = 0; i < n->cap; i++) {
        if (n->slots[i].name != NULL) {
            wd_free(ctx, n->slots[i].name);
            node_unref(ctx, n->slots[i].child);
        }
    }
    wd_free(ctx, n->slots);
    wd_free(ctx, n->sorted);
    blob_unref(ctx, n->value);
    wd_free(ctx, n);
}

static void node_changed(wd_ctx *ctx, node *n)
{
    wd_free(ctx, n->sorted);
    n->sorted = NULL;
}

static entry *find(const node *n, const char *name, size_t len)
{
    if (n->cap == 0)
        return NULL;
    uint32_t h = hash_name(name, len), mask = n->cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        entry *e = &n->slots[i];
        if (e->name == NULL)
            return NULL;
        if (e->hash == h && e->len == len && memcmp(e->name, name, len) == 0)
            return e;
    }
}

static void place(entry *slots, uint32_t cap, entry e)
{
    uint32_t mask = cap - 1;
    uint32_t i = e.hash & mask;
    while (slots[i].name != NULL)
        i = (i + 1) & mask;
    slots[i] = e;
}

static bool reserve(wd_ctx *ctx, node *n, uint32_t count)
{
    if ((uint64_t)count * 4 <= (uint64_t)n->cap * 3)
        return true;
    uint32_t cap = n->cap ? n->cap * 2 : 4;
    entry *slots = wd_calloc(ctx, cap, sizeof *slots);
    if (slots == NULL)
        return false;
    for (uint32_t i = 0; i < n->cap; i++)
        if (n->slots[i].name != NULL)
            place(slots, cap, n->slots[i]);
    wd_free(ctx, n->slots);
    n->slots = slots;
    n->cap = cap;
    return true;
}

/* Adds child `name` (which must be absent); takes the reference to `child`. */
static entry *insert(wd_ctx *ctx, node *n, const char *name, size_t len, node *child)
{
    if (!reserve(ctx, n, n->count + 1))
        return NULL;
    char *copy = wd_strndup(ctx, name, len);
    if (copy == NULL)
        return NULL;
    uint32_t h = hash_name(name, len);
    place(n->slots, n->cap, (entry){copy, (uint32_t)len, h, child});
    n->count++;
    node_changed(ctx, n);
    return find(n, name, len);
}

/* Removes entry `e` of `n`, dropping its child; backward-shift keeps probing intact. */
static void erase(wd_ctx *ctx, node *n, entry *e)
{
    wd_free(ctx, e->name);
    node_unref(ctx, e->child);
    uint32_t mask = n->cap - 1, i = (uint32_t)(e - n->slots);
    for (uint32_t j = (i + 1) & mask; n->slots[j].name != NULL; j = (j + 1) & mask) {
        uint32_t home = n->slots[j].hash & mask;
        /* move j back to i when its home is not in the cyclic range (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            n->slots[i] = n->slots[j];
            i = j;
        }
    }
    n->slots[i] = (entry){0};
    n->count--;
    node_changed(ctx, n);
}

/* A private copy of `n` sharing its children and value; NULL on out of memory. */
static node *node_copy(wd_ctx *ctx, const node *n)
{
    node *c = node_new(ctx);
    if (c == NULL)
        return NULL;
    if (n->cap != 0) {
        c->slots = wd_calloc(ctx, n->cap, sizeof *c->slots);
        if (c->slots == NULL) {
            wd_free(ctx, c);
            return NULL;
        }
        c->cap = n->cap;
        for (uint32_t i = 0; i < n->cap; i++) {
            const entry *e = &n->slots[i];
            if (e->name == NULL)
                continue;
            char *name = wd_strndup(ctx, e->name, e->len);
            if (name == NULL) {
                node_unref(ctx, c);
                return NULL;
            }
            c->slots[i] = (entry){name, e->len, e->hash, e->child};
            e->child->refs++;
            c->count++;
        }
    }
    c->value = n->value;
    if (c->value != NULL)
        c->value->refs++;
    return c;
}

/* Makes *slot uniquely owned (copying it if shared). */
static node *make_unique(wd_ctx *ctx, node **slot)
{
    node *n = *slot;
    if (n->refs == 1)
        return n;
    node *c = node_copy(ctx, n);
    if (c == NULL)
        return NULL;
    n->refs--;
    *slot = c;
    return c;
}

/* ---- paths --------------------------------------------------------------------------- */

static const node *lookup(const wd_durable *d, const char *key, size_t len)
{
    const node *n = d->root;
    const char *step;
    size_t step_len;
    while (n != NULL && next_step(&key, &len, &step, &step_len)) {
        const entry *e = find(n, step, step_len);
        n = e ? e->child : NULL;
    }
    return n;
}

/* The node at `key`, made unique along the whole path; created when `create`. NULL when
 * absent (and !create) or out of memory (*oom set). */
static node *walk_mut(wd_durable *d, const char *key, size_t len, bool create, bool *oom)
{
    *oom = false;
    node *n = make_unique(d->ctx, &d->root);
    const char *step;
    size_t step_len;
    while (n != NULL && next_step(&key, &len, &step, &step_len)) {
        entry *e = find(n, step, step_len);
        if (e == NULL) {
            if (!create)
                return NULL;
            node *c = node_new(d->ctx);
            if (c == NULL || (e = insert(d->ctx, n, step, step_len, c)) == NULL) {
                node_unref(d->ctx, c);
                *oom = true;
                return NULL;
            }
        }
        n = make_unique(d->ctx, &e->child);
        if (n == NULL)
            *oom = true;
    }
    return n;
}

static bool node_empty(const node *n)
{
    return n->value == NULL && n->count == 0;
}

/* Removes empty nodes along `key` (after a deletion), deepest first. */
static void prune(wd_durable *d, const char *key, size_t len)
{
    node *path[WD_DURABLE_MAX_KEY + 1];
    const char *steps[WD_DURABLE_MAX_KEY + 1];
    size_t lens[WD_DURABLE_MAX_KEY + 1];
    size_t depth = 0;
    node *n = d->root;
    const char *step;
    size_t step_len;
    while (depth <= WD_DURABLE_MAX_KEY && next_step(&key, &len, &step, &step_len)) {
        entry *e = find(n, step, step_len);
        if (e == NULL)
            break;
        path[depth] = n;
        steps[depth] = step;
        lens[depth] = step_len;
        depth++;
        n = e->child; /* unique: walk_mut ran along this path */
    }
    while (depth > 0) {
        depth--;
        entry *e = find(path[depth], steps[depth], lens[depth]);
        if (!node_empty(e->child))
            break;
        erase(d->ctx, path[depth], e);
    }
}

/* ---- API ------------------------------------------------------------------------------ */

wd_durable *wd_durable_new(wd_ctx *ctx)
{
    wd_durable *d = wd_alloc(ctx, sizeof *d);
    if (d == NULL)
        return NULL;
    d->ctx = ctx;
    d->root = node_new(ctx);
    if (d->root == NULL) {
        wd_free(ctx, d);
        return NULL;
    }
    return d;
}

void wd_durable_free(wd_durable *d)
{
    if (d == NULL)
        return;
    node_unref(d->ctx, d->root);
    wd_free(d->ctx, d);
}

wd_durable *wd_durable_clone(wd_durable *d)
{
    wd_durable *c = wd_alloc(d->ctx, sizeof *c);
    if (c == NULL)
        return NULL;
    c->ctx = d->ctx;
    c->root = d->root;
    c->root->refs++;
    return c;
}

int wd_durable_has(const wd_durable *d, const char *key, size_t len)
{
    const node *n = lookup(d, key, len);
    if (n == NULL)
        return 0;
    return (n->value != NULL ? 1 : 0) | (n->count != 0 ? 2 : 0);
}

int64_t wd_durable_list_size(const wd_durable *d, const char *key, size_t len)
{
    const node *n = lookup(d, key, len);
    if (n == NULL)
        return 0;
    return (int64_t)n->count + (n->value != NULL ? 1 : 0);
}

static const node *sort_key_node; /* qsort has no context argument in C11 */

static int cmp_slots(const void *a, const void *b)
{
    const entry *x = &sort_key_node->slots[*(const uint32_t *)a];
    const entry *y = &sort_key_node->slots[*(const uint32_t *)b];
    size_t n = WD_MIN(x->len, y->len);
    int c = memcmp(x->name, y->name, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static bool ensure_sorted(wd_ctx *ctx, node *n)
{
    if (n->sorted != NULL || n->count == 0)
        return true;
    n->sorted = wd_alloc(ctx, (size_t)n->count * sizeof *n->sorted);
    if (n->sorted == NULL)
        return false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n->cap; i++)
        if (n->slots[i].name != NULL)
            n->sorted[k++] = i;
    sort_key_node = n;
    qsort(n->sorted, n->count, sizeof *n->sorted, cmp_slots);
    return true;
}

int wd_durable_nth_key(wd_durable *d, const char *key, size_t len, uint64_t index,
                       const char **name, size_t *name_len)
{
    *name = "";
    *name_len = 0;
    node *n = (node *)lookup(d, key, len); /* the sorted cache is not observable state */
    if (n == NULL)
        return WD_DURABLE_ESUBKEY_INDEX;
    if (!ensure_sorted(d->ctx, n))
        return WD_DURABLE_EGENERIC;
    /* The value slot is named "@", which sorts between digits and capital letters. */
    uint64_t total = (uint64_t)n->count + (n->value != NULL);
    if (index >= total)
        return WD_DURABLE_ESUBKEY_INDEX;
    uint64_t k = 0;
    for (uint32_t i = 0; i < n->count; i++) {
        const entry *e = &n->slots[n->sorted[i]];
        if (n->value != NULL && (uint8_t)e->name[0] > '@') {
            if (k == index)
                return 0; /* the value slot: empty name */
            k++;
        }
        if (k == index) {
            *name = e->name;
            *name_len = e->len;
            return 0;
        }
        k++;
    }
    return 0; /* the value slot, last */
}

int wd_durable_delete(wd_durable *d, const char *key, size_t len, bool value_only)
{
    if (lookup(d, key, len) == NULL)
        return 0;
    bool oom;
    node *n = walk_mut(d, key, len, false, &oom);
    if (n == NULL)
        return oom ? WD_DURABLE_EGENERIC : 0;
    blob_unref(d->ctx, n->value);
    n->value = NULL;
    if (!value_only) {
        for (uint32_t i = 0; i < n->cap; i++) {
            if (n->slots[i].name != NULL) {
                wd_free(d->ctx, n->slots[i].name);
                node_unref(d->ctx, n->slots[i].child);
            }
        }
        wd_free(d->ctx, n->slots);
        n->slots = NULL;
        n->cap = n->count = 0;
        node_changed(d->ctx, n);
    }
    prune(d, key, len);
    return 0;
}

int wd_durable_copy(wd_durable *d, const char *from, size_t from_len, const char *to,
                    size_t to_len, bool move)
{
    node *src = (node *)lookup(d, from, from_len);
    if (src == NULL)
        return WD_DURABLE_ENOT_A_NODE;
    src->refs++; /* keep it alive while the destination path is rebuilt */
    bool oom;
    node *dst = walk_mut(d, to, to_len, true, &oom);
    if (dst == NULL) {
        node_unref(d->ctx, src);
        return WD_DURABLE_EGENERIC;
    }
    /* Replace dst's contents by src's: swap the parent's pointer. Find the parent again. */
    const char *parent_key = to;
    size_t parent_len = to_len;
    while (parent_len > 0 && to[parent_len - 1] != '/')
        parent_len--;
    node *parent = walk_mut(d, parent_key, parent_len > 1 ? parent_len - 1 : 1, false, &oom);
    entry *e = parent ? find(parent, to + parent_len, to_len - parent_len) : NULL;
    if (e == NULL) {
        node_unref(d->ctx, src);
        return WD_DURABLE_EGENERIC;
    }
    node_unref(d->ctx, e->child);
    e->child = src;
    node_changed(d->ctx, parent);
    if (move && !(to_len >= from_len && memcmp(to, from, from_len) == 0 &&
                  (to_len == from_len || to[from_len] == '/')))
        return wd_durable_delete(d, from, from_len, false);
    return 0;
}

int64_t wd_durable_value_size(const wd_durable *d, const char *key, size_t len)
{
    const node *n = lookup(d, key, len);
    if (n == NULL || n->value == NULL)
        return WD_DURABLE_ENOT_A_VALUE;
    return n->value->size;
}

int64_t wd_durable_read(const wd_durable *d, const char *key, size_t len, uint64_t offset,
                        uint8_t *dst, size_t max)
{
    const node *n = lookup(d, key, len);
    if (n == NULL || n->value == NULL)
        return WD_DURABLE_ENOT_A_VALUE;
    const blob *b = n->value;
    if (offset >= b->size)
        return WD_DURABLE_EINVALID_ACCESS;
    size_t count = WD_MIN(max, (size_t)(b->size - offset));
    copy_out(b, offset, dst, count);
    return (int64_t)count;
}

/* Makes n's value unique with room for `size` bytes (zero-filling any growth). */
static blob *value_for_write(wd_ctx *ctx, node *n, uint32_t size)
{
    blob *b = n->value;
    if (b != NULL && b->refs == 1 && b->cap >= size) {
        if (size > b->size) {
            memset(b->data + b->size, 0, size - b->size);
            b->size = size;
        }
        return b;
    }
    uint32_t old = b ? b->size : 0;
    uint32_t cap = WD_MAX(size, old);
    if (b != NULL && b->refs == 1 && cap < WD_DURABLE_MAX_VALUE / 2)
        cap = WD_MAX(cap, b->cap * 2); /* appends stay amortised O(1) */
    blob *c = blob_new(ctx, cap);
    if (c == NULL)
        return NULL;
    if (old != 0)
        memcpy(c->data, b->data, old);
    memset(c->data + old, 0, cap - old);
    c->size = WD_MAX(size, old);
    blob_unref(ctx, b);
    n->value = c;
    return c;
}

/* Makes *slot (a page of a unique sparse value) a page of its own: allocated if it was
 * never written, copied if it is shared. */
static bool own_page(wd_ctx *ctx, page **slot)
{
    page *pg = *slot;
    if (pg != NULL && pg->refs == 1)
        return true;
    page *c = wd_alloc(ctx, sizeof *c);
    if (c == NULL)
        return false;
    c->refs = 1;
    memcpy(c->data, pg != NULL ? pg->data : zero_page, PAGE);
    page_unref(ctx, pg);
    *slot = c;
    return true;
}

/* Writes src[0..n) at `offset` into nd's sparse value, which then has `size` bytes. The
 * value, its page table and the pages written are made unique and allocated first, so that
 * out of memory leaves the value as it was. */
static bool sparse_write(wd_ctx *ctx, node *nd, uint64_t offset, const uint8_t *src, size_t n,
                         uint32_t size)
{
    blob *b = nd->value;
    uint32_t need = WD_MAX(pages_for(size), b->cap);
    if (b->refs > 1 || need > b->cap) {
        if (b->refs == 1 && need < pages_for(WD_DURABLE_MAX_VALUE) / 2)
            need = WD_MAX(need, b->cap * 2); /* appends stay amortised O(1) */
        page **pages = wd_calloc(ctx, need, sizeof *pages);
        blob *c = b->refs > 1 ? wd_alloc(ctx, sizeof *c) : b;
        if (pages == NULL || c == NULL) {
            wd_free(ctx, pages);
            if (c != b)
                wd_free(ctx, c);
            return false;
        }
        memcpy(pages, b->pages, b->cap * sizeof *pages);
        if (c != b) { /* a copy sharing b's pages */
            for (uint32_t i = 0; i < b->cap; i++)
                if (pages[i] != NULL)
                    pages[i]->refs++;
            *c = (blob){.refs = 1, .size = b->size};
            blob_unref(ctx, b);
            nd->value = c;
        } else {
            wd_free(ctx, b->pages);
        }
        c->pages = pages;
        c->cap = need;
        b = c;
    }
    for (uint64_t p = offset / PAGE; n > 0 && p <= (offset + n - 1) / PAGE; p++)
        if (!own_page(ctx, &b->pages[p]))
            return false;
    wd_free(ctx, b->whole);
    b->whole = NULL;
    while (n > 0) {
        size_t in = offset % PAGE, count = WD_MIN(PAGE - in, n);
        memcpy(b->pages[offset / PAGE]->data + in, src, count);
        src += count;
        offset += count;
        n -= count;
    }
    b->size = size;
    return true;
}

int wd_durable_write(wd_durable *d, const char *key, size_t len, uint64_t offset,
                     const uint8_t *src, size_t n)
{
    const node *cur = lookup(d, key, len);
    uint64_t size = cur && cur->value ? cur->value->size : 0;
    if (offset > size)
        return WD_DURABLE_EINVALID_ACCESS;
    if (offset + n > WD_DURABLE_MAX_VALUE)
        return WD_DURABLE_EVALUE_SIZE;
    bool oom;
    node *node_ = walk_mut(d, key, len, true, &oom);
    if (node_ == NULL)
        return WD_DURABLE_EGENERIC;
    uint32_t new_size = (uint32_t)WD_MAX(offset + n, size);
    if (node_->value != NULL && node_->value->pages != NULL)
        return sparse_write(d->ctx, node_, offset, src, n, new_size) ? 0 : WD_DURABLE_EGENERIC;
    blob *b = value_for_write(d->ctx, node_, new_size);
    if (b == NULL)
        return WD_DURABLE_EGENERIC;
    if (n != 0)
        memcpy(b->data + offset, src, n);
    return 0;
}

int wd_durable_set(wd_durable *d, const char *key, size_t len, const uint8_t *src, size_t n)
{
    if (n > WD_DURABLE_MAX_VALUE)
        return WD_DURABLE_EVALUE_SIZE;
    bool oom;
    node *node_ = walk_mut(d, key, len, true, &oom);
    if (node_ == NULL)
        return WD_DURABLE_EGENERIC;
    blob *b = blob_new(d->ctx, (uint32_t)n);
    if (b == NULL)
        return WD_DURABLE_EGENERIC;
    if (n != 0)
        memcpy(b->data, src, n);
    blob_unref(d->ctx, node_->value);
    node_->value = b;
    return 0;
}

int wd_durable_create(wd_durable *d, const char *key, size_t len, int64_t size)
{
    if (size < 0 || size > (int64_t)WD_DURABLE_MAX_VALUE)
        return WD_DURABLE_EVALUE_SIZE;
    const node *cur = lookup(d, key, len);
    if (cur != NULL && cur->value != NULL)
        return WD_DURABLE_EVALUE_EXISTS;
    bool oom;
    node *node_ = walk_mut(d, key, len, true, &oom);
    if (node_ == NULL)
        return WD_DURABLE_EGENERIC;
    blob *b = size > SPARSE_MIN ? sparse_new(d->ctx, (uint32_t)size)
                                : blob_new(d->ctx, (uint32_t)size);
    if (b == NULL)
        return WD_DURABLE_EGENERIC;
    if (b->pages == NULL)
        memset(b->data, 0, (size_t)size);
    node_->value = b;
    return 0;
}

const uint8_t *wd_durable_value(const wd_durable *d, const char *key, size_t len, size_t *size)
{
    const node *n = lookup(d, key, len);
    const uint8_t *bytes = n != NULL && n->value != NULL ? blob_whole(d->ctx, n->value) : NULL;
    *size = bytes != NULL ? n->value->size : 0;
    return bytes;
}

const wd_durable_blob *wd_durable_get(const wd_durable *d, const char *key, size_t len,
                                      size_t *size)
{
    const node *n = lookup(d, key, len);
    *size = n != NULL && n->value != NULL ? n->value->size : 0;
    return n != NULL ? n->value : NULL;
}

const uint8_t *wd_durable_piece(const wd_durable_blob *v, size_t offset, size_t *n)
{
    return piece(v, offset, n);
}

/* A kept value is its blob, one reference more (wd_durable_kept stays incomplete: its
 * pointers are blob pointers). */

const wd_durable_kept *wd_durable_keep(wd_durable *d, const char *key, size_t len,
                                       const uint8_t **data, size_t *size)
{
    const node *n = lookup(d, key, len);
    *data = n != NULL && n->value != NULL ? blob_whole(d->ctx, n->value) : NULL;
    if (*data == NULL) {
        *size = 0;
        return NULL;
    }
    n->value->refs++;
    *size = n->value->size;
    return (const wd_durable_kept *)n->value;
}

void wd_durable_release(wd_durable *d, const wd_durable_kept *k)
{
    blob_unref(d->ctx, (blob *)k);
}

typedef struct walk_state {
    wd_ctx *ctx;
    char *path;
    size_t len, cap;
    wd_durable_visit_fn fn;
    void *ud;
} walk_state;

static int visit(walk_state *w, node *n)
{
    int rc = w->fn(w->ud, w->len ? w->path : "/", n->value, n->value ? n->value->size : 0);
    if (rc != 0)
        return rc;
    if (!ensure_sorted(w->ctx, n))
        return WD_DURABLE_EGENERIC;
    size_t saved = w->len;
    for (uint32_t i = 0; i < n->count; i++) {
        const entry *e = &n->slots[n->sorted[i]];
        size_t need = saved + 1 + e->len + 1;
        if (need > w->cap) {
            char *p = wd_realloc(w->ctx, w->path, need * 2);
            if (p == NULL)
                return WD_DURABLE_EGENERIC;
            w->path = p;
            w->cap = need * 2;
        }
        w->path[saved] = '/';
        memcpy(w->path + saved + 1, e->name, e->len);
        w->len = saved + 1 + e->len;
        w->path[w->len] = '\0';
        rc = visit(w, e->child);
        if (rc != 0)
            return rc;
    }
    w->len = saved;
    return 0;
}

int wd_durable_walk(wd_durable *d, const char *key, size_t len, wd_durable_visit_fn fn, void *ud)
{
    node *n = (node *)lookup(d, key, len);
    if (n == NULL)
        return 0;
    walk_state w = {d->ctx, NULL, len > 1 ? len : 0, 0, fn, ud};
    w.cap = len + 64;
    w.path = wd_alloc(d->ctx, w.cap);
    if (w.path == NULL)
        return WD_DURABLE_EGENERIC;
    memcpy(w.path, key, len);
    w.path[w.len] = '\0';
    int rc = visit(&w, n);
    wd_free(d->ctx, w.path);
    return rc;
}
