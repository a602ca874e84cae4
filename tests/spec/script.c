/* script.c: executes one wast2json command script (see shared/spec/README.md).
 *
 * One store per script: modules instantiated by earlier commands stay alive, and
 * `register` makes an instance importable by name. Modules are decoded in plain
 * WebAssembly mode (floats allowed) under the flat-1 tick model, and run on one thread
 * whose tick counter accumulates over the script (the ticks log records it after every
 * action). Values follow decode/code.h: i32/f32 zero-extended bit patterns, funcref null
 * 0, externref N as N + 1. SIMD values are skipped (a later issue). */
#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "tests/spec/spec.h"
#include "vm/spectest.h"
#include "vm/tickmodel.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#define STACK_SLOTS ((size_t)4 << 20)
#define MAX_FRAMES  60000u
/* No spec test runs away, but one must not hang the suite: each action gets this many
 * ticks, far more than any of them needs. */
#define TICK_GUARD      ((uint64_t)10000000000)
#define MAX_ARGS        512u
#define MAX_MODULE_SIZE ((size_t)1 << 30)

typedef struct binding {
    char *name; /* owned; may contain NUL bytes */
    size_t len;
    wd_instance *inst; /* NULL when the module failed */
} binding;

typedef struct script {
    wd_spec_runner *r;
    const wd_spec_opts *opts;
    wd_ctx ctx;
    wd_store *store;
    wd_thread thread;
    bool thread_ready;
    wd_spectest spectest;
    wd_decode_opts dopts;
    WD_VEC(wd_module *) modules; /* every module an instance may refer to */
    WD_VEC(binding) names;       /* `(module $name ...)` */
    WD_VEC(binding) registered;  /* `(register "as" ...)` */
    wd_instance *current;        /* the last module defined, NULL if it failed */
    char wast[256];              /* the script's .wast name, for messages */
    char dir[1024];              /* where its .wasm files are */
    long line;
    const char *cmd;
} script;

/* The outcome of an action. */
typedef struct action_result {
    wd_status st;
    wd_error err;
    const wd_val *results;
    const uint8_t *types;
    uint32_t count;
} action_result;

/* ---- recording ---- */

static void report(script *s, wd_spec_result res, const char *fmt, ...) WD_PRINTF(3, 4);
static void report(script *s, wd_spec_result res, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    /* a reason is one line in the known failures file */
    for (char *p = reason; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
    wd_spec_record(s->r, s->wast, s->line, s->cmd, res, reason);
}

static void pass(script *s)
{
    wd_spec_record(s->r, s->wast, s->line, s->cmd, WD_SPEC_PASS, NULL);
}

/* "trap: integer overflow (func 3 at 0x4a)" */
static const char *describe(const wd_error *err, wd_status st, char *buf, size_t cap)
{
    if (st == WD_OK)
        return "success";
    if (err->func_idx != UINT32_MAX)
        snprintf(buf, cap, "%s: %s (func %" PRIu32 " at 0x%zx)", wd_status_name(st), err->msg,
                 err->func_idx, err->offset);
    else
        snprintf(buf, cap, "%s: %s (at 0x%zx)", wd_status_name(st), err->msg, err->offset);
    return buf;
}

static void check_message(script *s, const char *expected, const char *got)
{
    if (expected != NULL && strncmp(got, expected, strlen(expected)) != 0)
        wd_spec_mismatch(s->r, s->wast, s->line, expected, got);
}

static const char *or_none(const char *text)
{
    return text != NULL ? text : "(none)";
}

/* ---- names ---- */

static bool bind(script *s, bool registered, json_t *name, wd_instance *inst)
{
    binding b = {wd_strndup(&s->ctx, json_string_value(name), json_string_length(name)),
                 json_string_length(name), inst};
    if (b.name == NULL)
        return false;
    if (registered ? WD_VEC_PUSH(&s->ctx, &s->registered, b) : WD_VEC_PUSH(&s->ctx, &s->names, b))
        return true;
    wd_free(&s->ctx, b.name);
    return false;
}

/* The latest binding of `name`, or NULL. */
static const binding *lookup(const binding *list, uint32_t count, const char *name, size_t len)
{
    for (uint32_t i = count; i-- > 0;)
        if (list[i].len == len && memcmp(list[i].name, name, len) == 0)
            return &list[i];
    return NULL;
}

static bool find_export(const wd_instance *inst, const char *name, size_t len, wd_extern *out)
{
    const wd_module *m = inst->module;
    for (uint32_t i = 0; i < m->export_count; i++) {
        if (m->exports[i].name_size == len && memcmp(m->exports[i].name, name, len) == 0) {
            *out = inst->exports[i];
            return true;
        }
    }
    return false;
}

static wd_status resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    script *s = ud;
    if (imp->module_size == 8 && memcmp(imp->module, "spectest", 8) == 0)
        return wd_spectest_resolve(&s->spectest, imp, out, err);
    const binding *b =
        lookup(s->registered.data, s->registered.count, imp->module, imp->module_size);
    if (b != NULL && b->inst != NULL && find_export(b->inst, imp->name, imp->name_size, out))
        return WD_OK;
    return wd_fail(err, WD_ERR_UNLINKABLE, imp->offset, "unknown import");
}

/* ---- running code ---- */

/* Invokes f, resuming after every single step, within the tick guard. */
static wd_status invoke(script *s, wd_func *f, const wd_val *args, wd_error *err)
{
    wd_thread *t = &s->thread;
    t->tick_limit = t->ticks > UINT64_MAX - TICK_GUARD ? UINT64_MAX : t->ticks + TICK_GUARD;
    t->single_step = s->opts->single_step;
    wd_status st = wd_eval_invoke(t, f, args, err);
    while (st == WD_PAUSED && t->single_step) {
        wd_error_clear(err);
        st = wd_eval_resume(t, err);
    }
    if (st == WD_OUT_OF_TICKS || st == WD_PAUSED) {
        wd_eval_abort(t);
        wd_error_clear(err);
        wd_fail(err, WD_ERR_USAGE, 0, "still running after %" PRIu64 " ticks (runaway?)",
                TICK_GUARD);
        return WD_ERR_USAGE;
    }
    return st;
}

/* Reads the file at `path` (at most MAX_MODULE_SIZE bytes) into a buffer of s->ctx. */
static wd_status read_file(script *s, const char *path, uint8_t **out, size_t *out_size,
                           wd_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return wd_fail(err, WD_ERR_IO, 0, "cannot open %s", path);
    size_t cap = 4096, size = 0;
    uint8_t *buf = wd_alloc(&s->ctx, cap);
    wd_status st = buf == NULL ? wd_fail(err, WD_ERR_NOMEM, 0, "out of memory") : WD_OK;
    while (st == WD_OK) {
        if (size == cap) {
            uint8_t *bigger = cap >= MAX_MODULE_SIZE ? NULL : wd_realloc(&s->ctx, buf, cap * 2);
            if (bigger == NULL) {
                st = wd_fail(err, WD_ERR_IO, 0, "%s: too large", path);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + size, 1, cap - size, f);
        size += n;
        if (n == 0) {
            if (ferror(f))
                st = wd_fail(err, WD_ERR_IO, 0, "cannot read %s", path);
            break;
        }
    }
    fclose(f);
    if (st != WD_OK) {
        wd_free(&s->ctx, buf);
        return st;
    }
    *out = buf;
    *out_size = size;
    return WD_OK;
}

/* Reads and decodes `filename`; on success the module goes to *out (owned by the caller). */
static wd_status decode_file(script *s, const char *filename, wd_module **out, wd_error *err)
{
    *out = NULL;
    if (filename == NULL || *filename == '\0')
        return wd_fail(err, WD_ERR_IO, 0, "the command names no module file");
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", s->dir, filename);
    uint8_t *bytes = NULL;
    size_t size = 0;
    WD_TRY(read_file(s, path, &bytes, &size, err));
    wd_status st = wd_decode_module(&s->ctx, bytes, size, &s->dopts, out, err);
    wd_free(&s->ctx, bytes);
    return st;
}

/* Keeps `m` alive as long as the store (instances borrow their module). */
static wd_status keep(script *s, wd_module *m, wd_error *err)
{
    if (WD_VEC_PUSH(&s->ctx, &s->modules, m))
        return WD_OK;
    wd_module_free(m);
    return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
}

/* Links `m` and, unless link_only, instantiates it and runs its start function. *out is
 * the instance when one was made, even if initialisation then trapped. */
static wd_status instantiate(script *s, wd_module *m, bool link_only, wd_instance **out,
                             wd_error *err)
{
    *out = NULL;
    wd_extern *externs = wd_calloc(&s->ctx, m->import_count + 1u, sizeof *externs);
    if (externs == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    wd_status st = wd_link_resolve(m, resolve, s, externs, err);
    if (st == WD_OK && !link_only)
        st = wd_link_instantiate(s->store, m, externs, out, err);
    wd_free(&s->ctx, externs);
    if (st == WD_OK && !link_only && m->has_start) {
        wd_val none[1] = {{0}};
        st = invoke(s, (*out)->funcs[m->start_idx], none, err);
    }
    return st;
}

/* ---- values ---- */

static uint8_t type_code(const char *name)
{
    return name != NULL ? wd_valtype_parse(name, strlen(name)) : 0;
}

/* Unsigned decimal up to `max`. */
static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (text == NULL || *text == '\0')
        return false;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* The slot value of a JSON argument {"type": ..., "value": ...} of type `want`. */
static bool parse_arg(json_t *arg, uint8_t want, wd_val *out, char *why, size_t cap)
{
    uint8_t type = type_code(json_string_value(json_object_get(arg, "type")));
    const char *text = json_string_value(json_object_get(arg, "value"));
    out->u64 = 0;
    if (type != want) {
        snprintf(why, cap, "argument of type %s for a %s parameter", wd_valtype_name(type),
                 wd_valtype_name(want));
        return false;
    }
    bool ok = false;
    if (type == WD_I32 || type == WD_F32)
        ok = parse_u64(text, UINT32_MAX, &out->u64);
    else if (type == WD_I64 || type == WD_F64)
        ok = parse_u64(text, UINT64_MAX, &out->u64);
    else if (text != NULL && strcmp(text, "null") == 0)
        ok = true; /* a null reference is 0 */
    else if (type == WD_EXTERNREF && parse_u64(text, UINT64_MAX - 1, &out->u64)) {
        out->u64 += 1; /* host reference N is N + 1 */
        ok = true;
    }
    if (!ok)
        snprintf(why, cap, "cannot use %s value \"%s\"", wd_valtype_name(type),
                 text != NULL ? text : "(none)");
    return ok;
}

static void format_val(char *buf, size_t cap, uint8_t type, wd_val v)
{
    if (type == WD_I32) {
        snprintf(buf, cap, "i32:%" PRIu32, v.u32);
    } else if (type == WD_I64) {
        snprintf(buf, cap, "i64:%" PRIu64, v.u64);
    } else if (type == WD_F32) {
        uint32_t bits = v.u32;
        float f;
        memcpy(&f, &bits, sizeof f);
        snprintf(buf, cap, "f32:%.9g (0x%08" PRIx32 ")", (double)f, bits);
    } else if (type == WD_F64) {
        double d;
        memcpy(&d, &v.u64, sizeof d);
        snprintf(buf, cap, "f64:%.17g (0x%016" PRIx64 ")", d, v.u64);
    } else if (v.u64 == 0) {
        snprintf(buf, cap, "%s:null", wd_valtype_name(type));
    } else if (type == WD_EXTERNREF) {
        snprintf(buf, cap, "externref:%" PRIu64, v.u64 - 1);
    } else {
        snprintf(buf, cap, "%s:non-null", wd_valtype_name(type));
    }
}

/* Does `got` (of type `type`) match the expected JSON value? */
static bool value_matches(const char *text, uint8_t type, wd_val got)
{
    uint64_t want;
    if (type == WD_F32 && text != NULL && strncmp(text, "nan:", 4) == 0) {
        uint32_t mask = strcmp(text, "nan:canonical") == 0 ? 0x7FFFFFFFu : 0x7FC00000u;
        return (got.u32 & mask) == 0x7FC00000u;
    }
    if (type == WD_F64 && text != NULL && strncmp(text, "nan:", 4) == 0) {
        uint64_t quiet = 0x7FF8000000000000u;
        uint64_t mask = strcmp(text, "nan:canonical") == 0 ? 0x7FFFFFFFFFFFFFFFu : quiet;
        return (got.u64 & mask) == quiet;
    }
    if (type == WD_I32 || type == WD_F32)
        return parse_u64(text, UINT32_MAX, &want) && got.u32 == (uint32_t)want;
    if (type == WD_I64 || type == WD_F64)
        return parse_u64(text, UINT64_MAX, &want) && got.u64 == want;
    if (text != NULL && strcmp(text, "null") == 0)
        return got.u64 == 0;
    if (type == WD_EXTERNREF)
        return parse_u64(text, UINT64_MAX - 1, &want) && got.u64 == want + 1;
    return got.u64 != 0; /* a funcref value: any non-null reference */
}

static bool has_v128(json_t *values)
{
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v)
    {
        if (type_code(json_string_value(json_object_get(v, "type"))) == WD_V128)
            return true;
    }
    return false;
}

static bool type_has_v128(const wd_functype *t)
{
    for (uint32_t i = 0; i < t->param_count; i++)
        if (t->params[i] == WD_V128)
            return true;
    for (uint32_t i = 0; i < t->result_count; i++)
        if (t->results[i] == WD_V128)
            return true;
    return false;
}

/* ---- actions ---- */

static void log_ticks(script *s)
{
    if (s->opts->ticks_log != NULL)
        fprintf(s->opts->ticks_log, "%s:%ld ticks=%" PRIu64 "\n", s->wast, s->line,
                s->thread.ticks);
}

static bool invoke_action(script *s, wd_func *f, json_t *args, action_result *out)
{
    const wd_functype *type = f->type;
    if (has_v128(args) || type_has_v128(type)) {
        report(s, WD_SPEC_SKIP, "SIMD value");
        return false;
    }
    if (json_array_size(args) != type->param_count || type->param_count > MAX_ARGS) {
        report(s, WD_SPEC_FAIL, "%zu arguments for %" PRIu32 " parameters", json_array_size(args),
               type->param_count);
        return false;
    }
    wd_val vals[MAX_ARGS + 1] = {{0}};
    char why[160];
    for (uint32_t i = 0; i < type->param_count; i++) {
        if (!parse_arg(json_array_get(args, i), type->params[i], &vals[i], why, sizeof why)) {
            report(s, WD_SPEC_FAIL, "argument %" PRIu32 ": %s", i, why);
            return false;
        }
    }
    out->st = invoke(s, f, vals, &out->err);
    log_ticks(s);
    if (out->st == WD_OK) {
        out->results = wd_eval_results(&s->thread);
        out->types = type->results;
        out->count = type->result_count;
    }
    return true;
}

/* Runs an "invoke" or "get" action. False when it could not be run at all (a failure or
 * skip is then recorded). */
static bool run_action(script *s, json_t *action, action_result *out)
{
    memset(out, 0, sizeof *out);
    wd_error_clear(&out->err);
    json_t *mod = json_object_get(action, "module");
    json_t *field = json_object_get(action, "field");
    const char *kind = json_string_value(json_object_get(action, "type"));
    wd_instance *inst = s->current;
    if (mod != NULL) {
        const binding *b =
            lookup(s->names.data, s->names.count, json_string_value(mod), json_string_length(mod));
        inst = b != NULL ? b->inst : NULL;
    }
    wd_extern ext;
    if (inst == NULL) {
        report(s, WD_SPEC_FAIL, "no module instance to run the action on");
    } else if (!json_is_string(field) ||
               !find_export(inst, json_string_value(field), json_string_length(field), &ext)) {
        report(s, WD_SPEC_FAIL, "no export \"%s\"", or_none(json_string_value(field)));
    } else if (kind != NULL && strcmp(kind, "invoke") == 0 && ext.kind == WD_EXTERN_FUNC) {
        return invoke_action(s, ext.u.func, json_object_get(action, "args"), out);
    } else if (kind != NULL && strcmp(kind, "get") == 0 && ext.kind == WD_EXTERN_GLOBAL) {
        out->st = WD_OK;
        out->results = ext.u.global->val;
        out->types = &ext.u.global->type.type;
        out->count = 1;
        if (out->types[0] == WD_V128) {
            report(s, WD_SPEC_SKIP, "SIMD value");
            return false;
        }
        return true;
    } else {
        report(s, WD_SPEC_FAIL, "cannot %s export \"%s\"", kind != NULL ? kind : "(no type)",
               or_none(json_string_value(field)));
    }
    return false;
}

/* ---- commands ---- */

static void cmd_module(script *s, json_t *c)
{
    wd_error err;
    wd_error_clear(&err);
    wd_module *m;
    wd_instance *inst = NULL;
    wd_status st = decode_file(s, json_string_value(json_object_get(c, "filename")), &m, &err);
    if (st == WD_OK)
        st = keep(s, m, &err);
    if (st == WD_OK)
        st = instantiate(s, m, false, &inst, &err);
    s->current = st == WD_OK ? inst : NULL;
    json_t *name = json_object_get(c, "name");
    if (json_is_string(name) && !bind(s, false, name, s->current))
        st = wd_fail(&err, WD_ERR_NOMEM, 0, "out of memory");
    char buf[400];
    if (st == WD_OK)
        pass(s);
    else
        report(s, WD_SPEC_FAIL, "module failed: %s", describe(&err, st, buf, sizeof buf));
}

static void cmd_register(script *s, json_t *c)
{
    json_t *as = json_object_get(c, "as");
    json_t *name = json_object_get(c, "name");
    wd_instance *inst = s->current;
    if (json_is_string(name)) {
        const binding *b = lookup(s->names.data, s->names.count, json_string_value(name),
                                  json_string_length(name));
        inst = b != NULL ? b->inst : NULL;
    }
    if (inst == NULL || !json_is_string(as))
        report(s, WD_SPEC_FAIL, "register: no module instance");
    else if (!bind(s, true, as, inst))
        report(s, WD_SPEC_FAIL, "register: out of memory");
}

static void cmd_action(script *s, json_t *c)
{
    action_result ar;
    char buf[400];
    if (!run_action(s, json_object_get(c, "action"), &ar))
        return;
    if (ar.st == WD_OK)
        pass(s);
    else
        report(s, WD_SPEC_FAIL, "action failed: %s", describe(&ar.err, ar.st, buf, sizeof buf));
}

static void cmd_assert_return(script *s, json_t *c)
{
    json_t *expected = json_object_get(c, "expected");
    if (has_v128(expected)) {
        report(s, WD_SPEC_SKIP, "SIMD value");
        return;
    }
    action_result ar;
    char buf[400], want[96], got[96];
    if (!run_action(s, json_object_get(c, "action"), &ar))
        return;
    if (ar.st != WD_OK) {
        report(s, WD_SPEC_FAIL, "expected results, got %s",
               describe(&ar.err, ar.st, buf, sizeof buf));
        return;
    }
    if (json_array_size(expected) != ar.count) {
        report(s, WD_SPEC_FAIL, "expected %zu results, got %" PRIu32, json_array_size(expected),
               ar.count);
        return;
    }
    for (uint32_t i = 0; i < ar.count; i++) {
        json_t *e = json_array_get(expected, i);
        const char *text = json_string_value(json_object_get(e, "value"));
        uint8_t type = type_code(json_string_value(json_object_get(e, "type")));
        if (type == ar.types[i] && value_matches(text, type, ar.results[i]))
            continue;
        format_val(got, sizeof got, ar.types[i], ar.results[i]);
        snprintf(want, sizeof want, "%s:%s", wd_valtype_name(type), text != NULL ? text : "?");
        report(s, WD_SPEC_FAIL, "result %" PRIu32 ": expected %s, got %s", i, want, got);
        return;
    }
    pass(s);
}

/* assert_trap and assert_exhaustion on an action. */
static void cmd_assert_failure(script *s, json_t *c, wd_status want)
{
    const char *text = json_string_value(json_object_get(c, "text"));
    action_result ar;
    char buf[400];
    if (!run_action(s, json_object_get(c, "action"), &ar))
        return;
    if (ar.st != want) {
        report(s, WD_SPEC_FAIL, "expected %s \"%s\", got %s", wd_status_name(want),
               text != NULL ? text : "", describe(&ar.err, ar.st, buf, sizeof buf));
        return;
    }
    check_message(s, text, ar.err.msg);
    pass(s);
}

/* The status a module assertion got: decode only for malformed and invalid, decode and
 * link for unlinkable, everything up to the start function for uninstantiable. */
static wd_status try_module(script *s, json_t *c, wd_status want, wd_error *err)
{
    wd_module *m;
    wd_instance *inst;
    wd_status st = decode_file(s, json_string_value(json_object_get(c, "filename")), &m, err);
    if (st != WD_OK || want == WD_ERR_MALFORMED || want == WD_ERR_INVALID) {
        wd_module_free(m);
        return st;
    }
    if (want == WD_ERR_UNLINKABLE) {
        st = instantiate(s, m, true, &inst, err);
        wd_module_free(m);
        return st;
    }
    WD_TRY(keep(s, m, err));
    return instantiate(s, m, false, &inst, err);
}

/* assert_malformed, assert_invalid, assert_unlinkable, assert_uninstantiable (and
 * assert_trap on a module). */
static void cmd_assert_module(script *s, json_t *c, wd_status want)
{
    const char *type = json_string_value(json_object_get(c, "module_type"));
    if (type != NULL && strcmp(type, "binary") != 0) {
        report(s, WD_SPEC_SKIP, "%s module", type);
        return;
    }
    const char *text = json_string_value(json_object_get(c, "text"));
    wd_error err;
    wd_error_clear(&err);
    wd_status st = try_module(s, c, want, &err);
    /* A trap while initialising (a segment out of bounds, the start function) is how an
     * instance turns out uninstantiable. */
    bool ok = st == want || (want == WD_ERR_UNINSTANTIABLE && st == WD_TRAP);
    char buf[400];
    if (!ok) {
        report(s, WD_SPEC_FAIL, "expected %s \"%s\", got %s", wd_status_name(want),
               text != NULL ? text : "", describe(&err, st, buf, sizeof buf));
        return;
    }
    check_message(s, text, err.msg);
    pass(s);
}

static void dispatch(script *s, json_t *c)
{
    const char *t = s->cmd;
    if (strcmp(t, "module") == 0)
        cmd_module(s, c);
    else if (strcmp(t, "register") == 0)
        cmd_register(s, c);
    else if (strcmp(t, "action") == 0)
        cmd_action(s, c);
    else if (strcmp(t, "assert_return") == 0)
        cmd_assert_return(s, c);
    else if (strcmp(t, "assert_trap") == 0 && json_object_get(c, "action") == NULL)
        cmd_assert_module(s, c, WD_ERR_UNINSTANTIABLE);
    else if (strcmp(t, "assert_trap") == 0)
        cmd_assert_failure(s, c, WD_TRAP);
    else if (strcmp(t, "assert_exhaustion") == 0)
        cmd_assert_failure(s, c, WD_EXHAUSTED);
    else if (strcmp(t, "assert_malformed") == 0)
        cmd_assert_module(s, c, WD_ERR_MALFORMED);
    else if (strcmp(t, "assert_invalid") == 0)
        cmd_assert_module(s, c, WD_ERR_INVALID);
    else if (strcmp(t, "assert_unlinkable") == 0)
        cmd_assert_module(s, c, WD_ERR_UNLINKABLE);
    else if (strcmp(t, "assert_uninstantiable") == 0)
        cmd_assert_module(s, c, WD_ERR_UNINSTANTIABLE);
    else
        report(s, WD_SPEC_FAIL, "unknown command \"%s\"", t);
}

/* ---- a script ---- */

static bool script_init(script *s, wd_error *err)
{
    s->dopts.costs = wd_tickmodel_builtin("flat-1");
    s->dopts.pvm = false;
    s->dopts.no_fuse = s->opts->no_fuse;
    s->store = wd_store_new(&s->ctx);
    if (s->store == NULL) {
        wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
        return false;
    }
    if (wd_spectest_init(&s->spectest, s->store, err) != WD_OK)
        return false;
    if (wd_thread_init(&s->thread, &s->ctx, STACK_SLOTS, MAX_FRAMES, s->dopts.costs, err) != WD_OK)
        return false;
    s->thread_ready = true;
    return true;
}

/* Frees everything; the number of allocations left over (leaks). */
static size_t script_fini(script *s)
{
    if (s->thread_ready)
        wd_thread_fini(&s->thread);
    wd_store_free(s->store);
    for (uint32_t i = 0; i < s->modules.count; i++)
        wd_module_free(s->modules.data[i]);
    WD_VEC_FREE(&s->ctx, &s->modules);
    for (uint32_t i = 0; i < s->names.count; i++)
        wd_free(&s->ctx, s->names.data[i].name);
    for (uint32_t i = 0; i < s->registered.count; i++)
        wd_free(&s->ctx, s->registered.data[i].name);
    WD_VEC_FREE(&s->ctx, &s->names);
    WD_VEC_FREE(&s->ctx, &s->registered);
    return s->ctx.live;
}

static void set_names(script *s, json_t *root, const char *json_path)
{
    const char *src = json_string_value(json_object_get(root, "source_filename"));
    const char *name = src != NULL ? src : json_path;
    const char *slash = strrchr(name, '/');
    snprintf(s->wast, sizeof s->wast, "%s", slash != NULL ? slash + 1 : name);
    slash = strrchr(json_path, '/');
    if (slash == NULL)
        snprintf(s->dir, sizeof s->dir, ".");
    else
        snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash - json_path), json_path);
}

static void run_commands(script *s, json_t *commands, const char *skip_reason)
{
    size_t i;
    json_t *c;
    json_array_foreach(commands, i, c)
    {
        s->cmd = json_string_value(json_object_get(c, "type"));
        s->line = (long)json_integer_value(json_object_get(c, "line"));
        if (s->cmd == NULL)
            s->cmd = "(none)";
        if (skip_reason == NULL)
            dispatch(s, c);
        else if (strcmp(s->cmd, "register") != 0)
            report(s, WD_SPEC_SKIP, "%s", skip_reason);
    }
}

size_t wd_spec_run_script(wd_spec_runner *r, const char *json_path, const char *skip_reason,
                          char *wast, size_t wast_cap)
{
    script s;
    memset(&s, 0, sizeof s);
    wd_ctx_init(&s.ctx);
    s.r = r;
    s.opts = wd_spec_options(r);
    json_error_t jerr;
    json_t *root = json_load_file(json_path, JSON_ALLOW_NUL, &jerr);
    set_names(&s, root, json_path);
    json_t *commands = json_object_get(root, "commands");
    size_t count = json_array_size(commands);
    wd_error err;
    wd_error_clear(&err);
    s.cmd = "script";
    if (!json_is_array(commands)) {
        s.line = root == NULL && jerr.line > 0 ? jerr.line : 0;
        report(&s, WD_SPEC_FAIL, "cannot read %s: %s", json_path,
               root == NULL ? jerr.text : "no commands");
    } else if (skip_reason != NULL) {
        run_commands(&s, commands, skip_reason);
    } else if (!script_init(&s, &err)) {
        report(&s, WD_SPEC_FAIL, "cannot set up: %s", err.msg);
    } else {
        run_commands(&s, commands, NULL);
    }
    json_decref(root);
    snprintf(wast, wast_cap, "%s", s.wast);
    size_t leaked = script_fini(&s);
    if (leaked != 0) {
        s.line = 0;
        s.cmd = "leak";
        report(&s, WD_SPEC_FAIL, "%zu allocations not freed", leaked);
    }
    return count;
}
