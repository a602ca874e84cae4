/* module.h: a decoded, validated module. Immutable after wd_decode_module; shared by every
 * instance made from it. Everything it points to lives in its arena. */
#ifndef WD_DECODE_MODULE_H
#define WD_DECODE_MODULE_H

#include "base/alloc.h"
#include "decode/code.h"

/* Value types carry their binary encoding. */
enum {
    WD_I32 = 0x7F,
    WD_I64 = 0x7E,
    WD_F32 = 0x7D,
    WD_F64 = 0x7C,
    WD_V128 = 0x7B,
    WD_FUNCREF = 0x70,
    WD_EXTERNREF = 0x6F,
};

/* External kinds, as in import and export descriptors. */
enum { WD_EXTERN_FUNC = 0, WD_EXTERN_TABLE = 1, WD_EXTERN_MEMORY = 2, WD_EXTERN_GLOBAL = 3 };

typedef struct wd_functype {
    uint32_t param_count, result_count;
    const uint8_t *params;  /* param_count value types */
    const uint8_t *results; /* result_count value types */
} wd_functype;

/* The text-format name of value type `t` ("i32", "funcref", ...), or "?". */
const char *wd_valtype_name(uint8_t t);
/* The value type named name[0..len) in the text format, or 0. */
uint8_t wd_valtype_parse(const char *name, size_t len);

/* Structural equality (what call_indirect and import matching compare). */
bool wd_functype_equal(const wd_functype *a, const wd_functype *b);

typedef struct wd_limits {
    uint64_t min, max; /* max meaningful when has_max */
    bool has_max;
} wd_limits;

typedef struct wd_tabletype {
    uint8_t elem; /* WD_FUNCREF or WD_EXTERNREF */
    wd_limits limits;
} wd_tabletype;

typedef struct wd_memtype {
    wd_limits limits; /* in 64 KiB pages */
} wd_memtype;

typedef struct wd_globaltype {
    uint8_t type;
    bool mut;
} wd_globaltype;

/* A constant expression of WebAssembly 2.0: one instruction then `end`. */
enum {
    WD_CONST_I32,     /* value.u64 holds the i32 zero-extended */
    WD_CONST_I64,
    WD_CONST_F32,     /* bits in value.u64 */
    WD_CONST_F64,
    WD_CONST_V128,    /* value.v128 */
    WD_CONST_GLOBAL,  /* global.get idx */
    WD_CONST_REFNULL, /* ref.null of type `type` */
    WD_CONST_REFFUNC, /* ref.func idx */
};
typedef struct wd_constexpr {
    uint8_t kind;
    uint8_t type; /* the value type it produces */
    uint32_t idx; /* global or function index */
    union {
        uint64_t u64;
        uint8_t v128[16];
    } value;
    uint32_t offset; /* byte offset of the expression in the module */
} wd_constexpr;

typedef struct wd_import {
    const char *module, *name; /* NUL-terminated, valid UTF-8 (may contain NUL: see *_size) */
    uint32_t module_size, name_size;
    uint8_t kind; /* WD_EXTERN_* */
    union {
        uint32_t type_idx; /* func */
        wd_tabletype table;
        wd_memtype memory;
        wd_globaltype global;
    } desc;
    uint32_t offset;
} wd_import;

typedef struct wd_export {
    const char *name;
    uint32_t name_size;
    uint8_t kind;
    uint32_t idx;
} wd_export;

/* A group of a body's local declarations: `count` locals of type `type`. */
typedef struct wd_localdecl {
    uint32_t count;
    uint8_t type;
} wd_localdecl;

/* Functions in index space order: imported ones first (code == NULL). The locals are kept
 * as declared, in groups: a few bytes of a body may declare 50,000 locals, and a module
 * thousands of such bodies (the translator spells them out one body at a time). */
typedef struct wd_funcdef {
    uint32_t type_idx;
    uint32_t body_offset, body_size; /* the code-section entry's body, after its size */
    uint32_t local_count;            /* declared locals (params not included) */
    uint32_t local_groups;           /* (count, type) groups declaring them */
    uint32_t local_zero_tail;        /* groups of count 0 after the last local */
    const wd_localdecl *local_decls; /* the local_groups groups; NULL when there are none */
    wd_code *code;                   /* translated code; NULL for imports */
} wd_funcdef;

typedef struct wd_globaldef {
    wd_globaltype type;
    wd_constexpr init; /* unused for imports */
} wd_globaldef;

enum { WD_SEG_ACTIVE, WD_SEG_PASSIVE, WD_SEG_DECLARATIVE };

typedef struct wd_elemseg {
    uint8_t mode;
    uint8_t type; /* WD_FUNCREF or WD_EXTERNREF */
    bool exprs;   /* items written as expressions (flags 4-7), not function indices */
    uint32_t table_idx;
    wd_constexpr offset; /* active only */
    uint32_t count;
    const wd_constexpr *items; /* count items (function indices become WD_CONST_REFFUNC) */
} wd_elemseg;

typedef struct wd_dataseg {
    uint8_t mode; /* active or passive */
    uint32_t memory_idx;
    wd_constexpr offset;
    uint32_t size;
    const uint8_t *bytes;
    uint32_t bytes_offset; /* where the bytes are in the module */
} wd_dataseg;

typedef struct wd_custom {
    const char *name;
    uint32_t offset, size; /* payload position in the module, after the name */
    const uint8_t *data;   /* a copy of the payload */
} wd_custom;

/* A local's name; its index counts the function's parameters first. */
typedef struct wd_local_name {
    uint32_t idx;
    const char *name;
} wd_local_name;

/* Names from the `name` custom section; any field may be empty. */
typedef struct wd_names {
    const char *module;
    const char **funcs;           /* func_count entries (NULL where unnamed) */
    const wd_local_name **locals; /* func_count entries: NULL, or the named locals by index */
    const uint32_t *local_counts; /* func_count entries: the named locals of each */
} wd_names;

typedef struct wd_module {
    wd_ctx *ctx;
    wd_arena arena;

    uint32_t type_count;
    wd_functype *types;

    uint32_t import_count;
    wd_import *imports;
    uint32_t import_func_count, import_table_count, import_memory_count, import_global_count;

    uint32_t func_count; /* imports included */
    wd_funcdef *funcs;
    uint32_t table_count; /* imports included */
    wd_tabletype *tables;
    uint32_t memory_count; /* imports included; at most 1 in WebAssembly 2.0 */
    wd_memtype *memories;
    uint32_t global_count; /* imports included */
    wd_globaldef *globals;

    uint32_t export_count;
    wd_export *exports;

    bool has_start;
    uint32_t start_idx;

    uint32_t elem_count;
    wd_elemseg *elems;
    uint32_t data_count;
    wd_dataseg *datas;
    bool has_data_count; /* the DataCount section was present */

    uint32_t custom_count;
    wd_custom *customs;
    wd_names names;

    /* ref.func targets declared outside function bodies (C.refs in the spec). */
    uint8_t *declared_funcs; /* func_count flags */

    size_t size; /* the size of the binary decoded */
} wd_module;

/* Index of the export named `name` of `kind`, or -1. */
int64_t wd_module_find_export(const wd_module *m, const char *name, uint8_t kind);

/* The first custom section named `name`, or NULL. */
const wd_custom *wd_module_custom(const wd_module *m, const char *name);

/* The function's display name: its name-section entry, else "func[idx]" written to buf. */
const char *wd_module_func_name(const wd_module *m, uint32_t idx, char *buf, size_t size);

/* The name-section name of local `local` (parameters first) of function `func`, or NULL. */
const char *wd_module_local_name(const wd_module *m, uint32_t func, uint32_t local);

#endif
