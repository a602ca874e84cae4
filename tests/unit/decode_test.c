/* decode_test.c: the module decoder and module-level validation (decode/decode.c,
 * decode/module.c, decode/names.c). */
#include "decode/decode.h"
#include "decode/names.h"
#include "decode/reader.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

#include <stdlib.h>

#define HDR 0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00

/* wat2wasm --debug-names of a module using every section and every element segment form
 * (flags 0-7), with imports of each kind, a DataCount section and a name section:
 *   (type $v (func)) (type $ii_i (func (param i32 i64) (result i32)))
 *   (import "env" "f" (func $imp (type $ii_i))) (import "env" "t" (table $it 1 10 funcref))
 *   (import "env" "g" (global $ig i32)) (import "env" "gm" (global $igm (mut i64)))
 *   (func $start (type $v))
 *   (func $add (param $a i32) (param $b i32) (result i32) (local $x i64) (local $y i32)
 *     (local i32) (i32.add (local.get $a) (local.get $b)))
 *   (func $r (result funcref) (ref.func $start)) (func $dd (data.drop $pd))
 *   (table $t2 2 externref) (table $t3 3 funcref) (memory $m 1 2)
 *   (global $g1 i32 (i32.const 42)) (global $g2 (mut i64) (i64.const -1))
 *   (global $g3 i32 (global.get $ig)) (global $g4 funcref (ref.func $add))
 *   (global $g5 externref (ref.null extern))
 *   (export "add" (func $add)) (export "mem" (memory $m)) (export "g1" (global $g1))
 *   (export "t3" (table $t3)) (start $start)
 *   (elem (i32.const 0) $start) (elem $p func $add $r) (elem (table $t3) (i32.const 1) func $r)
 *   (elem declare func $r) (elem (i32.const 0) funcref (ref.func $start) (ref.null func))
 *   (elem funcref (ref.null func)) (elem (table $t2) (i32.const 0) externref (ref.null extern))
 *   (elem declare funcref (ref.func $add) (ref.null func))
 *   (data (i32.const 8) "hello") (data $pd "passive") (data (memory $m) (i32.const 16) "x") */
static const uint8_t full_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x14, 0x04, 0x60, 0x00, 0x00, 0x60, 0x02,
    0x7f, 0x7e, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x01, 0x70, 0x02, 0x27,
    0x04, 0x03, 0x65, 0x6e, 0x76, 0x01, 0x66, 0x00, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x01, 0x74, 0x01,
    0x70, 0x01, 0x01, 0x0a, 0x03, 0x65, 0x6e, 0x76, 0x01, 0x67, 0x03, 0x7f, 0x00, 0x03, 0x65, 0x6e,
    0x76, 0x02, 0x67, 0x6d, 0x03, 0x7e, 0x01, 0x03, 0x05, 0x04, 0x00, 0x02, 0x03, 0x00, 0x04, 0x07,
    0x02, 0x6f, 0x00, 0x02, 0x70, 0x00, 0x03, 0x05, 0x04, 0x01, 0x01, 0x01, 0x02, 0x06, 0x1a, 0x05,
    0x7f, 0x00, 0x41, 0x2a, 0x0b, 0x7e, 0x01, 0x42, 0x7f, 0x0b, 0x7f, 0x00, 0x23, 0x00, 0x0b, 0x70,
    0x00, 0xd2, 0x02, 0x0b, 0x6f, 0x00, 0xd0, 0x6f, 0x0b, 0x07, 0x17, 0x04, 0x03, 0x61, 0x64, 0x64,
    0x00, 0x02, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x02, 0x67, 0x31, 0x03, 0x02, 0x02, 0x74, 0x33,
    0x01, 0x02, 0x08, 0x01, 0x01, 0x09, 0x3c, 0x08, 0x00, 0x41, 0x00, 0x0b, 0x01, 0x01, 0x01, 0x00,
    0x02, 0x02, 0x03, 0x02, 0x02, 0x41, 0x01, 0x0b, 0x00, 0x01, 0x03, 0x03, 0x00, 0x01, 0x03, 0x04,
    0x41, 0x00, 0x0b, 0x02, 0xd2, 0x01, 0x0b, 0xd0, 0x70, 0x0b, 0x05, 0x70, 0x01, 0xd0, 0x70, 0x0b,
    0x06, 0x01, 0x41, 0x00, 0x0b, 0x6f, 0x01, 0xd0, 0x6f, 0x0b, 0x07, 0x70, 0x02, 0xd2, 0x02, 0x0b,
    0xd0, 0x70, 0x0b, 0x0c, 0x01, 0x03, 0x0a, 0x1b, 0x04, 0x02, 0x00, 0x0b, 0x0b, 0x02, 0x01, 0x7e,
    0x02, 0x7f, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b, 0x04, 0x00, 0xd2, 0x01, 0x0b, 0x05, 0x00, 0xfc,
    0x09, 0x01, 0x0b, 0x0b, 0x1a, 0x03, 0x00, 0x41, 0x08, 0x0b, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
    0x01, 0x07, 0x70, 0x61, 0x73, 0x73, 0x69, 0x76, 0x65, 0x00, 0x41, 0x10, 0x0b, 0x01, 0x78, 0x00,
    0x87, 0x01, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x19, 0x05, 0x00, 0x03, 0x69, 0x6d, 0x70, 0x01,
    0x05, 0x73, 0x74, 0x61, 0x72, 0x74, 0x02, 0x03, 0x61, 0x64, 0x64, 0x03, 0x01, 0x72, 0x04, 0x02,
    0x64, 0x64, 0x02, 0x17, 0x05, 0x00, 0x00, 0x01, 0x00, 0x02, 0x04, 0x00, 0x01, 0x61, 0x01, 0x01,
    0x62, 0x02, 0x01, 0x78, 0x03, 0x01, 0x79, 0x03, 0x00, 0x04, 0x00, 0x04, 0x0a, 0x02, 0x00, 0x01,
    0x76, 0x01, 0x04, 0x69, 0x69, 0x5f, 0x69, 0x05, 0x0d, 0x03, 0x00, 0x02, 0x69, 0x74, 0x01, 0x02,
    0x74, 0x32, 0x02, 0x02, 0x74, 0x33, 0x06, 0x04, 0x01, 0x00, 0x01, 0x6d, 0x07, 0x1e, 0x07, 0x00,
    0x02, 0x69, 0x67, 0x01, 0x03, 0x69, 0x67, 0x6d, 0x02, 0x02, 0x67, 0x31, 0x03, 0x02, 0x67, 0x32,
    0x04, 0x02, 0x67, 0x33, 0x05, 0x02, 0x67, 0x34, 0x06, 0x02, 0x67, 0x35, 0x08, 0x04, 0x01, 0x01,
    0x01, 0x70, 0x09, 0x05, 0x01, 0x01, 0x02, 0x70, 0x64};

/* (module (import "e" "x" (func)) (func $kernel_run (param i32 f32))), with names */
static const uint8_t pvm_param[] = {
    HDR,  0x01, 0x09, 0x02, 0x60, 0x00, 0x00, 0x60, 0x02, 0x7f, 0x7d, 0x00, 0x02, 0x07, 0x01,
    0x01, 0x65, 0x01, 0x78, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x0a, 0x04, 0x01, 0x02, 0x00,
    0x0b, 0x00, 0x1b, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x0d, 0x01, 0x01, 0x0a, 0x6b, 0x65,
    0x72, 0x6e, 0x65, 0x6c, 0x5f, 0x72, 0x75, 0x6e, 0x02, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00};

/* (module (func $k (local i32) (local f64))), with names */
static const uint8_t pvm_local[] = {HDR,  0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01,
                                    0x00, 0x0a, 0x08, 0x01, 0x06, 0x02, 0x01, 0x7f, 0x01, 0x7c,
                                    0x0b, 0x00, 0x10, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x04,
                                    0x01, 0x00, 0x01, 0x6b, 0x02, 0x03, 0x01, 0x00, 0x00};

/* (module (global i32 (i32.const 0)) (global f32 (f32.const 0))) */
static const uint8_t pvm_global[] = {HDR,  0x06, 0x0e, 0x02, 0x7f, 0x00, 0x41, 0x00, 0x0b,
                                     0x7d, 0x00, 0x43, 0x00, 0x00, 0x00, 0x00, 0x0b};

/* (module (type (func (result f64)))) */
static const uint8_t pvm_type[] = {HDR, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7c};

// clang-format off
/* Two functions of type (param i32); a name section whose subsections come in the order
 * local names, an unknown one (9), function names (out of index order), module name. */
static const uint8_t names_any_order[] = {
    HDR,
    0x01, 0x05, 0x01, 0x60, 0x01, 0x7f, 0x00,                   /* type (param i32) */
    0x03, 0x03, 0x02, 0x00, 0x00,                               /* two functions */
    0x0a, 0x07, 0x02, 0x02, 0x00, 0x0b, 0x02, 0x00, 0x0b,       /* two empty bodies */
    0x00, 0x1e, 0x04, 'n', 'a', 'm', 'e',                       /* custom "name" */
    0x02, 0x06, 0x01, 0x01, 0x01, 0x00, 0x01, 'p',              /* local 0 of func 1: p */
    0x09, 0x02, 0xaa, 0xbb,                                     /* unknown subsection */
    0x01, 0x07, 0x02, 0x01, 0x01, 'b', 0x00, 0x01, 'a',         /* func 1: b, func 0: a */
    0x00, 0x02, 0x01, 'm',                                      /* module: m */
};
// clang-format on

// clang-format off
/* The same functions; the function-name map claims 3 entries and holds 1 (cut short by
 * its subsection), a local-name map has a name that is not UTF-8, then a module name. */
static const uint8_t names_broken[] = {
    HDR,
    0x01, 0x05, 0x01, 0x60, 0x01, 0x7f, 0x00,
    0x03, 0x03, 0x02, 0x00, 0x00,
    0x0a, 0x07, 0x02, 0x02, 0x00, 0x0b, 0x02, 0x00, 0x0b,
    0x00, 0x17, 0x04, 'n', 'a', 'm', 'e',
    0x01, 0x04, 0x03, 0x00, 0x01, 'a',                          /* 3 claimed, 1 given */
    0x02, 0x06, 0x01, 0x00, 0x01, 0x00, 0x01, 0xff,             /* bad UTF-8 */
    0x00, 0x02, 0x01, 'm',
};
// clang-format on

static const wd_costs zero_costs;

static wd_status decode(wd_ctx *ctx, const uint8_t *bytes, size_t size, bool pvm, wd_module **m,
                        wd_error *err)
{
    wd_decode_opts opts = {.costs = &zero_costs, .pvm = pvm};
    wd_error_clear(err);
    return wd_decode_module(ctx, bytes, size, &opts, m, err);
}

TEST(decode_minimal_module)
{
    static const uint8_t bytes[] = {HDR};
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, bytes, sizeof bytes, false, &m, &err), WD_OK);
    CHECK(m != NULL && m->ctx == &ctx && m->size == 8);
    CHECK(m->type_count == 0 && m->func_count == 0 && m->import_count == 0);
    CHECK(m->memory_count == 0 && m->table_count == 0 && m->global_count == 0);
    CHECK(m->export_count == 0 && m->elem_count == 0 && m->data_count == 0);
    CHECK(!m->has_start && !m->has_data_count && m->custom_count == 0);
    CHECK(m->names.module == NULL && m->names.funcs == NULL);
    CHECK_EQ(wd_module_find_export(m, "x", WD_EXTERN_FUNC), -1);
    wd_module_free(m);
    wd_module_free(NULL);
    CHECK_EQ(ctx.live, 0);
}

static void check_full_types_imports(const wd_module *m)
{
    CHECK_EQ(m->type_count, 4);
    CHECK(m->types[1].param_count == 2 && m->types[1].result_count == 1);
    CHECK(m->types[1].params[0] == WD_I32 && m->types[1].params[1] == WD_I64);
    CHECK(m->types[1].results[0] == WD_I32 && m->types[3].results[0] == WD_FUNCREF);
    CHECK(wd_functype_equal(&m->types[0], &m->types[0]));
    CHECK(!wd_functype_equal(&m->types[1], &m->types[2]));
    CHECK_EQ(m->import_count, 4);
    CHECK(m->import_func_count == 1 && m->import_table_count == 1);
    CHECK(m->import_memory_count == 0 && m->import_global_count == 2);
    const wd_import *t = &m->imports[1];
    CHECK(strcmp(t->module, "env") == 0 && strcmp(t->name, "t") == 0 && t->name_size == 1);
    CHECK(t->kind == WD_EXTERN_TABLE && t->desc.table.elem == WD_FUNCREF);
    CHECK(t->desc.table.limits.min == 1 && t->desc.table.limits.has_max);
    CHECK(t->desc.table.limits.max == 10);
    CHECK(m->imports[0].kind == WD_EXTERN_FUNC && m->imports[0].desc.type_idx == 1);
    CHECK(m->imports[3].desc.global.type == WD_I64 && m->imports[3].desc.global.mut);
}

static void check_full_funcs(const wd_module *m, const uint8_t *bytes)
{
    CHECK_EQ(m->func_count, 5);
    CHECK(m->funcs[0].code == NULL && m->funcs[0].type_idx == 1);
    const wd_funcdef *add = &m->funcs[2];
    CHECK_EQ(add->type_idx, 2);
    CHECK_EQ(add->local_count, 3);
    CHECK_EQ(add->local_groups, 2);
    CHECK(add->local_decls[0].count == 1 && add->local_decls[0].type == WD_I64);
    CHECK(add->local_decls[1].count == 2 && add->local_decls[1].type == WD_I32);
    /* the body: the entry after its size, locals included, ending with `end` */
    CHECK_EQ(add->body_offset, 0xdd);
    CHECK_EQ(bytes[add->body_offset], 2); /* two local groups */
    CHECK_EQ(bytes[add->body_offset + add->body_size - 1], 0x0b);
    CHECK_EQ(m->funcs[1].local_count, 0);
    CHECK(m->funcs[1].local_decls == NULL);
    CHECK(m->has_start && m->start_idx == 1);
}

static void check_full_tables_globals(const wd_module *m)
{
    CHECK_EQ(m->table_count, 3);
    CHECK(m->tables[1].elem == WD_EXTERNREF && m->tables[1].limits.min == 2);
    CHECK(!m->tables[1].limits.has_max && m->tables[2].elem == WD_FUNCREF);
    CHECK_EQ(m->memory_count, 1);
    CHECK(m->memories[0].limits.min == 1 && m->memories[0].limits.max == 2);
    CHECK_EQ(m->global_count, 7);
    CHECK(m->globals[0].type.type == WD_I32 && !m->globals[0].type.mut);
    CHECK(m->globals[2].init.kind == WD_CONST_I32 && m->globals[2].init.value.u64 == 42);
    CHECK(m->globals[3].type.mut && m->globals[3].init.kind == WD_CONST_I64);
    CHECK(m->globals[3].init.value.u64 == UINT64_MAX);
    CHECK(m->globals[4].init.kind == WD_CONST_GLOBAL && m->globals[4].init.idx == 0);
    CHECK(m->globals[4].init.type == WD_I32);
    CHECK(m->globals[5].init.kind == WD_CONST_REFFUNC && m->globals[5].init.idx == 2);
    CHECK(m->globals[6].init.kind == WD_CONST_REFNULL);
    CHECK(m->globals[6].init.type == WD_EXTERNREF);
}

static void check_full_segments(const wd_module *m)
{
    static const uint8_t modes[8] = {WD_SEG_ACTIVE,      WD_SEG_PASSIVE,    WD_SEG_ACTIVE,
                                     WD_SEG_DECLARATIVE, WD_SEG_ACTIVE,     WD_SEG_PASSIVE,
                                     WD_SEG_ACTIVE,      WD_SEG_DECLARATIVE};
    CHECK_EQ(m->elem_count, 8);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(m->elems[i].mode, modes[i]);
    CHECK(m->elems[0].count == 1 && m->elems[0].items[0].kind == WD_CONST_REFFUNC);
    CHECK(m->elems[0].items[0].idx == 1 && m->elems[0].offset.kind == WD_CONST_I32);
    CHECK(m->elems[2].table_idx == 2 && m->elems[2].offset.value.u64 == 1);
    CHECK(m->elems[4].count == 2 && m->elems[4].items[1].kind == WD_CONST_REFNULL);
    CHECK(m->elems[6].table_idx == 1 && m->elems[6].type == WD_EXTERNREF);
    CHECK(m->elems[7].count == 2 && m->elems[7].items[0].idx == 2);
    CHECK(m->has_data_count && m->data_count == 3);
    const wd_dataseg *d0 = &m->datas[0], *d1 = &m->datas[1];
    CHECK(d0->mode == WD_SEG_ACTIVE && d0->memory_idx == 0 && d0->size == 5);
    CHECK(memcmp(d0->bytes, "hello", 5) == 0 && d0->offset.value.u64 == 8);
    CHECK(d1->mode == WD_SEG_PASSIVE && d1->size == 7);
    CHECK(memcmp(d1->bytes, "passive", 7) == 0);
    CHECK(m->datas[2].offset.value.u64 == 16 && m->datas[2].bytes[0] == 'x');
    CHECK(full_wasm[d0->bytes_offset] == 'h');
}

static void check_full_exports_names(const wd_module *m)
{
    CHECK_EQ(m->export_count, 4);
    CHECK_EQ(wd_module_find_export(m, "add", WD_EXTERN_FUNC), 0);
    CHECK_EQ(wd_module_find_export(m, "add", WD_EXTERN_MEMORY), -1);
    CHECK_EQ(wd_module_find_export(m, "t3", WD_EXTERN_TABLE), 3);
    CHECK_EQ(wd_module_find_export(m, "ad", WD_EXTERN_FUNC), -1);
    CHECK_EQ(m->custom_count, 1);
    CHECK(strcmp(m->customs[0].name, "name") == 0 && m->customs[0].size > 0);
    CHECK(memcmp(m->customs[0].data, full_wasm + m->customs[0].offset, m->customs[0].size) == 0);
    char buf[32];
    CHECK(strcmp(wd_module_func_name(m, 2, buf, sizeof buf), "add") == 0);
    CHECK(strcmp(wd_module_func_name(m, 0, buf, sizeof buf), "imp") == 0);
    CHECK(strcmp(wd_module_func_name(m, 99, buf, sizeof buf), "func[99]") == 0);
    CHECK(strcmp(wd_module_func_name(m, UINT32_MAX, buf, sizeof buf), "func[4294967295]") == 0);
    CHECK(strcmp(wd_module_func_name(m, 12345, buf, 8), "func[12") == 0); /* cut as snprintf */
    buf[0] = 'x';
    CHECK(wd_module_func_name(m, 12345, buf, 0) == buf && buf[0] == 'x');
    CHECK(m->names.locals[2] != NULL && m->names.local_counts[2] == 4); /* of 5 locals */
    CHECK(strcmp(wd_module_local_name(m, 2, 0), "a") == 0);
    CHECK(strcmp(wd_module_local_name(m, 2, 3), "y") == 0);
    CHECK(wd_module_local_name(m, 2, 4) == NULL && m->names.locals[1] == NULL);
    CHECK(wd_module_local_name(m, 1, 0) == NULL && wd_module_local_name(m, 99, 0) == NULL);
    /* C.refs: ref.func in globals and segments, exported functions; not bodies */
    static const uint8_t declared[5] = {0, 1, 1, 1, 0};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(m->declared_funcs[i], declared[i]);
}

TEST(decode_every_section)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    /* from a copy freed before the module is read: the module keeps its own copies */
    uint8_t *copy = malloc(sizeof full_wasm);
    CHECK(copy != NULL);
    memcpy(copy, full_wasm, sizeof full_wasm);
    wd_module *m;
    wd_error err;
    wd_status st = decode(&ctx, copy, sizeof full_wasm, false, &m, &err);
    free(copy);
    CHECK_EQ(st, WD_OK);
    check_full_types_imports(m);
    check_full_funcs(m, full_wasm);
    check_full_tables_globals(m);
    check_full_segments(m);
    check_full_exports_names(m);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_name_subsections_in_any_order)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, names_any_order, sizeof names_any_order, false, &m, &err), WD_OK);
    CHECK(m->names.module != NULL && strcmp(m->names.module, "m") == 0);
    CHECK(strcmp(m->names.funcs[0], "a") == 0 && strcmp(m->names.funcs[1], "b") == 0);
    CHECK(m->names.locals[0] == NULL && m->names.local_counts[1] == 1);
    CHECK(strcmp(wd_module_local_name(m, 1, 0), "p") == 0);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_broken_name_section_is_ignored)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, names_broken, sizeof names_broken, false, &m, &err), WD_OK);
    CHECK(strcmp(m->names.funcs[0], "a") == 0 && m->names.funcs[1] == NULL);
    CHECK(m->names.locals[0] == NULL && wd_module_local_name(m, 0, 0) == NULL);
    CHECK(m->names.module != NULL && strcmp(m->names.module, "m") == 0);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

typedef struct bad_case {
    const char *what;
    const uint8_t *bytes;
    size_t size;
    wd_status status;
    const char *msg; /* a prefix of the message */
    long offset;     /* -1: not checked */
} bad_case;

#define BAD(what, st, msg, off, ...)                                                               \
    {                                                                                              \
        what, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), st, msg, off \
    }
#define MAL WD_ERR_MALFORMED
#define INV WD_ERR_INVALID
#define T_V 0x01, 0x04, 0x01, 0x60, 0x00, 0x00 /* type section: () -> () */
#define F_1 0x03, 0x02, 0x01, 0x00             /* one function of type 0 */
#define C_1 0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b /* its empty body */

static void check_cases(const bad_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const bad_case *c = &cases[i];
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_module *m = (wd_module *)&ctx; /* must be cleared */
        wd_error err;
        wd_status st = decode(&ctx, c->bytes, c->size, false, &m, &err);
        if (st != c->status || strncmp(err.msg, c->msg, strlen(c->msg)) != 0 ||
            (c->offset >= 0 && (long)err.offset != c->offset))
            printf("case \"%s\": %s \"%s\" at %zu\n", c->what, wd_status_name(st), err.msg,
                   err.offset);
        CHECK_EQ(st, c->status);
        CHECK_STR_CONTAINS(err.msg, c->msg);
        CHECK(c->offset < 0 || (long)err.offset == c->offset);
        CHECK(m == NULL && err.status == st);
        CHECK_EQ(ctx.live, 0);
    }
}

TEST(decode_malformed_messages)
{
    const bad_case cases[] = {
        BAD("empty", MAL, "unexpected end", 0, 0),
        BAD("magic", MAL, "magic header not detected", 0, 0x00, 0x41, 0x53, 0x4d, 1, 0, 0, 0),
        BAD("short version", MAL, "unexpected end", -1, 0x00, 0x61, 0x73, 0x6d, 1, 0),
        BAD("version", MAL, "unknown binary version", 4, 0x00, 0x61, 0x73, 0x6d, 2, 0, 0, 0),
        BAD("section id", MAL, "malformed section id", 8, HDR, 0x0d, 0x00),
        BAD("duplicate section", MAL, "unexpected content after last section", 14, HDR, T_V, 0x01,
            0x01, 0x00),
        BAD("section order", MAL, "unexpected content after last section", 11, HDR, 0x0a, 0x01,
            0x00, 0x03, 0x01, 0x00),
        BAD("datacount after code", MAL, "unexpected content after last section", 11, HDR, 0x0a,
            0x01, 0x00, 0x0c, 0x01, 0x00),
        BAD("size mismatch", MAL, "section size mismatch", 10, HDR, 0x01, 0x05, 0x01, 0x60, 0x00,
            0x00),
        BAD("size past end", MAL, "length out of bounds", 9, HDR, 0x01, 0x07, 0x01, 0x60, 0x00,
            0x00),
        BAD("vector past end", MAL, "length out of bounds", 10, HDR, 0x01, 0x02, 0x05, 0x60),
        BAD("cut in a section", MAL, "unexpected end", 9, HDR, 0x01),
        BAD("function type", MAL, "malformed function type", 11, HDR, 0x01, 0x04, 0x01, 0x61, 0x00,
            0x00),
        BAD("function type LEB", MAL, "integer representation too long", -1, HDR, 0x01, 0x05, 0x01,
            0xe0, 0x7f, 0x00, 0x00),
        BAD("value type", MAL, "malformed value type", 13, HDR, 0x01, 0x05, 0x01, 0x60, 0x01, 0x40,
            0x00),
        BAD("v128", MAL, "SIMD not supported yet", 13, HDR, 0x01, 0x05, 0x01, 0x60, 0x01, 0x7b,
            0x00),
        BAD("UTF-8 import", MAL, "malformed UTF-8 encoding", 11, HDR, 0x02, 0x06, 0x01, 0x01, 0xff,
            0x00, 0x00, 0x00),
        BAD("overlong UTF-8", MAL, "malformed UTF-8 encoding", 11, HDR, 0x02, 0x07, 0x01, 0x02,
            0xc0, 0x80, 0x00, 0x00, 0x00),
        BAD("surrogate", MAL, "malformed UTF-8 encoding", -1, HDR, 0x00, 0x04, 0x03, 0xed, 0xa0,
            0x80),
        BAD("import kind", MAL, "malformed import kind", 13, HDR, 0x02, 0x04, 0x01, 0x00, 0x00,
            0x04),
        BAD("reference type", MAL, "malformed reference type", 11, HDR, 0x04, 0x04, 0x01, 0x7f,
            0x00, 0x00),
        BAD("limits flag", MAL, "integer too large", 11, HDR, 0x05, 0x03, 0x01, 0x02, 0x00),
        BAD("limits flag LEB", MAL, "integer representation too long", -1, HDR, 0x05, 0x04, 0x01,
            0x81, 0x00, 0x00),
        BAD("mutability", MAL, "malformed mutability", 12, HDR, 0x06, 0x06, 0x01, 0x7f, 0x02, 0x41,
            0x00, 0x0b),
        BAD("export kind", MAL, "malformed export kind", 13, HDR, 0x07, 0x05, 0x01, 0x01, 'a', 0x04,
            0x00),
        BAD("elem flags", MAL, "malformed elements segment kind", 11, HDR, 0x09, 0x02, 0x01, 0x08),
        BAD("elem kind", MAL, "malformed element kind", 12, HDR, 0x09, 0x04, 0x01, 0x01, 0x01,
            0x00),
        BAD("data flags", MAL, "malformed data segment kind", 11, HDR, 0x0b, 0x02, 0x01, 0x03),
        BAD("const opcode", MAL, "illegal opcode", 13, HDR, 0x06, 0x05, 0x01, 0x7f, 0x00, 0x06,
            0x0b),
        BAD("const 0xfc", MAL, "illegal opcode fc 7f", 13, HDR, 0x06, 0x06, 0x01, 0x7f, 0x00, 0xfc,
            0x7f, 0x0b),
        BAD("const v128", MAL, "SIMD not supported yet", 13, HDR, 0x06, 0x06, 0x01, 0x7f, 0x00,
            0xfd, 0x0c, 0x0b),
        BAD("too many locals", MAL, "too many locals", -1, HDR, T_V, F_1, 0x0a, 0x0c, 0x01, 0x0a,
            0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x02, 0x7e, 0x0b),
        BAD("locals past the limit", MAL, "too many locals", -1, HDR, T_V, F_1, 0x0a, 0x08, 0x01,
            0x06, 0x01, 0xe1, 0xd4, 0x03, 0x7f, 0x0b), /* 60001 */
        BAD("code without function", MAL, "function and code section have inconsistent lengths", -1,
            HDR, T_V, C_1),
        BAD("function without code", MAL, "function and code section have inconsistent lengths", -1,
            HDR, T_V, F_1),
        BAD("data count", MAL, "data count and data section have inconsistent lengths", -1, HDR,
            0x0c, 0x01, 0x02),
        BAD("custom name UTF-8", MAL, "malformed UTF-8 encoding", 10, HDR, 0x00, 0x02, 0x01, 0xff),
        BAD("custom name past section", MAL, "unexpected end", -1, HDR, 0x00, 0x00, 0x00, 0x05,
            0x01, 0x00, 0x07, 0x00, 0x00),
        BAD("body past end", MAL, "unexpected end", 24, HDR, T_V, F_1, 0x0a, 0x04, 0x01, 0x03, 0x00,
            0x0b),
        BAD("body size past end", MAL, "length out of bounds", 21, HDR, T_V, F_1, 0x0a, 0x04, 0x01,
            0x05, 0x00, 0x0b),
    };
    check_cases(cases, WD_ARRAY_COUNT(cases));
}

TEST(decode_invalid_messages)
{
    const bad_case cases[] = {
        BAD("unknown type", INV, "unknown type 5", 17, HDR, T_V, 0x03, 0x02, 0x01, 0x05, C_1),
        BAD("unknown import type", INV, "unknown type 0", 11, HDR, 0x02, 0x05, 0x01, 0x00, 0x00,
            0x00, 0x00),
        BAD("unknown function export", INV, "unknown function 3", -1, HDR, 0x07, 0x05, 0x01, 0x01,
            'a', 0x00, 0x03),
        BAD("unknown global export", INV, "unknown global 0", -1, HDR, 0x07, 0x05, 0x01, 0x01, 'a',
            0x03, 0x00),
        BAD("start type", INV, "start function", -1, HDR, 0x01, 0x05, 0x01, 0x60, 0x01, 0x7f, 0x00,
            F_1, 0x08, 0x01, 0x00, C_1),
        BAD("unknown start", INV, "unknown function 1", -1, HDR, T_V, F_1, 0x08, 0x01, 0x01, C_1),
        BAD("unknown table", INV, "unknown table 0", -1, HDR, T_V, F_1, 0x09, 0x07, 0x01, 0x00,
            0x41, 0x00, 0x0b, 0x01, 0x00, C_1),
        BAD("unknown elem function", INV, "unknown function 1", -1, HDR, T_V, F_1, 0x09, 0x05, 0x01,
            0x01, 0x00, 0x01, 0x01, C_1),
        BAD("elem table type", INV, "type mismatch", -1, HDR, 0x04, 0x04, 0x01, 0x70, 0x00, 0x01,
            0x09, 0x08, 0x01, 0x06, 0x00, 0x41, 0x00, 0x0b, 0x6f, 0x00),
        BAD("elem item type", INV, "type mismatch", -1, HDR, 0x09, 0x07, 0x01, 0x05, 0x70, 0x01,
            0xd0, 0x6f, 0x0b),
        BAD("unknown memory", INV, "unknown memory 0", -1, HDR, 0x0b, 0x07, 0x01, 0x00, 0x41, 0x00,
            0x0b, 0x01, 'a'),
        BAD("unknown global", INV, "unknown global 0", -1, HDR, 0x06, 0x06, 0x01, 0x7f, 0x00, 0x23,
            0x00, 0x0b),
        BAD("defined global in init", INV, "unknown global 0", -1, HDR, 0x06, 0x0b, 0x02, 0x7f,
            0x00, 0x41, 0x00, 0x0b, 0x7f, 0x00, 0x23, 0x00, 0x0b),
        BAD("mutable import in init", INV, "constant expression required", -1, HDR, 0x02, 0x06,
            0x01, 0x00, 0x00, 0x03, 0x7f, 0x01, 0x06, 0x06, 0x01, 0x7f, 0x00, 0x23, 0x00, 0x0b),
        BAD("unknown function in init", INV, "unknown function 0", -1, HDR, 0x06, 0x06, 0x01, 0x70,
            0x00, 0xd2, 0x00, 0x0b),
        BAD("not constant", INV, "constant expression required", 15, HDR, 0x06, 0x07, 0x01, 0x7f,
            0x00, 0x41, 0x00, 0x01, 0x0b),
        BAD("not constant 0xfc", INV, "constant expression required", 13, HDR, 0x06, 0x06, 0x01,
            0x7f, 0x00, 0xfc, 0x00, 0x0b),
        BAD("imported memory size", INV, "memory size must be at most 65536 pages (4GiB)", 11, HDR,
            0x02, 0x08, 0x01, 0x00, 0x00, 0x02, 0x00, 0x81, 0x80, 0x04),
        BAD("not constant first", INV, "constant expression required", 13, HDR, 0x06, 0x05, 0x01,
            0x7f, 0x00, 0x6a, 0x0b),
        BAD("init type", INV, "type mismatch", 13, HDR, 0x06, 0x06, 0x01, 0x7f, 0x00, 0x42, 0x00,
            0x0b),
        BAD("two values", INV, "type mismatch", -1, HDR, 0x06, 0x08, 0x01, 0x7f, 0x00, 0x41, 0x00,
            0x41, 0x00, 0x0b),
        BAD("empty init", INV, "type mismatch", -1, HDR, 0x06, 0x04, 0x01, 0x7f, 0x00, 0x0b),
        BAD("duplicate export", INV, "duplicate export name", 20, HDR, 0x05, 0x03, 0x01, 0x00, 0x00,
            0x07, 0x09, 0x02, 0x01, 'a', 0x02, 0x00, 0x01, 'a', 0x02, 0x00),
        BAD("multiple memories", INV, "multiple memories", -1, HDR, 0x05, 0x05, 0x02, 0x00, 0x00,
            0x00, 0x00),
        BAD("memory size", INV, "memory size must be at most 65536 pages (4GiB)", -1, HDR, 0x05,
            0x05, 0x01, 0x00, 0x81, 0x80, 0x04),
        BAD("memory max", INV, "memory size must be at most 65536 pages (4GiB)", -1, HDR, 0x05,
            0x06, 0x01, 0x01, 0x00, 0x81, 0x80, 0x04),
        BAD("limits order", INV, "size minimum must not be greater than maximum", -1, HDR, 0x05,
            0x04, 0x01, 0x01, 0x02, 0x01),
        BAD("table limits order", INV, "size minimum must not be greater than maximum", -1, HDR,
            0x04, 0x05, 0x01, 0x70, 0x01, 0x02, 0x01),
    };
    check_cases(cases, WD_ARRAY_COUNT(cases));
}

TEST(decode_constant_values)
{
    // clang-format off
    static const uint8_t bytes[] = {
        HDR,  0x06, 0x1a, 0x03,                                     /* three globals */
        0x7f, 0x00, 0x41, 0x7f, 0x0b,                               /* i32 -1 */
        0x7d, 0x00, 0x43, 0x00, 0x00, 0x80, 0x3f, 0x0b,             /* f32 1.0 */
        0x7c, 0x01, 0x44, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x0b,      /* mut f64 1.5 */
    };
    // clang-format on
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, bytes, sizeof bytes, false, &m, &err), WD_OK);
    CHECK_EQ(m->global_count, 3);
    CHECK(m->globals[0].init.kind == WD_CONST_I32 && m->globals[0].init.value.u64 == 0xffffffffu);
    CHECK(m->globals[1].init.kind == WD_CONST_F32 && m->globals[1].init.value.u64 == 0x3f800000u);
    CHECK(m->globals[2].init.kind == WD_CONST_F64 && m->globals[2].type.mut);
    CHECK(m->globals[2].init.value.u64 == 0x3ff8000000000000u);
    CHECK_EQ(m->globals[1].init.offset, 18);
    wd_module_free(m);
    CHECK_EQ(decode(&ctx, bytes, sizeof bytes, true, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "f32 in the type of global 1");
    CHECK_EQ(err.offset, 16);
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_empty_local_groups)
{
    /* two groups of zero locals, then `end` */
    static const uint8_t bytes[] = {HDR,  T_V,  F_1,  0x0a, 0x08, 0x01, 0x06,
                                    0x02, 0x00, 0x7f, 0x00, 0x7e, 0x0b};
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, bytes, sizeof bytes, false, &m, &err), WD_OK);
    CHECK(m->funcs[0].local_count == 0 && m->funcs[0].local_groups == 2);
    CHECK(m->funcs[0].local_zero_tail == 2);
    CHECK(m->funcs[0].body_offset == 22 && m->funcs[0].body_size == 6);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

#define UTF8(s) wd_utf8_valid((const uint8_t *)(s), sizeof(s) - 1)

TEST(decode_utf8_validation)
{
    CHECK(UTF8("") && UTF8("abc") && UTF8("\xc2\x80") && UTF8("\xdf\xbf"));
    CHECK(UTF8("\xe0\xa0\x80") && UTF8("\xed\x9f\xbf") && UTF8("\xee\x80\x80"));
    CHECK(UTF8("\xf0\x90\x80\x80") && UTF8("\xf4\x8f\xbf\xbf") && UTF8("a\0b"));
    CHECK(!UTF8("\x80") && !UTF8("\xc0\x80") && !UTF8("\xc1\xbf") && !UTF8("\xc2"));
    CHECK(!UTF8("\xe0\x9f\xbf") && !UTF8("\xed\xa0\x80") && !UTF8("\xe1\x80"));
    CHECK(!UTF8("\xe1\x80\xc0") && !UTF8("\xf0\x8f\xbf\xbf") && !UTF8("\xf4\x90\x80\x80"));
    CHECK(!UTF8("\xf5\x80\x80\x80") && !UTF8("\xff") && !UTF8("\xf1\x80\x80"));
}

/* The first invalid export in order wins, whether unknown or a duplicate. */
TEST(decode_export_errors_in_order)
{
    static const uint8_t dup_first[] = {HDR,  0x05, 0x03, 0x01, 0x00, 0x00, 0x07,
                                        0x0d, 0x03, 0x01, 'a',  0x02, 0x00, 0x01,
                                        'a',  0x02, 0x00, 0x01, 'b',  0x02, 0x05};
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, dup_first, sizeof dup_first, false, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "duplicate export name");
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_pvm_rejects_floats)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, pvm_param, sizeof pvm_param, false, &m, &err), WD_OK);
    wd_module_free(m);
    CHECK_EQ(decode(&ctx, pvm_param, sizeof pvm_param, true, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "float types are not allowed in PVM mode: f32 in the type of "
                                "function kernel_run");
    CHECK(err.offset == 17 && pvm_param[err.offset] == WD_F32 && err.func_idx == 1);
    CHECK_EQ(decode(&ctx, pvm_local, sizeof pvm_local, true, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "f64 in the locals of function k");
    CHECK(pvm_local[err.offset] == WD_F64 && err.func_idx == 0);
    CHECK_EQ(decode(&ctx, pvm_global, sizeof pvm_global, true, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "f32 in the type of global 1");
    CHECK(pvm_global[err.offset] == WD_F32 && err.func_idx == UINT32_MAX);
    CHECK_EQ(decode(&ctx, pvm_type, sizeof pvm_type, true, &m, &err), WD_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "f64 in type 0");
    CHECK_EQ(decode(&ctx, full_wasm, sizeof full_wasm, true, &m, &err), WD_OK);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

/* Where each section of a well-formed module ends: the only lengths at which a prefix of
 * it can still be a module. */
static bool at_section_end(const uint8_t *b, size_t size, size_t len)
{
    size_t pos = 8;
    while (pos < size) {
        if (pos == len)
            return true;
        pos++;
        uint64_t n = 0;
        for (unsigned shift = 0;; shift += 7) {
            n |= (uint64_t)(b[pos] & 0x7f) << shift;
            if (!(b[pos++] & 0x80))
                break;
        }
        pos += n;
    }
    return pos == len;
}

static void check_truncations(const uint8_t *b, size_t size)
{
    for (size_t len = 0; len < size; len++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        wd_module *m;
        wd_error err;
        /* an exact-size copy, so ASan sees any read past the end */
        uint8_t *copy = malloc(len ? len : 1);
        CHECK(copy != NULL);
        memcpy(copy, b, len);
        wd_status st = decode(&ctx, copy, len, false, &m, &err);
        free(copy);
        if (st == WD_OK) {
            CHECK(len >= 8 && at_section_end(b, size, len));
            wd_module_free(m);
        } else {
            if (st != WD_ERR_MALFORMED)
                printf("truncated to %zu: %s \"%s\"\n", len, wd_status_name(st), err.msg);
            CHECK_EQ(st, WD_ERR_MALFORMED);
            CHECK(err.offset <= len && m == NULL);
        }
        CHECK_EQ(ctx.live, 0);
    }
}

TEST(decode_truncated_at_every_length)
{
    check_truncations(full_wasm, sizeof full_wasm);
    check_truncations(names_any_order, sizeof names_any_order);
    check_truncations(pvm_param, sizeof pvm_param);
    check_truncations(pvm_local, sizeof pvm_local);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static void check_survives(const uint8_t *b, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    wd_status st = decode(&ctx, b, size, rng() & 1, &m, &err);
    CHECK(st == WD_OK || st == WD_ERR_MALFORMED || st == WD_ERR_INVALID);
    CHECK(st == WD_OK ? m != NULL : m == NULL && err.offset <= size);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_random_bytes_never_crash)
{
    static const uint8_t hdr[] = {HDR};
    uint8_t buf[256];
    for (int i = 0; i < 4000; i++) {
        size_t size = rng() % sizeof buf;
        for (size_t k = 0; k < size; k++)
            buf[k] = (uint8_t)rng();
        if (i % 4 != 0 && size >= 8)
            memcpy(buf, hdr, 8);
        /* bias toward section ids and small numbers, which reach deeper */
        if (i % 2 == 0)
            for (size_t k = 8; k < size; k++)
                buf[k] &= 0x8f;
        check_survives(buf, size);
    }
}

TEST(decode_mutations_never_crash)
{
    uint8_t buf[sizeof full_wasm];
    for (int i = 0; i < 6000; i++) {
        memcpy(buf, full_wasm, sizeof buf);
        int flips = i % 3 == 0 ? 2 : 1;
        for (int k = 0; k < flips; k++) {
            size_t at = rng() % sizeof buf;
            switch (rng() % 4) {
            case 0:
                buf[at] = (uint8_t)rng();
                break;
            case 1:
                buf[at] ^= (uint8_t)(1u << (rng() % 8));
                break;
            case 2:
                buf[at] = (uint8_t)(buf[at] + 1);
                break;
            default:
                buf[at] = (uint8_t)(buf[at] - 1);
                break;
            }
        }
        check_survives(buf, sizeof buf);
    }
}

/* Fails allocation 1, 2, 3, ... until the decode succeeds; returns how many it took. */
static size_t check_out_of_memory(const uint8_t *b, size_t size)
{
    size_t n;
    for (n = 1; n < 100000; n++) {
        wd_ctx ctx;
        wd_ctx_init(&ctx);
        ctx.fail_after = n;
        wd_module *m;
        wd_error err;
        wd_status st = decode(&ctx, b, size, false, &m, &err);
        wd_module_free(m);
        if (ctx.live != 0 || (st != WD_OK && st != WD_ERR_NOMEM) ||
            (st == WD_ERR_NOMEM && (m != NULL || strcmp(err.msg, "out of memory") != 0))) {
            printf("allocation %zu failed: %s \"%s\", %zu live\n", n, wd_status_name(st), err.msg,
                   ctx.live);
            return 0;
        }
        if (st == WD_OK)
            break;
    }
    return n;
}

enum { BIG_FUNCS = 3000, BIG_DATA = 40000 };

/* A module larger than an arena chunk: BIG_FUNCS named functions, a BIG_DATA-byte
 * segment. The caller frees it. */
static uint8_t *build_big_module(size_t *size)
{
    uint8_t *out = malloc(200000), *body = malloc(100000);
    if (out == NULL || body == NULL) {
        free(out);
        free(body);
        return NULL;
    }
    static const uint8_t hdr[] = {HDR}, type[] = {0x01, 0x60, 0x00, 0x00}, mem[] = {1, 0, 1};
    size_t n = 0, k;
    memcpy(out, hdr, 8);
    n = 8 + wd_test_put_section(out + 8, 1, type, sizeof type);
    k = wd_test_put_leb(body, BIG_FUNCS, false);
    memset(body + k, 0, BIG_FUNCS);
    n += wd_test_put_section(out + n, 3, body, k + BIG_FUNCS);
    n += wd_test_put_section(out + n, 5, mem, sizeof mem);
    k = wd_test_put_leb(body, BIG_FUNCS, false);
    for (int i = 0; i < BIG_FUNCS; i++, k += 3)
        memcpy(body + k, "\x02\x00\x0b", 3);
    n += wd_test_put_section(out + n, 10, body, k);
    k = 0;
    body[k++] = 1;
    memcpy(body + k, "\x00\x41\x00\x0b", 4);
    k += 4;
    k += wd_test_put_leb(body + k, BIG_DATA, false);
    memset(body + k, 0xab, BIG_DATA);
    n += wd_test_put_section(out + n, 11, body, k + BIG_DATA);
    uint8_t *names = malloc(60000);
    if (names == NULL) {
        free(out);
        free(body);
        return NULL;
    }
    size_t j = wd_test_put_leb(names, BIG_FUNCS, false);
    for (int i = 0; i < BIG_FUNCS; i++) {
        j += wd_test_put_leb(names + j, (uint64_t)i, false);
        names[j++] = 5;
        j += (size_t)sprintf((char *)names + j, "f%04d", i);
    }
    k = 0;
    body[k++] = 4;
    memcpy(body + k, "name", 4);
    k += 4;
    body[k++] = 1;
    k += wd_test_put_leb(body + k, j, false);
    memcpy(body + k, names, j);
    n += wd_test_put_section(out + n, 0, body, k + j);
    free(names);
    free(body);
    *size = n;
    return out;
}

TEST(decode_big_module)
{
    size_t size;
    uint8_t *b = build_big_module(&size);
    CHECK(b != NULL);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_module *m;
    wd_error err;
    wd_status st = decode(&ctx, b, size, false, &m, &err);
    free(b);
    CHECK_EQ(st, WD_OK);
    CHECK(m->func_count == BIG_FUNCS && m->datas[0].size == BIG_DATA);
    CHECK(m->datas[0].bytes[BIG_DATA - 1] == 0xab);
    CHECK(strcmp(m->names.funcs[BIG_FUNCS - 1], "f2999") == 0);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}

TEST(decode_out_of_memory_at_every_allocation)
{
    CHECK(check_out_of_memory(full_wasm, sizeof full_wasm) > 5);
    CHECK(check_out_of_memory(names_any_order, sizeof names_any_order) > 3);
    size_t size;
    uint8_t *b = build_big_module(&size);
    CHECK(b != NULL);
    size_t n = check_out_of_memory(b, size);
    free(b);
    CHECK(n > 10); /* several arena chunks */
}

/* LEB128 of v in exactly `len` bytes (len at least the minimal length; padding bytes carry
 * the sign, as the spec allows), into p; signed or not. */
static void put_leb64(uint8_t *p, uint64_t v, unsigned len, bool is_signed)
{
    for (unsigned i = 0; i < len; i++) {
        uint8_t b = v & 0x7F;
        v = is_signed ? (uint64_t)((int64_t)v >> 7) : v >> 7;
        p[i] = (uint8_t)(b | (i + 1 < len ? 0x80 : 0));
    }
}

static unsigned min_len64(uint64_t v, bool is_signed)
{
    unsigned n = 1;
    for (; n * 7 < 64; n++) { /* n bytes hold 7n bits: the rest is zero or the sign's */
        uint64_t rest = is_signed ? (uint64_t)((int64_t)v >> (7 * n - 1)) : v >> (7 * n);
        if (rest == 0 || (is_signed && rest == UINT64_MAX))
            break;
    }
    return n;
}

/* 64-bit LEB128 numbers of every length, minimal or padded, read with the word-at-a-time
 * path (10 bytes before the end) and the checked one (at the very end), signed and not. */
TEST(decode_leb64_every_length)
{
    uint64_t vals[64 * 2 + 6] = {0, 1, 63, 64, UINT64_MAX, (uint64_t)INT64_MIN};
    size_t nv = 6;
    for (unsigned k = 0; k < 64; k++) {
        vals[nv++] = (uint64_t)1 << k;
        vals[nv++] = ((uint64_t)1 << k) * 0x9E3779B97F4A7C15ull;
    }
    for (size_t i = 0; i < nv; i++) {
        for (int sg = 0; sg < 2; sg++) {
            bool is_signed = sg;
            for (unsigned len = min_len64(vals[i], is_signed); len <= 10; len++) {
                for (int at_end = 0; at_end < 2; at_end++) {
                    uint8_t buf[32];
                    memset(buf, 0xFF, sizeof buf); /* continuation bits after the number */
                    put_leb64(buf, vals[i], len, is_signed);
                    wd_error err;
                    wd_reader r = {buf, 0, at_end ? len : sizeof buf, &err};
                    uint64_t got = 0;
                    int64_t sgot = 0;
                    wd_status st =
                        is_signed ? wd_read_sleb(&r, 64, &sgot) : wd_read_uleb(&r, 64, &got);
                    CHECK_EQ(st, WD_OK);
                    CHECK_EQ(is_signed ? (uint64_t)sgot : got, vals[i]);
                    CHECK_EQ(r.pos, len);
                }
            }
        }
    }
    /* a 10th byte that continues, or sets bits past 64 (or not the sign's copies) */
    static const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80, 0x80, 0x81, 0x00};
    static const uint8_t too_large[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                        0x80, 0x80, 0x80, 0x02, 0x00};
    static const uint8_t bad_sign[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0x41, 0x00};
    const uint8_t *bad[3] = {too_long, too_large, bad_sign};
    const char *msg[3] = {"integer representation too long", "integer too large",
                          "integer too large"};
    for (int k = 0; k < 3; k++) {
        for (int at_end = 0; at_end < 2; at_end++) {
            wd_error err;
            wd_error_clear(&err);
            wd_reader r = {bad[k], 0, at_end ? 10 : 11, &err};
            int64_t v = 0;
            CHECK_EQ(wd_read_sleb(&r, 64, &v), WD_ERR_MALFORMED);
            CHECK(strcmp(err.msg, msg[k]) == 0);
            CHECK_EQ(err.offset, 0);
        }
    }
}

/* 200 bodies of 6 bytes, each declaring 50,000 locals, and a name section naming the last
 * local of each: what decoding allocates follows the bytes, not the locals declared (it
 * took 10 MB of local types and 80 MB of local-name tables). */
TEST(decode_locals_allocate_by_bytes)
{
    enum { FUNCS = 200 };
    static uint8_t bytes[32 + FUNCS * 20];
    size_t n = 0;
    static const uint8_t head[] = {HDR,  0x01, 0x04, 0x01, 0x60, 0x00, 0x00, /* type () -> () */
                                   0x03, 0xca, 0x01, 0xc8, 0x01};            /* 200 functions */
    memcpy(bytes, head, sizeof head);
    n = sizeof head;
    for (int i = 0; i < FUNCS; i++)
        bytes[n++] = 0x00;
    static const uint8_t body[] = {0x06, 0x01, 0xd0, 0x86, 0x03, 0x7e, 0x0b}; /* 50000 i64 */
    bytes[n++] = 0x0a;
    bytes[n++] = 0xfa, bytes[n++] = 0x0a; /* 2 + 200 * 7 = 1402 bytes */
    bytes[n++] = 0xc8, bytes[n++] = 0x01;
    for (int i = 0; i < FUNCS; i++) {
        memcpy(bytes + n, body, sizeof body);
        n += sizeof body;
    }
    /* name: subsection 2, 200 maps of one entry (local 49999 named "x"): 8 bytes each */
    // clang-format off
    static const uint8_t names[] = {0x00, 0xca, 0x0c, 0x04, 'n', 'a', 'm', 'e', /* 1610 bytes */
                                    0x02, 0xc2, 0x0c, 0xc8, 0x01}; /* 1602 bytes, 200 maps */
    // clang-format on
    memcpy(bytes + n, names, sizeof names);
    n += sizeof names;
    for (int i = 0; i < FUNCS; i++) {
        uint8_t map[] = {
            (uint8_t)(0x80 | (i & 0x7f)), (uint8_t)(i >> 7), 0x01, 0xcf, 0x86, 0x03, 0x01, 'x'};
        memcpy(bytes + n, map, sizeof map);
        n += sizeof map;
    }
    CHECK(n <= sizeof bytes);
    wd_meter meter;
    wd_ctx ctx;
    wd_ctx_metered(&ctx, &meter, (size_t)8 << 20);
    wd_module *m;
    wd_error err;
    CHECK_EQ(decode(&ctx, bytes, n, false, &m, &err), WD_OK);
    CHECK(meter.asked < ((size_t)2 << 20));
    CHECK_EQ(m->funcs[FUNCS - 1].local_count, 50000);
    CHECK(strcmp(wd_module_local_name(m, FUNCS - 1, 49999), "x") == 0);
    CHECK(wd_module_local_name(m, FUNCS - 1, 49998) == NULL);
    wd_module_free(m);
    CHECK_EQ(ctx.live, 0);
}
