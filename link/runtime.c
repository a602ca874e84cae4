/* runtime.c: the store and the runtime objects it owns (host functions, memories, tables,
 * globals, instances). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE alongside _POSIX_C_SOURCE */

#include "link/runtime.h"

#include "link/link_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE_SIZE 65536u
#define MAX_PAGES 65536u
/* Tables hold 8 bytes per element: all the tables of a store together hold at most this
 * many (80 MB). Instantiating past it is an error, and table.grow past it returns -1, as
 * the spec allows an implementation to limit them. The limit is on the store, not on
 * each table: a module of a few bytes may define thousands of tables. */
#define TABLE_LIMIT 10000000u

enum { OBJ_FUNC, OBJ_MEMORY, OBJ_TABLE, OBJ_GLOBAL, OBJ_INSTANCE };

typedef struct store_obj {
    uint8_t kind;
    void *ptr;
} store_obj;

struct wd_store {
    wd_ctx *ctx;
    WD_VEC(store_obj) objs;
    uint64_t table_elems; /* the sizes of its tables, summed: at most TABLE_LIMIT */
};

/* A memory and how its bytes are held. Linear memory is one mapping reserved up to the
 * memory's maximum (PROT_NONE, so untouched pages cost nothing) and made accessible as it
 * grows: growing is one mprotect whatever the size, fresh pages are zero without a memset,
 * and the base never moves, so pointers the interpreter keeps stay valid. This is the one
 * allocation that bypasses the context allocator, which cannot reserve address space;
 * where mmap fails (no MAP_ANONYMOUS, address space limits) memory falls back to
 * wd_realloc and memset. A freed memory's reservation may serve the next one (unreserve):
 * then what it had made accessible stays so, zeroed. */
typedef struct memory_obj {
    wd_memory mem;   /* first: a wd_memory * is a memory_obj * */
    size_t reserved; /* bytes mapped; 0 when the bytes come from the context allocator */
} memory_obj;

typedef struct table_obj {
    wd_table tab;    /* first: a wd_table * is a table_obj * */
    uint32_t cap;    /* elements allocated */
    uint64_t *total; /* its store's table_elems */
} table_obj;

wd_store *wd_store_new(wd_ctx *ctx)
{
    wd_store *s = wd_calloc(ctx, 1, sizeof *s);
    if (s != NULL)
        s->ctx = ctx;
    return s;
}

wd_ctx *wd_store_ctx(const wd_store *s)
{
    return s->ctx;
}

/* One reservation kept for the next memory that asks for the same size: a PVM reboot
 * instantiates the kernel again. Unmapping the last instance's 4 GiB, or dropping its pages
 * (MADV_DONTNEED), changes page tables, which interrupts every CPU where another of our
 * threads runs (a TLB shootdown: the profiler's consumer thread took 10 a profile of
 * tx-kernel-no-verif), and the next instance faults its pages in again. Kept, the pages the
 * last instance touched (mincore) are zeroed in place when the next takes it, and stay
 * accessible: every access is checked against the memory's size, never against its
 * protection. Up to SPARE_ZERO_MAX bytes are zeroed; with more resident it is unmapped. */
#define SPARE_ZERO_MAX ((size_t)64 << 20)

static struct {
    pthread_mutex_t mu;
    uint8_t *data;
    size_t reserved;
    size_t used; /* what its last memory made accessible: zeroed when it is taken */
} spare = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* Zeroes the resident pages of [data, data + used); false when it cannot tell which they are
 * or they are too many. */
static bool zero_resident(uint8_t *data, size_t used)
{
#ifdef MAP_ANONYMOUS
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0 || used == 0)
        return used == 0;
    size_t page = (size_t)ps, n = (used + page - 1) / page, resident = 0;
    unsigned char *vec = malloc(n);
    if (vec == NULL || mincore(data, n * page, vec) != 0) {
        free(vec);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        resident += vec[i] & 1;
    bool ok = resident * page <= SPARE_ZERO_MAX;
    for (size_t i = 0; ok && i < n;) {
        if (!(vec[i] & 1)) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && (vec[j] & 1))
            j++;
        size_t to = WD_MIN(j * page, used);
        memset(data + i * page, 0, to - i * page);
        i = j;
    }
    free(vec);
    return ok;
#else
    (void)data, (void)used;
    return false;
#endif
}

/* Keeps a freed memory's reservation for the next one (zeroed only then: a process that
 * ends pays nothing), or unmaps it when one is kept already. */
static void unreserve(uint8_t *data, size_t reserved, size_t used)
{
#ifdef MAP_ANONYMOUS
    pthread_mutex_lock(&spare.mu);
    bool kept = spare.data == NULL;
    if (kept) {
        spare.data = data;
        spare.reserved = reserved;
        spare.used = used;
    }
    pthread_mutex_unlock(&spare.mu);
    if (!kept)
        munmap(data, reserved);
#else
    (void)data, (void)reserved, (void)used;
#endif
}

void wd_store_drop_spare(void)
{
    pthread_mutex_lock(&spare.mu);
    uint8_t *p = spare.data;
    size_t n = spare.reserved;
    spare.data = NULL;
    pthread_mutex_unlock(&spare.mu);
#ifdef MAP_ANONYMOUS
    if (p != NULL)
        munmap(p, n);
#else
    (void)p, (void)n;
#endif
}

/* The kept reservation when it is `bytes` long, else NULL. */
static uint8_t *take_spare(size_t bytes)
{
    uint8_t *p = NULL;
    size_t used = 0;
    pthread_mutex_lock(&spare.mu);
    if (spare.data != NULL && spare.reserved == bytes) {
        p = spare.data;
        used = spare.used;
        spare.data = NULL;
    }
    pthread_mutex_unlock(&spare.mu);
#ifdef MAP_ANONYMOUS
    if (p != NULL && !zero_resident(p, used)) {
        munmap(p, bytes);
        p = NULL;
    }
#endif
    return p;
}

static void free_memory(wd_ctx *ctx, memory_obj *mo)
{
    if (mo->reserved != 0)
        unreserve(mo->mem.data, mo->reserved, (size_t)mo->mem.size);
    else
        wd_free(ctx, mo->mem.data);
    wd_free(ctx, mo);
}

static void free_instance(wd_ctx *ctx, wd_instance *inst)
{
    wd_free(ctx, inst->funcs);
    wd_free(ctx, inst->tables);
    wd_free(ctx, inst->globals);
    wd_free(ctx, inst->data_dropped);
    wd_free(ctx, inst->elem_dropped);
    wd_free(ctx, inst->own_funcs);
    wd_free(ctx, inst->exports);
    wd_free(ctx, inst);
}

static void free_obj(wd_ctx *ctx, store_obj *o)
{
    switch (o->kind) {
    case OBJ_MEMORY:
        free_memory(ctx, o->ptr);
        break;
    case OBJ_TABLE:
        wd_free(ctx, ((table_obj *)o->ptr)->tab.elems);
        wd_free(ctx, o->ptr);
        break;
    case OBJ_INSTANCE:
        free_instance(ctx, o->ptr);
        break;
    default: /* functions and globals are single blocks */
        wd_free(ctx, o->ptr);
        break;
    }
}

void wd_store_free(wd_store *s)
{
    if (s == NULL)
        return;
    for (uint32_t i = s->objs.count; i-- > 0;)
        free_obj(s->ctx, &s->objs.data[i]);
    WD_VEC_FREE(s->ctx, &s->objs);
    wd_free(s->ctx, s);
}

/* Takes `ptr` into the store; on failure frees it and records the error. */
static wd_status adopt(wd_store *s, uint8_t kind, void *ptr, wd_error *err)
{
    store_obj o = {kind, ptr};
    if (WD_VEC_PUSH(s->ctx, &s->objs, o))
        return WD_OK;
    free_obj(s->ctx, &o);
    return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
}

wd_status wd_store_new_instance(wd_store *s, wd_instance **out, wd_error *err)
{
    *out = NULL;
    wd_instance *inst = wd_calloc(s->ctx, 1, sizeof *inst);
    if (inst == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    inst->ctx = s->ctx;
    WD_TRY(adopt(s, OBJ_INSTANCE, inst, err));
    *out = inst;
    return WD_OK;
}

wd_status wd_store_host_func(wd_store *s, const wd_functype *type, wd_host_fn fn, void *ud,
                             const char *module, const char *name, wd_func **out, wd_error *err)
{
    *out = NULL;
    size_t mlen = strlen(module), nlen = strlen(name);
    size_t size = sizeof(wd_func) + sizeof(wd_functype) + type->param_count + type->result_count +
                  mlen + 1 + nlen + 1;
    wd_func *f = wd_calloc(s->ctx, 1, size);
    if (f == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    /* One block: the function, its type, the type's value types, then the two names. */
    wd_functype *ft = (wd_functype *)(f + 1);
    uint8_t *p = (uint8_t *)(ft + 1);
    ft->param_count = type->param_count;
    ft->result_count = type->result_count;
    if (type->param_count)
        memcpy(p, type->params, type->param_count);
    ft->params = p;
    p += type->param_count;
    if (type->result_count)
        memcpy(p, type->results, type->result_count);
    ft->results = p;
    p += type->result_count;
    memcpy(p, module, mlen + 1);
    f->host_module = (const char *)p;
    p += mlen + 1;
    memcpy(p, name, nlen + 1);
    f->host_name = (const char *)p;
    f->type = ft;
    f->host = fn;
    f->host_ud = ud;
    f->idx = UINT32_MAX;
    WD_TRY(adopt(s, OBJ_FUNC, f, err));
    *out = f;
    return WD_OK;
}

/* Makes [old, new) pages of a mapped memory accessible. */
static bool map_pages(memory_obj *mo, uint64_t old_pages, uint64_t new_pages)
{
#ifdef MAP_ANONYMOUS
    size_t from = (size_t)(old_pages * PAGE_SIZE),
           len = (size_t)((new_pages - old_pages) * PAGE_SIZE);
    return mprotect(mo->mem.data + from, len, PROT_READ | PROT_WRITE) == 0;
#else
    (void)mo, (void)old_pages, (void)new_pages;
    return false;
#endif
}

/* Reserves address space for max_pages (at least one page, so data is never NULL). */
static void reserve(memory_obj *mo)
{
#ifdef MAP_ANONYMOUS
    uint64_t bytes = WD_MAX(mo->mem.max_pages, 1) * PAGE_SIZE;
    if (bytes > SIZE_MAX)
        return;
    uint8_t *kept = take_spare((size_t)bytes);
    if (kept != NULL) {
        mo->mem.data = kept;
        mo->reserved = (size_t)bytes;
        return;
    }
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    void *p = mmap(NULL, (size_t)bytes, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED)
        return;
    mo->mem.data = p;
    mo->reserved = (size_t)bytes;
#else
    (void)mo;
#endif
}

wd_status wd_store_memory(wd_store *s, wd_memtype type, wd_memory **out, wd_error *err)
{
    *out = NULL;
    const wd_limits *l = &type.limits;
    if (l->min > MAX_PAGES || (l->has_max && l->max < l->min))
        return wd_fail(err, WD_ERR_USAGE, 0, "invalid memory type");
    memory_obj *mo = wd_calloc(s->ctx, 1, sizeof *mo);
    if (mo == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    mo->mem.type = type;
    mo->mem.max_pages = l->has_max ? WD_MIN(l->max, MAX_PAGES) : MAX_PAGES;
    reserve(mo);
    if (mo->reserved == 0) {
        mo->mem.data = wd_calloc(s->ctx, 1, WD_MAX((size_t)(l->min * PAGE_SIZE), 1));
        if (mo->mem.data == NULL) {
            wd_free(s->ctx, mo);
            return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        }
    } else if (l->min > 0 && !map_pages(mo, 0, l->min)) {
        free_memory(s->ctx, mo);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    mo->mem.pages = l->min;
    mo->mem.size = l->min * PAGE_SIZE;
    WD_TRY(adopt(s, OBJ_MEMORY, mo, err));
    *out = &mo->mem;
    return WD_OK;
}

int64_t wd_memory_grow(wd_ctx *ctx, wd_memory *mem, uint64_t delta)
{
    memory_obj *mo = (memory_obj *)mem;
    uint64_t old = mem->pages;
    if (delta > mem->max_pages - old)
        return -1;
    if (delta == 0)
        return (int64_t)old;
    uint64_t pages = old + delta;
    if (mo->reserved != 0) {
        if (!map_pages(mo, old, pages))
            return -1;
    } else {
        if (pages * PAGE_SIZE > SIZE_MAX)
            return -1;
        uint8_t *p = wd_realloc(ctx, mem->data, (size_t)(pages * PAGE_SIZE));
        if (p == NULL)
            return -1;
        memset(p + mem->size, 0, (size_t)(delta * PAGE_SIZE));
        mem->data = p;
    }
    mem->pages = pages;
    mem->size = pages * PAGE_SIZE;
    return (int64_t)old;
}

/* Ensures room for `count` elements, growing geometrically so repeated small grows stay
 * linear overall. */
static bool table_reserve(wd_ctx *ctx, table_obj *to, uint64_t count)
{
    if (count <= to->cap)
        return true;
    uint64_t cap = WD_MAX(count, (uint64_t)to->cap * 2);
    cap = WD_MIN(WD_MAX(cap, 8), TABLE_LIMIT);
    uint64_t *p = wd_realloc(ctx, to->tab.elems, (size_t)cap * sizeof *p);
    if (p == NULL)
        return false;
    to->tab.elems = p;
    to->cap = (uint32_t)cap;
    return true;
}

wd_status wd_store_table(wd_store *s, wd_tabletype type, wd_table **out, wd_error *err)
{
    *out = NULL;
    const wd_limits *l = &type.limits;
    if (l->min > UINT32_MAX || (l->has_max && l->max < l->min))
        return wd_fail(err, WD_ERR_USAGE, 0, "invalid table type");
    if (l->min > TABLE_LIMIT - s->table_elems) {
        if (s->table_elems == 0)
            return wd_fail(err, WD_ERR_NOMEM, 0, "table of %llu elements exceeds the limit of %u",
                           (unsigned long long)l->min, TABLE_LIMIT);
        return wd_fail(err, WD_ERR_NOMEM, 0,
                       "table of %llu elements exceeds the limit of %u elements in all tables "
                       "(%llu in use)",
                       (unsigned long long)l->min, TABLE_LIMIT, (unsigned long long)s->table_elems);
    }
    table_obj *to = wd_calloc(s->ctx, 1, sizeof *to);
    if (to == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    to->total = &s->table_elems;
    to->tab.type = type;
    to->tab.max = l->has_max ? (uint32_t)WD_MIN(l->max, UINT32_MAX) : UINT32_MAX;
    if (!table_reserve(s->ctx, to, l->min)) {
        wd_free(s->ctx, to);
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    if (l->min > 0)
        memset(to->tab.elems, 0, (size_t)l->min * sizeof *to->tab.elems);
    to->tab.size = (uint32_t)l->min;
    WD_TRY(adopt(s, OBJ_TABLE, to, err));
    s->table_elems += l->min;
    *out = &to->tab;
    return WD_OK;
}

int64_t wd_table_grow(wd_ctx *ctx, wd_table *tab, uint64_t delta, uint64_t init)
{
    table_obj *to = (table_obj *)tab;
    uint32_t old = tab->size;
    if (delta > (uint64_t)(tab->max - old) || delta > TABLE_LIMIT - *to->total)
        return -1;
    if (!table_reserve(ctx, to, old + delta))
        return -1;
    for (uint64_t i = old; i < old + delta; i++)
        tab->elems[i] = init;
    tab->size = (uint32_t)(old + delta);
    *to->total += delta;
    return old;
}

wd_status wd_store_global(wd_store *s, wd_globaltype type, wd_val value, wd_global **out,
                          wd_error *err)
{
    *out = NULL;
    wd_global *g = wd_calloc(s->ctx, 1, sizeof *g);
    if (g == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    g->type = type;
    g->val[0] = value;
    WD_TRY(adopt(s, OBJ_GLOBAL, g, err));
    *out = g;
    return WD_OK;
}
