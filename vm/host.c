/* host.c: smart_rollup_core. Every pointer and length from the kernel is checked against
 * its memory before use; costs follow the tick model (host_per_byte per byte moved across
 * memory, host_per_access per storage access), charged on success only as the reference
 * PVM does (pvm.md 4.4). */
#include "vm/host.h"

#include <sodium.h>
#include <string.h>

static const char *const version_names[WD_PVM_VERSION_COUNT] = {
    "2.0.0", "2.0.0-r1", "2.0.0-r2", "2.0.0-r3", "2.0.0-r4", "2.0.0-r5", "2.0.0-r6",
};

const char *wd_pvm_version_name(int v)
{
    return v >= 0 && v < WD_PVM_VERSION_COUNT ? version_names[v] : "unknown";
}

int wd_pvm_version_parse(const char *s)
{
    for (int v = 0; v < WD_PVM_VERSION_COUNT; v++)
        if (strcmp(s, version_names[v]) == 0)
            return v;
    return -1;
}

/* ---- memory and keys ------------------------------------------------------------------ */

/* Host functions may only run with the caller's memory 0 and not during the start function:
 * the reference PVM crashes (stuck) otherwise. */
static wd_status caller_memory(wd_thread *t, wd_host_env *env, wd_memory **mem, wd_error *err)
{
    *mem = wd_eval_caller_memory(t);
    if (*mem == NULL)
        return wd_fail(err, WD_TRAP, 0, "host function called by a module without a memory");
    if (env->in_start)
        return wd_fail(err, WD_TRAP, 0, "host function accessed memory during initialisation");
    return WD_OK;
}

/* The reference PVM requires addr + len to be strictly below the memory size (a quirk,
 * pvm.md section 12, kept so that kernels get the same answers). */
static uint8_t *mem_range(const wd_memory *mem, uint32_t addr, uint64_t len)
{
    if ((uint64_t)addr + len >= mem->size)
        return NULL;
    return mem->data + addr;
}

typedef struct key {
    const char *s;
    uint32_t len;
} key;

/* Validates a key in memory: length, then bounds, then syntax (the reference's order). */
static int32_t read_key(const wd_memory *mem, uint32_t ptr, uint32_t len, key *k)
{
    if (len > WD_DURABLE_MAX_KEY)
        return WD_DURABLE_EKEY_TOO_LARGE;
    const uint8_t *p = mem_range(mem, ptr, len);
    if (p == NULL)
        return WD_HOST_EMEMORY;
    if (wd_durable_check_key((const char *)p, len, false) != 0)
        return WD_DURABLE_EINVALID_KEY;
    k->s = (const char *)p;
    k->len = len;
    return 0;
}

static bool readonly(const key *k)
{
    return k->len >= 9 && memcmp(k->s, "/readonly", 9) == 0 && (k->len == 9 || k->s[9] == '/');
}

static void charge(wd_thread *t, wd_host_env *env, uint64_t bytes, uint64_t accesses)
{
    wd_eval_charge(t, bytes * env->costs->host_per_byte + accesses * env->costs->host_per_access);
}

#define HOST(name) static wd_status name(wd_thread *t, void *ud, wd_val *a, wd_error *err)
#define ENV_MEM()                                                                                  \
    wd_host_env *env = ud;                                                                         \
    wd_memory *mem;                                                                                \
    WD_TRY(caller_memory(t, env, &mem, err))
#define KEY(k, i)                                                                                  \
    key k;                                                                                         \
    do {                                                                                           \
        int32_t rc_ = read_key(mem, a[i].u32, a[(i) + 1].u32, &k);                                 \
        if (rc_ != 0) {                                                                            \
            a[0].i64 = rc_;                                                                        \
            return WD_OK;                                                                          \
        }                                                                                          \
    } while (0)
/* Results: i32 results are written as i64 sign-extended, harmless for u32 readers. */
#define RESULT(v)                                                                                  \
    do {                                                                                           \
        a[0].i64 = (v);                                                                            \
        return WD_OK;                                                                              \
    } while (0)

/* ---- input and output ------------------------------------------------------------------ */

HOST(read_input)
{
    ENV_MEM();
    uint32_t info = a[0].u32, dst = a[1].u32, max = a[2].u32;
    uint8_t *pinfo = mem_range(mem, info, 8), *pdst = mem_range(mem, dst, max);
    if (pinfo == NULL || pdst == NULL)
        RESULT(WD_HOST_EMEMORY);
    if (env->input_next >= env->input_count)
        RESULT(0);
    const wd_msg *m = &env->inputs[env->input_next++];
    uint32_t n = WD_MIN(WD_MIN(m->size, max), WD_MAX_MESSAGE);
    memcpy(pdst, m->bytes, n);
    for (int i = 0; i < 4; i++) {
        pinfo[i] = (uint8_t)(m->level >> (8 * i));
        pinfo[4 + i] = (uint8_t)(m->counter >> (8 * i));
    }
    charge(t, env, n, 0);
    RESULT(n);
}

HOST(write_output)
{
    ENV_MEM();
    uint32_t src = a[0].u32, n = a[1].u32;
    if (n > WD_MAX_MESSAGE)
        RESULT(WD_HOST_ETOO_LARGE);
    const uint8_t *p = mem_range(mem, src, n);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    if (env->outbox_count >= WD_OUTBOX_LIMIT)
        RESULT(WD_HOST_EFULL_OUTBOX);
    uint8_t *copy = wd_alloc(env->ctx, n);
    if (copy == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory in write_output");
    memcpy(copy, p, n);
    uint32_t idx = env->outbox_count++;
    env->outbox[idx] = (wd_msg){copy, n, env->level, idx};
    /* free: the reference charges write_output as if it had moved no bytes (pvm.md 4.4) */
    RESULT(0);
}

HOST(write_debug)
{
    ENV_MEM();
    uint32_t src = a[0].u32, n = a[1].u32;
    const uint8_t *p = mem_range(mem, src, n);
    if (env->debug != NULL) {
        if (p != NULL) {
            env->debug(env->debug_ud, p, n);
        } else {
            static const char msg[] = "Error code: -6\n";
            env->debug(env->debug_ud, (const uint8_t *)msg, sizeof msg - 1);
        }
    }
    return WD_OK; /* no result, no extra ticks */
}

/* ---- storage ------------------------------------------------------------------------------ */

HOST(store_has)
{
    ENV_MEM();
    KEY(k, 0);
    charge(t, env, k.len, 1);
    RESULT(wd_durable_has(env->durable, k.s, k.len));
}

HOST(store_exists)
{
    ENV_MEM();
    KEY(k, 0);
    charge(t, env, k.len, 1);
    RESULT(wd_durable_has(env->durable, k.s, k.len) != 0);
}

HOST(store_list_size)
{
    ENV_MEM();
    KEY(k, 0);
    charge(t, env, k.len, 1);
    RESULT(wd_durable_list_size(env->durable, k.s, k.len));
}

HOST(store_get_nth_key)
{
    ENV_MEM();
    KEY(k, 0);
    uint64_t index = a[2].u64;
    uint32_t dst = a[3].u32, max = a[4].u32;
    uint8_t *p = mem_range(mem, dst, max);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    const char *name;
    size_t len;
    int rc = wd_durable_nth_key(env->durable, k.s, k.len, index, &name, &len);
    if (rc != 0)
        RESULT(rc);
    uint32_t n = (uint32_t)WD_MIN(len, max);
    memcpy(p, name, n);
    charge(t, env, k.len, 1);
    RESULT(n);
}

static wd_status delete_common(wd_thread *t, void *ud, wd_val *a, wd_error *err, bool value_only)
{
    ENV_MEM();
    KEY(k, 0);
    if (readonly(&k))
        RESULT(WD_HOST_EREADONLY);
    int rc = wd_durable_delete(env->durable, k.s, k.len, value_only);
    if (rc == 0)
        charge(t, env, k.len, 1);
    RESULT(rc);
}

HOST(store_delete)
{
    return delete_common(t, ud, a, err, false);
}

HOST(store_delete_value)
{
    return delete_common(t, ud, a, err, true);
}

static wd_status copy_common(wd_thread *t, void *ud, wd_val *a, wd_error *err, bool move)
{
    ENV_MEM();
    KEY(from, 0);
    KEY(to, 2);
    if (readonly(&to) || (move && readonly(&from)))
        RESULT(WD_HOST_EREADONLY);
    int rc = wd_durable_copy(env->durable, from.s, from.len, to.s, to.len, move);
    if (rc == 0)
        charge(t, env, (uint64_t)from.len + to.len, 1);
    RESULT(rc);
}

HOST(store_copy)
{
    return copy_common(t, ud, a, err, false);
}

HOST(store_move)
{
    return copy_common(t, ud, a, err, true);
}

HOST(store_value_size)
{
    ENV_MEM();
    KEY(k, 0);
    int64_t size = wd_durable_value_size(env->durable, k.s, k.len);
    if (size >= 0)
        charge(t, env, k.len, 1);
    RESULT(size);
}

HOST(store_read)
{
    ENV_MEM();
    KEY(k, 0);
    uint32_t offset = a[2].u32, dst = a[3].u32, max = a[4].u32;
    if (max > WD_MAX_STORE_IO)
        RESULT(WD_HOST_ETOO_LARGE);
    uint8_t *p = mem_range(mem, dst, max);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    int64_t n = wd_durable_read(env->durable, k.s, k.len, offset, p, max);
    if (n >= 0)
        charge(t, env, (uint64_t)k.len + (uint64_t)n, 1);
    RESULT(n);
}

HOST(store_write)
{
    ENV_MEM();
    KEY(k, 0);
    uint32_t offset = a[2].u32, src = a[3].u32, n = a[4].u32;
    if (n > WD_MAX_STORE_IO)
        RESULT(WD_HOST_ETOO_LARGE);
    const uint8_t *p = mem_range(mem, src, n);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    if (readonly(&k))
        RESULT(WD_HOST_EREADONLY);
    int rc = wd_durable_write(env->durable, k.s, k.len, offset, p, n);
    if (rc == 0)
        charge(t, env, (uint64_t)k.len + n, 1);
    RESULT(rc);
}

HOST(store_create)
{
    ENV_MEM();
    KEY(k, 0);
    if (readonly(&k))
        RESULT(WD_HOST_EREADONLY);
    int rc = wd_durable_create(env->durable, k.s, k.len, a[2].i32);
    if (rc == 0)
        charge(t, env, k.len, 1);
    RESULT(rc);
}

static int hash_visit(void *ud, const char *path, const wd_durable_blob *value, size_t size)
{
    crypto_generichash_state *st = ud;
    uint8_t len[8];
    size_t n = strlen(path);
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)((uint64_t)n >> (8 * i));
    crypto_generichash_update(st, len, sizeof len);
    crypto_generichash_update(st, (const uint8_t *)path, n);
    uint8_t tag = value != NULL;
    crypto_generichash_update(st, &tag, 1);
    if (value != NULL) {
        for (int i = 0; i < 8; i++)
            len[i] = (uint8_t)((uint64_t)size >> (8 * i));
        crypto_generichash_update(st, len, sizeof len);
        for (size_t off = 0, got; off < size; off += got) {
            const uint8_t *bytes = wd_durable_piece(value, off, &got);
            crypto_generichash_update(st, bytes, got);
        }
    }
    return 0;
}

/* Not Irmin's hash (that needs Irmin's tree encoding): Blake2b-256 over the subtree's
 * paths and values in byte order, relative to the key. Equal subtrees hash equally. */
HOST(store_get_hash)
{
    ENV_MEM();
    KEY(k, 0);
    uint32_t dst = a[2].u32, max = a[3].u32;
    uint8_t *p = mem_range(mem, dst, max);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    if (wd_durable_has(env->durable, k.s, k.len) == 0)
        RESULT(WD_DURABLE_ENOT_A_NODE);
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, 32);
    if (wd_durable_walk(env->durable, k.s, k.len, hash_visit, &st) != 0)
        RESULT(WD_HOST_EGENERIC);
    uint8_t hash[32];
    crypto_generichash_final(&st, hash, sizeof hash);
    uint32_t n = WD_MIN(max, 32u);
    memcpy(p, hash, n);
    charge(t, env, k.len, 1);
    RESULT(n);
}

/* ---- reveals ------------------------------------------------------------------------------ */

static wd_status do_reveal(wd_thread *t, wd_host_env *env, wd_memory *mem, const uint8_t *req,
                           size_t req_size, uint32_t dst, uint32_t max, wd_val *a, wd_error *err)
{
    uint8_t *p = mem_range(mem, dst, max);
    if (p == NULL)
        RESULT(WD_HOST_EMEMORY);
    if (env->reveal == NULL)
        return wd_fail(err, WD_TRAP, 0, "no reveal source configured");
    size_t size = 0;
    WD_TRY(env->reveal(env->reveal_ud, req, req_size, p, max, &size, err));
    uint32_t n = (uint32_t)WD_MIN(size, (size_t)max);
    /* one reveal tick, then the per-byte countdown */
    wd_eval_charge(t, 1);
    charge(t, env, n, 0);
    RESULT(n);
}

HOST(reveal_preimage)
{
    ENV_MEM();
    uint32_t hash = a[0].u32, len = a[1].u32;
    if (len > WD_MAX_MESSAGE)
        RESULT(WD_HOST_ETOO_LARGE);
    const uint8_t *h = mem_range(mem, hash, len);
    if (h == NULL)
        RESULT(WD_HOST_EMEMORY);
    uint8_t req[1 + WD_MAX_MESSAGE];
    req[0] = 0x00;
    memcpy(req + 1, h, len);
    return do_reveal(t, env, mem, req, 1 + (size_t)len, a[2].u32, a[3].u32, a, err);
}

HOST(reveal_metadata)
{
    ENV_MEM();
    static const uint8_t req[1] = {0x01};
    return do_reveal(t, env, mem, req, 1, a[0].u32, a[1].u32, a, err);
}

HOST(reveal)
{
    ENV_MEM();
    uint32_t payload = a[0].u32, len = a[1].u32;
    if (len > WD_MAX_MESSAGE)
        RESULT(WD_HOST_ETOO_LARGE);
    const uint8_t *req = mem_range(mem, payload, len);
    if (req == NULL)
        RESULT(WD_HOST_EMEMORY);
    uint8_t copy[WD_MAX_MESSAGE];
    memcpy(copy, req, len); /* the answer may be written over the request */
    return do_reveal(t, env, mem, copy, len, a[2].u32, a[3].u32, a, err);
}

/* The NDS family links from 2.0.0-r6 but needs NDS storage activated, which wasmdbg does
 * not model: like the reference with the feature gate closed, every call returns -16. */
HOST(nds_disabled)
{
    (void)t, (void)ud, (void)err;
    RESULT(WD_HOST_ENDS_DISABLED);
}

/* ---- registry ------------------------------------------------------------------------------ */

typedef struct host_def {
    const char *name;
    int since;
    const char *params, *results; /* 'i' i32, 'I' i64 */
    wd_host_fn fn;
} host_def;

static const host_def defs[] = {
    {"read_input", WD_PVM_V0, "iii", "i", read_input},
    {"write_output", WD_PVM_V0, "ii", "i", write_output},
    {"write_debug", WD_PVM_V0, "ii", "", write_debug},
    {"store_has", WD_PVM_V0, "ii", "i", store_has},
    {"store_list_size", WD_PVM_V0, "ii", "I", store_list_size},
    {"store_get_nth_key", WD_PVM_V0, "iiIii", "i", store_get_nth_key},
    {"store_delete", WD_PVM_V0, "ii", "i", store_delete},
    {"store_copy", WD_PVM_V0, "iiii", "i", store_copy},
    {"store_move", WD_PVM_V0, "iiii", "i", store_move},
    {"store_value_size", WD_PVM_V0, "ii", "i", store_value_size},
    {"store_read", WD_PVM_V0, "iiiii", "i", store_read},
    {"store_write", WD_PVM_V0, "iiiii", "i", store_write},
    {"reveal_preimage", WD_PVM_V0, "iiii", "i", reveal_preimage},
    {"reveal_metadata", WD_PVM_V0, "ii", "i", reveal_metadata},
    {"store_delete_value", WD_PVM_V1, "ii", "i", store_delete_value},
    {"store_create", WD_PVM_V1, "iii", "i", store_create},
    {"__internal_store_get_hash", WD_PVM_V1, "iiii", "i", store_get_hash},
    {"store_exists", WD_PVM_V2, "ii", "i", store_exists},
    {"reveal", WD_PVM_V3, "iiii", "i", reveal},
    {"nds_registry_resize", WD_PVM_V6, "I", "i", nds_disabled},
    {"nds_registry_copy", WD_PVM_V6, "II", "i", nds_disabled},
    {"nds_registry_move", WD_PVM_V6, "II", "i", nds_disabled},
    {"nds_registry_clear", WD_PVM_V6, "I", "i", nds_disabled},
    {"nds_store_exists", WD_PVM_V6, "Iii", "i", nds_disabled},
    {"nds_store_read", WD_PVM_V6, "IiiIii", "i", nds_disabled},
    {"nds_store_write", WD_PVM_V6, "IiiIii", "i", nds_disabled},
    {"nds_store_set", WD_PVM_V6, "Iiiii", "i", nds_disabled},
    {"nds_store_delete", WD_PVM_V6, "Iii", "i", nds_disabled},
    {"nds_store_value_size", WD_PVM_V6, "Iii", "i", nds_disabled},
    {"nds_database_get_hash", WD_PVM_V6, "Iii", "i", nds_disabled},
};
_Static_assert(sizeof defs / sizeof defs[0] <= sizeof((wd_host_env *)0)->fns / sizeof(void *),
               "wd_host_env.fns too small");

static void decode_types(const char *s, uint8_t *out)
{
    for (size_t i = 0; s[i]; i++)
        out[i] = s[i] == 'I' ? WD_I64 : WD_I32;
}

wd_status wd_host_register(wd_host_env *env, wd_store *s, wd_error *err)
{
    if (sodium_init() < 0)
        return wd_fail(err, WD_ERR_USAGE, 0, "libsodium failed to initialise");
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        const host_def *d = &defs[i];
        env->fns[i] = NULL;
        if (d->since > env->version)
            continue;
        uint8_t params[8], results[1];
        decode_types(d->params, params);
        decode_types(d->results, results);
        wd_functype ft = {(uint32_t)strlen(d->params), (uint32_t)strlen(d->results), params,
                          results};
        WD_TRY(wd_store_host_func(s, &ft, d->fn, env, "smart_rollup_core", d->name,
                                  &env->fns[i], err));
    }
    return WD_OK;
}

wd_status wd_host_resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    wd_host_env *env = ud;
    if (strcmp(imp->module, "smart_rollup_core") != 0)
        return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset,
                       "unknown import: module \"%s\" (kernels may import only from "
                       "smart_rollup_core)",
                       imp->module);
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        if (strcmp(imp->name, defs[i].name) != 0)
            continue;
        if (env->fns[i] == NULL)
            return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset,
                           "unknown import: smart_rollup_core.%s exists only from PVM version "
                           "%s (running %s)",
                           imp->name, wd_pvm_version_name(defs[i].since),
                           wd_pvm_version_name(env->version));
        out->kind = WD_EXTERN_FUNC;
        out->u.func = env->fns[i];
        return WD_OK; /* wd_link_resolve checks the kind and type */
    }
    return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset,
                   "unknown import: smart_rollup_core.%s is not a host function", imp->name);
}

void wd_host_env_fini(wd_host_env *env)
{
    for (uint32_t i = 0; i < env->outbox_count; i++)
        wd_free(env->ctx, env->outbox[i].bytes);
    env->outbox_count = 0;
}
