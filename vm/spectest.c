/* spectest.c: the spec tests' `spectest` host module (see spectest.h). */
#include "vm/spectest.h"

#include <string.h>

/* The print functions take their arguments and do nothing: the runner and `invoke`
 * print only their own results. */
static wd_status print_nothing(wd_thread *t, void *ud, wd_val *args, wd_error *err)
{
    (void)t;
    (void)ud;
    (void)args;
    (void)err;
    return WD_OK;
}

typedef struct print_def {
    const char *name;
    uint8_t param_count;
    uint8_t params[2];
} print_def;

static const print_def prints[] = {
    {"print", 0, {0, 0}},
    {"print_i32", 1, {WD_I32, 0}},
    {"print_i64", 1, {WD_I64, 0}},
    {"print_f32", 1, {WD_F32, 0}},
    {"print_f64", 1, {WD_F64, 0}},
    {"print_i32_f32", 2, {WD_I32, WD_F32}},
    {"print_f64_f64", 2, {WD_F64, WD_F64}},
};

static void add_item(wd_spectest *st, uint32_t *n, const char *name, wd_extern ext)
{
    WD_ASSERT(*n < WD_SPECTEST_ITEMS);
    st->names[*n] = name;
    st->items[*n] = ext;
    (*n)++;
}

static wd_status add_globals(wd_spectest *st, uint32_t *n, wd_store *s, wd_error *err)
{
    float f32 = 666.6f;
    double f64 = 666.6;
    uint32_t f32_bits;
    uint64_t f64_bits;
    memcpy(&f32_bits, &f32, sizeof f32_bits);
    memcpy(&f64_bits, &f64, sizeof f64_bits);
    /* Slots hold i32 and f32 as zero-extended bit patterns (decode/code.h). */
    static const char *const names[4] = {"global_i32", "global_i64", "global_f32", "global_f64"};
    static const uint8_t types[4] = {WD_I32, WD_I64, WD_F32, WD_F64};
    const uint64_t values[4] = {666, 666, f32_bits, f64_bits};
    for (int i = 0; i < 4; i++) {
        wd_val v;
        v.u64 = values[i];
        wd_extern ext = {.kind = WD_EXTERN_GLOBAL};
        WD_TRY(wd_store_global(s, (wd_globaltype){types[i], false}, v, &ext.u.global, err));
        add_item(st, n, names[i], ext);
    }
    return WD_OK;
}

wd_status wd_spectest_init(wd_spectest *out, wd_store *s, wd_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t n = 0;
    for (size_t i = 0; i < WD_ARRAY_COUNT(prints); i++) {
        wd_functype type = {prints[i].param_count, 0, prints[i].params, NULL};
        wd_extern ext = {.kind = WD_EXTERN_FUNC};
        WD_TRY(wd_store_host_func(s, &type, print_nothing, NULL, "spectest", prints[i].name,
                                  &ext.u.func, err));
        add_item(out, &n, prints[i].name, ext);
    }
    WD_TRY(add_globals(out, &n, s, err));

    wd_extern table = {.kind = WD_EXTERN_TABLE};
    wd_tabletype tt = {WD_FUNCREF, {10, 20, true}};
    WD_TRY(wd_store_table(s, tt, &table.u.table, err));
    add_item(out, &n, "table", table);

    wd_extern memory = {.kind = WD_EXTERN_MEMORY};
    wd_memtype mt = {{1, 2, true}};
    WD_TRY(wd_store_memory(s, mt, &memory.u.memory, err));
    add_item(out, &n, "memory", memory);
    WD_ASSERT(n == WD_SPECTEST_ITEMS);
    return WD_OK;
}

bool wd_spectest_lookup(const wd_spectest *st, const char *name, size_t size, wd_extern *out)
{
    for (uint32_t i = 0; i < WD_SPECTEST_ITEMS; i++) {
        if (st->names[i] != NULL && strlen(st->names[i]) == size &&
            memcmp(st->names[i], name, size) == 0) {
            *out = st->items[i];
            return true;
        }
    }
    return false;
}

wd_status wd_spectest_resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    const wd_spectest *st = ud;
    if (imp->module_size == 8 && memcmp(imp->module, "spectest", 8) == 0 &&
        wd_spectest_lookup(st, imp->name, imp->name_size, out))
        return WD_OK;
    return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset, "unknown import \"%s\" \"%s\"", imp->module,
                   imp->name);
}
