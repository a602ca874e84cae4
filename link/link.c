/* link.c: import resolution (spec 4.5.4 "Instantiation", import matching of 4.5.2 / the
 * "Import Subtyping" rules) and instantiation. */
#include "link/link.h"

#include "link/link_private.h"

#include <string.h>

/* Limits subtyping: the actual object's current size is at least the import's minimum,
 * and when the import names a maximum the object has one no larger. */
static bool limits_match(uint64_t cur, bool has_max, uint64_t max, const wd_limits *want)
{
    if (cur < want->min)
        return false;
    return !want->has_max || (has_max && max <= want->max);
}

static bool extern_matches(const wd_module *m, const wd_import *imp, const wd_extern *ext)
{
    if (ext->kind != imp->kind)
        return false;
    switch (imp->kind) {
    case WD_EXTERN_FUNC:
        return wd_functype_equal(ext->u.func->type, &m->types[imp->desc.type_idx]);
    case WD_EXTERN_TABLE: {
        const wd_table *t = ext->u.table;
        return t->type.elem == imp->desc.table.elem &&
               limits_match(t->size, t->type.limits.has_max, t->max, &imp->desc.table.limits);
    }
    case WD_EXTERN_MEMORY: {
        const wd_memory *mem = ext->u.memory;
        return limits_match(mem->pages, mem->type.limits.has_max, mem->max_pages,
                            &imp->desc.memory.limits);
    }
    case WD_EXTERN_GLOBAL: {
        const wd_globaltype *g = &ext->u.global->type;
        return g->type == imp->desc.global.type && g->mut == imp->desc.global.mut;
    }
    default:
        return false;
    }
}

wd_status wd_link_resolve(const wd_module *m, wd_resolver resolve, void *ud, wd_extern *externs,
                          wd_error *err)
{
    for (uint32_t i = 0; i < m->import_count; i++) {
        const wd_import *imp = &m->imports[i];
        wd_extern ext;
        memset(&ext, 0, sizeof ext);
        WD_TRY(resolve(ud, imp, &ext, err));
        if (ext.u.func == NULL) /* every member is a pointer: none was given */
            return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset, "unknown import \"%.*s\".\"%.*s\"",
                           (int)imp->module_size, imp->module, (int)imp->name_size, imp->name);
        if (!extern_matches(m, imp, &ext))
            return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset,
                           "incompatible import type for \"%.*s\".\"%.*s\"", (int)imp->module_size,
                           imp->module, (int)imp->name_size, imp->name);
        externs[i] = ext;
    }
    return WD_OK;
}

void wd_link_const_eval(const wd_instance *inst, const wd_constexpr *e, wd_val out[2])
{
    out[0].u64 = 0;
    out[1].u64 = 0;
    switch (e->kind) {
    case WD_CONST_V128:
        memcpy(out, e->value.v128, 16);
        break;
    case WD_CONST_GLOBAL:
        out[0] = inst->globals[e->idx]->val[0];
        out[1] = inst->globals[e->idx]->val[1];
        break;
    case WD_CONST_REFNULL:
        break;
    case WD_CONST_REFFUNC:
        out[0].u64 = (uint64_t)(uintptr_t)inst->funcs[e->idx];
        break;
    default: /* numeric constants: the bits, zero-extended */
        out[0].u64 = e->value.u64;
        break;
    }
}

static wd_status nomem(wd_error *err)
{
    return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
}

static wd_status alloc_arrays(wd_instance *inst, const wd_module *m, wd_error *err)
{
    wd_ctx *ctx = inst->ctx;
    inst->funcs = wd_calloc(ctx, m->func_count, sizeof *inst->funcs);
    inst->tables = wd_calloc(ctx, m->table_count, sizeof *inst->tables);
    inst->globals = wd_calloc(ctx, m->global_count, sizeof *inst->globals);
    inst->data_dropped = wd_calloc(ctx, m->data_count, sizeof *inst->data_dropped);
    inst->elem_dropped = wd_calloc(ctx, m->elem_count, sizeof *inst->elem_dropped);
    inst->own_funcs = wd_calloc(ctx, m->func_count - m->import_func_count, sizeof(wd_func));
    inst->exports = wd_calloc(ctx, m->export_count, sizeof *inst->exports);
    if (!inst->funcs || !inst->tables || !inst->globals || !inst->data_dropped ||
        !inst->elem_dropped || !inst->own_funcs || !inst->exports)
        return nomem(err);
    return WD_OK;
}

/* Imports take the first indices of each index space, in import order. */
static wd_status bind_imports(wd_instance *inst, const wd_module *m, const wd_extern *externs,
                              wd_error *err)
{
    uint32_t nf = 0, nt = 0, ng = 0;
    for (uint32_t i = 0; i < m->import_count; i++) {
        const wd_extern *e = &externs[i];
        if (e->kind != m->imports[i].kind || e->u.func == NULL)
            return wd_fail(err, WD_ERR_UNLINKABLE, m->imports[i].offset,
                           "incompatible import type");
        switch (e->kind) {
        case WD_EXTERN_FUNC:
            inst->funcs[nf++] = e->u.func;
            break;
        case WD_EXTERN_TABLE:
            inst->tables[nt++] = e->u.table;
            break;
        case WD_EXTERN_MEMORY:
            inst->memory = e->u.memory;
            break;
        default:
            inst->globals[ng++] = e->u.global;
            break;
        }
    }
    return WD_OK;
}

static wd_status define_funcs(wd_instance *inst, const wd_module *m, wd_error *err)
{
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        const wd_funcdef *fd = &m->funcs[i];
        if (fd->code == NULL)
            return wd_fail(err, WD_ERR_USAGE, fd->body_offset, "function %u was not translated", i);
        wd_func *f = &inst->own_funcs[i - m->import_func_count];
        f->type = &m->types[fd->type_idx];
        f->inst = inst;
        f->code = fd->code;
        f->idx = i;
        inst->funcs[i] = f;
    }
    return WD_OK;
}

static wd_status define_objects(wd_store *s, wd_instance *inst, const wd_module *m, wd_error *err)
{
    for (uint32_t i = m->import_table_count; i < m->table_count; i++)
        WD_TRY(wd_store_table(s, m->tables[i], &inst->tables[i], err));
    if (m->memory_count > m->import_memory_count)
        WD_TRY(wd_store_memory(s, m->memories[m->import_memory_count], &inst->memory, err));
    /* In order: an initializer may read an earlier (imported) global. */
    for (uint32_t i = m->import_global_count; i < m->global_count; i++) {
        const wd_globaldef *gd = &m->globals[i];
        wd_val v[2];
        wd_link_const_eval(inst, &gd->init, v);
        WD_TRY(wd_store_global(s, gd->type, v[0], &inst->globals[i], err));
        inst->globals[i]->val[1] = v[1];
    }
    for (uint32_t i = 0; i < m->export_count; i++) {
        const wd_export *ex = &m->exports[i];
        wd_extern *e = &inst->exports[i];
        e->kind = ex->kind;
        switch (ex->kind) {
        case WD_EXTERN_FUNC:
            e->u.func = inst->funcs[ex->idx];
            break;
        case WD_EXTERN_TABLE:
            e->u.table = inst->tables[ex->idx];
            break;
        case WD_EXTERN_MEMORY:
            e->u.memory = inst->memory;
            break;
        default:
            e->u.global = inst->globals[ex->idx];
            break;
        }
    }
    return WD_OK;
}

static wd_status trap(wd_error *err, wd_trap kind, uint32_t offset)
{
    bool fresh = err->status == WD_OK;
    wd_fail_trap(err, kind, offset);
    if (fresh)
        err->func_idx = UINT32_MAX;
    return WD_TRAP;
}

/* Each active segment is table.init then elem.drop; a declarative one is elem.drop. */
static wd_status init_elems(wd_instance *inst, const wd_module *m, wd_error *err)
{
    for (uint32_t i = 0; i < m->elem_count; i++) {
        const wd_elemseg *seg = &m->elems[i];
        if (seg->mode == WD_SEG_ACTIVE) {
            wd_val off[2];
            wd_link_const_eval(inst, &seg->offset, off);
            wd_table *tab = inst->tables[seg->table_idx];
            if ((uint64_t)off[0].u32 + seg->count > tab->size)
                return trap(err, WD_TRAP_TABLE_OOB, seg->offset.offset);
            for (uint32_t k = 0; k < seg->count; k++) {
                wd_val ref[2];
                wd_link_const_eval(inst, &seg->items[k], ref);
                tab->elems[off[0].u32 + k] = ref[0].u64;
            }
        }
        if (seg->mode != WD_SEG_PASSIVE)
            inst->elem_dropped[i] = true;
    }
    return WD_OK;
}

/* Each active segment is memory.init then data.drop. */
static wd_status init_datas(wd_instance *inst, const wd_module *m, wd_error *err)
{
    for (uint32_t i = 0; i < m->data_count; i++) {
        const wd_dataseg *seg = &m->datas[i];
        if (seg->mode != WD_SEG_ACTIVE)
            continue;
        wd_val off[2];
        wd_link_const_eval(inst, &seg->offset, off);
        wd_memory *mem = inst->memory;
        if (mem == NULL || (uint64_t)off[0].u32 + seg->size > mem->size)
            return trap(err, WD_TRAP_MEMORY_OOB, seg->offset.offset);
        if (seg->size > 0)
            memcpy(mem->data + off[0].u32, seg->bytes, seg->size);
        inst->data_dropped[i] = true;
    }
    return WD_OK;
}

wd_status wd_link_instantiate(wd_store *s, const wd_module *m, const wd_extern *externs,
                              wd_instance **out, wd_error *err)
{
    *out = NULL;
    wd_instance *inst;
    WD_TRY(wd_store_new_instance(s, &inst, err));
    inst->module = m;
    /* A failure from here on leaves the partial instance in the store, which frees it. */
    WD_TRY(alloc_arrays(inst, m, err));
    WD_TRY(bind_imports(inst, m, externs, err));
    WD_TRY(define_funcs(inst, m, err));
    WD_TRY(define_objects(s, inst, m, err));
    /* From here the instance is complete: a trapping segment keeps what earlier ones wrote
     * (functions of this instance may now sit in imported tables), so it is handed out. */
    *out = inst;
    WD_TRY(init_elems(inst, m, err));
    return init_datas(inst, m, err);
}

bool wd_instance_export(const wd_instance *inst, const char *name, wd_extern *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(name);
    const wd_module *m = inst->module;
    for (uint32_t i = 0; i < m->export_count; i++) {
        const wd_export *ex = &m->exports[i];
        if (ex->name_size == len && memcmp(ex->name, name, len) == 0) {
            *out = inst->exports[i];
            return true;
        }
    }
    return false;
}
