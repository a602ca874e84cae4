/* tickmodel.c: built-in tick models and the JSON model-file loader.
 *
 * jansson parses the file; it reports syntax errors with line and column but keeps no
 * position for object keys, so a key's line (for "unknown cost name" and bad values) is
 * found again in the raw text by a small scanner that follows JSON's string and nesting
 * rules (the text has already parsed, so it is well-formed). */
#include "vm/tickmodel.h"

#include "base/file.h"

#include "base/alloc.h"
#include "decode/code.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Model files larger than this are refused (a model is a few kilobytes). */
#define MAX_MODEL_FILE_SIZE (16u << 20)

typedef struct field {
    const char *name;
    size_t offset;
} field;

/* The costs a model file may set besides instructions': the dynamic ones, which scale with
 * an operand (bytes, elements, pages, host accesses). */
// clang-format off
#define FIELD(f) {#f, offsetof(wd_costs, f)}
static const field fields[] = {
    FIELD(bulk_per_byte),      FIELD(bulk_copy_per_byte), FIELD(bulk_per_elem),
    FIELD(bulk_copy_per_elem), FIELD(grow_per_page),      FIELD(host_per_byte),
    FIELD(host_per_access),
};
#undef FIELD

/* The structural costs: the PVM's admin steps around control flow, and the phases. They
 * are the base model's rules (under pvm, eval.ml's own steps, matched tick for tick); a
 * file that changed one would count neither as the PVM does nor as a plain weighting of
 * instructions, so a file cannot set them. */
static const char *const structural[] = {
    "label_step",         "concat",           "per_value",            "per_outer",
    "frame_return",       "call_entry",       "call_per_param",       "call_per_local",
    "call_open",          "host_entry",       "final_step",           "pvm_phases",
    "decode_per_section", "decode_per_item",  "decode_per_insn",      "decode_per_name_char",
    "decode_per_data_byte", "decode_per_custom", "link_base",         "link_per_import",
    "init_base",          "init_per_global",  "init_per_elem",        "init_per_data_byte",
};
// clang-format on

static uint32_t *field_ptr(wd_costs *c, const field *f)
{
    return (uint32_t *)(void *)((char *)c + f->offset);
}

/* An ops.def entry for a real instruction (not an internal one of the translated code). */
static bool is_instruction(uint32_t op)
{
    return wd_op_info[op].kind != WD_KIND_INTERNAL;
}

/* ---- built-in models ---- */

/* A model named `name` charging `per_op` for every instruction and nothing else yet. */
static void start_model(wd_costs *c, const char *name, uint32_t per_op)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        if (!is_instruction(op))
            continue;
        uint32_t idx = wd_cost_index(wd_op_info[op].prefix, wd_op_info[op].code);
        if (idx < WD_COST_OPS)
            c->op[idx] = per_op;
    }
}

/* flat-1: one tick per instruction as written (every valid opcode of ops.def, control
 * instructions included), 1 per byte or element for bulk operations (so a bulk
 * instruction costs 1 + n), 1 per byte a host function moves, one per decoding step, one
 * per import plus one for link, one per global, element and data byte for init; nothing
 * for call, return or branch structure, memory.grow pages or storage accesses. */
static void build_flat1(wd_costs *c)
{
    start_model(c, "flat-1", 1);
    c->bulk_per_byte = 1;
    c->bulk_copy_per_byte = 1;
    c->bulk_per_elem = 1;
    c->bulk_copy_per_elem = 1;
    c->host_per_byte = 1;
    c->decode_per_section = 1;
    c->decode_per_item = 1;
    c->decode_per_insn = 1;
    c->decode_per_name_char = 1;
    c->decode_per_data_byte = 1;
    c->decode_per_custom = 1;
    c->link_base = 1;
    c->link_per_import = 1;
    c->init_per_global = 1;
    c->init_per_elem = 1;
    c->init_per_data_byte = 1;
}

/* pvm: the Octez WASM PVM's own count (shared/reference/octez-ticks/RULES.md; Octez files
 * in tezos/tezos-mirror). A tick is one Eval.step; most admin steps of a label are 3 ticks
 * (SK_Start -> SK_Next LS_Start -> LS_Modify_top -> SK_Start, eval.ml frame_step).
 *
 *   what                                    ticks  Octez rule (src/lib_webassembly/exec/eval.ml)
 *   plain instruction                       6      From_block fetch 3 + Plain 3 (step_instr)
 *   block, loop                             6      the same; Vector.split of params is free
 *   if                                      9      + the Plain (Block arm) it queues
 *   else                                    0      no instruction: the then-list ends
 *   label_step                              3      From_block at a list's end, Breaking k > 0,
 *                                                  Plain br (br_if, br_table), loop re-run,
 *                                                  Returning, Trapping, Label_result
 *   concat + per_value * |vs| + per_outer   4,1,1  LS_Consolidate_top, Breaking 0 (label_step)
 *     * |vs_outer|
 *   frame_return + values + caller's        2      SK_Consolidate_label_result (frame_step)
 *     label values
 *   call_entry + 2 params + 2 locals        8,2,2  invoke_step (Inv_start .. LS_Push_frame)
 *   call_open                               2      profiling.ml opens a node at the
 *                                                  LS_Start of Plain (Call _)
 *   host_entry, then h, then frame_return   3      invoke_step of a host function (5 + h)
 *   final_step                              1      SK_Result / SK_Trapped
 *   memory.fill, memory.init, table.fill,   42/n   memory_fill_meta_instr etc.: 7 meta + 7
 *     table.init                                   plain steps per unit
 *   memory.copy, table.copy                 48/n   8 + 8 per unit
 *   host functions                          42/B,  host_funcs.ml Tick_model: 42 per byte,
 *                                           1/acc  1 per durable tree access
 *   decode, link, init                      steps  vm/pvmticks.c (decode.ml module_step,
 *                                                  wasm_vm.ml Link, eval.ml init_step) */
static void build_pvm(wd_costs *c)
{
    start_model(c, "pvm", 6);
    c->op[0x04] = 9; /* if */
    c->op[0x05] = 0; /* else */
    c->op[0x0B] = 0; /* end: a structural cost */
    c->label_step = 3;
    c->concat = 4;
    c->per_value = 1;
    c->per_outer = 1;
    c->frame_return = 2;
    c->call_entry = 8;
    c->call_per_param = 2;
    c->call_per_local = 2;
    c->call_open = 2;
    c->host_entry = 3;
    c->final_step = 1;
    c->bulk_per_byte = 42;
    c->bulk_copy_per_byte = 48;
    c->bulk_per_elem = 42;
    c->bulk_copy_per_elem = 48;
    c->host_per_byte = 42;
    c->host_per_access = 1;
    c->pvm_phases = true;
}

typedef struct builtin {
    const char *name;
    void (*build)(wd_costs *c);
} builtin;

static const builtin builtins[] = {
    {"pvm", build_pvm},
    {"flat-1", build_flat1},
};

const wd_costs *wd_tickmodel_builtin(const char *name)
{
    static wd_costs tables[WD_ARRAY_COUNT(builtins)];
    static bool built[WD_ARRAY_COUNT(builtins)];
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < WD_ARRAY_COUNT(builtins); i++) {
        if (strcmp(name, builtins[i].name) != 0)
            continue;
        if (!built[i]) {
            builtins[i].build(&tables[i]);
            built[i] = true;
        }
        return &tables[i];
    }
    return NULL;
}

/* Models wasmdbg once had, with what to say about each (words that follow its name). The
 * figures recorded under one (budgets, profiles, traces) count ticks some other way than
 * any model now, so they are never compared with today's, and its name never comes back
 * for another model. */
typedef struct retired_model {
    const char *name, *why;
} retired_model;

static const retired_model retired[] = {
    {"pvm-2.0", "was an approximation of the PVM's ticks that wasmdbg no longer has; the "
                "default model, pvm, counts exactly as the Octez PVM does"},
};

const char *wd_tickmodel_retired(const char *name)
{
    for (size_t i = 0; name != NULL && i < WD_ARRAY_COUNT(retired); i++)
        if (strcmp(name, retired[i].name) == 0)
            return retired[i].why;
    return NULL;
}

/* ---- names ---- */

/* True when op is the first ops.def instruction spelled like it ("select" appears twice). */
static bool is_first_spelling(uint32_t op)
{
    for (uint32_t k = 0; k < op; k++)
        if (is_instruction(k) && strcmp(wd_op_names[k], wd_op_names[op]) == 0)
            return false;
    return true;
}

uint32_t wd_tickmodel_name_count(void)
{
    uint32_t n = 0;
    for (uint32_t op = 0; op < WD_OP_COUNT; op++)
        if (is_instruction(op) && is_first_spelling(op))
            n++;
    return n + (uint32_t)WD_ARRAY_COUNT(fields);
}

const char *wd_tickmodel_name(uint32_t i)
{
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        if (!is_instruction(op) || !is_first_spelling(op))
            continue;
        if (i == 0)
            return wd_op_names[op];
        i--;
    }
    return i < WD_ARRAY_COUNT(fields) ? fields[i].name : NULL;
}

static bool is_structural(const char *name)
{
    for (size_t i = 0; i < WD_ARRAY_COUNT(structural); i++)
        if (strcmp(name, structural[i]) == 0)
            return true;
    return false;
}

/* Sets the cost called `name`; false when no instruction or settable field has that name. */
static bool set_cost(wd_costs *c, const char *name, uint32_t value)
{
    for (size_t i = 0; i < WD_ARRAY_COUNT(fields); i++) {
        if (strcmp(name, fields[i].name) == 0) {
            *field_ptr(c, &fields[i]) = value;
            return true;
        }
    }
    bool found = false;
    for (uint32_t op = 0; op < WD_OP_COUNT; op++) {
        if (!is_instruction(op) || strcmp(name, wd_op_names[op]) != 0)
            continue;
        uint32_t idx = wd_cost_index(wd_op_info[op].prefix, wd_op_info[op].code);
        if (idx < WD_COST_OPS) {
            c->op[idx] = value;
            found = true;
        }
    }
    return found;
}

/* ---- finding a key's line in the raw text ---- */

typedef struct scanner {
    const char *text;
    size_t size, pos;
    int line;
} scanner;

/* Reads 4 hex digits at s->pos; -1 if they are not there. */
static long read_hex4(scanner *s)
{
    if (s->size - s->pos < 4)
        return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = wd_hex_digit(s->text[s->pos + (size_t)k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    s->pos += 4;
    return v;
}

static void put_byte(char *buf, size_t cap, size_t *len, unsigned b)
{
    if (*len + 1 < cap)
        buf[*len] = (char)b;
    (*len)++;
}

static void put_utf8(char *buf, size_t cap, size_t *len, unsigned long cp)
{
    if (cp < 0x80) {
        put_byte(buf, cap, len, (unsigned)cp);
    } else if (cp < 0x800) {
        put_byte(buf, cap, len, (unsigned)(0xC0 | (cp >> 6)));
        put_byte(buf, cap, len, (unsigned)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        put_byte(buf, cap, len, (unsigned)(0xE0 | (cp >> 12)));
        put_byte(buf, cap, len, (unsigned)(0x80 | ((cp >> 6) & 0x3F)));
        put_byte(buf, cap, len, (unsigned)(0x80 | (cp & 0x3F)));
    } else {
        put_byte(buf, cap, len, (unsigned)(0xF0 | (cp >> 18)));
        put_byte(buf, cap, len, (unsigned)(0x80 | ((cp >> 12) & 0x3F)));
        put_byte(buf, cap, len, (unsigned)(0x80 | ((cp >> 6) & 0x3F)));
        put_byte(buf, cap, len, (unsigned)(0x80 | (cp & 0x3F)));
    }
}

/* Decodes the string whose opening quote is at s->pos - 1 into buf (NUL-terminated;
 * returns false when it did not fit) and leaves s->pos after the closing quote. */
static bool scan_string(scanner *s, char *buf, size_t cap)
{
    size_t len = 0;
    while (s->pos < s->size && s->text[s->pos] != '"') {
        char ch = s->text[s->pos++];
        if (ch != '\\') {
            put_byte(buf, cap, &len, (unsigned char)ch);
            continue;
        }
        if (s->pos >= s->size)
            break;
        char esc = s->text[s->pos++];
        static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
        const char *p = esc != '\0' ? strchr(from, esc) : NULL;
        if (esc == 'u') {
            long cp = read_hex4(s);
            if (cp >= 0xD800 && cp < 0xDC00 && s->size - s->pos >= 6 && s->text[s->pos] == '\\' &&
                s->text[s->pos + 1] == 'u') {
                s->pos += 2;
                long lo = read_hex4(s);
                if (lo >= 0xDC00 && lo < 0xE000)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp >= 0)
                put_utf8(buf, cap, &len, (unsigned long)cp);
        } else if (p != NULL) {
            put_byte(buf, cap, &len, (unsigned char)to[p - from]);
        } else {
            put_byte(buf, cap, &len, (unsigned char)esc);
        }
    }
    if (s->pos < s->size)
        s->pos++; /* the closing quote */
    buf[len < cap ? len : cap - 1] = '\0';
    return len < cap;
}

/* True when the next non-blank character is ':' (the string just read is a key). */
static bool followed_by_colon(const scanner *s)
{
    for (size_t p = s->pos; p < s->size; p++) {
        char ch = s->text[p];
        if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
            return ch == ':';
    }
    return false;
}

/* The 1-based line of the first key `key` in the object under the top-level key `parent`
 * (NULL: a top-level key); 0 when not found. */
static int find_key_line(const char *text, size_t size, const char *parent, const char *key)
{
    scanner s = {text, size, 0, 1};
    char top[256] = "", buf[256];
    int depth = 0;
    while (s.pos < s.size) {
        char ch = s.text[s.pos++];
        if (ch == '\n') {
            s.line++;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            depth--;
        } else if (ch == '"') {
            int line = s.line;
            bool whole = scan_string(&s, buf, sizeof buf);
            if (!followed_by_colon(&s))
                continue;
            if (depth == 1) {
                if (parent == NULL && whole && strcmp(buf, key) == 0)
                    return line;
                snprintf(top, sizeof top, "%s", whole ? buf : "");
            } else if (depth == 2 && parent != NULL && whole && strcmp(top, parent) == 0 &&
                       strcmp(buf, key) == 0) {
                return line;
            }
        }
    }
    return 0;
}

/* ---- loading ---- */

typedef struct loader {
    const char *path;
    const char *text;
    size_t size;
    wd_error *err;
} loader;

/* Fails with "PATH:LINE: <what> \"KEY\"..." for the key `key` under `parent`. */
static wd_status fail_at_key(const loader *ld, const char *parent, const char *key,
                             const char *what)
{
    int line = find_key_line(ld->text, ld->size, parent, key);
    return wd_fail(ld->err, WD_ERR_USAGE, (size_t)line, "%s:%d: %s \"%s\"", ld->path, line, what,
                   key);
}

static wd_status read_file(wd_ctx *ctx, const char *path, char **out, size_t *out_size,
                           wd_error *err)
{
    uint8_t *bytes;
    WD_TRY(wd_read_file(ctx, path, NULL, MAX_MODEL_FILE_SIZE, &bytes, out_size, err));
    *out = (char *)bytes;
    return WD_OK;
}

/* The default model name: the file name without directory and extension. */
static void name_from_path(const char *path, char *name, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(name, cap, "%.*s", (int)WD_MIN(len, cap - 1), base);
}

static wd_status apply_costs(const loader *ld, json_t *costs, const char *base, wd_costs *c)
{
    if (!json_is_object(costs))
        return fail_at_key(ld, NULL, "costs", "expected an object for");
    const char *key;
    json_t *value;
    json_object_foreach(costs, key, value)
    {
        if (is_structural(key)) {
            int line = find_key_line(ld->text, ld->size, "costs", key);
            return wd_fail(ld->err, WD_ERR_USAGE, (size_t)line,
                           "%s:%d: cost \"%s\" is structural: fixed by the base model's rules "
                           "(%s), not by a file",
                           ld->path, line, key, base);
        }
        if (!json_is_integer(value) || json_integer_value(value) < 0 ||
            json_integer_value(value) > (json_int_t)UINT32_MAX)
            return fail_at_key(ld, "costs", key, "expected an integer from 0 to 4294967295 for");
        if (!set_cost(c, key, (uint32_t)json_integer_value(value)))
            return fail_at_key(ld, "costs", key, "unknown cost name");
    }
    return WD_OK;
}

/* The built-in model the file starts from; its name goes to *base. */
static wd_status apply_base(const loader *ld, json_t *root, const char **base, wd_costs *c)
{
    /* The default base is pvm, the default model: a file that names no base changes the
     * count wasmdbg makes when given no model, and its structural costs, which a file
     * cannot set, are then the PVM's own. (It was flat-1 while the PVM's model was the
     * approximate pvm-2.0; a file written then without "base" now starts from pvm.) */
    json_t *base_key = json_object_get(root, "base");
    const char *name = *base = base_key != NULL ? json_string_value(base_key) : "pvm";
    const char *why = wd_tickmodel_retired(name);
    if (why != NULL) {
        int line = find_key_line(ld->text, ld->size, NULL, "base");
        /* Short words around `why`, which is long: the message must fit wd_error.msg. */
        return wd_fail(ld->err, WD_ERR_USAGE, (size_t)line, "%s:%d: base %s %s", ld->path, line,
                       name, why);
    }
    const wd_costs *from = wd_tickmodel_builtin(name);
    if (from == NULL)
        return fail_at_key(ld, NULL, "base", "unknown built-in model in");
    *c = *from;
    return WD_OK;
}

/* The model's name: the file's "name", else the file name. A built-in or retired model's
 * name is refused: figures recorded under it would be taken for that model's. */
static wd_status apply_name(const loader *ld, json_t *root, wd_costs *c)
{
    json_t *name = json_object_get(root, "name");
    if (name != NULL) {
        if (json_string_length(name) == 0 || json_string_length(name) >= sizeof c->name ||
            strlen(json_string_value(name)) != json_string_length(name))
            return fail_at_key(ld, NULL, "name", "expected 1 to 31 bytes in");
        snprintf(c->name, sizeof c->name, "%s", json_string_value(name));
    } else {
        name_from_path(ld->path, c->name, sizeof c->name);
    }
    bool is_builtin = wd_tickmodel_builtin(c->name) != NULL;
    if (wd_tickmodel_retired(c->name) == NULL && !is_builtin)
        return WD_OK;
    int line = name != NULL ? find_key_line(ld->text, ld->size, NULL, "name") : 0;
    char at[16] = "";
    if (name != NULL)
        snprintf(at, sizeof at, ":%d", line);
    return wd_fail(ld->err, WD_ERR_USAGE, (size_t)line,
                   "%s%s: the model's name, %s%s, is a %s tick model's: %s", ld->path, at,
                   c->name, name != NULL ? "" : " (from the file name)",
                   is_builtin ? "built-in" : "retired",
                   name != NULL ? "choose another" : "set \"name\"");
}

static wd_status apply_model(const loader *ld, json_t *root, wd_costs *c)
{
    if (!json_is_object(root))
        return wd_fail(ld->err, WD_ERR_USAGE, 1, "%s:1: expected a JSON object", ld->path);
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        bool is_string = json_is_string(value);
        if (strcmp(key, "costs") == 0)
            continue;
        if (strcmp(key, "name") != 0 && strcmp(key, "base") != 0 && strcmp(key, "description") != 0)
            return fail_at_key(ld, NULL, key, "unknown key");
        if (!is_string)
            return fail_at_key(ld, NULL, key, "expected a string for");
    }
    const char *base;
    WD_TRY(apply_base(ld, root, &base, c));
    WD_TRY(apply_name(ld, root, c));
    json_t *costs = json_object_get(root, "costs");
    return costs != NULL ? apply_costs(ld, costs, base, c) : WD_OK;
}

wd_status wd_tickmodel_load(const char *path, wd_costs *out, wd_error *err)
{
    memset(out, 0, sizeof *out);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    char *text;
    size_t size;
    WD_TRY(read_file(&ctx, path, &text, &size, err));

    json_error_t jerr;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    wd_status st;
    wd_costs c;
    if (root == NULL) {
        st = wd_fail(err, WD_ERR_USAGE, (size_t)(jerr.line > 0 ? jerr.line : 0), "%s:%d:%d: %s",
                     path, jerr.line, jerr.column, jerr.text);
    } else {
        loader ld = {path, text, size, err};
        st = apply_model(&ld, root, &c);
        json_decref(root);
    }
    wd_free(&ctx, text);
    if (st == WD_OK)
        *out = c;
    return st;
}

wd_status wd_tickmodel_get(const char *name_or_path, wd_costs *out, wd_error *err)
{
    const char *why = wd_tickmodel_retired(name_or_path);
    if (why != NULL) {
        memset(out, 0, sizeof *out);
        return wd_fail(err, WD_ERR_USAGE, 0, "tick model %s %s", name_or_path, why);
    }
    const wd_costs *b = wd_tickmodel_builtin(name_or_path);
    if (b != NULL) {
        *out = *b;
        return WD_OK;
    }
    FILE *f = fopen(name_or_path, "rb");
    if (f == NULL) {
        memset(out, 0, sizeof *out);
        char known[128] = "";
        for (size_t i = 0; i < WD_ARRAY_COUNT(builtins); i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i > 0 ? ", " : "",
                     builtins[i].name);
        return wd_fail(err, WD_ERR_IO, 0,
                       "%s: no such tick model: not a built-in one (%s), nor a readable file",
                       name_or_path, known);
    }
    fclose(f);
    return wd_tickmodel_load(name_or_path, out, err);
}
