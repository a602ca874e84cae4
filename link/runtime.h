/* runtime.h: runtime objects (functions, memories, tables, globals, instances) and the
 * store that owns them. Instances made in one store may import each other's exports. */
#ifndef WD_LINK_RUNTIME_H
#define WD_LINK_RUNTIME_H

#include "base/error.h"
#include "decode/module.h"

typedef struct wd_thread wd_thread; /* eval/eval.h */
typedef struct wd_instance wd_instance;

/* A host function: reads its arguments from args[0..param slots) and writes its results
 * to args[0..result slots). May charge extra ticks with wd_eval_charge (eval/eval.h).
 * Returns WD_OK, or an error/trap (recorded in err) that ends the invocation. */
typedef wd_status (*wd_host_fn)(wd_thread *t, void *ud, wd_val *args, wd_error *err);

typedef struct wd_func {
    const wd_functype *type;
    wd_instance *inst;   /* wasm: the owning instance; host: NULL */
    const wd_code *code; /* wasm: translated body; host: NULL */
    uint32_t idx;        /* index in the owning module's function space */
    wd_host_fn host;
    void *host_ud;
    const char *host_module, *host_name; /* host functions: for messages and profiles */
    /* A call hook's tags for calls of this function by `call` and `call_indirect`, valid
     * when hook_gen is its generation (eval/hooks.h, wd_hook_records); 0 when made. */
    uint32_t hook_gen;
    uint32_t hook_tag[2];
} wd_func;

typedef struct wd_memory {
    uint8_t *data;
    uint64_t size;      /* bytes = pages * 65536 */
    uint64_t pages;
    uint64_t max_pages; /* limits.max if present, else 65536 */
    wd_memtype type;
} wd_memory;

typedef struct wd_table {
    uint64_t *elems; /* references: 0 null, else as in code.h */
    uint32_t size;
    uint32_t max;    /* limits.max if present, else UINT32_MAX */
    wd_tabletype type;
} wd_table;

typedef struct wd_global {
    wd_val val[2]; /* v128 uses both */
    wd_globaltype type;
} wd_global;

typedef struct wd_extern {
    uint8_t kind; /* WD_EXTERN_* */
    union {
        wd_func *func;
        wd_table *table;
        wd_memory *memory;
        wd_global *global;
    } u;
} wd_extern;

struct wd_instance {
    wd_ctx *ctx;
    const wd_module *module; /* borrowed: must outlive the instance */
    wd_func **funcs;         /* module->func_count (imports first) */
    wd_table **tables;       /* module->table_count */
    wd_memory *memory;       /* memory 0, or NULL */
    wd_global **globals;     /* module->global_count */
    bool *data_dropped;      /* module->data_count */
    bool *elem_dropped;      /* module->elem_count */
    wd_func *own_funcs;      /* storage of the functions this instance defines */
    wd_extern *exports;      /* module->export_count, in export order */
};

typedef struct wd_store wd_store;

wd_store *wd_store_new(wd_ctx *ctx);
/* Frees the store and every object and instance in it; NULL is a no-op. */
void wd_store_free(wd_store *s);
/* A freed memory's reservation is kept for the next memory of the same size (zeroed; one at
 * a time, for the process: runtime.c). This unmaps it. */
void wd_store_drop_spare(void);

/* Host objects, owned by the store. `type` is copied. */
WD_NODISCARD wd_status wd_store_host_func(wd_store *s, const wd_functype *type, wd_host_fn fn,
                                          void *ud, const char *module, const char *name,
                                          wd_func **out, wd_error *err);
WD_NODISCARD wd_status wd_store_memory(wd_store *s, wd_memtype type, wd_memory **out,
                                       wd_error *err);
WD_NODISCARD wd_status wd_store_table(wd_store *s, wd_tabletype type, wd_table **out,
                                      wd_error *err);
WD_NODISCARD wd_status wd_store_global(wd_store *s, wd_globaltype type, wd_val value,
                                       wd_global **out, wd_error *err);

/* Grows a memory by `delta` pages; returns the old page count or -1 (limit or OOM). */
int64_t wd_memory_grow(wd_ctx *ctx, wd_memory *mem, uint64_t delta);
/* Grows a table by `delta` elements set to `init`; returns the old size or -1. */
int64_t wd_table_grow(wd_ctx *ctx, wd_table *tab, uint64_t delta, uint64_t init);

#endif
