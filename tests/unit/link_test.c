/* link_test.c: the store, runtime objects, import resolution and instantiation (link/),
 * on modules built by hand. */
#include "link/link.h"
#include "tests/unit/test.h"

static const uint8_t i32s[2] = {WD_I32, WD_I32};
static const wd_functype type_i32_i32 = {1, 1, i32s, i32s};
static const wd_functype type_void = {0, 0, NULL, NULL};

/* A resolver over a fixed list of named externs. */
typedef struct named {
    const char *module, *name;
    wd_extern ext;
} named;

typedef struct registry {
    named items[8];
    int count;
} registry;

static wd_status resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    registry *r = ud;
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->items[i].module, imp->module) == 0 &&
            strcmp(r->items[i].name, imp->name) == 0) {
            *out = r->items[i].ext;
            return WD_OK;
        }
    return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset, "unknown import");
}

static wd_status host_nop(wd_thread *t, void *ud, wd_val *args, wd_error *err)
{
    (void)t, (void)ud, (void)args, (void)err;
    return WD_OK;
}

static wd_import import_of(const char *name, uint8_t kind)
{
    wd_import imp = {.module = "host",
                     .name = name,
                     .module_size = 4,
                     .name_size = (uint32_t)strlen(name),
                     .kind = kind,
                     .offset = 77};
    return imp;
}

/* A module importing one thing. */
static void one_import(wd_module *m, wd_import *imp, wd_functype *types)
{
    memset(m, 0, sizeof *m);
    m->types = types;
    m->type_count = 1;
    m->imports = imp;
    m->import_count = 1;
}

static wd_status link_one(wd_import imp, const registry *reg, wd_error *err)
{
    wd_module m;
    wd_functype types[1] = {type_i32_i32};
    one_import(&m, &imp, types);
    wd_extern ext;
    wd_error_clear(err);
    return wd_link_resolve(&m, resolve, (void *)reg, &ext, err);
}

TEST(link_resolve_matches_import_types)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_store *s = wd_store_new(&ctx);
    wd_error err;
    wd_error_clear(&err);
    registry reg = {0};
    wd_func *f1, *f0;
    CHECK_EQ(wd_store_host_func(s, &type_i32_i32, host_nop, NULL, "host", "f", &f1, &err), WD_OK);
    CHECK_EQ(wd_store_host_func(s, &type_void, host_nop, NULL, "host", "g", &f0, &err), WD_OK);
    CHECK(strcmp(f1->host_name, "f") == 0 && f1->type->param_count == 1);
    wd_table *tab;
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_FUNCREF, {1, 20, true}}, &tab, &err), WD_OK);
    CHECK_EQ(wd_table_grow(&ctx, tab, 4, 0), 1);
    wd_memory *mem;
    CHECK_EQ(wd_store_memory(s, (wd_memtype){{1, 2, true}}, &mem, &err), WD_OK);
    wd_global *g;
    CHECK_EQ(wd_store_global(s, (wd_globaltype){WD_I32, false}, (wd_val){.u64 = 666}, &g, &err),
             WD_OK);
    reg.items[0] = (named){"host", "f", {.kind = WD_EXTERN_FUNC, .u.func = f1}};
    reg.items[1] = (named){"host", "g", {.kind = WD_EXTERN_FUNC, .u.func = f0}};
    reg.items[2] = (named){"host", "table", {.kind = WD_EXTERN_TABLE, .u.table = tab}};
    reg.items[3] = (named){"host", "memory", {.kind = WD_EXTERN_MEMORY, .u.memory = mem}};
    reg.items[4] = (named){"host", "global", {.kind = WD_EXTERN_GLOBAL, .u.global = g}};
    reg.count = 5;

    wd_import imp = import_of("f", WD_EXTERN_FUNC);
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp = import_of("g", WD_EXTERN_FUNC);
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    CHECK_STR_CONTAINS(err.msg, "incompatible import type");
    CHECK_EQ(err.offset, 77);
    imp = import_of("nope", WD_EXTERN_FUNC);
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    CHECK_STR_CONTAINS(err.msg, "unknown import");
    imp = import_of("memory", WD_EXTERN_FUNC); /* wrong kind */
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    CHECK_STR_CONTAINS(err.msg, "incompatible import type");

    /* tables: the current size (5) counts, not the declared minimum (1) */
    imp = import_of("table", WD_EXTERN_TABLE);
    imp.desc.table = (wd_tabletype){WD_FUNCREF, {5, 0, false}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp.desc.table.limits.min = 6;
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    imp.desc.table = (wd_tabletype){WD_FUNCREF, {0, 20, true}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp.desc.table.limits.max = 19;
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    imp.desc.table = (wd_tabletype){WD_EXTERNREF, {0, 0, false}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);

    /* memories, in pages */
    imp = import_of("memory", WD_EXTERN_MEMORY);
    imp.desc.memory = (wd_memtype){{1, 2, true}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp.desc.memory = (wd_memtype){{2, 0, false}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    CHECK_EQ(wd_memory_grow(&ctx, mem, 1), 1);
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp.desc.memory = (wd_memtype){{0, 1, true}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    imp.desc.memory = (wd_memtype){{0, 65536, true}};
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);

    /* globals: type and mutability */
    imp = import_of("global", WD_EXTERN_GLOBAL);
    imp.desc.global = (wd_globaltype){WD_I32, false};
    CHECK_EQ(link_one(imp, &reg, &err), WD_OK);
    imp.desc.global = (wd_globaltype){WD_I32, true};
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);
    imp.desc.global = (wd_globaltype){WD_I64, false};
    CHECK_EQ(link_one(imp, &reg, &err), WD_ERR_UNLINKABLE);

    wd_store_free(s);
    CHECK_EQ(ctx.live, 0);
}

TEST(link_memory_grows_fast_zeroed_and_within_limits)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_store *s = wd_store_new(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_memory *mem;
    CHECK_EQ(wd_store_memory(s, (wd_memtype){{1, 0, false}}, &mem, &err), WD_OK);
    CHECK(mem->max_pages == 65536 && mem->size == 65536 && mem->data != NULL);
    mem->data[65535] = 9;
    /* one page at a time, then thousands at once */
    for (int i = 0; i < 100; i++)
        CHECK_EQ(wd_memory_grow(&ctx, mem, 1), 1 + i);
    CHECK_EQ(wd_memory_grow(&ctx, mem, 20000), 101);
    CHECK_EQ(mem->pages, 20101);
    CHECK(mem->size == 20101ull * 65536);
    CHECK(mem->data[65535] == 9 && mem->data[65536] == 0 && mem->data[mem->size - 1] == 0);
    mem->data[mem->size - 1] = 1;
    CHECK_EQ(wd_memory_grow(&ctx, mem, 65536), -1);
    CHECK_EQ(wd_memory_grow(&ctx, mem, 65536 - 20101), 20101);
    CHECK_EQ(wd_memory_grow(&ctx, mem, 1), -1);
    CHECK_EQ(wd_memory_grow(&ctx, mem, 0), 65536);

    wd_memory *small;
    CHECK_EQ(wd_store_memory(s, (wd_memtype){{0, 3, true}}, &small, &err), WD_OK);
    CHECK(small->size == 0 && small->data != NULL);
    CHECK_EQ(wd_memory_grow(&ctx, small, 4), -1);
    CHECK_EQ(wd_memory_grow(&ctx, small, 3), 0);
    CHECK_EQ(wd_memory_grow(&ctx, small, 1), -1);
    CHECK(small->data[3 * 65536 - 1] == 0);
    CHECK_EQ(wd_store_memory(s, (wd_memtype){{65537, 0, false}}, &small, &err), WD_ERR_USAGE);
    wd_store_free(s);
    CHECK_EQ(ctx.live, 0);
}

/* A memory's reservation, once its store is freed, serves the next memory of the same size
 * (a PVM reboot instantiates the kernel again): its bytes are zero again, grown or not. */
TEST(link_memory_reservation_reused_zeroed)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    const wd_memtype any = {{2, 0, false}};
    wd_store_drop_spare(); /* what an earlier test left */
    wd_store *s1 = wd_store_new(&ctx);
    wd_memory *a;
    CHECK_EQ(wd_store_memory(s1, any, &a, &err), WD_OK);
    CHECK_EQ(wd_memory_grow(&ctx, a, 3), 2);
    a->data[0] = 1;
    a->data[70000] = 2;
    a->data[2 * 65536 - 1] = 3;
    a->data[a->size - 1] = 4;
    uint8_t *base = a->data;
    wd_store_free(s1);

    wd_store *s2 = wd_store_new(&ctx);
    wd_memory *b, *c;
    CHECK_EQ(wd_store_memory(s2, (wd_memtype){{1, 0, false}}, &b, &err), WD_OK);
    CHECK(b->data == base && b->size == 65536);
    CHECK_EQ(wd_memory_grow(&ctx, b, 5), 1);
    uint64_t nonzero = 0;
    for (uint64_t i = 0; i < b->size; i++)
        nonzero += b->data[i] != 0;
    CHECK_EQ(nonzero, 0);
    /* another maximum is another reservation */
    CHECK_EQ(wd_store_memory(s2, (wd_memtype){{1, 8, true}}, &c, &err), WD_OK);
    CHECK(c->data != base && c->data[0] == 0);
    wd_store_free(s2);
    CHECK_EQ(ctx.live, 0);
}

TEST(link_table_grows_within_limits)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_store *s = wd_store_new(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_table *tab;
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_EXTERNREF, {2, 1000, true}}, &tab, &err), WD_OK);
    CHECK(tab->size == 2 && tab->elems[0] == 0 && tab->elems[1] == 0 && tab->max == 1000);
    for (int i = 0; i < 500; i++)
        CHECK_EQ(wd_table_grow(&ctx, tab, 1, 7 + i), 2 + i);
    CHECK(tab->elems[2] == 7 && tab->elems[501] == 506 && tab->elems[1] == 0);
    CHECK_EQ(wd_table_grow(&ctx, tab, 499, 1), -1);
    CHECK_EQ(wd_table_grow(&ctx, tab, 498, 1), 502);
    CHECK_EQ(wd_table_grow(&ctx, tab, 0, 1), 1000);
    wd_table *big;
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_FUNCREF, {0, 0, false}}, &big, &err), WD_OK);
    CHECK(big->max == UINT32_MAX);
    CHECK_EQ(wd_table_grow(&ctx, big, 0xFFFFFFFFu, 0), -1); /* beyond what we allocate */
    CHECK_EQ(wd_table_grow(&ctx, big, 16, 0), 0);
    CHECK_EQ(wd_table_grow(&ctx, big, 0xFFFFFFF0u, 0), -1);
    wd_store_free(s);
    CHECK_EQ(ctx.live, 0);
}

/* The limit of 10,000,000 elements is on all the tables of a store together: a module of a
 * few bytes defines thousands of tables, which took 80 MB each. */
TEST(link_tables_share_one_limit)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_store *s = wd_store_new(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_table *a, *b, *c;
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_FUNCREF, {6000000, 0, false}}, &a, &err), WD_OK);
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_FUNCREF, {6000000, 0, false}}, &b, &err),
             WD_ERR_NOMEM);
    CHECK(strcmp(err.msg, "table of 6000000 elements exceeds the limit of 10000000 elements in "
                          "all tables (6000000 in use)") == 0);
    wd_error_clear(&err);
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_EXTERNREF, {3999990, 0, false}}, &b, &err), WD_OK);
    CHECK_EQ(wd_store_table(s, (wd_tabletype){WD_EXTERNREF, {0, 0, false}}, &c, &err), WD_OK);
    CHECK_EQ(wd_table_grow(&ctx, c, 11, 0), -1); /* 10 are left */
    CHECK_EQ(wd_table_grow(&ctx, c, 10, 0), 0);
    CHECK_EQ(wd_table_grow(&ctx, a, 1, 0), -1);
    CHECK_EQ(wd_table_grow(&ctx, c, 0, 0), 10);
    wd_store_free(s);
    CHECK_EQ(ctx.live, 0);
}

/* A module importing a table, a memory and an i32 global, with 2 functions, 2 globals,
 * 3 element segments and 3 data segments. */
typedef struct modfix {
    wd_module m;
    wd_functype types[1];
    wd_import imports[3];
    wd_funcdef funcs[2];
    wd_code code;
    wd_insn insn;
    uint32_t cost, off;
    wd_globaldef globals[3];
    wd_elemseg elems[3];
    wd_constexpr items[3];
    wd_dataseg datas[3];
    wd_export exports[4];
} modfix;

static void build_module(modfix *x)
{
    memset(x, 0, sizeof *x);
    wd_module *m = &x->m;
    x->types[0] = type_void;
    m->types = x->types;
    m->type_count = 1;
    x->imports[0] = import_of("table", WD_EXTERN_TABLE);
    x->imports[0].desc.table = (wd_tabletype){WD_FUNCREF, {4, 0, false}};
    x->imports[1] = import_of("memory", WD_EXTERN_MEMORY);
    x->imports[1].desc.memory = (wd_memtype){{1, 0, false}};
    x->imports[2] = import_of("base", WD_EXTERN_GLOBAL);
    x->imports[2].desc.global = (wd_globaltype){WD_I32, false};
    m->imports = x->imports;
    m->import_count = 3;
    m->import_table_count = m->table_count = 1;
    m->import_memory_count = m->memory_count = 1;
    m->import_global_count = 1;
    /* two functions sharing a trivial body */
    x->insn = (wd_insn){.op = WD_OP_RETURN};
    x->code = (wd_code){.insns = &x->insn, .insn_count = 1, .costs = &x->cost, .offsets = &x->off};
    x->funcs[0] = (wd_funcdef){.code = &x->code};
    x->funcs[1] = (wd_funcdef){.code = &x->code};
    m->funcs = x->funcs;
    m->func_count = 2;
    /* globals: the import, base + nothing (global.get 0), ref.func 1 */
    x->globals[0].type = (wd_globaltype){WD_I32, false};
    x->globals[1] = (wd_globaldef){{WD_I32, true}, {.kind = WD_CONST_GLOBAL, .idx = 0}};
    x->globals[2] = (wd_globaldef){{WD_FUNCREF, false}, {.kind = WD_CONST_REFFUNC, .idx = 1}};
    m->globals = x->globals;
    m->global_count = 3;
    /* elems: active at base (f0, f1), declarative, active at 3 (f1, null) */
    x->items[0] = (wd_constexpr){.kind = WD_CONST_REFFUNC, .idx = 0};
    x->items[1] = (wd_constexpr){.kind = WD_CONST_REFFUNC, .idx = 1};
    x->items[2] = (wd_constexpr){.kind = WD_CONST_REFNULL, .type = WD_FUNCREF};
    x->elems[0] = (wd_elemseg){.mode = WD_SEG_ACTIVE,
                               .type = WD_FUNCREF,
                               .count = 2,
                               .items = x->items,
                               .offset = {.kind = WD_CONST_GLOBAL, .idx = 0}};
    x->elems[1] =
        (wd_elemseg){.mode = WD_SEG_DECLARATIVE, .type = WD_FUNCREF, .count = 1, .items = x->items};
    x->elems[2] = (wd_elemseg){.mode = WD_SEG_ACTIVE,
                               .type = WD_FUNCREF,
                               .count = 2,
                               .items = x->items + 1,
                               .offset = {.kind = WD_CONST_I32, .value.u64 = 3, .offset = 55}};
    m->elems = x->elems;
    m->elem_count = 3;
    /* datas: "abc" at base, passive "zz", "xy" at 65534 */
    x->datas[0] = (wd_dataseg){.mode = WD_SEG_ACTIVE,
                               .size = 3,
                               .bytes = (const uint8_t *)"abc",
                               .offset = {.kind = WD_CONST_GLOBAL, .idx = 0}};
    x->datas[1] = (wd_dataseg){.mode = WD_SEG_PASSIVE, .size = 2, .bytes = (const uint8_t *)"zz"};
    x->datas[2] = (wd_dataseg){.mode = WD_SEG_ACTIVE,
                               .size = 2,
                               .bytes = (const uint8_t *)"xy",
                               .offset = {.kind = WD_CONST_I32, .value.u64 = 65534, .offset = 66}};
    m->datas = x->datas;
    m->data_count = 3;
    x->exports[0] = (wd_export){.name = "f1", .name_size = 2, .kind = WD_EXTERN_FUNC, .idx = 1};
    x->exports[1] = (wd_export){.name = "mem", .name_size = 3, .kind = WD_EXTERN_MEMORY};
    x->exports[2] = (wd_export){.name = "g", .name_size = 1, .kind = WD_EXTERN_GLOBAL, .idx = 1};
    x->exports[3] = (wd_export){.name = "tab", .name_size = 3, .kind = WD_EXTERN_TABLE};
    m->exports = x->exports;
    m->export_count = 4;
}

typedef struct env {
    wd_ctx ctx;
    wd_store *s;
    wd_table *tab;
    wd_memory *mem;
    wd_global *base;
    wd_extern externs[3];
} env;

/* Host objects for build_module's imports; the table has `table_size` elements. */
static wd_status make_env(env *e, uint32_t table_size, uint32_t base)
{
    wd_error err;
    wd_error_clear(&err);
    e->s = wd_store_new(&e->ctx);
    if (e->s == NULL)
        return WD_ERR_NOMEM;
    WD_TRY(wd_store_table(e->s, (wd_tabletype){WD_FUNCREF, {table_size, 0, false}}, &e->tab, &err));
    WD_TRY(wd_store_memory(e->s, (wd_memtype){{1, 0, false}}, &e->mem, &err));
    WD_TRY(wd_store_global(e->s, (wd_globaltype){WD_I32, false}, (wd_val){.u64 = base}, &e->base,
                           &err));
    e->externs[0] = (wd_extern){.kind = WD_EXTERN_TABLE, .u.table = e->tab};
    e->externs[1] = (wd_extern){.kind = WD_EXTERN_MEMORY, .u.memory = e->mem};
    e->externs[2] = (wd_extern){.kind = WD_EXTERN_GLOBAL, .u.global = e->base};
    return WD_OK;
}

TEST(link_instantiate_applies_segments_and_exports)
{
    static modfix x;
    build_module(&x);
    env e;
    wd_ctx_init(&e.ctx);
    CHECK_EQ(make_env(&e, 5, 1), WD_OK);
    wd_instance *inst;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err), WD_OK);
    CHECK(inst->funcs[1] == &inst->own_funcs[1] && inst->funcs[1]->inst == inst);
    CHECK(inst->funcs[1]->idx == 1 && inst->funcs[1]->code == &x.code);
    CHECK(inst->globals[0] == e.base);
    CHECK_EQ(inst->globals[1]->val[0].u64, 1);
    CHECK(inst->globals[2]->val[0].u64 == (uint64_t)(uintptr_t)inst->funcs[1]);
    uint64_t *el = e.tab->elems;
    CHECK(el[0] == 0 && el[1] == (uintptr_t)inst->funcs[0] && el[2] == (uintptr_t)inst->funcs[1]);
    CHECK(el[3] == (uintptr_t)inst->funcs[1] && el[4] == 0);
    CHECK(inst->elem_dropped[0] && inst->elem_dropped[1] && inst->elem_dropped[2]);
    CHECK(memcmp(e.mem->data + 1, "abc", 3) == 0 && memcmp(e.mem->data + 65534, "xy", 2) == 0);
    CHECK(inst->data_dropped[0] && !inst->data_dropped[1] && inst->data_dropped[2]);
    wd_extern ex;
    CHECK(wd_instance_export(inst, "f1", &ex) && ex.kind == WD_EXTERN_FUNC);
    CHECK(ex.u.func == inst->funcs[1]);
    CHECK(wd_instance_export(inst, "mem", &ex) && ex.u.memory == e.mem);
    CHECK(wd_instance_export(inst, "g", &ex) && ex.u.global == inst->globals[1]);
    CHECK(wd_instance_export(inst, "tab", &ex) && ex.u.table == e.tab);
    CHECK(!wd_instance_export(inst, "f", &ex));
    CHECK(!wd_instance_export(inst, "f10", &ex));
    wd_store_free(e.s);
    CHECK_EQ(e.ctx.live, 0);
}

TEST(link_instantiate_trap_keeps_earlier_segments)
{
    static modfix x;
    build_module(&x);
    env e;
    wd_ctx_init(&e.ctx);
    /* table of 4: the segment at 3 (2 elements) is out of bounds; the first one landed */
    CHECK_EQ(make_env(&e, 4, 1), WD_OK);
    wd_instance *inst;
    wd_error err;
    wd_error_clear(&err);
    CHECK_EQ(wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err), WD_TRAP);
    CHECK_EQ(err.trap, WD_TRAP_TABLE_OOB);
    CHECK_STR_CONTAINS(err.msg, "out of bounds table access");
    CHECK_EQ(err.offset, 55);
    CHECK(inst != NULL);
    CHECK(e.tab->elems[1] == (uintptr_t)inst->funcs[0] && e.tab->elems[3] == 0);
    CHECK(e.mem->data[1] == 0); /* data segments come after all element segments */
    /* a data segment out of bounds: a memory of 1 page, "xy" at 65534 fits; at base 65535
     * "abc" does not */
    wd_store_free(e.s);
    CHECK_EQ(e.ctx.live, 0);

    wd_ctx_init(&e.ctx);
    CHECK_EQ(make_env(&e, 5, 1), WD_OK);
    x.datas[0].offset = (wd_constexpr){.kind = WD_CONST_I32, .value.u64 = 65535, .offset = 44};
    x.datas[2].offset.value.u64 = 0;
    x.datas[1].mode = WD_SEG_ACTIVE;
    x.datas[1].offset = (wd_constexpr){.kind = WD_CONST_I32, .value.u64 = 10};
    wd_error_clear(&err);
    CHECK_EQ(wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err), WD_TRAP);
    CHECK_EQ(err.trap, WD_TRAP_MEMORY_OOB);
    CHECK_EQ(err.offset, 44);
    CHECK(e.tab->elems[4] == 0 && e.tab->elems[3] == (uintptr_t)inst->funcs[1]);
    CHECK(e.mem->data[10] == 0); /* nothing after the trap */
    /* at the very end with 0 bytes is in bounds; one past is not */
    x.datas[0].offset.value.u64 = 65536;
    x.datas[0].size = 0;
    wd_error_clear(&err);
    CHECK_EQ(wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err), WD_OK);
    CHECK(memcmp(e.mem->data + 10, "zz", 2) == 0 && memcmp(e.mem->data, "xy", 2) == 0);
    x.datas[0].offset.value.u64 = 65537;
    wd_error_clear(&err);
    CHECK_EQ(wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err), WD_TRAP);
    wd_store_free(e.s);
    CHECK_EQ(e.ctx.live, 0);
}

TEST(link_instantiate_out_of_memory_leaks_nothing)
{
    static modfix x;
    build_module(&x);
    for (size_t n = 1; n < 200; n++) {
        env e;
        wd_ctx_init(&e.ctx);
        wd_status st = make_env(&e, 5, 1);
        e.ctx.fail_after = e.ctx.count + n;
        wd_instance *inst = NULL;
        wd_error err;
        wd_error_clear(&err);
        if (st == WD_OK)
            st = wd_link_instantiate(e.s, &x.m, e.externs, &inst, &err);
        e.ctx.fail_after = 0;
        wd_store_free(e.s);
        CHECK_EQ(e.ctx.live, 0);
        if (st == WD_OK)
            return;
        CHECK_EQ(st, WD_ERR_NOMEM);
        CHECK(inst == NULL);
    }
    CHECK(!"instantiation never succeeded");
}
